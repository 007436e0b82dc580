package engine

import (
	"encoding/json"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeFlatIsJSONs: where the fast path answers, its roster and binding
// are json.Unmarshal's, field for field (nil and empty slices told apart);
// where it does not, it leaves the value zero for json to decode.
func TestDecodeFlatIsJSONs(t *testing.T) {
	cases := []string{
		`{}`, ` { } `, `{"agents":["a","b"]}`, "{\n\t\"agents\" : [ \"a\" , \"b\" ] ,\r\n \"shared\":[]}\n",
		`{"agents":null}`, `{"agents":[]}`, `{"task":"T-1","tasks":["T-2"],"agents":["x"],"summarizer":"s","promote":"auto","transcripts":"~/t","shared":["py-3"]}`,
		`{"task":null}`, `{"task":"a","task":"b"}`, `{"agents":["a"],"agents":["b","c"]}`, `{"agents":["é🐸"]}`,
		// json's, not the fast path's:
		`{"Agents":["a"]}`, `{"agents":["a\"b"]}`, `{"agents":["a\u0041"]}`, `{"agents":[1]}`, `{"history":{"keep":3}}`,
		`{"journals":[{"path":"p","dimension":"task"}]}`, `{"other":1}`, `null`, `[]`, `{"agents":["a"]} x`, `{"agents":["a",]}`,
		`{"agents":["a"],}`, "{\"agents\":[\"a\x01\"]}", "{\"agents\":[\"\xff\"]}", `{"agents":"a"}`, `{"task":["a"]}`, `{`, ``, "\ufeff{}",
		`{"agents":["a"] "shared":[]}`, `{"task":nul}`, `{"tasks":[null]}`,
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{`{`, `}`, `[`, `]`, `,`, `:`, `"`, ` `, "\n", `"agents"`, `"task"`, `"tasks"`, `"shared"`, `"a"`, `"T-1"`, `null`, `1`, `\`, "é"}
	for range 3000 {
		var b strings.Builder
		if r.IntN(2) == 0 {
			b.WriteString(`{"agents":[`)
		}
		for range r.IntN(12) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	fast := 0
	for _, c := range cases {
		var rf, rj Roster
		okR := rf.decodeFlat([]byte(c))
		errR := json.Unmarshal([]byte(c), &rj)
		var bf, bj Binding
		okB := bf.decodeFlat([]byte(c))
		errB := json.Unmarshal([]byte(c), &bj)
		if okR {
			fast++
			if errR != nil || !reflect.DeepEqual(rf, rj) {
				t.Errorf("roster %q: fast %#v, json %#v (%v)", c, rf, rj, errR)
			}
		} else if !reflect.DeepEqual(rf, Roster{}) {
			t.Errorf("roster %q: the fast path refused and left %#v", c, rf)
		}
		if okB {
			if errB != nil || !reflect.DeepEqual(bf, bj) {
				t.Errorf("binding %q: fast %#v, json %#v (%v)", c, bf, bj, errB)
			}
		} else if !reflect.DeepEqual(bf, Binding{}) {
			t.Errorf("binding %q: the fast path refused and left %#v", c, bf)
		}
	}
	if fast < 8 {
		t.Errorf("the fast path answered %d cases", fast)
	}
}

// TestDecodeLayersFlatIsJSONs: layers.json's fast path answers as
// json.Unmarshal does, or not at all.
func TestDecodeLayersFlatIsJSONs(t *testing.T) {
	cases := []string{
		`{"layers": [{"name": "core", "prefix": ""}, {"name": "skills", "prefix": "skills/"}, {"name": "journal", "prefix": "journal/", "kind": "fractal"}]}`,
		`{}`, `{"layers":null}`, `{"layers":[]}`, `{"layers":[{}]}`, ` {"layers" : [ { "name" : "a" } ] } `,
		`{"layers":[{"name":"a","name":"b"}]}`, `{"layers":[{"name":null,"prefix":"p/"}]}`,
		// json's:
		`{"layers":[{"name":"a","kind":"fractal"}],"layers":[{"name":"b"}]}`, `{"layers":[{"Name":"a"}]}`,
		`{"layers":[{"name":"a","x":1}]}`, `{"other":[]}`, `{"layers":[{"name":"a"},]}`, `{"layers":{}}`, `null`,
		`{"layers":[{"name":"a\u0041"}]}`, `{"layers":[]} x`, `{"layers":[{"name":1}]}`, `{"layers":["a"]}`,
	}
	for _, c := range cases {
		var f struct {
			Layers []Layer `json:"layers"`
		}
		err := json.Unmarshal([]byte(c), &f)
		got, ok := decodeLayersFlat([]byte(c))
		if ok && (err != nil || !reflect.DeepEqual(got, f.Layers)) {
			t.Errorf("%q: fast %#v, json %#v (%v)", c, got, f.Layers, err)
		}
	}
	if _, ok := decodeLayersFlat([]byte(cases[0])); !ok {
		t.Errorf("the fast path refused %s", cases[0])
	}
}

// TestCleanAbs: cleanAbs is filepath.Clean(p) == p for absolute paths.
func TestCleanAbs(t *testing.T) {
	parts := []string{"/", "a", "b", ".", "..", "...", ".x", "x.", "//"}
	r := rand.New(rand.NewPCG(5, 6))
	for range 5000 {
		p := "/"
		for range r.IntN(6) {
			p += parts[r.IntN(len(parts))]
		}
		if got, want := cleanAbs(p), filepath.Clean(p) == p; got != want {
			t.Errorf("cleanAbs(%q) = %v, Clean gives %q", p, got, filepath.Clean(p))
		}
	}
}
