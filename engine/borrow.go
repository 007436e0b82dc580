package engine

import "sync"

// A request of the language server reads the notes its answer points into
// only to count positions in them (definition, references: the target, the
// chain of its key, each note linking to it) and drops them before it
// answers. Read into a new buffer each time, at 8-64 KB a note, that was most
// of what the server allocated while it answered (117 MB of a 200-request
// run at 100,000 notes), and its collector, which a large tree runs every
// 32 MB allocated (cmd/mf-lsp/heap.go), marked the whole tree in the middle
// of the requests every two seconds. BorrowText reads into a buffer lent from
// textBuffers and given back when the caller is done with the text.

// textBuffers holds the buffers BorrowText lends (*[]byte, empty, of any
// capacity). The pool drops what two collections found unused.
var textBuffers sync.Pool

// BorrowText is Text read into a lent buffer: src is valid until release is
// called, and release (which may be called more than once) gives the
// buffer back. A resident note's text is its own, and release does nothing.
// A caller that never calls release loses nothing but the reuse. A note that
// changed on disk since the load is told as Text tells it: src is nil and
// err the *ChangedError.
func (e *Note) BorrowText() (src []byte, release func(), err error) {
	if e.od == nil {
		return e.src, func() {}, nil
	}
	bp, _ := textBuffers.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	t := &textReader{buf: (*bp)[:0]}
	src, err = e.od.mem.readTextWith(e, t)
	t.close()
	if err != nil {
		e.od.mem.stale(e.Path)
		textBuffers.Put(bp)
		return nil, func() {}, err
	}
	var once sync.Once
	return src, func() {
		once.Do(func() {
			*bp = src[:0]
			textBuffers.Put(bp)
		})
	}, nil
}
