package lsp

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"strconv"
	"strings"
	"testing"
)

// discardRWC reads a fixed input and throws writes away.
type discardRWC struct{ io.Reader }

func (discardRWC) Write(p []byte) (int, error) { return len(p), nil }
func (discardRWC) Close() error                { return nil }

// opensBody reports whether in has a Content-Length header (anywhere, any
// case) whose value could open a body of at most limit bytes.
func opensBody(in []byte, limit int64) bool {
	low := bytes.ToLower(in)
	for {
		i := bytes.Index(low, []byte("content-length:"))
		if i < 0 {
			return false
		}
		low = low[i+len("content-length:"):]
		line, _, _ := bytes.Cut(low, []byte("\n"))
		if n, err := strconv.ParseInt(strings.TrimSpace(string(line)), 10, 64); err == nil && n >= 0 && n <= limit {
			return true
		}
	}
}

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
		// Absurd lengths (issue 14): the body is skipped up to the next header,
		// never waited for.
		"Content-Length: 9223372036854775807\r\n\r\n{\"jsonrpc\":\"2.0\"",
		"Content-Length: 9223372036854775807\r\n\r\n",
		"content-length:9223372036854775806\r\ncontent-type: x\r\n\r\nzzzz",
		"Content-Length: 65537\r\n\r\n" + strings.Repeat("x", 70000),
		"Content-Length: 4294967296\r\n\r\nCONTENT-LENGTH: 18446744073709551616\r\n\r\n",
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
		// Nor can a header whose length is over the limit: its body is skipped
		// to the next header (the sentinel's) instead of being waited for.
		if !sawSentinel && !opensBody(in, 1<<16) {
			t.Fatalf("after %q (lengths only over the limit) the next message was not read", truncate(string(in), 200))
		}
	})
}
