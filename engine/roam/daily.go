package roam

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// mergeChanged merges a path changed on both sides: a journal's daily note
// by its appended entries (mergeDaily), anything else by mergeFile.
//
// In a journal mounted in place the host's file format is kept, as the
// engine's own writes there keep it: when neither side has frontmatter, the
// merge has none either.
func (s *syncer) mergeChanged(p string, base, ours, theirs []byte) ([]byte, bool) {
	merged, ok := []byte(nil), false
	if isDaily(s.o.Memory.Layers(), p) {
		merged, ok = mergeDaily(base, ours, theirs, s.o.Now())
	}
	if !ok {
		merged, ok = mergeFile(p, base, ours, theirs, s.o.Now())
	}
	if d, _, _ := s.mp.dirOf(p); ok && d.mount && !frontmatter.Parse(ours).Present && !frontmatter.Parse(theirs).Present {
		_, merged, _ = split(merged)
	}
	return merged, ok
}

// isDaily reports whether a portable path is a raw daily note
// (YYYY-MM-DD.md at the root of a fractal layer) of a chain dimension, with
// or without an ID folder.
func isDaily(layers engine.Layers, rel string) bool {
	var inner string
	switch top, rest, _ := strings.Cut(rel, "/"); top {
	case "account", "user", "agent", "task":
		inner = rest
	default:
		return false
	}
	keys := []string{inner}
	if _, unprefixed, ok := strings.Cut(inner, "/"); ok {
		keys = append(keys, unprefixed) // under an agent or task ID
	}
	for _, key := range keys {
		l := layers.Match(key)
		if l.Kind != engine.KindFractal {
			continue
		}
		if f, prob := journal.Classify(strings.TrimPrefix(key, l.Prefix)); prob == nil && f.Kind == journal.Daily {
			return true
		}
	}
	return false
}

// mergeDaily merges two versions of a daily note where at least one side
// only appended entries (blocks after a blank line, as mf-lsp append,
// today and memory_append write them) since base:
//
//   - both appended: base, then the union of both sides' new entries in time
//     order (an entry's time is the clock time it starts with, "- 09:30 …",
//     "## 14:05", an RFC 3339 time; one without takes the time of the entry
//     before it on its side; equal times keep the side written earlier first);
//   - one side appended, the other changed earlier lines: the changed side,
//     then the appended entries.
//
// A note new on both sides has the entries both start with (the title) as
// its base. The frontmatter merges as mergeNote's; the result is the next
// revision after both. ok is false when neither side only appended: the
// line merge decides.
func mergeDaily(base, ours, theirs []byte, now time.Time) ([]byte, bool) {
	return mergeNoteWith(base, ours, theirs, now, func(bb, ob, tb []byte) ([]byte, bool) {
		if len(bytes.TrimSpace(bb)) == 0 {
			bb = commonBlocks(ob, tb)
		}
		to, okO := appended(bb, ob)
		tt, okT := appended(bb, tb)
		switch {
		case okO && okT:
			first, second := to, tt
			if updatedOf(theirs) < updatedOf(ours) {
				first, second = tt, to
			}
			return joinBlocks(bb, mergeByTime(first, second)), true
		case okT:
			return joinBlocks(ob, tt), true
		case okO:
			return joinBlocks(tb, to), true
		}
		return nil, false
	})
}

// appended returns the entries side added after base, when base (up to
// trailing newlines) is where side begins.
func appended(base, side []byte) ([]string, bool) {
	b := bytes.TrimRight(base, "\n")
	if !bytes.HasPrefix(side, b) {
		return nil, false
	}
	rest := side[len(b):]
	if len(b) > 0 && len(rest) > 0 && rest[0] != '\n' {
		return nil, false // the last line of base was changed
	}
	return blocks(rest), true
}

// blocks splits text into its entries: runs of lines between blank lines.
func blocks(text []byte) []string {
	var out []string
	for _, b := range strings.Split(strings.ReplaceAll(string(text), "\r\n", "\n"), "\n\n") {
		if b = strings.Trim(b, "\n"); strings.TrimSpace(b) != "" {
			out = append(out, b)
		}
	}
	return out
}

// commonBlocks is the leading entries two texts share (a note made on both
// sides: its title).
func commonBlocks(a, b []byte) []byte {
	ab, bb := blocks(a), blocks(b)
	n := 0
	for n < len(ab) && n < len(bb) && ab[n] == bb[n] {
		n++
	}
	if n == 0 {
		return nil
	}
	return []byte(strings.Join(ab[:n], "\n\n") + "\n")
}

// joinBlocks appends entries to text, one blank line before each.
func joinBlocks(text []byte, entries []string) []byte {
	out := append([]byte(nil), bytes.TrimRight(text, "\n")...)
	for _, e := range entries {
		if len(out) > 0 {
			out = append(out, "\n\n"...)
		}
		out = append(out, e...)
	}
	return append(out, '\n')
}

// entryTime is the clock time an entry starts with, after a list marker,
// heading marks, emphasis or a bracket: "09:30", "9:30:15", "2026-12-01T09:30".
var entryTime = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[-*+]\s+|#+\s+)?(?:\*\*|\[|\()?(?:\d{4}-\d{2}-\d{2}[T ])?(\d{1,2}):(\d{2})(?::(\d{2}))?\b`)
})

func timeKey(entry string) (string, bool) {
	m := entryTime().FindStringSubmatch(entry)
	if m == nil {
		return "", false
	}
	h := m[1]
	if len(h) == 1 {
		h = "0" + h
	}
	sec := m[3]
	if sec == "" {
		sec = "00"
	}
	return h + ":" + m[2] + ":" + sec, true
}

// keys gives each entry its time, inherited from the entry before it when
// it has none of its own.
func keys(entries []string) []string {
	out := make([]string, len(entries))
	cur := ""
	for i, e := range entries {
		if k, ok := timeKey(e); ok {
			cur = k
		}
		out[i] = cur
	}
	return out
}

// mergeByTime merges two sides' entries by time, each side's in its own
// order; first wins ties.
func mergeByTime(first, second []string) []string {
	kf, ks := keys(first), keys(second)
	out := make([]string, 0, len(first)+len(second))
	i, j := 0, 0
	for i < len(first) && j < len(second) {
		if kf[i] <= ks[j] {
			out = append(out, first[i])
			i++
		} else {
			out = append(out, second[j])
			j++
		}
	}
	out = append(out, first[i:]...)
	return append(out, second[j:]...)
}

func updatedOf(note []byte) string {
	u, _ := frontmatter.Parse(note).String("updated")
	return u
}
