package jsonrpc

import (
	"bytes"
	"io"
	"log"
	"strconv"
	"strings"
	"testing"
)

func frame(body string) string {
	return "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// opensBody reports whether in has a Content-Length header (anywhere, any
// case) whose value could open a body of at most limit bytes.
func opensBody(in []byte, limit int64) bool {
	low := bytes.ToLower(in)
	for {
		i := bytes.Index(low, []byte(headerMark))
		if i < 0 {
			return false
		}
		low = low[i+len(headerMark):]
		line, _, _ := bytes.Cut(low, []byte("\n"))
		if n, err := strconv.ParseInt(strings.TrimSpace(string(line)), 10, 64); err == nil && n >= 0 && n <= limit {
			return true
		}
	}
}

// FuzzStream feeds any bytes to the framing: it never panics, it ends at the end of
// input, and after junk that opens no message body the next well-formed message is
// still read.
func FuzzStream(f *testing.F) {
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
		r := newReader(bytes.NewReader(data), 1<<16, log.New(io.Discard, "", 0))
		sawSentinel := false
		for i := 0; i < len(data)+2; i++ {
			m, bad, err := r.next()
			if err != nil {
				break
			}
			if (m == nil) == (bad == nil) {
				t.Fatalf("next returned message %v and problem %v; want exactly one", m, bad)
			}
			if m != nil && m.Method == "fuzz/sentinel" {
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

// A message is decoded once into raw members: the handler gets params byte for byte
// as the peer wrote them (key order, spacing, number spelling), not re-encoded.
func TestParamsArriveAsSent(t *testing.T) {
	params := `{ "b": 1.50, "a" : [ 1e3 ,"\u00e9"] }`
	r := newReader(strings.NewReader(frame(`{"jsonrpc":"2.0","id":7,"method":"m","params":`+params+`}`)), 1<<10, log.New(io.Discard, "", 0))
	m, bad, err := r.next()
	if err != nil || bad != nil {
		t.Fatalf("next: %v %v", bad, err)
	}
	if string(m.Params) != params || m.Method != "m" || m.ID == nil || *m.ID != (ID{Num: 7}) {
		t.Errorf("read %+v params %s; want method m, id 7, params %s", m.Request, m.Params, params)
	}
}

// Absent params are nil and null params are "null", as handlers have always seen them.
func TestParamsAbsentOrNull(t *testing.T) {
	for body, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"m"}`:               "",
		`{"jsonrpc":"2.0","method":"m","params":null}`: "null",
	} {
		m, bad := decodeMessage([]byte(body))
		if bad != nil || string(m.Params) != want || (want == "") != (m.Params == nil) {
			t.Errorf("%s: params %q (nil %v), problem %v; want %q", body, m.Params, m.Params == nil, bad, want)
		}
	}
}

// BenchmarkReadDidOpen reads one frame of a 1 MiB document: one buffer of the
// frame's size, one decode.
func BenchmarkReadDidOpen(b *testing.B) {
	text := strings.Repeat("0123456789abcdef\n", 1<<20/17)
	data := []byte(frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x.md","languageId":"markdown","version":1,"text":"` + strings.ReplaceAll(text, "\n", `\n`) + `"}}}`))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		r := newReader(bytes.NewReader(data), DefaultMaxMessageBytes, log.New(io.Discard, "", 0))
		if m, _, err := r.next(); err != nil || m == nil {
			b.Fatal(err)
		}
	}
}

// Junk before a header is dropped by byte offset: junk that is not UTF-8 (which
// strings.ToLower would lengthen) crashed the server's read loop before.
func TestJunkThatIsNotUTF8BeforeAHeader(t *testing.T) {
	r := newReader(strings.NewReader("\x80\xe9\xdc0\x9d"+frame(`{"jsonrpc":"2.0","id":"m","method":"x"}`)), 1<<10, log.New(io.Discard, "", 0))
	m, bad, err := r.next()
	if err != nil || bad != nil || m.Method != "x" {
		t.Errorf("read %+v, %+v, %v; want the message after the junk", m, bad, err)
	}
}
