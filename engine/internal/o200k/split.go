package o200k

import "unicode"

// The pre-split is o200k_base's regexp, as tiktoken-go runs it with regexp2
// (leftmost-first, backtracking), written out by hand so that no regexp
// engine's Unicode tables are built at start:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// regexp2's \s is unicode.IsSpace. Every rune but U+007F starts some
// alternative, so the pieces tile the text but for those.

func isL(r rune) bool { return unicode.IsLetter(r) }
func isN(r rune) bool { return unicode.Is(unicode.N, r) }
func isM(r rune) bool { return unicode.Is(unicode.M, r) }

// isUpper is [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}].
func isUpper(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo, unicode.M)
}

// isLower is [\p{Ll}\p{Lm}\p{Lo}\p{M}].
func isLower(r rune) bool {
	return unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo, unicode.M)
}

// isDel is U+007F, which in this pattern regexp2 matches with no class,
// though each class alone matches it and \S does too: tiktoken-go's pieces
// skip it and a run of spaces before it leaves its last space, as before any
// non-space. Counting as tiktoken-go does keeps every budget's cut where it
// was.
func isDel(r rune) bool { return r == 0x7f }

// isPrefix is [^\r\n\p{L}\p{N}].
func isPrefix(r rune) bool { return r != '\r' && r != '\n' && !isL(r) && !isN(r) && !isDel(r) }

// isOther is [^\s\p{L}\p{N}].
func isOther(r rune) bool { return !unicode.IsSpace(r) && !isL(r) && !isN(r) && !isDel(r) }

func run(rs []rune, i int, in func(rune) bool) int {
	for i < len(rs) && in(rs[i]) {
		i++
	}
	return i
}

// contraction is the end of (?i:'s|'t|'re|'ve|'m|'ll|'d)? at i (i when absent);
// regexp2 folds s to [STstſ].
func contraction(rs []rune, i int) int {
	if i+1 >= len(rs) || rs[i] != '\'' {
		return i
	}
	at := func(k int, set string) bool {
		if k >= len(rs) {
			return false
		}
		for _, c := range set {
			if rs[k] == c {
				return true
			}
		}
		return false
	}
	switch {
	case at(i+1, "STstſ"), at(i+1, "Mm"), at(i+1, "Dd"):
		return i + 2
	case at(i+1, "Rr") && at(i+2, "Ee"), at(i+1, "Vv") && at(i+2, "Ee"), at(i+1, "Ll") && at(i+2, "Ll"):
		return i + 3
	}
	return i
}

// next is the end of the piece that starts at p < len(rs).
func next(rs []rune, p int) int {
	prefixes := []int{p}
	if isPrefix(rs[p]) {
		prefixes = []int{p + 1, p}
	}
	// Branch 1: greedy [upper]* gives back until a [lower] follows.
	for _, q := range prefixes {
		j := run(rs, q, isUpper)
		for k := j; k >= q; k-- {
			if k < len(rs) && isLower(rs[k]) {
				return contraction(rs, run(rs, k, isLower))
			}
		}
	}
	// Branch 2.
	for _, q := range prefixes {
		if j := run(rs, q, isUpper); j > q {
			return contraction(rs, run(rs, j, isLower))
		}
	}
	// Branch 3: \p{N}{1,3}.
	if isN(rs[p]) {
		e := p + 1
		for e < len(rs) && e < p+3 && isN(rs[e]) {
			e++
		}
		return e
	}
	// Branch 4: the space is atomic, and is not [^\s\p{L}\p{N}].
	q := p
	if rs[q] == ' ' {
		q++
	}
	if j := run(rs, q, isOther); j > q {
		return run(rs, j, func(r rune) bool { return r == '\r' || r == '\n' || r == '/' })
	}
	j := run(rs, p, unicode.IsSpace)
	// Branch 5: regexp2 runs \s*[\r\n]+ here as if \s* were lazy (alone it
	// is greedy): the spaces up to the first line break, then the breaks.
	for k := p; k < j; k++ {
		if rs[k] == '\r' || rs[k] == '\n' {
			return run(rs, k, func(r rune) bool { return r == '\r' || r == '\n' })
		}
	}
	// Branches 6 and 7: \s+(?!\S) leaves the last space before a non-space.
	if j == len(rs) || j-p < 2 {
		return j
	}
	return j - 1
}
