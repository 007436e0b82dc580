package history

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestEntryJSONIsJSONs: a log line is written as json.Marshal writes it,
// byte for byte, and read as json.Unmarshal reads it, whatever the entry
// and whatever the line (the lines a prune rewrites, a torn line, another
// writer's spelling).
func TestEntryJSONIsJSONs(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	words := []string{"", "written", "seen", "restored", "a<b", `q"`, `back\slash`, "é", "\x01", "adefcdcf7074327009dd8a3fb6ca054b34c5e9e8"}
	zones := []*time.Location{time.UTC, time.FixedZone("x", 3600), time.FixedZone("y", -5*3600-30*60)}
	var entries []Entry
	for range 2000 {
		e := Entry{How: words[r.IntN(len(words))], Blob: words[r.IntN(len(words))], Lost: words[r.IntN(len(words))]}
		if r.IntN(4) > 0 {
			e.Revision = r.IntN(1000) - 10
			e.LostRevision = r.IntN(3) * r.IntN(100)
		}
		if r.IntN(5) > 0 {
			e.Time = time.Unix(r.Int64N(4e9), r.Int64N(1e9)*int64(r.IntN(2))).In(zones[r.IntN(len(zones))])
		}
		entries = append(entries, e)
	}
	entries = append(entries, Entry{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), How: "far"})
	var lines [][]byte
	for _, e := range entries {
		want, werr := json.Marshal(e)
		got := marshalEntry(e)
		if werr == nil && !bytes.Equal(got, want) {
			t.Fatalf("%#v: wrote %s, json writes %s", e, got, want)
		}
		lines = append(lines, got)
	}
	lines = append(lines, [][]byte{
		[]byte(`{"t":"2026-12-03T08:47:18.065599148Z","how":"written","rev":1,"blob":"ad"}`),
		[]byte(` { "how" : "seen" , "rev" : -0 } `), []byte(`{"how":"seen","rev":01}`), []byte(`{"how":"seen","rev":1.5}`),
		[]byte(`{"how":"seen","rev":1e2}`), []byte(`{"how":"seen","rev":99999999999999999999}`), []byte(`{"How":"seen"}`),
		[]byte(`{"how":"seen","x":1}`), []byte(`{"how":null}`), []byte(`{"t":"2026-13-03T08:47:18Z","how":"seen"}`),
		[]byte(`{"t":"2026-12-03 08:47:18Z","how":"seen"}`), []byte(`{"how":"seen","rev":2,"rev":3}`), []byte(`{"how":"se`),
		[]byte(`{"how":"seen"} {}`), []byte(`{"how":"s\u0065en"}`), []byte(`{"t":null,"how":"seen"}`), []byte(`{"how":"seen","rev":-}`),
	}...)
	for _, line := range lines {
		var want, got Entry
		werr := json.Unmarshal(line, &want)
		ok := unmarshalEntry(line, &got)
		if ok != (werr == nil) || (ok && !reflect.DeepEqual(got, want)) {
			t.Errorf("%s: read %#v (%v), json reads %#v (%v)", line, got, ok, want, werr)
		}
	}
}
