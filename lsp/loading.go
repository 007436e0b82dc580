package lsp

import (
	"context"
	"errors"
	"time"

	"github.com/tliron/glsp"

	"github.com/magicfrog/mf-lsp/session"
)

// While a tree loads (a large one takes seconds), the read loop goes on: a
// request that needs the tree is answered beside the loop instead. Editors ask
// for hover, lens and symbols the moment a file opens, so these wait a short
// grace for the load (a small tree is loaded by then and gets its real
// answer) and are then answered without it: ContentModified for hover (clients
// drop it quietly), no lens, no symbols, no actions. A save waits for the
// load itself: answered without the tree, it would be written without its
// revision bump (docs/protocol.md, "While memory loads").

// loadGrace is how long hover, lens, symbols and code actions wait for a
// loading tree before they are answered without it.
const loadGrace = 500 * time.Millisecond

// whenLoaded answers a request that needs the tree of path ("" is the main
// tree): on the loop when the tree is loaded (the common case: no goroutine),
// else beside the loop once it is, waiting at most wait (0: as long as the
// request is not cancelled), and with loading's answer if it still loads then.
func (s *Server) whenLoaded(path string, wait time.Duration, answer, loading func() (any, error)) (any, error) {
	if !s.sess.Loading(path) {
		return answer()
	}
	return Async(func(ctx context.Context) (any, error) {
		if wait > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, wait)
			defer cancel()
		}
		if _, err := s.sess.AwaitSnapshot(ctx, path); errors.Is(err, session.ErrLoading) {
			return loading()
		}
		return answer()
	}), nil
}

// rawParams turns a handler of decoded params into one glsp's dispatcher does
// not type, so that it may answer Async (whenLoaded): glsp's typed handlers
// return protocol types only.
func rawParams[P any](fn func(*P) (any, error)) RawHandler {
	return func(ctx *glsp.Context) (any, error) {
		var p P
		if err := decodeParams(ctx, &p); err != nil {
			return nil, err
		}
		return fn(&p)
	}
}

// pathOf is the file path of a URI, "" when it is not a file (whenLoaded then
// waits for the main tree).
func pathOf(uri string) string {
	p, _ := session.URIToPath(uri)
	return p
}
