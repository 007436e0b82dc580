package session

import (
	"strings"
	"testing"
)

// A render request names what it gets wrong by its argument.
func TestRenderRequestCheck(t *testing.T) {
	neg := -1
	for _, tc := range []struct {
		r    RenderRequest
		want string
	}{
		{RenderRequest{}, ""},
		{RenderRequest{Earlier: &neg}, `argument "earlier" must be a number of days ≥ 0, got -1`},
		{RenderRequest{Budget: &neg}, `argument "budget" must be a token count ≥ 0`},
		{RenderRequest{Today: "2026-13-01"}, `argument "today": `},
		{RenderRequest{Today: "2026-11-30"}, ""},
	} {
		err := tc.r.Check()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.r, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want it to start %q", tc.r, err, tc.want)
		}
	}
}
