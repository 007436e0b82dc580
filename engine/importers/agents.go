package importers

import (
	"path/filepath"

	"github.com/magicfrog/mf-lsp/engine"
)

// agents plans AGENTS.md files as task notes. The file at the root of the
// folder named is the note AGENTS.md; a nested one keeps its folder as key
// prefix (packages/api/AGENTS.md), since it applies to that part of the tree.
func (b *builder) agents(abs string, dir bool) error {
	root := abs
	files := []string{abs}
	if dir {
		files = append(existing(filepath.Join(abs, "AGENTS.md")), nestedNamed(abs, "AGENTS.md")...)
	} else {
		root = filepath.Dir(abs)
	}
	for _, p := range files {
		from, src, ok := b.read(root, p)
		if !ok {
			continue
		}
		rel, _ := filepath.Rel(root, p)
		b.add(engine.Task, filepath.ToSlash(rel), from, "", p, src)
	}
	return nil
}
