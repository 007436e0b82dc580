package diagnostics

import (
	"path/filepath"
	"strings"
	"testing"
)

// Assembled at run time so that this file is no finding itself.
var testToken = "ghp_" + strings.Repeat("aB3dE5fG7h", 3) + "123456"

func TestSecret(t *testing.T) {
	m, dir := tree(t, map[string]string{
		"data/machine-id": "m1\n",
		"data/memory/user/sticky-notes/accounts.md": fm + "GitHub: octo\ntoken: " + testToken + "\n",
		"data/memory/user/formats.md":               fm + "looks like " + testToken + " <!-- gitleaks:allow -->\n",
		"data/memory/device/keys.md":                "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\nmachine: m1\n---\n" + testToken + "\n",
	})
	check := func(rel string) []Finding {
		e := m.Note(filepath.Join(dir, filepath.FromSlash(rel)))
		if e == nil {
			t.Fatalf("%s not loaded", rel)
		}
		return Check(Input{Memory: m, Note: e, Scope: m.DefaultScope()})
	}
	fs := check("data/memory/user/sticky-notes/accounts.md")
	f := find(fs, CodeSecret)
	if f == nil {
		t.Fatalf("no secret finding: %v", codes(fs))
	}
	e := m.Note(filepath.Join(dir, "data/memory/user/sticky-notes/accounts.md"))
	if got := string(e.TextOrNil()[f.Span.Start:f.Span.End]); got != testToken || f.Severity != Error || f.Data["rule"] != "github-pat" {
		t.Errorf("finding %+v on %q", f, got)
	}
	if f := find(check("data/memory/user/formats.md"), CodeSecret); f != nil {
		t.Errorf("gitleaks:allow line flagged: %+v", f)
	}
	if f := find(check("data/memory/device/keys.md"), CodeSecret); f == nil || f.Severity != Warning {
		t.Errorf("device note: %+v", f)
	}
}
