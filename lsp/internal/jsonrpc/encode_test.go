package jsonrpc

import (
	"encoding/json"
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
