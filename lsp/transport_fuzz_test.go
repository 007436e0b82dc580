package lsp

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"testing"
)

// discardRWC reads a fixed input and throws writes away.
type discardRWC struct{ io.Reader }

func (discardRWC) Write(p []byte) (int, error) { return len(p), nil }
func (discardRWC) Close() error                { return nil }

// FuzzStream feeds any bytes to the server's JSON-RPC framing: it never panics,
// it ends at the end of input, and after junk that opens no message body the
// next well-formed message is still read.
func FuzzStream(f *testing.F) {
	frame := func(body string) string { return "Content-Length: " + itoa(len(body)) + "\r\n\r\n" + body }
	for _, s := range []string{
		frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`),
		"Content-Length: 5\r\n\r\n{\"a\":",
		"garbage\r\n\r\n" + frame(`{"jsonrpc":"2.0","method":"x"}`),
		"Content-Length: -1\r\n\r\n", "Content-Length: 99999999999999999999\r\n\r\n",
		"Content-Type: x\r\n\r\n{}", frame(`[1,2]`), frame(`{"jsonrpc":"2.0","id":{},"method":1}`),
		"\r\n\r\n\r\n", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}}",
	} {
		f.Add([]byte(s))
	}
	const sentinel = `{"jsonrpc":"2.0","method":"fuzz/sentinel"}`
	f.Fuzz(func(t *testing.T, in []byte) {
		// The sentinel follows the input after a blank line, so a header the
		// input left open is closed by its own blank line first.
		data := append(append([]byte(nil), in...), []byte("\r\n\r\n"+frame(sentinel))...)
		st := newStream(discardRWC{bytes.NewReader(data)}, 1<<16, log.New(io.Discard, "", 0))
		defer st.Close()
		sawSentinel := false
		for i := 0; i < len(data)+2; i++ {
			var msg json.RawMessage
			if err := st.ReadObject(&msg); err != nil {
				break
			}
			if bytes.Contains(msg, []byte("fuzz/sentinel")) {
				sawSentinel = true
			}
		}
		// Input with no Content-Length header cannot open a body that swallows
		// the sentinel: whatever junk it is, the stream resynchronizes on it.
		if !bytes.Contains(bytes.ToLower(in), []byte("content-length")) && !sawSentinel {
			t.Fatalf("after %q the next message was not read", in)
		}
	})
}
