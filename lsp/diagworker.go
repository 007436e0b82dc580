package lsp

import (
	"sync"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// Diagnostics run beside the read loop, never inside a handler: a request sent
// right after an edit is answered from the document's current text while that
// edit's diagnostics are still being computed (a note's secret scan alone can
// take tens of milliseconds at 64 KB).
//
// The rules, per document URI:
//   - one run at a time (runs of one URI are serialized);
//   - the latest request wins: a run reads the document as it is when the run
//     starts, so versions superseded before then are never computed;
//   - so publishes never go backwards in version within one opening of a
//     document (LSP versions only grow while it is open);
//   - a closed document is cleared by the same worker, after any run of it, so
//     no late run republishes a closed document's diagnostics;
//   - shutdown drops the runs not yet started and waits for those in flight
//     (they still publish).
type diagWorker struct {
	s *Server

	mu      sync.Mutex
	pending map[protocol.DocumentUri]bool // uri -> a run is wanted
	running map[protocol.DocumentUri]bool // uri -> a goroutine serves it
	stopped bool
	wg      sync.WaitGroup
}

func newDiagWorker(s *Server) *diagWorker {
	return &diagWorker{
		s:       s,
		pending: map[protocol.DocumentUri]bool{},
		running: map[protocol.DocumentUri]bool{},
	}
}

// schedule asks for uri's diagnostics (or its clearing, when it is no longer
// open at run time). It returns at once.
func (w *diagWorker) schedule(uri protocol.DocumentUri) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return
	}
	w.pending[uri] = true
	if w.running[uri] {
		return // the running goroutine picks it up when its run ends
	}
	w.running[uri] = true
	w.wg.Add(1)
	go w.serve(uri)
}

func (w *diagWorker) serve(uri protocol.DocumentUri) {
	defer w.wg.Done()
	for {
		w.mu.Lock()
		if !w.pending[uri] || w.stopped {
			delete(w.pending, uri)
			delete(w.running, uri)
			w.mu.Unlock()
			return
		}
		delete(w.pending, uri)
		w.mu.Unlock()
		w.run(uri)
	}
}

// run publishes the diagnostics of uri's current version, or clears them when
// it is closed.
func (w *diagWorker) run(uri protocol.DocumentUri) {
	defer w.s.sess.Busy()() // a run answers the client too: background passes wait for it
	defer func() {
		if p := recover(); p != nil {
			w.s.log.Printf("panic in diagnostics of %s: %v", uri, p)
		}
	}()
	d, open := w.s.Docs.Get(uri)
	if !open {
		w.s.PublishDiagnostics(uri, nil, nil)
		return
	}
	if h := w.s.opts.beforeDiagnostics; h != nil {
		h(uri, d.Version)
		if cur, ok := w.s.Docs.Get(uri); !ok || cur != d {
			return // superseded or closed while held: its change scheduled the next run
		}
	}
	diags, ok := w.s.diagnosticsOf(d)
	if !ok {
		return // its tree loads: Loaded republishes
	}
	w.s.PublishDiagnostics(uri, &d.Version, diags)
}

// stop takes no more requests and waits for the runs in flight.
func (w *diagWorker) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
	w.wg.Wait()
}
