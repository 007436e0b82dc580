package session

import (
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
)

// A rollup request is checked before memory is touched; its errors name the
// argument, and its label names the rollup.
func TestRollupRequestParse(t *testing.T) {
	shared, bad := "", ".hidden"
	for _, tc := range []struct {
		r         RollupRequest
		label     string
		err       string
		dimension engine.Dimension
	}{
		{r: RollupRequest{Kind: "due"}, label: "rollup due"},
		{r: RollupRequest{Kind: "week", Period: "2026-W48", Dimension: "task", Scope: &shared}, label: "rollup week 2026-W48", dimension: engine.Task},
		{r: RollupRequest{}, err: `argument "kind" is required`},
		{r: RollupRequest{Kind: "due", Period: "2026-11"}, err: `kind "due" takes no period`},
		{r: RollupRequest{Kind: "month"}, err: `argument "period" is required`},
		{r: RollupRequest{Kind: "year", Period: "2026"}, err: `argument "kind" must be day, week, month or due, got "year"`},
		{r: RollupRequest{Kind: "due", Dimension: "galaxy"}, err: `argument "dimension": `},
		{r: RollupRequest{Kind: "due", Scope: &bad}, err: `argument "scope": `},
	} {
		_, setup, label, err := tc.r.Parse()
		if tc.err != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("%+v: error %v, want %q", tc.r, err, tc.err)
			}
			continue
		}
		if err != nil || label != tc.label || setup.Dimension != tc.dimension || setup.Owner != tc.r.Scope {
			t.Errorf("%+v: label %q, setup %+v, %v; want %q", tc.r, label, setup, err, tc.label)
		}
	}
}
