package managed

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const block = "<memory generation=\"aaaa1111\">\n<user>\n<note path=\"a.md\">\nHi.\n</note>\n</user>\n</memory>\n"

func TestSpliceKeepsOutsideBytes(t *testing.T) {
	before := "# Project\n\nHand-written intro.\n\n"
	after := "\n## Later\n\nMore text, no newline at the end"
	old := Section("<memory generation=\"old\">\n</memory>\n", "\n")
	out, o, err := Splice([]byte(before+old+after), block)
	if err != nil || o != Replaced {
		t.Fatalf("Splice: %v, %s", err, o)
	}
	if want := before + Section(block, "\n") + after; string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	// Again with the same block: nothing to do.
	again, o, err := Splice(out, block)
	if err != nil || o != Unchanged || string(again) != string(out) {
		t.Errorf("second splice: %s, %v", o, err)
	}
}

func TestSpliceCRLF(t *testing.T) {
	before := "# Project\r\n\r\nIntro.\r\n"
	after := "Footer.\r\n"
	old := Section("<memory generation=\"old\">\n</memory>\n", "\r\n")
	out, _, err := Splice([]byte(before+old+after), block)
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	if !strings.HasPrefix(s, before) || !strings.HasSuffix(s, after) {
		t.Errorf("outside bytes changed:\n%q", s)
	}
	if strings.Contains(strings.ReplaceAll(s, "\r\n", ""), "\n") {
		t.Errorf("a bare LF in a CRLF file:\n%q", s)
	}
	// No markers yet in a CRLF file: appended with CRLF.
	out, o, _ := Splice([]byte("Intro.\r\n"), block)
	if o != Appended || !strings.HasPrefix(string(out), "Intro.\r\n\r\n"+Begin+"\r\n") {
		t.Errorf("append: %s %q", o, out)
	}
}

func TestSpliceAppends(t *testing.T) {
	for _, src := range []string{"", "Intro.", "Intro.\n", "Intro.\n\n"} {
		out, o, err := Splice([]byte(src), block)
		if err != nil || o != Appended {
			t.Fatalf("%q: %s %v", src, o, err)
		}
		if !strings.HasPrefix(string(out), src) {
			t.Errorf("%q: the existing bytes are not kept as they were: %q", src, out)
		}
		if !strings.HasSuffix(string(out), Section(block, "\n")) {
			t.Errorf("%q: no section at the end: %q", src, out)
		}
		if src != "" && !strings.Contains(string(out), "Intro.\n\n"+Begin) {
			t.Errorf("%q: no blank line before the section: %q", src, out)
		}
	}
}

func TestSpliceRefusesBadMarkers(t *testing.T) {
	pair := Section("<memory generation=\"x\">\n</memory>\n", "\n")
	for name, src := range map[string]string{
		"two pairs":      "a\n" + pair + "b\n" + pair,
		"begin only":     "a\n" + Begin + "\nb\n",
		"end only":       "a\n" + End + "\n",
		"end then begin": End + "\n" + Begin + "\n",
	} {
		if _, _, err := Splice([]byte(src), block); !errors.Is(err, ErrMarkers) {
			t.Errorf("%s: err = %v, want ErrMarkers", name, err)
		}
	}
	if _, _, err := Splice(nil, "<memory>\n"+End+"\n</memory>\n"); !errors.Is(err, ErrMarkers) {
		t.Errorf("a block holding a marker line was written: %v", err)
	}
}

func TestWriteInto(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "memory")
	p := filepath.Join(dir, "CLAUDE.md")
	if o, err := WriteInto(lock, p, block); err != nil || o != Created {
		t.Fatalf("create: %s %v", o, err)
	}
	os.WriteFile(p, []byte("Mine.\n"), 0o600)
	os.Chmod(p, 0o600)
	if o, err := WriteInto(lock, p, block); err != nil || o != Appended {
		t.Fatalf("append: %s %v", o, err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600", fi.Mode().Perm())
	}
	old := time.Now().Add(-time.Hour)
	os.Chtimes(p, old, old)
	if o, err := WriteInto(lock, p, block); err != nil || o != Unchanged {
		t.Fatalf("same block: %s %v", o, err)
	}
	if fi, _ := os.Stat(p); !fi.ModTime().Equal(old) {
		t.Errorf("an unchanged section rewrote the file")
	}
	// Two marker pairs: refused, the file untouched.
	two := "x\n" + Section(block, "\n") + Section(block, "\n")
	os.WriteFile(p, []byte(two), 0o644)
	if _, err := WriteInto(lock, p, "<memory generation=\"new\">\n</memory>\n"); !errors.Is(err, ErrMarkers) {
		t.Errorf("two pairs: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != two {
		t.Errorf("a refused write changed the file")
	}
	// A link is refused, naming where it points; its target is untouched.
	link := filepath.Join(dir, "AGENTS.md")
	if err := os.Symlink(p, link); err != nil {
		t.Skip(err)
	}
	if _, err := WriteInto(lock, link, block); err == nil || !strings.Contains(err.Error(), "symbolic link to "+p) {
		t.Errorf("link: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != two {
		t.Errorf("writing through a link changed its target")
	}
	// No lock file or temporary file is left beside the user's file.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left %s beside the file", e.Name())
		}
	}
}
