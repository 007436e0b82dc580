package importers

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WritePlan prints a plan: one line per note (status, destination, tokens,
// source), one per skipped file, and a summary.
func WritePlan(w io.Writer, p *Plan) {
	sortItems(p.Items)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, it := range p.Items {
		fmt.Fprintf(tw, "%s\t%s\t%d tokens\t<- %s\n", it.Status, it.Ref(), it.Tokens, source(it))
	}
	tw.Flush()
	for _, s := range p.Skipped {
		fmt.Fprintf(w, "skipped %s\n", s)
	}
	fmt.Fprintf(w, "%d notes, %d tokens: %d new, %d unchanged, %d exist with other content (kept); %d skipped\n",
		len(p.Items), p.Tokens(), p.Count(New), p.Count(Unchanged), p.Count(Exists), len(p.Skipped))
}

// WriteResult prints what Apply did: a line per note written or kept, one per
// refusal, and a summary.
func WriteResult(w io.Writer, r *Result) {
	for _, it := range r.Written {
		fmt.Fprintf(w, "imported %s <- %s\n", it.Ref(), source(it))
	}
	for _, it := range r.Kept {
		fmt.Fprintf(w, "kept %s: it exists with other content; %s was not imported\n", it.Ref(), source(it))
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped %s\n", s)
	}
	fmt.Fprintf(w, "imported %d, unchanged %d, kept %d, skipped %d\n", len(r.Written), r.Unchanged, len(r.Kept), len(r.Skipped))
}

func source(it Item) string {
	var b strings.Builder
	b.WriteString(it.From)
	if it.Part != "" {
		b.WriteString(" § " + it.Part)
	}
	if it.Via != "" {
		b.WriteString(" (" + it.Via + ")")
	}
	if it.Journal {
		b.WriteString(" (journal)")
	}
	return b.String()
}
