package roam

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/store"
	"github.com/magicfrog/mf-lsp/engine/textmerge"
)

// split divides a note into its frontmatter block (with delimiters) and body.
func split(b []byte) (head, body []byte, d *frontmatter.Document) {
	d = frontmatter.Parse(b)
	if !d.Has() {
		return nil, b, d
	}
	return b[:d.Body], b[d.Body:], d
}

// meta is a frontmatter block without revision and updated: what two versions
// must agree on, besides the body, to merge.
func meta(head []byte) []byte {
	if head == nil {
		return nil
	}
	d := frontmatter.Parse(head)
	edits, ok := frontmatter.SetFields(head, d, []frontmatter.Set{{Key: "revision"}, {Key: "updated"}})
	if !ok {
		return head
	}
	return frontmatter.Apply(head, edits)
}

// revision of a note's bytes (0 when it has none or it does not parse).
func revision(b []byte) int {
	r, _ := store.RevisionOf(b)
	return r
}

// withRevision returns note b with revision and updated set.
func withRevision(b []byte, rev int, now time.Time) ([]byte, bool) {
	head, body, d := split(b)
	sets := []frontmatter.Set{{Key: "revision", Value: rev}, {Key: "updated", Value: engine.FormatTime(now)}}
	if head == nil {
		if d.Present { // unterminated: never rewritten silently
			return nil, false
		}
		return frontmatter.Compose(sets, body), true
	}
	edits, ok := frontmatter.SetFields(head, d, sets)
	if !ok {
		return nil, false
	}
	return append(frontmatter.Apply(head, edits), body...), true
}

// mergeNote merges two versions of a note changed on both sides since base
// (nil when the note is new on both): the bodies line by line, the other
// frontmatter keys as a whole (one side may change them), and the result is
// the next revision after both. ok is false for a conflict.
func mergeNote(base, ours, theirs []byte, now time.Time) ([]byte, bool) {
	return mergeNoteWith(base, ours, theirs, now, mergeLines)
}

// mergeNoteWith is mergeNote with the bodies merged by mergeBody.
func mergeNoteWith(base, ours, theirs []byte, now time.Time, mergeBody func(base, ours, theirs []byte) ([]byte, bool)) ([]byte, bool) {
	bh, bb, _ := split(base)
	oh, ob, od := split(ours)
	th, tb, td := split(theirs)
	if (od.Present && oh == nil) || (td.Present && th == nil) {
		return nil, false // broken frontmatter on a side: the user decides
	}
	body, ok := mergeBody(bb, ob, tb)
	if !ok {
		return nil, false
	}
	head := oh
	switch bm, om, tm := meta(bh), meta(oh), meta(th); {
	case bytes.Equal(om, tm), bytes.Equal(tm, bm):
	case bytes.Equal(om, bm):
		head = th
	default:
		return nil, false
	}
	return withRevision(append(append([]byte(nil), head...), body...), max(revision(ours), revision(theirs))+1, now)
}

// mergeRoster merges magicfrog.json three ways: an agent or shared folder is
// in the result when both sides kept it or one side added it. Other keys come
// from ours.
func mergeRoster(base, ours, theirs []byte) ([]byte, bool) {
	var b, o, t map[string]any
	for _, x := range []struct {
		src []byte
		v   *map[string]any
	}{{base, &b}, {ours, &o}, {theirs, &t}} {
		*x.v = map[string]any{}
		if len(x.src) > 0 && json.Unmarshal(x.src, x.v) != nil {
			return nil, false
		}
	}
	list := func(m map[string]any, k string) []string {
		var out []string
		if xs, ok := m[k].([]any); ok {
			for _, x := range xs {
				if s, ok := x.(string); ok {
					out = append(out, s)
				}
			}
		}
		return out
	}
	for _, k := range []string{"agents", "shared"} {
		bl, ol, tl := list(b, k), list(o, k), list(t, k)
		var out []string
		add := func(s string) {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
		for _, s := range ol {
			if slices.Contains(tl, s) || !slices.Contains(bl, s) {
				add(s)
			}
		}
		for _, s := range tl {
			if !slices.Contains(bl, s) {
				add(s)
			}
		}
		if out == nil && o[k] == nil && t[k] == nil {
			continue
		}
		if out == nil {
			out = []string{}
		}
		o[k] = out
	}
	res, err := json.MarshalIndent(o, "", "  ")
	if err != nil {
		return nil, false
	}
	return append(res, '\n'), true
}

// mergeFile merges one path of the sync set: a note, the roster or layers.json.
func mergeFile(rel string, base, ours, theirs []byte, now time.Time) ([]byte, bool) {
	switch rel {
	case rosterPath:
		return mergeRoster(base, ours, theirs)
	case layersPath:
		return mergeLines(base, ours, theirs)
	}
	return mergeNote(base, ours, theirs, now)
}

// mergeLines is the project's one line merge (engine/textmerge) on the bytes
// sync holds. A text it cannot merge, too large ones included, is a conflict:
// sync then keeps both versions.
func mergeLines(base, ours, theirs []byte) ([]byte, bool) {
	merged, ok := textmerge.Merge(string(base), string(ours), string(theirs))
	if !ok {
		return nil, false
	}
	return []byte(merged), true
}
