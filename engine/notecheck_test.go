package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/magicfrog/mf-lsp/engine/errcode"
	"github.com/magicfrog/mf-lsp/engine/internal/notetexts"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// ruleOf is the rule err names, "" for nil; another error fails the test.
func ruleOf(t testing.TB, what string, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	e, ok := AsNotANote(err)
	if !ok {
		t.Fatalf("%s: %v is not a NotANoteError", what, err)
	}
	return string(e.Rule)
}

// TestOneAnswerForWhatIsANote runs the one table of texts through the check,
// the loader, export/import and the store's write: each answers the same
// rule (issue 20: the loader, import and the write path each had their own
// copy, and the write path had none beyond the size).
func TestOneAnswerForWhatIsANote(t *testing.T) {
	for _, tx := range notetexts.Table(t) {
		t.Run(tx.Name, func(t *testing.T) {
			if got := ruleOf(t, "CheckNote", CheckNote(tx.Src)); got != tx.Rule {
				t.Errorf("CheckNote: rule %q, want %q", got, tx.Rule)
			}

			// The loader.
			m, dir := newTree(t, map[string]string{"data/memory/user/t.md": string(tx.Src), "portable/user/t.md": string(tx.Src)})
			p := filepath.Join(dir, "data/memory/user/t.md")
			got := ""
			for _, pr := range m.Problems() {
				if pr.Path == p {
					got = string(pr.Rule)
					if got == "" {
						t.Errorf("loader: problem %v without a rule", pr)
					}
					if !strings.Contains(pr.Message, "not a note ("+got+")") {
						t.Errorf("loader: message %q does not name the rule", pr.Message)
					}
				}
			}
			if got != tx.Rule {
				t.Errorf("loader: rule %q, want %q", got, tx.Rule)
			}
			if e := m.Note(p); (e != nil) != (tx.Rule == "") || (e != nil && !bytes.Equal(e.src, tx.Src)) {
				t.Errorf("loader: note %v, want one only for a note, with the file's bytes", e != nil)
			}

			// Import of a portable tree into another data directory.
			into, err := Open(Options{DataDir: filepath.Join(dir, "other")})
			if err != nil {
				t.Fatal(err)
			}
			res, err := into.Import(filepath.Join(dir, "portable"))
			if err != nil {
				t.Fatal(err)
			}
			got = ""
			for _, s := range res.Skipped {
				if s.From == "user/t.md" {
					got = notetexts.RuleIn(s.Reason)
				}
			}
			if got != tx.Rule || (tx.Rule == "" && len(res.Imported) != 1) {
				t.Errorf("import: rule %q (imported %v, skipped %v), want %q", got, res.Imported, res.Skipped, tx.Rule)
			}

			// The store, which every note write passes through.
			dest := filepath.Join(dir, "data/memory/user/new.md")
			err = store.Write(filepath.Join(dir, "data/memory"), dest, tx.Src, store.Expect{})
			if got := ruleOf(t, "store.Write", err); got != tx.Rule {
				t.Errorf("store.Write: rule %q, want %q", got, tx.Rule)
			}
			if _, err := os.Lstat(dest); (err == nil) != (tx.Rule == "") {
				t.Errorf("store.Write: written %v, want %v", err == nil, tx.Rule == "")
			}
		})
	}
}

// TestWriteRefusesWhatIsNotANote is issue 20 through engine.Write: a body
// with a NUL byte, or opening with its own frontmatter block, was written.
// Now each is a NotANoteError naming its rule, coded not-a-note, and nothing
// is written.
func TestWriteRefusesWhatIsNotANote(t *testing.T) {
	for _, c := range []struct {
		name, body string
		rule       NoteRule
	}{
		{"NUL byte", "a\x00b\n", RuleNULByte},
		{"own frontmatter", "---\nrevision: 99\n---\nbody\n", RuleFrontmatterInBody},
		{"own frontmatter, CRLF", "---\r\nrevision: 99\r\n---\r\nbody\r\n", RuleFrontmatterInBody},
		{"own frontmatter after a BOM", "\uFEFF---\ntitle: x\n---\n", RuleFrontmatterInBody},
		{"own empty frontmatter", "---\n---\n", RuleFrontmatterInBody},
		{"Latin-1", "caf\xe9\n", RuleNotUTF8},
		{"too large", strings.Repeat("x", MaxNoteSize+1), RuleTooLarge},
		{"too large with its frontmatter", strings.Repeat("x", MaxNoteSize-10), RuleTooLarge},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, dir := newTree(t, map[string]string{"data/memory/user/kept.md": "---\nrevision: 1\n---\nkept\n"})
			for _, key := range []string{"new.md", "kept.md"} {
				p := filepath.Join(dir, "data/memory/user", key)
				before, _ := os.ReadFile(p)
				expect := 0
				if before != nil {
					expect = 1
				}
				_, err := m.Write(WriteRequest{Dimension: User, Key: key, Body: []byte(c.body), ExpectRevision: expect})
				e, ok := AsNotANote(err)
				if !ok || e.Rule != c.rule || e.Path != p {
					t.Fatalf("%s: %v; want a NotANoteError %s for %s", key, err, c.rule, p)
				}
				if !strings.Contains(err.Error(), "not a note ("+string(c.rule)+")") {
					t.Errorf("%s: %q does not name the rule", key, err)
				}
				if errcode.Of(err) != errcode.NotANote {
					t.Errorf("%s: code %q", key, errcode.Of(err))
				}
				if d, _ := errcode.DataOf(err); d.Rule != string(c.rule) || d.Path != p {
					t.Errorf("%s: data %+v", key, d)
				}
				after, _ := os.ReadFile(p)
				if !bytes.Equal(after, before) {
					t.Errorf("%s: the file changed:\n%q", key, after)
				}
			}
		})
	}
	// What is Markdown, not frontmatter, is written: a thematic break, a ---
	// line that no closing line follows, a block further down.
	m, _ := newTree(t, nil)
	for i, body := range []string{"---\nno closing line\n", "text\n\n---\n\nmore\n", "x\n---\na: 1\n---\n", "---"} {
		if _, err := m.Write(WriteRequest{Dimension: User, Key: "ok" + string(rune('a'+i)) + ".md", Body: []byte(body)}); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// TestWriteBodyReadsBack is the property of issue 20: for any body, a write
// is refused with a NotANoteError, or the loader reads back the note with
// exactly that body. Bodies are drawn from the pieces that matter (delimiter
// lines, line ends, a BOM, NUL, bytes that are not UTF-8), written new and
// over notes of several shapes, some not written by the engine.
func TestWriteBodyReadsBack(t *testing.T) {
	pieces := []string{"---", "...", "\n", "\r\n", "revision: 99", "a: [", "x", " ", "# T", "é", "\uFEFF", "\x00", "\xff", "\xe9", "\t", "-", "```"}
	body := rapid.Custom(func(t *rapid.T) string {
		parts := rapid.SliceOfN(rapid.SampledFrom(pieces), 0, 12).Draw(t, "parts")
		return strings.Join(parts, "")
	})
	before := rapid.SampledFrom([]string{
		"",                             // no note yet
		"---\nrevision: 1\n---\nold\n", // the engine's shape
		"---\nrevision: 1\n---",        // a closing line without a line end
		"---\r\nrevision: 1\r\nname: n\r\n---\r\nold", // CRLF, another key
		"plain text, revision 0\n",                    // no frontmatter
		"---\nrevision: 1\n",                          // unterminated
		"\uFEFF---\nrevision: 1\n---\nold\n",          // a BOM
	})
	dir := t.TempDir()
	n, written, refused := 0, 0, 0
	rapid.Check(t, func(t *rapid.T) {
		n++
		root := filepath.Join(dir, strconv.Itoa(n))
		old := before.Draw(t, "before")
		b := body.Draw(t, "body")
		note := filepath.Join(root, "memory", "user", "n.md")
		if old != "" {
			must(t, os.MkdirAll(filepath.Dir(note), 0o755))
			must(t, os.WriteFile(note, []byte(old), 0o644))
		}
		m, err := Open(Options{DataDir: root})
		must(t, err)
		req := WriteRequest{Dimension: User, Key: "n.md", Body: []byte(b)}
		if e := m.Note(note); e != nil {
			req.ExpectRevision, req.ExpectHash = e.Revision(), e.Hash()
		}
		res, err := m.Write(req)
		if err != nil {
			if _, ok := AsNotANote(err); !ok {
				t.Fatalf("write of %q over %q: %v (neither written nor a NotANoteError)", b, old, err)
			}
			if now, _ := os.ReadFile(note); string(now) != old {
				t.Fatalf("a refused write changed the file: %q", now)
			}
			refused++
			return
		}
		fresh, err := Open(Options{DataDir: root})
		must(t, err)
		e := fresh.Note(note)
		if e == nil {
			t.Fatalf("write of %q over %q: the loader does not read it: %v", b, old, fresh.Problems())
		}
		if body := e.BodyOrNil(); string(body) != b || e.Revision() != res.Revision {
			src, _ := os.ReadFile(note)
			t.Fatalf("write of %q over %q: read back body %q revision %d (wrote revision %d):\n%q", b, old, body, e.Revision(), res.Revision, src)
		}
		written++
	})
	if written == 0 || refused == 0 {
		t.Errorf("%d bodies written, %d refused: the generator misses one side", written, refused)
	}
}

func must(t *rapid.T, err error) {
	if err != nil {
		t.Fatal(err)
	}
}
