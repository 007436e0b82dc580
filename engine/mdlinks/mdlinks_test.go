package mdlinks

import (
	"path/filepath"
	"testing"
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
