package diagnostics

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
)

// TestFixes holds each finding to the fixes it proposes, as an editor shows
// and applies them: a fix's title, then the note after its edits, or the
// command it runs, the file it renames or creates.
func TestFixes(t *testing.T) {
	m, dir := tree(t, map[string]string{
		"data/machine-id":                        "m1\n",
		"data/magicfrog.json":                    `{"agents": ["larry"]}`,
		"project/.magicfrog/config.json":         `{"task": "T-7", "agents": ["larry"]}`,
		"data/memory/layers.json":                `{"layers": [{"name": "journal", "prefix": "journal/", "kind": "fractal"}, {"name": "skills", "prefix": "skills/", "kind": "skills"}]}`,
		"data/memory/user/bare.md":               "Body.\n",
		"data/memory/device/bare.md":             "GPU.\n",
		"data/memory/device/unbound.md":          fm + "GPU.\n",
		"data/memory/user/no-revision.md":        "---\nupdated: 2026-10-20T09:12:00.000Z\n---\n",
		"data/memory/user/revision-quoted.md":    "---\nrevision: \"7\"\nupdated: 2026-10-20T09:12:00.000Z\n---\n",
		"data/memory/user/revision-zero.md":      "---\nrevision: 0\nupdated: 2026-10-20T09:12:00.000Z\n---\n",
		"data/memory/user/no-updated.md":         "---\nrevision: 2\n---\n",
		"data/memory/user/local.md":              "---\nrevision: 1\nupdated: 2026-10-20T11:12:00.5+02:00\n---\n",
		"data/memory/user/bad-updated.md":        "---\nrevision: 1\nupdated: yesterday\n---\n",
		"data/memory/user/machine.md":            "---\nrevision: 1\nmachine: m1\nupdated: 2026-10-20T09:12:00.000Z\n---\n",
		"data/memory/user/twice.md":              "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\nupdated: 2026-10-21T09:12:00.000Z\n---\nBody.\n",
		"data/memory/user/skills/deploy.md":      fm,
		"data/memory/user/style.md":              fm + "User.\n",
		"data/memory/agent/larry/style.md":       "---\nrevision: 4\nupdated: 2026-10-20T09:12:00.000Z\n---\nLarry.\n",
		"data/memory/machine/paths.md":           fm + "Legacy.\n",
		"data/memory/agent/helpers/x.md":         fm,
		"project/.magicfrog/memory/T-99/x.md":    fm,
		"data/memory/user/links.md":              fm + "[a](missing.md)\n",
		"data/memory/user/journal/2026-w48.md":   fm,
		"project/.magicfrog/memory/moved-on.md":  "---\nrevision: 5\nupdated: 2026-10-20T09:12:00.000Z\n---\n",
		"data/memory/user/fine.md":               fm + "Fine.\n",
		"data/memory/agent/larry/skills/note.md": "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\nname: note\n---\n",
	})
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	rel := func(p string) string { r, _ := filepath.Rel(dir, p); return filepath.ToSlash(r) }
	for _, tc := range []struct {
		path, code string
		base       *Base
		want       []string
	}{
		{"data/memory/user/bare.md", CodeFrontmatterMissing, nil, []string{
			`Add frontmatter (revision 1, updated now): "---\nrevision: 1\nupdated: 2026-11-30T12:00:00.000Z\n---\nBody.\n"`}},
		{"data/memory/device/bare.md", CodeFrontmatterMissing, nil, []string{
			`Add frontmatter (revision 1, updated now): "---\nrevision: 1\nupdated: 2026-11-30T12:00:00.000Z\nmachine: m1\n---\nGPU.\n"`}},
		{"data/memory/device/unbound.md", CodeMachineMissing, nil, []string{
			`Bind to this machine (m1): "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\nmachine: m1\n---\nGPU.\n"`}},
		{"data/memory/user/no-revision.md", CodeRevisionMissing, nil, []string{
			`Add revision: 1: "---\nupdated: 2026-10-20T09:12:00.000Z\nrevision: 1\n---\n"`}},
		{"data/memory/user/revision-quoted.md", CodeRevisionNotInteger, nil, []string{
			`Set revision to 7: "---\nrevision: 7\nupdated: 2026-10-20T09:12:00.000Z\n---\n"`}},
		{"data/memory/user/revision-zero.md", CodeRevisionTooSmall, nil, []string{
			`Set revision to 1: "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\n---\n"`}},
		{"data/memory/user/no-updated.md", CodeUpdatedMissing, nil, []string{
			`Add updated: now: "---\nrevision: 2\nupdated: 2026-11-30T12:00:00.000Z\n---\n"`}},
		{"data/memory/user/local.md", CodeUpdatedInvalid, nil, []string{
			`Write it as UTC (2026-10-20T09:12:00.500Z): "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.500Z\n---\n"`,
			`Set updated to now: "---\nrevision: 1\nupdated: 2026-11-30T12:00:00.000Z\n---\n"`}},
		{"data/memory/user/bad-updated.md", CodeUpdatedInvalid, nil, []string{
			`Set updated to now: "---\nrevision: 1\nupdated: 2026-11-30T12:00:00.000Z\n---\n"`}},
		{"data/memory/user/machine.md", CodeMachineForbidden, nil, []string{
			`Remove machine: "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\n---\n"`}},
		{"data/memory/user/twice.md", CodeDuplicateKey, nil, []string{
			`Remove the duplicate updated line: "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\n---\nBody.\n"`}},
		{"data/memory/user/skills/deploy.md", CodeSkillMissingName, nil, []string{
			`Add name: deploy: "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\nname: deploy\n---\n"`}},
		{"data/memory/agent/larry/skills/note.md", CodeSkillMissingDescription, nil, []string{
			`Add description:: "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\nname: note\ndescription: \"TODO: what this skill does and when to use it\"\n---\n"`}},
		{"data/memory/user/style.md", CodeShadowed, nil, []string{
			`Open the winning version → magicfrog.showEntry uri=file:data/memory/agent/larry/style.md`}},
		{"data/memory/machine/paths.md", CodeLegacyLocation, nil, []string{
			`Move to the canonical tree (memory/device/paths.md) → magicfrog.promote to=device uri=file:data/memory/machine/paths.md`}},
		{"data/memory/agent/helpers/x.md", CodeUnregisteredAgentFolder, nil, []string{
			`Register helpers as an agent ID → magicfrog.registerAgent id=helpers`,
			`Keep shared → magicfrog.registerAgent id=helpers shared=true`}},
		{"project/.magicfrog/memory/T-99/x.md", CodeUnregisteredTaskFolder, nil, []string{
			`Register T-99 as a task ID → magicfrog.registerTask id=T-99`,
			`Keep shared → magicfrog.registerTask id=T-99 shared=true`}},
		{"data/memory/user/links.md", CodeBrokenLink, nil, []string{
			`Create the note missing.md → create data/memory/user/missing.md: "---\nrevision: 1\nupdated: 2026-11-30T12:00:00.000Z\n---\n"`}},
		{"data/memory/user/journal/2026-w48.md", "journal/misnamed", nil, []string{
			`Rename to weekly/2026-W48.md → rename data/memory/user/journal/2026-w48.md to data/memory/user/journal/weekly/2026-W48.md (preferred)`}},
		{"project/.magicfrog/memory/moved-on.md", CodeStaleRevision, &Base{Revision: 4}, []string{
			`Take disk version → magicfrog.resolveConflict choice=takeDisk uri=file:project/.magicfrog/memory/moved-on.md`,
			`Keep mine as next revision (6) → magicfrog.resolveConflict choice=keepMine uri=file:project/.magicfrog/memory/moved-on.md`}},
	} {
		t.Run(tc.code+" "+filepath.Base(tc.path), func(t *testing.T) {
			e := m.Note(filepath.Join(dir, filepath.FromSlash(tc.path)))
			if e == nil {
				t.Fatalf("%s not loaded", tc.path)
			}
			fs := Check(Input{Memory: m, Note: e, Scope: m.DefaultScope(), Base: tc.base, Now: now, WithFixes: true})
			f := find(fs, tc.code)
			if f == nil {
				t.Fatalf("no %s in %v", tc.code, codes(fs))
			}
			var got []string
			for _, fix := range f.Fixes {
				got = append(got, showFix(t, fix, e, rel))
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("fixes:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
		})
	}
}

// A finding without a fix proposes none, and a note whose frontmatter cannot
// be edited safely gets no edit.
func TestNoFixes(t *testing.T) {
	m, dir := tree(t, map[string]string{
		"data/memory/user/open.md":        "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\n",
		"data/memory/user/invalid.md":     "---\nrevision: [\n---\n",
		"data/memory/device/m2.md":        "---\nrevision: 1\nupdated: 2026-10-20T09:12:00.000Z\nmachine: m2\n---\n",
		"data/memory/device/nomachine.md": fm,
	})
	for _, p := range []string{"data/memory/user/open.md", "data/memory/user/invalid.md", "data/memory/device/m2.md", "data/memory/device/nomachine.md"} {
		e := m.Note(filepath.Join(dir, filepath.FromSlash(p)))
		if e == nil {
			t.Fatalf("%s not loaded", p)
		}
		// No machine-id yet and none in the scope: nothing to bind to.
		for _, f := range Check(Input{Memory: m, Note: e, Scope: engine.Scope{}, WithFixes: true}) {
			if len(f.Fixes) > 0 {
				t.Errorf("%s %s: fixes %+v", p, f.Code, f.Fixes)
			}
		}
	}
}

// Without WithFixes (publishing, mf-lsp check) no fix is proposed.
func TestFixesOnlyWhenAsked(t *testing.T) {
	m, dir := tree(t, map[string]string{"data/memory/user/bare.md": "Body.\n"})
	e := m.Note(filepath.Join(dir, "data/memory/user/bare.md"))
	for _, with := range []bool{false, true} {
		f := find(Check(Input{Memory: m, Note: e, Scope: m.DefaultScope(), WithFixes: with}), CodeFrontmatterMissing)
		if f == nil || (len(f.Fixes) > 0) != with {
			t.Errorf("WithFixes %v: %+v", with, f)
		}
	}
}

// showFix is one fix as a line: its title, then the note after its edits, or
// what else it does.
func showFix(t *testing.T, fix Fix, e *engine.Note, rel func(string) string) string {
	t.Helper()
	switch {
	case fix.Create != "":
		return fmt.Sprintf("%s → create %s: %q", fix.Title, rel(fix.Create), applyEdits(t, "", fix.Edits, fix.Create))
	case fix.Rename != nil:
		s := fmt.Sprintf("%s → rename %s to %s", fix.Title, rel(fix.Rename.From), rel(fix.Rename.To))
		if fix.Preferred {
			s += " (preferred)"
		}
		return s
	case fix.Command != nil:
		var args []string
		for k, v := range fix.Command.Args {
			if p, ok := v.(FileArg); ok {
				v = "file:" + rel(string(p))
			}
			args = append(args, fmt.Sprintf("%s=%v", k, v))
		}
		sort.Strings(args)
		return fmt.Sprintf("%s → %s %s", fix.Title, fix.Command.Name, strings.Join(args, " "))
	}
	return fmt.Sprintf("%s: %q", fix.Title, applyEdits(t, string(e.TextOrNil()), fix.Edits, e.Path))
}

// applyEdits applies byte edits of path to src, last first.
func applyEdits(t *testing.T, src string, edits []Edit, path string) string {
	t.Helper()
	edits = slices.Clone(edits)
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].Start > edits[j].Start })
	for _, e := range edits {
		if e.Path != path || e.Start < 0 || e.Start > e.End || e.End > len(src) {
			t.Fatalf("edit %+v outside %s (%d bytes)", e, path, len(src))
		}
		src = src[:e.Start] + e.NewText + src[e.End:]
	}
	return src
}
