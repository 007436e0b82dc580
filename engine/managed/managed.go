// Package managed keeps a section of a Markdown file — an agent host's
// CLAUDE.md or AGENTS.md — in step with the <memory> block: the section lies
// between two marker comments, mf-lsp rewrites only what is between them, and
// every byte outside them stays as it was. Hosts that read those files and not
// MCP so boot from the curated memory.
package managed

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/magicfrog/mf-lsp/engine/store"
)

// The marker lines. Each must be a line of its own (trailing spaces allowed);
// the begin line may say more after its prefix.
const (
	BeginPrefix = "<!-- mf-lsp:begin"
	Begin       = BeginPrefix + " (managed by mf-lsp render --into: edits between these markers are replaced) -->"
	End         = "<!-- mf-lsp:end -->"
)

// ErrMarkers reports markers that do not make exactly one section: two pairs,
// a begin without an end, an end before its begin. Nothing is written.
var ErrMarkers = errors.New("managed section markers")

// Outcome says what Splice did.
type Outcome string

const (
	Replaced  Outcome = "replaced"  // the section between the markers was replaced
	Appended  Outcome = "appended"  // there were no markers: the section was added at the end
	Created   Outcome = "created"   // there was no file: it holds the section alone
	Unchanged Outcome = "unchanged" // the section already holds this block
)

// span is the managed section: from the first byte of its begin line to the
// byte after its end line's line end.
type span struct{ start, end int }

// find locates the one managed section of src; ok is false when there are no
// markers at all.
func find(src []byte) (s span, ok bool, err error) {
	var begins, ends []span
	for pos := 0; pos < len(src); {
		next := bytes.IndexByte(src[pos:], '\n')
		lineEnd := len(src)
		if next >= 0 {
			lineEnd = pos + next + 1
		}
		line := strings.TrimRight(string(src[pos:lineEnd]), " \t\r\n")
		switch {
		case strings.HasPrefix(line, BeginPrefix):
			begins = append(begins, span{pos, lineEnd})
		case line == End:
			ends = append(ends, span{pos, lineEnd})
		}
		pos = lineEnd
	}
	switch {
	case len(begins) == 0 && len(ends) == 0:
		return span{}, false, nil
	case len(begins) != 1 || len(ends) != 1:
		return span{}, false, fmt.Errorf("%w: %d begin and %d end markers; want exactly one pair (remove the extra ones by hand)", ErrMarkers, len(begins), len(ends))
	case ends[0].start < begins[0].end:
		return span{}, false, fmt.Errorf("%w: the end marker comes before the begin marker", ErrMarkers)
	}
	return span{begins[0].start, ends[0].end}, true, nil
}

// Section is the managed section for a rendered block, with the file's line
// ends ("\r\n" or "\n").
func Section(block, nl string) string {
	body := strings.ReplaceAll(block, "\r\n", "\n")
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	s := Begin + "\n" + body + End + "\n"
	if nl != "\n" {
		s = strings.ReplaceAll(s, "\n", nl)
	}
	return s
}

// lineEnding is the file's line end: that of its first line, "\n" for a file
// without one.
func lineEnding(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// Splice returns src with its managed section holding block: replaced between
// the markers, or appended after a blank line when there are none. Bytes
// outside the section never change.
func Splice(src []byte, block string) ([]byte, Outcome, error) {
	for _, l := range strings.Split(block, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if strings.HasPrefix(l, BeginPrefix) || l == End {
			return nil, "", fmt.Errorf("%w: the block holds a marker line (%q) in a note; the section could not be found again", ErrMarkers, l)
		}
	}
	sp, ok, err := find(src)
	if err != nil {
		return nil, "", err
	}
	nl := lineEnding(src)
	if ok {
		sec := Section(block, nl)
		if string(src[sp.start:sp.end]) == sec {
			return src, Unchanged, nil
		}
		out := make([]byte, 0, len(src)+len(sec))
		out = append(append(append(out, src[:sp.start]...), sec...), src[sp.end:]...)
		return out, Replaced, nil
	}
	out := append([]byte(nil), src...)
	switch {
	case len(out) == 0:
	case !bytes.HasSuffix(out, []byte("\n")):
		out = append(out, nl+nl...)
	case !bytes.HasSuffix(out, []byte(nl+nl)) && !bytes.HasSuffix(out, []byte("\n\n")):
		out = append(out, nl...)
	}
	return append(out, Section(block, nl)...), Appended, nil
}

// WriteInto puts block into path's managed section, atomically, under
// lockRoot's lock; a file that does not exist is created holding the section.
// A path that is a symbolic link is refused with where it points: write the
// file itself.
func WriteInto(lockRoot, path, block string) (Outcome, error) {
	if t := store.LinkTarget(path); t != "" {
		return "", fmt.Errorf("%s is a symbolic link to %s: name the file itself (--into %s), so that the file written is the one you see", path, t, t)
	}
	var outcome Outcome
	_, err := store.UpdateFile(lockRoot, path, func(current []byte, exists bool) ([]byte, error) {
		next, o, err := Splice(current, block)
		outcome = o
		if !exists {
			outcome = Created
		}
		return next, err
	})
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return outcome, nil
}
