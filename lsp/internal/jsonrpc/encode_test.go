package jsonrpc

import (
	"context"
	"encoding/json"
	"io"
	"log"
	"net"
	"runtime"
	"strings"
	"testing"
)

// A reply is encoded into a pooled buffer, the same bytes json.Marshal gives,
// and its buffer reused once written: a 30 KB completion list no longer
// leaves 30 KB of garbage a request (engine/internal/coldbench, the latency
// run's collector cycles).
func TestEncodeReusesItsBuffer(t *testing.T) {
	type item struct {
		Label string `json:"label"`
		Text  string `json:"text"`
	}
	items := make([]item, 100)
	for i := range items {
		items[i] = item{Label: strings.Repeat("topics/t04/topic-", 10), Text: "<a & b>"}
	}
	msg := resultResponse{JSONRPC: "2.0", ID: &ID{Num: 7}, Result: items}
	want, err := json.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) < 20_000 {
		t.Fatalf("the reply is %d bytes; want a large one", len(want))
	}
	b, err := encode(msg)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b.Bytes()); got != string(want) {
		t.Fatalf("encode differs from json.Marshal:\n%s\n%s", got, want)
	}
	b.release()
	if raceEnabled {
		return
	}

	const runs = 200
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range runs {
		b, err := encode(msg)
		if err != nil {
			t.Fatal(err)
		}
		b.release()
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > uint64(len(want))/4 {
		t.Errorf("encoding a %d-byte reply allocates %d bytes a time; want its buffer reused", len(want), per)
	}
}

type releasing struct {
	Items    []int `json:"items"`
	released *int
}

func (r releasing) Release() { *r.released++ }

// A result that borrowed what it holds is told once its reply is encoded,
// and only then.
func TestAnswerReleasesTheResultOnceEncoded(t *testing.T) {
	srv, cli := net.Pipe()
	defer cli.Close()
	c := NewConn(context.Background(), srv, Options{Log: log.New(io.Discard, "", 0)})
	defer c.Close()
	got := make(chan string, 1)
	go func() {
		b := make([]byte, 4096)
		n, _ := io.ReadAtLeast(cli, b, 1)
		got <- string(b[:n])
	}()
	released := 0
	c.answer(&Request{ID: &ID{Num: 1}, Method: "x"}, releasing{Items: []int{1, 2}, released: &released}, nil)
	if released != 1 {
		t.Errorf("released %d times; want once", released)
	}
	if reply := <-got; !strings.Contains(reply, `"result":{"items":[1,2]}`) {
		t.Errorf("the reply is %q", reply)
	}
}
