// Package watcher keeps a participant's tree in step with the disk for a
// long-lived front end (the MCP server). It is a package of its own so that
// what links engine/participant without watching (the hook binary, whose
// every call would run fsnotify's initializer) does not link the watcher.
package watcher

import (
	"github.com/magicfrog/mf-lsp/engine/participant"
	"github.com/magicfrog/mf-lsp/engine/watch"
)

// Start watches p's tree (watch.Start): changed gets each batch of changed
// paths once the tree is refreshed. It returns the function that stops
// watching.
func Start(p *participant.Participant, changed func(paths []string, changed bool), logf func(string, ...any)) (stop func(), err error) {
	w, err := watch.Start(p.Memory(), changed, logf)
	if err != nil {
		return nil, err
	}
	return func() { w.Close() }, nil
}
