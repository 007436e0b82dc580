package flatjson

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestStringsIsJSONs compares Strings with encoding/json on arrays of
// strings, compact and spaced, whose strings now and then hold a quote, a
// backslash, a control character or a byte of 0x80 and above: what Strings
// reads is json's, and what it refuses json refuses or reads with escapes.
func TestStringsIsJSONs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	odd := []byte("\"\\\x00\x1f\x7f\t\n ")
	space := []string{"", " ", "\n  ", "\t"}
	for range 20000 {
		b := []byte(space[rng.IntN(len(space))] + "[")
		for i := range rng.IntN(6) {
			if i > 0 {
				b = append(b, space[rng.IntN(len(space))]+","+space[rng.IntN(len(space))]...)
			}
			b = append(b, '"')
			for range rng.IntN(20) {
				if rng.IntN(12) == 0 {
					b = append(b, odd[rng.IntN(len(odd))])
				} else {
					b = append(b, byte('a'+rng.IntN(26)))
				}
			}
			b = append(b, '"')
		}
		b = append(b, space[rng.IntN(len(space))]+"]"...)
		d, ok := New(b)
		if !ok {
			continue
		}
		got, ok := d.Strings()
		ok = ok && d.End()
		var want []string
		err := json.Unmarshal(b, &want)
		switch {
		case ok && err != nil:
			t.Fatalf("%q: Strings read %q, json: %v", b, got, err)
		case ok && !slices.Equal(got, want):
			t.Fatalf("%q: Strings read %q, json %q", b, got, want)
		}
	}
}
