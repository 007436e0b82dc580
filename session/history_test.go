package session

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
)

// History lists the local history newest first and Restore brings a version
// back from it as the next revision; a path that names no note, or one
// without history, is a not-found refusal.
func TestHistoryAndRestore(t *testing.T) {
	tr := openTestTree(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)
	for i, body := range []string{"first\n", "second\n"} {
		if _, err := tr.m.Write(engine.WriteRequest{Dimension: engine.User, Key: "style.md", Body: []byte(body), ExpectRevision: i, Now: now.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	h, err := History(ctx, tr.m, "user/style.md", true)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Versions) != 2 || h.Versions[0].Local == nil || h.Versions[0].Local.Revision != 2 || h.Versions[1].Local.Revision != 1 {
		t.Fatalf("History = %+v, want revisions 2 then 1, local", h.Versions)
	}
	r, err := Restore(ctx, tr.m, RestoreRequest{Path: "user/style.md", Revision: 1, Now: now.Add(time.Hour)})
	if err != nil || !r.FromLocal || r.Revision != 1 || r.Written != 3 || r.Exact || r.Synced {
		t.Fatalf("Restore = %+v, %v; want revision 1 back as revision 3, from the local history", r, err)
	}
	p, _ := tr.m.PathOf(engine.User, "", "style.md")
	if b, _ := os.ReadFile(p); !strings.HasSuffix(string(b), "---\nfirst\n") {
		t.Errorf("restored note = %q", b)
	}

	for _, tc := range []struct{ path, want string }{
		{"user/none.md", "has no history yet"},
		{"galaxy", "is not a note of this data directory or project"},
	} {
		_, err := History(ctx, tr.m, tc.path, true)
		var nh *NoHistoryError
		if !errors.As(err, &nh) || errcode.Of(err) != errcode.NotFound || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("History(%s) = %v; want a not-found %q", tc.path, err, tc.want)
		}
	}
	if _, err := Restore(ctx, tr.m, RestoreRequest{Path: "user/none.md", Revision: 1, Now: now}); err == nil || !strings.Contains(err.Error(), "has no history yet") {
		t.Errorf("Restore of a note without history = %v", err)
	}

}
