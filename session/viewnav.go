package session

import (
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// Definition in the read-only documents an editor shows beside the notes: the
// <memory> block preview (magicfrog.render) and the effective view
// (magicfrog.effectiveView, formatted by the editor). They are no notes and
// the session holds no file for them, so the editor sends their text (a
// document it opened under its own scheme); ViewDefinition reads it:
//
//   - in a <memory> block, anywhere in a <note> element (its opening line or
//     its body) the note it renders, found by its group (<task id="T-7">,
//     <agent>, <device machine="…">, …) and key; on a <skill/> or <omitted/>
//     line the note its path names;
//   - elsewhere, the word under the cursor: a note's portable path
//     (agent/larry/notes/style.md), a note's file (absolute, ~/… or file://),
//     else a key (notes/style.md), which goes to the note that wins it.
//
// The scope is the block's own (its header's task, agents and machine: the
// participant the preview was rendered for) and, for any other text, the
// session's participant; a note outside it leads nowhere.
func ViewDefinition(snap *Snapshot, text []byte, off int) []Place {
	if off < 0 || off > len(text) {
		return nil
	}
	m := snap.Memory
	lines := strings.Split(string(text), "\n")
	row, col := 0, off
	for row < len(lines) && col > len(lines[row]) {
		col -= len(lines[row]) + 1
		row++
	}
	if row >= len(lines) {
		return nil
	}
	sc, block := blockScope(m, lines)
	if !block {
		sc = snap.Participant
	}
	var e *engine.Note
	if block {
		e = blockNoteAt(m, sc, lines, row)
	}
	if e == nil {
		e = wordNote(m, sc, wordAt(lines[row], col))
	}
	if e == nil || !inScope(m, sc, e) {
		return nil
	}
	return []Place{placeIn(e, frontmatter.Span{})}
}

var (
	blockHeaderRE = regexp.MustCompile(`^<memory [^>]*>$`)
	attrRE        = regexp.MustCompile(`([a-z]+)="([^"]*)"`)
	groupOpenRE   = regexp.MustCompile(`^<(task|agent|user|account|device)((?: [a-z]+="[^"]*")*)>$`)
	pathAttrRE    = regexp.MustCompile(`^<(note|skill|omitted) path="([^"]*)"`)
)

// attrs are the attributes of an element's opening line.
func attrs(line string) map[string]string {
	out := map[string]string{}
	for _, a := range attrRE.FindAllStringSubmatch(line, -1) {
		out[a[1]] = html.UnescapeString(a[2])
	}
	return out
}

// blockScope is the scope a <memory> block's header names, when lines hold
// one (before any other line but comments).
func blockScope(m *engine.Memory, lines []string) (engine.Scope, bool) {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "<!--") {
			continue
		}
		if !blockHeaderRE.MatchString(l) {
			return engine.Scope{}, false
		}
		a := attrs(l)
		sc := engine.Scope{Task: a["task"], Machine: a["machine"]}
		if a["agents"] != "" {
			sc.Agents = strings.Fields(strings.ReplaceAll(a["agents"], ",", " "))
		}
		sc.Machine = m.MachineOf(sc)
		return sc, true
	}
	return engine.Scope{}, false
}

// blockNoteAt is the note whose element holds line row of a block: the
// <note> element it opens or is in the body of, found by its group, or the
// note a <skill/> or <omitted/> line names.
func blockNoteAt(m *engine.Memory, sc engine.Scope, lines []string, row int) *engine.Note {
	key := ""
	i := row
	for ; i >= 0; i-- {
		l := lines[i]
		if p := pathAttrRE.FindStringSubmatch(l); p != nil {
			path := html.UnescapeString(p[2])
			if p[1] != "note" {
				if i != row {
					return nil
				}
				return refNote(m, path)
			}
			key = path
			break
		}
		if i != row && (l == "</note>" || groupOpenRE.MatchString(l)) {
			return nil // between notes: no element holds the line
		}
	}
	if key == "" {
		return nil
	}
	for ; i >= 0; i-- {
		g := groupOpenRE.FindStringSubmatch(lines[i])
		if g == nil {
			continue
		}
		d, err := engine.ParseDimension(g[1])
		if err != nil {
			return nil
		}
		owner := attrs(g[2])["id"]
		for _, x := range m.Versions(key) {
			if x.Dimension == d && (d == engine.Device || x.Owner == owner) && inScope(m, sc, x) {
				return x
			}
		}
		return nil
	}
	return nil
}

// wordAt is the word of line around byte col: a run of characters that are
// neither space nor quotes, brackets, pipes or commas.
func wordAt(line string, col int) string {
	stop := func(c byte) bool { return strings.IndexByte(" \t\"'`|,()[]<>", c) >= 0 }
	start, end := min(col, len(line)), min(col, len(line))
	for start > 0 && !stop(line[start-1]) {
		start--
	}
	for end < len(line) && !stop(line[end]) {
		end++
	}
	return strings.TrimRight(line[start:end], ".:;")
}

// wordNote is the note a word names: a file, a portable path, else a key's
// winner in scope sc.
func wordNote(m *engine.Memory, sc engine.Scope, w string) *engine.Note {
	if w == "" {
		return nil
	}
	if p, err := URIToPath(w); err == nil && strings.HasPrefix(w, "file:") {
		return m.Note(p)
	}
	if strings.HasPrefix(w, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			w = filepath.Join(home, w[2:])
		}
	}
	if filepath.IsAbs(w) {
		return m.Note(w)
	}
	if e := refNote(m, w); e != nil {
		return e
	}
	if !strings.HasSuffix(w, ".md") {
		return nil
	}
	return KeyWinner(m, sc, w)
}

// refNote is the loaded note of a portable path, nil when none is loaded.
func refNote(m *engine.Memory, ref string) *engine.Note {
	top, rest, ok := strings.Cut(ref, "/")
	d, err := engine.ParseDimension(top)
	if !ok || err != nil || rest == "" {
		return nil
	}
	owner := ""
	if first, key, ok := strings.Cut(rest, "/"); ok && d.HasOwners() && m.IsRegistered(d, first) {
		owner, rest = first, key
	}
	if p, err := m.PathOf(d, owner, rest); err == nil {
		if e := m.Note(p); e != nil {
			return e
		}
	}
	// A legacy tree's note (machine/, project/) has the same portable path.
	for _, x := range m.Versions(rest) {
		if x.Ref() == ref {
			return x
		}
	}
	return nil
}
