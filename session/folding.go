package session

import "github.com/magicfrog/mf-lsp/engine/frontmatter"

// Folding ranges of a note: its frontmatter block (from the opening to the
// closing "---"), then each section of its body (a heading to the end of its
// section, as document symbols nest them), nested sections included.

// FoldKind says what a fold is.
type FoldKind int

const (
	FoldFrontmatter FoldKind = iota // the frontmatter block
	FoldSection                     // a heading's section
)

// Fold is one folding range, in byte offsets of the source.
type Fold struct {
	Span frontmatter.Span
	Kind FoldKind
}

// FoldingRanges are the folds of a note's source, in source order.
func FoldingRanges(src []byte) []Fold {
	var out []Fold
	doc := frontmatter.Parse(src)
	if doc.Has() {
		out = append(out, Fold{Span: frontmatter.Span{Start: doc.Open.Start, End: doc.Close.End}, Kind: FoldFrontmatter})
	}
	var walk func([]DocumentSymbol)
	walk = func(syms []DocumentSymbol) {
		for _, s := range syms {
			out = append(out, Fold{Span: s.Span, Kind: FoldSection})
			walk(s.Children)
		}
	}
	walk(headingSymbols(src, doc.Body))
	return out
}
