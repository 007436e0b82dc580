package importers

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// cursor plans Cursor rules as task notes. A rule that always applies
// (alwaysApply: true, and a legacy .cursorrules file) is a core note
// cursor/NAME.md; every other rule — Cursor attaches it by globs, by its
// description or on request — is a skill, skills/cursor/NAME.md, listed in the
// <memory> block by name and description for the agent to read when it
// applies. description, globs and alwaysApply stay in the frontmatter.
func (b *builder) cursor(abs string, dir bool) error {
	root, rules := abs, abs
	var files []string
	switch {
	case !dir:
		root = filepath.Dir(abs)
		files = []string{abs}
	default:
		if info, err := os.Stat(filepath.Join(abs, ".cursor", "rules")); err == nil && info.IsDir() {
			rules = filepath.Join(abs, ".cursor", "rules")
		}
		files = append(files, existing(filepath.Join(abs, ".cursorrules"))...)
		files = append(files, rulesBelow(rules)...)
	}
	for _, p := range files {
		from, src, ok := b.read(root, p)
		if !ok {
			continue
		}
		if filepath.Base(p) == ".cursorrules" {
			b.add(engine.Task, "cursor/cursorrules.md", from, "", p, src)
			continue
		}
		rel, _ := filepath.Rel(rules, p)
		if !dir {
			rel = filepath.Base(p)
		}
		rel = strings.TrimSuffix(filepath.ToSlash(rel), filepath.Ext(rel)) + ".md"
		meta, _ := splitFrontmatter(src)
		if v, _ := metaValue(meta, "alwaysApply"); v == true {
			b.add(engine.Task, "cursor/"+rel, from, "", p, src)
			continue
		}
		var extra []frontmatter.Set
		if _, ok := metaValue(meta, "name"); !ok {
			// A skill is listed by name; a rule's name is its file name.
			extra = append(extra, frontmatter.Set{Key: "name", Value: strings.TrimSuffix(filepath.Base(rel), ".md")})
		}
		b.add(engine.Task, "skills/cursor/"+rel, from, "", p, src, extra...)
	}
	return nil
}

// rulesBelow lists Cursor rule files (.mdc, and .md) below dir, in path order.
func rulesBelow(dir string) []string { return filesBelow(dir, ".mdc", ".md") }
