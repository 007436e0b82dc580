package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// members agrees with encoding/json on the top-level members of valid
// objects: escaped keys, brackets and quotes inside strings, spacing,
// duplicates (the later wins), every kind of value.
func TestMembersAgreesWithDecoding(t *testing.T) {
	for _, src := range []string{
		`{}`,
		` { } `,
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		"{ \"id\" :\t-1.5e3 ,\n\"method\" : \"a\\\"b\" , \"params\":{\"x\":\"]}\\\\\",\"y\":[1,{\"z\":\"[\"}]}}",
		`{"\u006dethod":"escaped key","id":null,"ok":true,"no":false,"list":[[],[[]],{}]}`,
		`{"id":1,"id":"two"}`,
		`{"result":"}","error":{"code":-1,"message":"m"}}`,
	} {
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(src), &want); err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		got := members([]byte(src))
		if len(got) != len(want) {
			t.Errorf("%s: members %q, want %q", src, got, want)
			continue
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Errorf("%s: member %q is %q, want %q", src, k, got[k], v)
			}
		}
	}
}

// A line over the limit is answered and skipped without being held whole
// (the bufio buffer is 64 KiB; the line is four times that), and the lines
// around it pass; a line at the limit passes.
func TestLineFilterTooLong(t *testing.T) {
	const max = 200 << 10
	defer func(d time.Duration) { drainTimeout = d }(drainTimeout)
	drainTimeout = 0 // nothing answers the pings here
	ok := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	atLimit := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":"` + strings.Repeat("x", max-len(`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":""}}`)) + `"}}`
	long := `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"` + strings.Repeat("x", 4*max) + `"}}`
	var out bytes.Buffer
	f := &lineFilter{r: bufio.NewReaderSize(strings.NewReader(ok+"\n"+long+"\r\n"+atLimit+"\r\n"+ok), 64<<10), out: &lockedWriter{w: &out, pend: &inFlight{ids: map[string]bool{}}}, pend: &inFlight{ids: map[string]bool{}}, max: max}
	got, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := ok + "\n" + atLimit + "\n" + ok + "\n"; string(got) != want {
		t.Errorf("passed on %d bytes, want %d", len(got), len(want))
	}
	if !strings.Contains(out.String(), `"id":null,"error":{"code":-32600,"message":"Invalid Request: message larger than 204800 bytes`) {
		t.Errorf("reply: %.200s", out.String())
	}
}
