package lsp_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/lsp/internal/jsonrpc"

	"github.com/magicfrog/mf-lsp/session"
)

// magicfrog.renderInto keeps the managed section of the project's CLAUDE.md:
// appended, then unchanged, every byte outside the markers kept.
func TestCommandRenderInto(t *testing.T) {
	c, _, project := startDemo(t)
	host := filepath.Join(project, "CLAUDE.md")
	mine := "# For agents\r\n\r\nRun make.\r\n"
	if err := os.WriteFile(host, []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	var res struct {
		Path, URI, Outcome, Generation string
		Tokens                         int
	}
	mustExec(t, c, "magicfrog.renderInto", map[string]any{}, &res)
	if res.Path != host || res.URI != session.PathToURI(host) || res.Outcome != "appended" || len(res.Generation) != 8 || res.Tokens == 0 {
		t.Fatalf("renderInto: %+v", res)
	}
	b, _ := os.ReadFile(host)
	if !strings.HasPrefix(string(b), mine+"\r\n<!-- mf-lsp:begin") || !strings.Contains(string(b), `task="T-7"`) {
		t.Errorf("CLAUDE.md:\n%q", b)
	}
	mustExec(t, c, "magicfrog.renderInto", map[string]any{"file": "CLAUDE.md"}, &res)
	if res.Outcome != "unchanged" {
		t.Errorf("second renderInto: %+v", res)
	}
	wantInvalidParams(t, c, "magicfrog.renderInto", map[string]any{"budget": -1}, "budget")
}

// magicfrog.skillsInto writes the skills in scope as .claude/skills/<name>/
// SKILL.md in the workspace (issue 24): created, then unchanged; a folder
// outside the workspace is refused.
func TestCommandSkillsInto(t *testing.T) {
	c, _, project := startDemo(t)
	var res session.SkillsWritten
	mustExec(t, c, "magicfrog.skillsInto", map[string]any{}, &res)
	want := filepath.Join(project, ".claude", "skills")
	if res.Dir != want || len(res.Files) == 0 {
		t.Fatalf("skillsInto: %+v", res)
	}
	for _, f := range res.Files {
		if f.Outcome != session.SkillCreated {
			t.Errorf("first skillsInto: %+v", f)
		}
		b, err := os.ReadFile(f.File)
		if err != nil || !session.ManagedSkill(b) || !strings.Contains(string(b), "name: "+f.Name+"\n") {
			t.Errorf("%s: %q, %v", f.File, b, err)
		}
	}
	mustExec(t, c, "magicfrog.skillsInto", map[string]any{"dir": ".claude/skills"}, &res)
	for _, f := range res.Files {
		if f.Outcome != session.SkillUnchanged {
			t.Errorf("second skillsInto: %+v", f)
		}
	}
	outside := t.TempDir()
	_, err := execCommand(c, "magicfrog.skillsInto", map[string]any{"dir": outside})
	var e *jsonrpc.Error
	if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "outside the workspace") ||
		!strings.Contains(string(e.Data), `"code":"forbidden"`) {
		t.Errorf("skillsInto %s: %v; want InvalidParams, forbidden", outside, err)
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("skillsInto wrote outside the workspace: %v", ents)
	}
}

// magicfrog.render {details: true}: for whom, tokens per group and in total
// against the budget, and where the left-out notes are.
func TestCommandRenderDetails(t *testing.T) {
	c, _, _ := startDemo(t)
	var d struct {
		Text, Generation string
		Tokens, Budget   int
		Header           []string
		Groups           []struct {
			Name         string
			Line, Tokens int
			Notes        int
		}
		Omitted []struct {
			Ref, Reason  string
			Tokens, Line int
		}
	}
	var plain struct{ Tokens int }
	mustExec(t, c, "magicfrog.render", map[string]any{"details": true}, &plain)
	if plain.Tokens == 0 {
		t.Errorf("details without a budget: 0 tokens (the block was not counted)")
	}
	mustExec(t, c, "magicfrog.render", map[string]any{"details": true, "budget": 120}, &d)
	lines := strings.Split(d.Text, "\n")
	if len(d.Header) != 2 || !strings.Contains(d.Header[0], "task T-7 · agent larry · machine 3f9c2a7e5b10d4c8") ||
		!strings.Contains(d.Header[1], "tokens of a 120 budget") || !strings.Contains(d.Header[1], "left out by the budget") {
		t.Errorf("header: %q", d.Header)
	}
	if len(d.Groups) == 0 || d.Groups[0].Name != `task id="T-7"` || lines[d.Groups[0].Line] != `<task id="T-7">` {
		t.Errorf("groups: %+v", d.Groups)
	}
	sum := 0
	for _, g := range d.Groups {
		sum += g.Tokens
	}
	if sum == 0 || sum > d.Tokens {
		t.Errorf("group tokens %d, block %d", sum, d.Tokens)
	}
	if len(d.Omitted) == 0 {
		t.Fatalf("budget 120 left nothing out")
	}
	for _, o := range d.Omitted {
		// The budget's lines carry tokens; an unregistered folder's do not.
		if !strings.HasPrefix(lines[o.Line], `<omitted path="`+o.Ref+`"`) || (o.Reason == "budget") != (o.Tokens > 0) {
			t.Errorf("omitted %+v is not at its line %q", o, lines[o.Line])
		}
	}
}

// magicfrog.renderInto writes only a Markdown file of the workspace outside
// the project's .magicfrog/ and the data directory (issue 22): a file outside
// the workspace, a shell script in it, the binding and a note are refused
// with InvalidParams, error data code "forbidden", and nothing written.
func TestCommandRenderIntoRefuses(t *testing.T) {
	c, data, project := startDemo(t)
	outside := filepath.Join(t.TempDir(), "CLAUDE.md")
	script := filepath.Join(project, "hook.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho hook\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	binding := filepath.Join(project, ".magicfrog", "config.json")
	note := filepath.Join(data, "memory", "user", "boot.md")
	for _, tc := range []struct {
		file, want string
		check      string // the file that must be unchanged (or stay missing)
	}{
		{outside, "is outside the workspace", outside},
		{string(session.PathToURI(outside)), "is outside the workspace", outside},
		{"../elsewhere.md", "is outside the workspace", filepath.Join(filepath.Dir(project), "elsewhere.md")},
		{"hook.sh", "is not a Markdown file", script},
		{filepath.Join(t.TempDir(), "run.sh"), "is outside the workspace", ""},
		{".magicfrog/config.json", "is inside the project's .magicfrog/", binding},
		{note, "is inside the data directory", note},
	} {
		var before []byte
		if tc.check != "" {
			before, _ = os.ReadFile(tc.check)
		}
		_, err := execCommand(c, "magicfrog.renderInto", map[string]any{"file": tc.file})
		var e *jsonrpc.Error
		if !errors.As(err, &e) || e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, tc.want) {
			t.Errorf("renderInto %s: %v; want InvalidParams containing %q", tc.file, err, tc.want)
			continue
		}
		if e.Data == nil || !strings.Contains(string(e.Data), `"code":"forbidden"`) {
			t.Errorf("renderInto %s: error data %s; want code forbidden", tc.file, rawOrNil(e.Data))
		}
		if tc.check != "" {
			if after, _ := os.ReadFile(tc.check); string(after) != string(before) {
				t.Errorf("renderInto %s changed %s:\n%s", tc.file, tc.check, after)
			}
		}
	}
	alive(t, c)
}

func rawOrNil(r json.RawMessage) string {
	if r == nil {
		return "(none)"
	}
	return string(r)
}
