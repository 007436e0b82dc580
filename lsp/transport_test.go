package lsp

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tliron/glsp"
)

// A client that stops reading while the server pushes: the pushes fail once the
// outgoing queue holds its 64 MiB, the session ends (exit code 1), and Serve returns
// instead of holding ever more memory.
func TestClientThatStopsReadingEndsTheSession(t *testing.T) {
	logs := &syncBuffer{}
	s := NewServer(Options{Log: logs})
	s.extra["test/flood"] = func(*glsp.Context) (any, error) {
		params := map[string]string{"message": strings.Repeat("x", 1<<20)}
		for range 100 { // 100 MiB, well over the queue's bound
			s.Notify("window/logMessage", params)
		}
		return nil, nil
	}
	srv, cli := net.Pipe() // the client writes but never reads
	defer cli.Close()
	served := make(chan error, 1)
	go func() { served <- s.Serve(context.Background(), srv) }()
	for _, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"test/flood"}`,
	} {
		if _, err := io.WriteString(cli, "Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err := <-served:
		if !errors.Is(err, ErrExitWithoutShutdown) {
			t.Errorf("Serve returned %v; want ErrExitWithoutShutdown", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return within 30 s of the client's queue filling up")
	}
	if !strings.Contains(logs.String(), "the peer is not reading") {
		t.Errorf("the log does not say why the session ended:\n%.2000s", logs.String())
	}
}
