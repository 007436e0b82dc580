// Package notetexts is the one table of texts that the tests of every check
// of what a note may be run (testdata/notecheck/texts.txtar): the loader,
// export/import, sync, the journal import and the host importers must answer
// the same for the same text as engine.CheckNote. Test support only.
package notetexts

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// Text is one row: a whole file and the rule it breaks ("" for a note).
type Text struct {
	Name string // what it is
	Rule string // too-large, nul-byte, not-utf8; "" when the text is a note
	Src  []byte
	File string // a file name for it: "N.md", N its row
}

// Table is the table, or the test fails.
func Table(t testing.TB) []Text {
	t.Helper()
	texts, err := load()
	if err != nil {
		t.Fatal(err)
	}
	return texts
}

// WriteFiles writes every text of the table into dir as its File (making
// dir) and returns the table.
func WriteFiles(t testing.TB, dir string) []Text {
	t.Helper()
	texts := Table(t)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tx := range texts {
		if err := os.WriteFile(filepath.Join(dir, tx.File), tx.Src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return texts
}

func load() ([]Text, error) {
	_, self, _, _ := runtime.Caller(0)
	file := filepath.Join(filepath.Dir(self), "..", "..", "..", "testdata", "notecheck", "texts.txtar")
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []Text
	for _, f := range txtar.Parse(b).Files {
		rule, name, ok := strings.Cut(f.Name, ": ")
		if !ok {
			return nil, fmt.Errorf("%s: %q: want \"RULE: what it is\"", file, f.Name)
		}
		if rule == "note" {
			rule = ""
		}
		src, err := decode(string(f.Data))
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %v", file, f.Name, err)
		}
		out = append(out, Text{Name: name, Rule: rule, Src: src, File: strconv.Itoa(len(out)) + ".md"})
	}
	return out, nil
}

// decode concatenates the lines of a row: Go quoted strings, or "N * QUOTED".
func decode(data string) ([]byte, error) {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSuffix(data, "\n"), "\n") {
		n := 1
		if count, rest, ok := strings.Cut(line, " * "); ok {
			var err error
			if n, err = strconv.Atoi(count); err != nil {
				return nil, fmt.Errorf("%q: %v", line, err)
			}
			line = rest
		}
		s, err := strconv.Unquote(line)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", line, err)
		}
		b.WriteString(strings.Repeat(s, n))
	}
	return []byte(b.String()), nil
}

// RuleIn is the rule a refusal's message names ("… not a note (RULE): …"),
// "" when it names none.
func RuleIn(reason string) string {
	_, rest, ok := strings.Cut(reason, "not a note (")
	if !ok {
		return ""
	}
	rule, _, _ := strings.Cut(rest, ")")
	return rule
}
