package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/internal/synth"
)

// TestMain lets the test binary be the floor process, as the command is.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == floorArg {
		fmt.Println(synth.Floor(os.Args[2:]))
		os.Exit(0)
	}
	if len(os.Args) == 3 && os.Args[1] == scopeFloorArg {
		fmt.Println(synth.ScopeFloor(os.Args[2]))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestSmoke runs the whole benchmark once on a small tree: every path runs
// and answers, the tables come out. Nothing here is timed against a target;
// the figures are the command's to report, not a test's to assert.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs processes")
	}
	var out bytes.Buffer
	if err := run([]string{"-n", "100,300", "-runs", "1", "-requests", "10"}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{
		"| floor of render's scope |", "| render |", "| render --budget=8000 |", "| render --budget=8000, empty cache |",
		"| tree |", "| check |", "| first workspace/symbol over stdio |", "| mcp: initialize + first memory_context |",
		"| memory_read, lines 1-10 |", "| memory_search |", "| peak RSS of mf-lsp mcp |",
		"| version | mf-lsp |", "| version | mf-hook |", "| append | mf-hook |", "| render | mf-hook |", "| start-up | binary | CPU floor |", "| path | 100 → 300 |",
		"| hover |", "| codeLens |", "| definition |", "| completion |", "| references |", "| completion, first after didChange |", "| references, first after a write on disk |", "| didChange → publishDiagnostics |", "| peak RSS of the server |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q row in:\n%s", want, out.String())
		}
	}
	t.Log("\n" + out.String())
}
