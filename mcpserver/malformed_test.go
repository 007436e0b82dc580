package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/mcpserver"
)

// rawSession speaks newline-delimited JSON-RPC to the server's stdio
// transport, line by line, as a careless client would.
type rawSession struct {
	t   *testing.T
	in  *io.PipeWriter
	out chan map[string]json.RawMessage
}

func startRaw(t *testing.T) *rawSession {
	t.Helper()
	_, srv := newServer(t)
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx, mcpserver.Stdio(sr, sw)); sw.Close() }()
	s := &rawSession{t: t, in: cw, out: make(chan map[string]json.RawMessage, 100)}
	go func() {
		sc := bufio.NewScanner(cr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the server wrote a line that is not a JSON object: %q", sc.Text())
				continue
			}
			s.out <- m
		}
		close(s.out)
	}()
	t.Cleanup(func() {
		cancel()
		cw.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
		}
	})
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if r := s.next(); string(r["id"]) != `"init"` || r["result"] == nil {
		t.Fatalf("initialize: %v", r)
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatalf("write: %v (the session ended)", err)
	}
}

// next is the server's next response (notifications are skipped).
func (s *rawSession) next() map[string]json.RawMessage {
	s.t.Helper()
	for {
		select {
		case m, ok := <-s.out:
			if !ok {
				s.t.Fatal("the server closed its output: the session ended")
			}
			if _, isNote := m["method"]; isNote {
				continue
			}
			return m
		case <-time.After(10 * time.Second):
			s.t.Fatal("no response within 10 s")
		}
	}
}

// TestMalformedLines (issue 22): each line the SDK's transport could not
// take used to end the session without a reply. Each now gets a JSON-RPC
// error (-32700 not JSON, -32600 not a message; id null unless the request's
// id could be read), and the next valid request still gets its answer.
func TestMalformedLines(t *testing.T) {
	s := startRaw(t)
	deep := strings.Repeat("[", 10000)
	ping := func(id int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id) }
	for i, tc := range []struct {
		name, line string
		code       int
		id         string
	}{
		{"empty batch", `[]`, -32600, "null"},
		{"null", `null`, -32600, "null"},
		{"a number", `42`, -32600, "null"},
		{"a string", `"ping"`, -32600, "null"},
		{"batch", "[" + ping(900) + "," + ping(901) + "]", -32600, "null"},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":902,"method":"ping"}`, -32600, "902"},
		{"no jsonrpc", `{"id":903,"method":"ping"}`, -32600, "903"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, -32600, "null"},
		{"bool id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, -32600, "null"},
		{"huge number id", `{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, -32600, "null"},
		{"method not a string", `{"jsonrpc":"2.0","id":904,"method":5}`, -32600, "904"},
		{"neither method nor id", `{"jsonrpc":"2.0"}`, -32600, "null"},
		{"response with a bad error", `{"jsonrpc":"2.0","id":905,"error":5}`, -32600, "null"},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":906,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}", -32700, "null"},
		{"invalid UTF-8 outside strings", "\xff", -32700, "null"},
		{"10,000 deep, open", deep, -32700, "null"},
		{"10,000 deep, closed", deep + strings.Repeat("]", 10000), -32700, "null"},
		{"10,000 deep in params", `{"jsonrpc":"2.0","id":907,"method":"ping","params":{"a":` + deep + strings.Repeat("]", 10000) + `}}`, -32700, "null"},
		{"truncated", `{"jsonrpc":"2.0","id":908,`, -32700, "null"},
		{"two values", ping(909) + " " + ping(910), -32700, "null"},
	} {
		s.send(tc.line)
		r := s.next()
		var e struct {
			Code    int
			Message string
		}
		if err := json.Unmarshal(r["error"], &e); err != nil || e.Code != tc.code || string(r["id"]) != tc.id || string(r["jsonrpc"]) != `"2.0"` || e.Message == "" {
			t.Errorf("%s: got %v; want error %d with id %s", tc.name, r, tc.code, tc.id)
		}
		// A blank line is skipped; the next valid request is answered.
		s.send("")
		s.send(ping(i))
		if r := s.next(); string(r["id"]) != fmt.Sprint(i) || r["result"] == nil {
			t.Fatalf("after %s: ping %d got %v", tc.name, i, r)
		}
	}
	// A tool call still works at the end.
	s.send(`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"memory_view","arguments":{}}}`)
	if r := s.next(); string(r["id"]) != `"last"` || r["result"] == nil {
		t.Fatalf("tools/call after the malformed lines: %v", r)
	}
}

// TestHTTPOrigin (issue 22): over HTTP a browser's cross-origin request is
// refused (403) unless the user allowed remote; this machine's origins and
// requests without Origin (agent hosts, scripts) are served.
func TestHTTPOrigin(t *testing.T) {
	_, srv := newServer(t)
	local := httptest.NewServer(srv.HTTPHandler(false))
	defer local.Close()
	remote := httptest.NewServer(srv.HTTPHandler(true))
	defer remote.Close()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"web","version":"1"}}}`
	for _, tc := range []struct {
		server *httptest.Server
		origin string
		want   int
	}{
		{local, "", http.StatusOK},
		{local, "http://localhost:5173", http.StatusOK},
		{local, "http://127.0.0.1:8080", http.StatusOK},
		{local, "https://[::1]", http.StatusOK},
		{local, "https://evil.example", http.StatusForbidden},
		{local, "http://localhost.evil.example", http.StatusForbidden},
		{local, "http://192.168.1.20:3000", http.StatusForbidden},
		{local, "null", http.StatusForbidden},
		{local, "file://", http.StatusForbidden},
		{remote, "https://evil.example", http.StatusOK},
	} {
		req, err := http.NewRequest(http.MethodPost, tc.server.URL, strings.NewReader(initialize))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Origin %q (allow remote %v): %d %s; want %d", tc.origin, tc.server == remote, resp.StatusCode, body, tc.want)
		}
		if tc.want == http.StatusForbidden && !strings.Contains(string(body), "--allow-remote") {
			t.Errorf("Origin %q: refusal %q does not say how to allow it", tc.origin, body)
		}
	}
}
