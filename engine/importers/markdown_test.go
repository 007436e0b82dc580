package importers

import (
	"reflect"
	"strings"
	"testing"
)

func TestAtImports(t *testing.T) {
	src := "See @README.md and @docs/a.md.\n" +
		"Mail me at sam@example.com; ping @alice.\n" +
		"Inline `@not/this.md` is code.\n" +
		"```\n@not/fenced.md\n```\n" +
		"~~~md\n```\n@still/fenced.md\n~~~\n" +
		"(@paren/ok.md) and @~/home.md\r\n"
	got := atImports([]byte(src))
	want := []string{"README.md", "docs/a.md.", "alice.", "paren/ok.md)", "~/home.md"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("atImports = %q, want %q", got, want)
	}
}

func TestSplitSections(t *testing.T) {
	src := "# Title\r\nintro\r\n## A\r\na\r\n```\r\n## not a heading\r\n```\r\n## A\r\nb\r\n"
	secs := splitSections([]byte(src))
	var titles []string
	var joined strings.Builder
	for _, s := range secs {
		titles = append(titles, s.title)
		joined.Write(s.body)
	}
	if want := []string{"", "A", "A"}; !reflect.DeepEqual(titles, want) {
		t.Errorf("titles = %q, want %q", titles, want)
	}
	if joined.String() != src {
		t.Errorf("the sections do not add up to the source byte for byte")
	}
	if got := uniqueSlugs(titles); !reflect.DeepEqual(got, []string{"intro", "a", "a-2"}) {
		t.Errorf("slugs = %q", got)
	}
	if splitSections([]byte("# Only a title\nand text\n")) != nil {
		t.Errorf("a file with one heading was split")
	}
}

func TestSplitFrontmatterCursorGlobs(t *testing.T) {
	// Not YAML: *.ts would be an alias. Read line by line, every key kept.
	meta, body := splitFrontmatter([]byte("---\ndescription: TS rules\nglobs: *.ts, src/**/*.tsx\nalwaysApply: false\nrevision: 9\n---\nbody\n"))
	got := map[string]any{}
	for _, s := range meta {
		got[s.Key] = s.Value
	}
	want := map[string]any{"description": "TS rules", "globs": "*.ts, src/**/*.tsx", "alwaysApply": false}
	if !reflect.DeepEqual(got, want) || string(body) != "body\n" {
		t.Errorf("meta = %v, body %q", got, body)
	}
}
