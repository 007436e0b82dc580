package participant

import (
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/watch"
)

// Watch keeps the participant's tree in step with the disk (watch.Start):
// changed gets each batch of changed paths once the tree is refreshed. It
// returns the function that stops watching.
func (p *Participant) Watch(changed func(paths []string, changed bool), logf func(string, ...any)) (stop func(), err error) {
	w, err := watch.Start(p.m, changed, logf)
	if err != nil {
		return nil, err
	}
	return func() { w.Close() }, nil
}

// URIAt is the mf:// URI of the note at path, a file of the tree (a changed
// path a watcher reports); false when path is no note's place.
func (p *Participant) URIAt(path string) (string, bool) {
	loc, ok := p.m.Locate(path)
	if !ok || loc.Key == "" {
		return "", false
	}
	return URIScheme + "://" + engine.Ref(loc.Dimension, loc.Owner, loc.Key), true
}
