package participant

import "github.com/magicfrog/mf-lsp/engine"

// URIAt is the mf:// URI of the note at path, a file of the tree (a changed
// path a watcher reports); false when path is no note's place.
func (p *Participant) URIAt(path string) (string, bool) {
	loc, ok := p.m.Locate(path)
	if !ok || loc.Key == "" {
		return "", false
	}
	return URIScheme + "://" + engine.Ref(loc.Dimension, loc.Owner, loc.Key), true
}
