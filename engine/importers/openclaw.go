package importers

import (
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
)

// openclaw plans an OpenClaw workspace for the agent dimension (under the
// --scope agent ID, or shared). Its journal — memory/**.md and MEMORY.md — goes
// to the agent's journal layer as `import --journal` takes it; skills/ keeps
// its paths (skills/NAME/SKILL.md lands in the skills layer); every other
// Markdown file (AGENTS.md, SOUL.md, USER.md, IDENTITY.md, TOOLS.md, …) is a
// note openclaw/NAME.md.
func (b *builder) openclaw(ws string) error {
	b.plan.workspaces = append(b.plan.workspaces, ws)
	_ = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == ws {
			return nil
		}
		rel, _ := filepath.Rel(ws, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(d.Name(), ".") || (d.IsDir() && skipFolders[d.Name()]) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".md") {
			return nil
		}
		src, err := readNote(ws, p)
		if err != nil {
			b.skip(rel, err.Error())
			return nil
		}
		switch {
		case rel == journal.MemoryFile || strings.HasPrefix(rel, "memory/"):
			b.journal(rel, strings.TrimPrefix(rel, "memory/"), p, src)
		case strings.HasPrefix(rel, "skills/"):
			b.add(engine.Agent, rel, rel, "", p, src)
		default:
			b.add(engine.Agent, "openclaw/"+rel, rel, "", p, src)
		}
		return nil
	})
	return nil
}

// journal plans one journal file: it is imported whole (never split), with its
// frontmatter, by rollup.ImportJournal.
func (b *builder) journal(from, rel, abs string, src []byte) {
	_, body := splitFrontmatter(src)
	b.put(Item{From: from, Dimension: engine.Agent, Key: rel, Body: body, Journal: true, path: abs})
}
