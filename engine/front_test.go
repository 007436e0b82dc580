package engine_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// oddFrontmatter is frontmatter the compact values of a note must read as the
// parsed Document does: quoted and escaped values, revisions that are not a
// whole number of 0 or more or do not fit 32 bits, missing and duplicate keys,
// a byte order mark, CRLF, an unterminated or unparseable block.
var oddFrontmatter = []string{
	"---\nrevision: 3\nupdated: 2026-10-20T09:12:00.000Z\n---\nbody\n",
	"---\nrevision: 3\nupdated: \"2026-10-20T09:12:00.000Z\"\nmachine: 'm-1'\n---\nbody\n",
	"---\nupdated: \"2026\\u002d10\\u002d20\"\n---\n",
	"---\nupdated: 'it''s'\n---\n",
	"---\nupdated: \"\"\n---\n",
	"---\nupdated:\n---\n",
	"---\nupdated: 5\n---\n",
	"---\nupdated: [a, b]\n---\n",
	"---\nupdated: |\n  a block\n---\n",
	"---\nupdated: x # a comment\n---\n",
	"---\nupdated: a\nupdated: b\n---\n",
	"---\nrevision: -1\n---\n",
	"---\nrevision: 0\n---\n",
	"---\nrevision: 2147483647\n---\n",
	"---\nrevision: 2147483648\n---\n",
	"---\nrevision: 999999999999999999\n---\n",
	"---\nrevision: 99999999999999999999\n---\n",
	"---\nrevision: 3.5\n---\n",
	"---\nrevision: \"3\"\n---\n",
	"---\nrevision: 0x10\n---\n",
	"---\nrevision: +7\n---\n",
	"---\nrevision: seven\n---\n",
	"---\nrevision: 1\nrevision: 2\n---\n",
	"---\nrevision:\n---\n",
	"---\nmachine: 3f9c2a7e\n---\n",
	"---\nmachine: \"\"\n---\n",
	"---\nmachine: 12\n---\n",
	"---\nmachine: \"a\\tb\"\nupdated: 2026-10-20\n---\n",
	"\ufeff---\nrevision: 2\nupdated: u\n---\nbom body\n",
	"---\r\nrevision: 3\r\nupdated: 2026-10-20\r\n---\r\ncrlf body\r\n",
	"---\nrevision: 3\nupdated: 2026-10-20\n",
	"---\nrevision: [1\n---\nbody\n",
	"---\n- a list\n---\n",
	"---\n---\n",
	"---\n\n...\nbody",
	"no frontmatter\n",
	"",
	"---",
	"---\nname: skill\ndescription: \"does: things\"\n---\n",
	"---\nrevision: 4\nupdated: é ü\nmachine: mé\n---\n",
	"---\nrevision: 4\n" + strings.Repeat("k: v\n", 14000) + "---\n",
}

// TestNoteFrontIsTheDocuments holds what a note keeps of its frontmatter to
// what the parsed Document says: Body, Revision, Updated and Machine answer
// as they did when every note kept its Document.
func TestNoteFrontIsTheDocuments(t *testing.T) {
	for _, src := range oddFrontmatter {
		checkNoteFront(t, []byte(src))
	}
}

// FuzzNoteFront is TestNoteFrontIsTheDocuments on any source.
func FuzzNoteFront(f *testing.F) {
	for _, src := range oddFrontmatter {
		f.Add([]byte(src))
	}
	f.Fuzz(func(t *testing.T, src []byte) { checkNoteFront(t, src) })
}

func checkNoteFront(t *testing.T, src []byte) {
	t.Helper()
	e := engine.LooseNote("/x/note.md", src)
	d := frontmatter.Parse(src)
	wantRevision, ok := d.Int("revision")
	if !ok || wantRevision < 0 {
		wantRevision = 0
	}
	wantUpdated, _ := d.String("updated")
	wantMachine, _ := d.String("machine")
	if body := e.BodyOrNil(); !bytes.Equal(body, src[d.Body:]) || e.BodyStart() != d.Body {
		t.Errorf("%q: body at %d, %q; the Document says %d", src, e.BodyStart(), body, d.Body)
	}
	if e.Revision() != wantRevision {
		t.Errorf("%q: revision %d; the Document says %d", src, e.Revision(), wantRevision)
	}
	if e.Updated() != wantUpdated {
		t.Errorf("%q: updated %q; the Document says %q", src, e.Updated(), wantUpdated)
	}
	if e.Machine() != wantMachine {
		t.Errorf("%q: machine %q; the Document says %q", src, e.Machine(), wantMachine)
	}
	if name, _ := d.String("name"); e.Meta("name") != name {
		t.Errorf("%q: name %q; the Document says %q", src, e.Meta("name"), name)
	}
}
