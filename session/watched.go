package session

import (
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/watch"
)

// Watched is a tree kept in step with the disk for a front end that holds
// one tree (`mf-lsp mcp`), as a Session does per project.
type Watched struct {
	w *watch.Watcher
}

// OpenWatched loads a tree and watches it from the load's own walk
// (watch.Open); changed is called with the paths of every batch the watcher
// applies. A watcher that cannot be made is logged and the tree is still
// returned: Watching says so. Like the language server's trees, a watched
// tree is long-lived and reads its large notes' text on demand
// (engine.Options.BodiesOnDemand), whatever opts says.
func OpenWatched(opts engine.Options, changed func(paths []string, changed bool), logf func(string, ...any)) (*engine.Memory, *Watched, error) {
	opts.BodiesOnDemand = true
	m, w, err := watch.Open(opts, func(_ *engine.Memory, paths []string, ch bool) { changed(paths, ch) }, logf)
	return m, &Watched{w: w}, err
}

// Watching reports whether the disk is watched.
func (w *Watched) Watching() bool { return w != nil && w.w != nil }

// Close stops watching.
func (w *Watched) Close() {
	if w.Watching() {
		w.w.Close()
	}
}
