package jsonrpc

import (
	"bytes"
	"encoding/json"
	"sync"
)

// encoded is one outgoing message's JSON in a pooled buffer: the outbox
// releases it once written, so a reply leaves no copy of itself behind. At
// 100,000 notes a completion list is about 30 KB, and json.Marshal's copy of
// each was a third of what the server's requests allocated, so of how often
// the collector marked the loaded tree beside them.
type encoded struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// maxPooled is the largest buffer kept for reuse: a rare huge reply (every
// symbol of the tree) is not held for the connection's life.
const maxPooled = 256 << 10

var encodedPool = sync.Pool{New: func() any {
	e := new(encoded)
	e.enc = json.NewEncoder(&e.buf) // HTML escaped, as json.Marshal does
	return e
}}

// encode is msg's JSON, the bytes json.Marshal gives, in a pooled buffer.
func encode(msg any) (*encoded, error) {
	e := encodedPool.Get().(*encoded)
	e.buf.Reset()
	if err := e.enc.Encode(msg); err != nil {
		e.release()
		return nil, err
	}
	e.buf.Truncate(e.buf.Len() - 1) // Encode's newline
	return e, nil
}

// Bytes is the message; valid until release.
func (e *encoded) Bytes() []byte { return e.buf.Bytes() }

// release returns the buffer to the pool; e must not be used after.
func (e *encoded) release() {
	if e == nil || e.buf.Cap() > maxPooled {
		return
	}
	encodedPool.Put(e)
}
