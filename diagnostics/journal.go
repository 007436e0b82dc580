package diagnostics

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// journal checks notes of a fractal layer: misnamed files, open loops of
// refined days, and rollups whose sources changed since they were written.
func (c *checker) journal() {
	e := c.e
	if e.Layer.Kind != engine.KindFractal {
		return
	}
	f, p := journal.Classify(e.LayerKey())
	if p != nil {
		data := map[string]any{}
		if p.Suggest != "" {
			data["suggest"] = p.Suggest
			data["suggestPath"] = c.layerPath(p.Suggest)
		}
		c.add(Finding{Span: c.head(), Severity: Warning, Code: p.Code, Message: p.Message, Data: data})
	}
	if f.Kind == journal.Refined && !c.in.Today.IsZero() && c.in.Memory != nil {
		c.openLoops(f)
	}
	if c.doc.Has() && c.in.Memory != nil {
		c.rollupSources(f)
	}
}

// layerPath is the absolute path of a layer-relative journal path in the
// note's own root and scope.
func (c *checker) layerPath(rel string) string {
	return filepath.Join(c.e.Root, filepath.FromSlash(pathJoin(c.e.Owner, c.e.Layer.Prefix+rel)))
}

// sibling returns the note at a layer-relative path in the same root and scope
// as the checked note, or nil.
func (c *checker) sibling(rel string) *engine.Note {
	for _, x := range c.in.Memory.Versions(c.e.Layer.Prefix + rel) {
		if x.Root == c.e.Root && x.Owner == c.e.Owner && x.Dimension == c.e.Dimension {
			return x
		}
	}
	return nil
}

func (c *checker) openLoops(f journal.File) {
	days := c.in.OpenLoopDays
	if days <= 0 {
		days = DefaultOpenLoopDays
	}
	horizon := c.in.OpenLoopHorizon
	if horizon == 0 {
		horizon = DefaultOpenLoopHorizon
	}
	today := c.in.Today
	age := today.Sub(f.Day)
	if age < days || (horizon > 0 && age > horizon) {
		return
	}
	// Everything later that could take an item up again, found by key: the
	// refined days after it, the weeklies and monthlies from its week and month
	// on, and MEMORY.md. Keyed lookups, never a walk of the tree.
	var later []journal.DatedDoc
	gone := false // a later note's text could not be had: no verdict
	addDoc := func(rel string, day journal.Day) {
		if x := c.sibling(rel); x != nil {
			src, err := x.Text()
			gone = gone || err != nil
			later = append(later, journal.DatedDoc{Key: rel, Day: day, Body: src})
		}
	}
	for d := f.Day.AddDays(1); !d.After(today); d = d.AddDays(1) {
		addDoc(journal.Path(journal.Refined, d, journal.Week{}, journal.Month{}), d)
	}
	for w := journal.WeekOf(f.Day); w.Compare(journal.WeekOf(today)) <= 0; w = w.Next() {
		addDoc(journal.Path(journal.Weekly, journal.Day{}, w, journal.Month{}), w.Sunday())
	}
	for m := journal.MonthOf(f.Day); m.Compare(journal.MonthOf(today)) <= 0; m = nextMonth(m) {
		addDoc(journal.Path(journal.Monthly, journal.Day{}, journal.Week{}, m), m.Last())
	}
	if x := c.sibling(journal.MemoryFile); x != nil {
		day := today
		if t, ok := x.UpdatedTime(); ok {
			day = journal.DayOf(t.UTC())
		}
		src, err := x.Text()
		gone = gone || err != nil
		later = append(later, journal.DatedDoc{Key: journal.MemoryFile, Day: day, Body: src})
	}
	if gone {
		return
	}
	self := journal.DatedDoc{Key: c.e.LayerKey(), Day: f.Day, Body: c.src}
	for _, l := range journal.OpenLoops([]journal.DatedDoc{self}, later, today, days) {
		c.add(Finding{Span: spanOf(l.Start, l.End), Severity: Information, Code: CodeOpenLoop,
			Message: fmt.Sprintf("open loop: this %s item of %s is %d days old and nothing since takes it up again",
				strings.ToLower(l.Section), l.Day, today.Sub(l.Day)),
			Data: map[string]any{"section": l.Section, "day": l.Day.String(), "text": l.Text}})
	}
}

func nextMonth(m journal.Month) journal.Month {
	return journal.MonthOf(m.Last().AddDays(1))
}

// Source is one note of a rollup's `sources:` frontmatter (journal.RecordedSource).
type Source = journal.RecordedSource

// ParseSources reads a `sources:` value (journal.ParseSources).
func ParseSources(v any) ([]Source, bool) { return journal.ParseSources(v) }

func (c *checker) rollupSources(f journal.File) {
	fld := c.doc.Field("sources")
	if fld == nil {
		return
	}
	srcs, ok := ParseSources(fld.Value)
	if !ok {
		c.add(Finding{Span: valueOrKey(fld), Severity: Warning, Code: CodeRollupSourcesInvalid,
			Message: "sources must be a list of {key, revision, hash} maps (the journal files this rollup read); staleness cannot be checked"})
		return
	}
	var changed []string
	var related []Related
	var first string
	for _, s := range srcs {
		if strings.HasPrefix(s.Key, journal.TranscriptPrefix) {
			continue // outside the memory tree: rollup due checks it, not the editor
		}
		x := c.sibling(s.Key)
		var why string
		if x == nil {
			why = s.Changed(false, 0, "")
		} else {
			why = s.Changed(true, x.Revision(), x.Hash())
		}
		switch {
		case why == "":
			continue
		case x == nil:
			related = append(related, Related{Path: c.layerPath(s.Key), Message: "removed since the rollup"})
		case x.Revision() != s.Revision:
			related = append(related, Related{Path: x.Path, Message: fmt.Sprintf("revision %d, was %d", x.Revision(), s.Revision)})
		default:
			related = append(related, Related{Path: x.Path, Message: "content changed since the rollup"})
		}
		if first == "" {
			first = why
		}
		changed = append(changed, s.Key)
	}
	if len(changed) == 0 {
		return
	}
	msg := "stale rollup: " + first
	if len(changed) > 1 {
		msg += fmt.Sprintf(" (and %d more sources changed)", len(changed)-1)
	}
	msg += "; rerun it"
	kind, period := rollupOf(f)
	c.add(Finding{Span: fld.KeySpan, Severity: Warning, Code: CodeRollupStale, Message: msg, Related: related,
		Data: map[string]any{"kind": kind, "period": period, "changed": changed}})
}

// rollupOf names the rollup that writes f: its kind ("day", "week", "month")
// and period, or "" for a file no rollup writes.
func rollupOf(f journal.File) (kind, period string) {
	switch f.Kind {
	case journal.Refined:
		return journal.RefineDay.String(), f.Day.String()
	case journal.Weekly:
		return journal.RollupWeek.String(), f.Week.String()
	case journal.Monthly:
		return journal.RollupMonth.String(), f.Month.String()
	}
	return "", ""
}
