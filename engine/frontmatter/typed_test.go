package frontmatter

import (
	"bytes"
	"math/rand/v2"
	"regexp"
	"testing"
)

// numberGrammar is the grammar numberLike scans, as the regular expression
// the parser used to run on every value.
var numberGrammar = regexp.MustCompile(`^(?:` +
	`[-+]?[0-9][0-9_]*` + // integer
	`|0[xX][0-9a-fA-F_]+|0[oO]?[0-7_]+|0[bB][01_]+` + // hex, octal, binary
	`|[-+]?(?:[0-9][0-9_]*)?\.?[0-9_]*(?:[eE][-+]?[0-9]+)?` + // float
	`|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?` + // sexagesimal
	`)$`)

// looksTypedBefore is looksTyped as it was: lower-case, then the regexp.
func looksTypedBefore(v []byte) bool {
	switch string(bytes.ToLower(v)) {
	case "true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", ".nan", "inf", ".inf":
		return true
	}
	return numberGrammar.Match(v)
}

// TestLooksTypedAsBefore: the scanner answers what the regexp answered, for
// every string of up to four characters over the grammar's alphabet, and for
// random longer ones.
func TestLooksTypedAsBefore(t *testing.T) {
	const alphabet = "0159_.:eE+-xXoObBaAfFnN y"
	check := func(v []byte) {
		if got, want := looksTyped(v), looksTypedBefore(v); got != want {
			t.Fatalf("looksTyped(%q) = %v, the regexp said %v", v, got, want)
		}
	}
	var walk func(prefix []byte)
	walk = func(prefix []byte) {
		check(prefix)
		if len(prefix) == 4 {
			return
		}
		for i := range len(alphabet) {
			walk(append(prefix, alphabet[i]))
		}
	}
	walk(nil)
	r := rand.New(rand.NewPCG(1, 2))
	for range 200_000 {
		v := make([]byte, 5+r.IntN(12))
		for i := range v {
			v[i] = alphabet[r.IntN(len(alphabet))]
		}
		check(v)
	}
	for _, v := range []string{"True", "NULL", ".Inf", "İnf", "İNF", "\u212Aa", "1:30", "-1:5:59.5", "1:60", "0x_", "0o17", "0b102", "1e", "1e+5", ".5e3", "1_000", "3f9c2a7e", "2026-11-30"} {
		check([]byte(v))
	}
}

func FuzzLooksTyped(f *testing.F) {
	for _, v := range []string{"1:30", "0x1F", "1e3", ".inf", "İnf", "3f9c2a7e", "+.5e-3"} {
		f.Add([]byte(v))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		if got, want := looksTyped(v), looksTypedBefore(v); got != want {
			t.Fatalf("looksTyped(%q) = %v, the regexp said %v", v, got, want)
		}
	})
}
