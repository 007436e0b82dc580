package session

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// The write commands' arguments are refused before memory is touched, each
// error naming the argument at fault.
func TestWriteRequests(t *testing.T) {
	larry := "larry"
	check := func(what string, err error, want string) {
		t.Helper()
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: error %v, want %q", what, err, want)
		}
	}
	for _, tc := range []struct {
		r    PromoteRequest
		want string
	}{
		{PromoteRequest{}, `argument "to" is required`},
		{PromoteRequest{To: "galaxy"}, `argument "to"`},
		{PromoteRequest{To: "user", Scope: &larry}, `user notes have no ID; drop "scope"`},
		{PromoteRequest{To: "skills", Layer: "docs"}, `to "skills" and layer "docs" contradict each other`},
		{PromoteRequest{To: "agent", Scope: &larry}, ""},
	} {
		_, err := tc.r.Promotion("/m/x.md")
		check("promote "+tc.r.To, err, tc.want)
	}
	if p, err := (PromoteRequest{To: "skills"}).Promotion("/m/x.md"); err != nil || p.Layer != "skills" || p.To != 0 {
		t.Errorf("to skills: %+v, %v", p, err)
	}

	if d, err := (TodayRequest{}).Journal(); d != engine.Task || err != nil {
		t.Errorf("today's default journal: %v, %v", d, err)
	}
	_, err := TodayRequest{Dimension: "user", Scope: "larry"}.Journal()
	check("today user/larry", err, `user notes have no ID`)
	_, err = TodayRequest{Dimension: "galaxy"}.Journal()
	check("today galaxy", err, `argument "dimension"`)

	st := Settings{ProjectDir: filepath.FromSlash("/p")}
	if dir, err := st.ResolveDir("out"); err != nil || dir != filepath.Join(st.ProjectDir, "out") {
		t.Errorf("relative dir: %q, %v", dir, err)
	}
	_, err = Settings{}.ResolveDir("out")
	check("relative dir without project", err, "no workspace folder")
	_, err = st.ResolveDir("")
	check("no dir", err, `argument "dir" is required`)
}
