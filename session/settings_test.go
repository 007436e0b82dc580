package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseSettings(t *testing.T) {
	home, _ := os.UserHomeDir()
	tests := []struct {
		name     string
		raw      string
		want     Settings
		problems []string // substrings, one per expected problem, in order
	}{
		{"absent", ``, DefaultSettings(), nil},
		{"null", `null`, DefaultSettings(), nil},
		{"empty", `{}`, DefaultSettings(), nil},
		{"all", `{"dataDir":"/data/mf","task":"T-7","agents":["larry","moe","larry"],"machine":"3f9c","budget":4000,
			"autoRevision":false,"summarizer":" llm -m x ","today":"2026-10-20"}`,
			Settings{DataDir: "/data/mf", Task: "T-7", Agents: []string{"larry", "moe"}, Machine: "3f9c", Budget: 4000,
				AutoRevision: false, Summarizer: "llm -m x", Today: "2026-10-20"}, nil},
		{"home dir", `{"dataDir":"~/mf"}`, Settings{DataDir: filepath.Join(home, "mf"), AutoRevision: true}, nil},
		{"nulls are defaults", `{"task":null,"autoRevision":null}`, DefaultSettings(), nil},
		{"not an object", `["x"]`, DefaultSettings(), []string{"must be a JSON object"}},
		{"bad values keep defaults", `{"budget":"lots","today":"2026-02-30","task":"a/b","agents":["ok",3],"autoRevision":"yes","dataDir":"rel/dir","typo":1}`,
			DefaultSettings(), []string{
				"agents[1] must be a string", "autoRevision must be true or false", "budget must be a non-negative whole number",
				"dataDir must be an absolute path", "task must be a plain name", "today must be a date", "typo is not a known option"}},
		{"IDs the engine would refuse", `{"task":".hidden","agents":["a:b"]}`, DefaultSettings(),
			[]string{"agents[0] is not a usable ID", "task is not a usable ID"}},
		{"fractional budget", `{"budget":1.5}`, DefaultSettings(), []string{"budget"}},
		{"negative budget", `{"budget":-1}`, DefaultSettings(), []string{"budget"}},
		{"open loop days", `{"openLoopDays":14}`, Settings{AutoRevision: true, OpenLoopDays: 14}, nil},
		{"open loop days out of range", `{"openLoopDays":0}`, DefaultSettings(), []string{"openLoopDays must be a whole number of days"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := ParseSettings(json.RawMessage(tt.raw))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("settings = %+v\nwant       %+v", got, tt.want)
			}
			if len(problems) != len(tt.problems) {
				t.Fatalf("problems = %v; want %d", problems, len(tt.problems))
			}
			for i, p := range problems {
				if !strings.Contains(p.Error(), tt.problems[i]) || !strings.HasPrefix(p.Error(), "initializationOptions") {
					t.Errorf("problem %d = %q; want it to mention %q", i, p, tt.problems[i])
				}
			}
		})
	}
}
