package mdlinks

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

func TestLinks(t *testing.T) {
	// Each wanted link is given by the text its spans cover; spans must also come
	// in source order without overlapping, so that two equal links are told apart.
	type want struct {
		span, label, destSpan, dest string
		ref                         bool
	}
	cases := []struct {
		name string
		src  string
		body int // where the body starts
		want []want
	}{
		{name: "inline", src: "See [style](style.md) now.",
			want: []want{{"[style](style.md)", "style", "style.md", "style.md", false}}},
		{name: "title and angle brackets", src: `[a](x.md "t") [b](<my file.md>)`,
			want: []want{
				{`[a](x.md "t")`, "a", "x.md", "x.md", false},
				{"[b](<my file.md>)", "b", "my file.md", "my file.md", false},
			}},
		{name: "empty label", src: "x [](a.md) y",
			want: []want{{"[](a.md)", "", "a.md", "a.md", false}}},
		{name: "label with markup", src: "[`code` *label*](g.md)",
			want: []want{{"[`code` *label*](g.md)", "code` *label", "g.md", "g.md", false}}},
		{name: "reference", src: "Ref: [full][r1], [collapsed][] and [r1].\n\n[r1]: one.md\n[collapsed]: two.md\n",
			want: []want{
				{"[full]", "full", "", "one.md", true},
				{"[collapsed]", "collapsed", "", "two.md", true},
				{"[r1]", "r1", "", "one.md", true},
			}},
		{name: "undefined reference is text", src: "[nope][none] and [nope]\n"},
		{name: "autolinks are not links", src: "<https://example.com/x.md> and <a@b.md> and https://example.com](x"},
		{name: "code is not links", src: "`[a](in-span.md)` [real](r.md)\n\n    [b](indented.md)\n\n```\n[c](fenced.md)\n```\n",
			want: []want{{"[real](r.md)", "real", "r.md", "r.md", false}}},
		{name: "CRLF and body offset", src: "---\r\nrevision: 1\r\n---\r\nline\r\n[a](x.md) and\r\n[b](y.md)\r\n", body: 22,
			want: []want{
				{"[a](x.md)", "a", "x.md", "x.md", false},
				{"[b](y.md)", "b", "y.md", "y.md", false},
			}},
		{name: "non-ASCII labels", src: "🐸 [é café 🐸](ü.md) [日本](../日本.md)",
			want: []want{
				{"[é café 🐸](ü.md)", "é café 🐸", "ü.md", "ü.md", false},
				{"[日本](../日本.md)", "日本", "../日本.md", "../日本.md", false},
			}},
		{name: "two equal links on a line", src: "[a](gone.md) [a](gone.md) [](gone.md) [](gone.md)",
			want: []want{
				{"[a](gone.md)", "a", "gone.md", "gone.md", false},
				{"[a](gone.md)", "a", "gone.md", "gone.md", false},
				{"[](gone.md)", "", "gone.md", "gone.md", false},
				{"[](gone.md)", "", "gone.md", "gone.md", false},
			}},
		{name: "destination before the link in text", src: "about gone.md: [](gone.md)",
			want: []want{{"[](gone.md)", "", "gone.md", "gone.md", false}}},
		{name: "no links", src: "plain text ] ( and [brackets]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := []byte(c.src)
			got := Links(src, c.body)
			if len(got) != len(c.want) {
				t.Fatalf("%d links, want %d: %+v", len(got), len(c.want), got)
			}
			prevEnd := c.body
			for i, l := range got {
				w := c.want[i]
				if s := c.src[l.Span.Start:l.Span.End]; s != w.span {
					t.Errorf("link %d: span %q, want %q", i, s, w.span)
				}
				if s := c.src[l.Label.Start:l.Label.End]; s != w.label {
					t.Errorf("link %d: label %q, want %q", i, s, w.label)
				}
				if s := c.src[l.DestSpan.Start:l.DestSpan.End]; s != w.destSpan {
					t.Errorf("link %d: destination span %q, want %q", i, s, w.destSpan)
				}
				if l.Dest != w.dest || l.Reference != w.ref {
					t.Errorf("link %d: dest %q reference %v, want %q %v", i, l.Dest, l.Reference, w.dest, w.ref)
				}
				if l.Span.Start < prevEnd {
					t.Errorf("link %d at %d overlaps the one before (ending at %d)", i, l.Span.Start, prevEnd)
				}
				if !l.Reference && (l.DestSpan.Start < l.Span.Start || l.DestSpan.End > l.Span.End ||
					l.Label.Start < l.Span.Start || l.Label.End > l.DestSpan.Start) {
					t.Errorf("link %d: label %v and destination %v are not inside %v in order", i, l.Label, l.DestSpan, l.Span)
				}
				prevEnd = l.Span.End
			}
		})
	}
}

func TestNoteTarget(t *testing.T) {
	note := "/m/user/notes/index.md"
	for dest, want := range map[string]string{
		"style.md":           "/m/user/notes/style.md",
		"../editor.md#keys":  "/m/user/editor.md",
		"sub/deeper.MD":      "/m/user/notes/sub/deeper.MD",
		"missing%20note.md":  "/m/user/notes/missing note.md",
		"https://e.com/x.md": "",
		"mailto:a@b.md":      "",
		"#top":               "",
		"/etc/x.md":          "",
		`\x.md`:              "",
		"pic.png":            "",
		"":                   "",
	} {
		got, ok := NoteTarget(note, dest)
		want = filepath.FromSlash(want)
		if ok != (want != "") || got != want {
			t.Errorf("NoteTarget(%q) = %q, %v; want %q", dest, got, ok, want)
		}
	}
}

// FuzzLinks: on any note, Links never panics and every span it returns lies
// inside the source, after the body offset, with the destination inside the link.
func FuzzLinks(f *testing.F) {
	for _, s := range []string{
		"---\nrevision: 1\n---\nSee [style](notes/style.md) and [b][r].\n\n[r]: other.md\n",
		"[](gone.md) [*x*][r]\n[r]: x.md", "`[code](x.md)`\n```\n[x](y.md)\n```\n", "[é](ü.md)\r\n[a](a.md)",
		"[a](<b c.md>) [a](b.md \"title\") ![img](i.png) <https://x>", "[[nested](a.md)](b.md)", "[",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		body := frontmatter.Parse(src).Body
		in := func(s frontmatter.Span) bool { return body <= s.Start && s.Start <= s.End && s.End <= len(src) }
		for _, l := range Links(src, body) {
			if !in(l.Span) {
				t.Fatalf("link span %v outside the body [%d, %d) of %q", l.Span, body, len(src), src)
			}
			if l.DestSpan != (frontmatter.Span{}) && (!in(l.DestSpan) || l.DestSpan.Start < l.Span.Start || l.DestSpan.End > l.Span.End) {
				t.Fatalf("destination span %v outside the link %v in %q", l.DestSpan, l.Span, src)
			}
		}
	})
}

// TestTooManyLinkOpeners: a body beyond MaxLinkOpeners is not searched (goldmark
// is quadratic in unclosed links); one at the bound still is.
func TestTooManyLinkOpeners(t *testing.T) {
	at := []byte(strings.Repeat("[a](b.md) ", MaxLinkOpeners))
	if n := len(Links(at, 0)); n != MaxLinkOpeners {
		t.Errorf("%d links at the bound, want %d", n, MaxLinkOpeners)
	}
	if got := Links([]byte(strings.Repeat("[a](", MaxLinkOpeners+1)), 0); got != nil {
		t.Errorf("a pathological body was searched: %d links", len(got))
	}
}

func TestWikiLinks(t *testing.T) {
	src := "---\nrevision: 1\n---\nSee [[notes/style]] and [[ review.md | the review]] and [[a#h]].\n" +
		"`[[not/code]]` [[]] [[open\n```\n[[fenced]]\n```\n    [[indented]]\nlast [[x/y.md]]"
	body := strings.Index(src, "See")
	got := WikiLinks([]byte(src), body)
	type want struct{ span, dest, label string }
	wants := []want{
		{"[[notes/style]]", "notes/style", "notes/style"},
		{"[[ review.md | the review]]", "review.md", " the review"},
		{"[[a#h]]", "a", "a#h"},
		{"[[x/y.md]]", "x/y.md", "x/y.md"},
	}
	if len(got) != len(wants) {
		t.Fatalf("got %d links %+v, want %d", len(got), got, len(wants))
	}
	for i, w := range wants {
		l := got[i]
		if s := src[l.Span.Start:l.Span.End]; s != w.span {
			t.Errorf("%d: span %q, want %q", i, s, w.span)
		}
		if s := src[l.DestSpan.Start:l.DestSpan.End]; s != w.dest || l.Dest != w.dest || !l.Wiki {
			t.Errorf("%d: dest %q (%q), want %q", i, s, l.Dest, w.dest)
		}
		if s := src[l.Label.Start:l.Label.End]; s != w.label {
			t.Errorf("%d: label %q, want %q", i, s, w.label)
		}
	}
	for in, want := range map[string]string{"notes/style": "notes/style.md", "a.MD": "a.MD", "/x/": "x.md"} {
		if got := WikiKey(in); got != want {
			t.Errorf("WikiKey(%q) = %q, want %q", in, got, want)
		}
	}
}
