package session

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A sync-conflict finding offers Take theirs and Keep mine, and Merge when the
// remote's version is on disk and the note is loaded.
func TestSyncConflictFixes(t *testing.T) {
	dir := t.TempDir()
	theirs := filepath.Join(dir, "theirs.md")
	writeFile(t, theirs, "---\nrevision: 3\n---\ntheir line\n")
	mine := []byte("---\nrevision: 3\n---\nmy line\n")
	for _, tc := range []struct {
		name   string
		src    []byte
		data   map[string]any
		titles []string
	}{
		{"no path: nothing to offer", mine, map[string]any{}, nil},
		{"both sides", mine, map[string]any{"path": "user/style.md", "theirs": theirs},
			[]string{"Take theirs", "Keep mine", "Merge (both versions in the note; review, save, then Keep mine)"}},
		{"the remote deleted it", mine, map[string]any{"path": "user/style.md"},
			[]string{"Take theirs (delete this note)", "Keep mine"}},
		{"their file is gone", mine, map[string]any{"path": "user/style.md", "theirs": filepath.Join(dir, "gone.md")},
			[]string{"Take theirs", "Keep mine"}},
		{"the note is not loaded", nil, map[string]any{"path": "user/style.md", "theirs": theirs},
			[]string{"Take theirs", "Keep mine"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fixes := SyncConflictFixes(tc.src, tc.data)
			var titles []string
			for _, f := range fixes {
				titles = append(titles, f.Title)
				if f.Path != "user/style.md" {
					t.Errorf("%s: path %q", f.Title, f.Path)
				}
			}
			if !reflect.DeepEqual(titles, tc.titles) {
				t.Fatalf("titles %q, want %q", titles, tc.titles)
			}
			if len(fixes) >= 2 && (fixes[0].Keep != "theirs" || fixes[1].Keep != "mine") {
				t.Errorf("keeps %q, %q; want theirs, mine", fixes[0].Keep, fixes[1].Keep)
			}
			if len(fixes) == 3 {
				m := fixes[2]
				if m.Keep != "" || !strings.Contains(m.Merged, "my line") || !strings.Contains(m.Merged, "their line") {
					t.Errorf("merge fix %+v: want both lines and no keep", m)
				}
			}
		})
	}
}

func TestResolveSyncConflictRefusesOtherKeeps(t *testing.T) {
	tr := openTestTree(t)
	err := ResolveSyncConflict(context.Background(), tr.m, "user/style.md", "both", time.Now())
	if err == nil || !strings.Contains(err.Error(), "want mine or theirs") {
		t.Errorf("keep both: %v", err)
	}
}
