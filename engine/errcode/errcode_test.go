package errcode

import (
	"errors"
	"fmt"
	"testing"
)

type staleErr struct{ rev int }

func (e staleErr) Error() string   { return fmt.Sprintf("stale at %d", e.rev) }
func (staleErr) ErrorCode() Code   { return Stale }
func (e staleErr) ErrorData() Data { return Data{Code: Stale, Revision: &e.rev} }

type plainCoded struct{}

func (plainCoded) Error() string   { return "no" }
func (plainCoded) ErrorCode() Code { return Forbidden }

func TestOfFindsTheCodeThroughWrapping(t *testing.T) {
	cases := []struct {
		err  error
		code Code
		rev  int
	}{
		{nil, "", 0},
		{errors.New("plain"), "", 0},
		{fmt.Errorf("write: %w", staleErr{7}), Stale, 7},
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", plainCoded{})), Forbidden, 0},
	}
	for _, c := range cases {
		if got := Of(c.err); got != c.code {
			t.Errorf("Of(%v) = %q, want %q", c.err, got, c.code)
		}
		d, ok := DataOf(c.err)
		if ok != (c.code != "") || d.Code != c.code {
			t.Errorf("DataOf(%v) = %+v, %v", c.err, d, ok)
		}
		if c.rev != 0 && (d.Revision == nil || *d.Revision != c.rev) {
			t.Errorf("DataOf(%v).Revision = %v, want %d", c.err, d.Revision, c.rev)
		}
	}
}
