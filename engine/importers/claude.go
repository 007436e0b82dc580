package importers

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// maxImportDepth is how many @import hops Claude Code follows.
const maxImportDepth = 5

// claude plans Claude Code memory. Under ~/.claude it is user memory (key
// claude/user/…); anywhere else it is a project's (task, key claude/…):
// CLAUDE.md, CLAUDE.local.md, .claude/CLAUDE.md, .claude/rules/**/*.md and
// the CLAUDE.md files of subfolders. Every @path import is followed, up to
// five hops, when it stays inside the folder named (the project, or
// ~/.claude); each imported Markdown file becomes a note of its own.
func (b *builder) claude(abs string, dir bool) error {
	userDir := ""
	if b.home != "" {
		userDir = filepath.Join(b.home, ".claude")
	}
	user := userDir != "" && inside(userDir, abs)
	root := abs
	if !dir {
		root = filepath.Dir(abs)
	}
	d, prefix := engine.Task, "claude/"
	if user {
		root, d, prefix = userDir, engine.User, "claude/user/"
	}
	rootName := "the project folder"
	if user {
		rootName = "~/.claude"
	}
	keyOf := func(p string) string {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		rel = strings.TrimPrefix(rel, ".claude/")
		return prefix + rel
	}
	var files []string
	switch {
	case !dir:
		files = []string{abs}
	case user:
		files = append(files, existing(filepath.Join(abs, "CLAUDE.md"))...)
		files = append(files, markdownBelow(filepath.Join(abs, "rules"))...)
	default:
		files = append(files, existing(filepath.Join(abs, "CLAUDE.md"), filepath.Join(abs, "CLAUDE.local.md"), filepath.Join(abs, ".claude", "CLAUDE.md"))...)
		files = append(files, markdownBelow(filepath.Join(abs, ".claude", "rules"))...)
		files = append(files, nestedNamed(abs, "CLAUDE.md", "CLAUDE.local.md")...)
	}
	type todo struct {
		path, via string
		top       string // the file the @import chain starts at ("" for it)
		depth     int
	}
	queue := make([]todo, 0, len(files))
	for _, f := range files {
		queue = append(queue, todo{path: f})
	}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		from := b.display(root, t.path)
		if user {
			from = b.display("", t.path) // ~/.claude/…: not to be mistaken for the project's
		}
		real, err := filepath.EvalSymlinks(t.path)
		if err != nil {
			b.skip(from, err.Error())
			continue
		}
		if b.seen[real] {
			continue // imported twice, or both named and imported: one note
		}
		b.seen[real] = true
		src, err := readNote(root, t.path)
		if err != nil {
			b.skip(from, err.Error())
			continue
		}
		var extra []frontmatter.Set
		if t.top != "" {
			// Claude Code reads an @imported file with the file importing it.
			extra = append(extra, frontmatter.Set{Key: engine.ImportedViaKey, Value: realFile(t.top)})
		}
		b.add(d, keyOf(t.path), from, t.via, t.path, src, extra...)
		top := t.top
		if top == "" {
			top = t.path
		}
		for _, ref := range atImports(src) {
			target, cleaned, ok := resolveAt(b.home, filepath.Dir(t.path), ref)
			via := "@" + cleaned + " in " + from
			ref = cleaned
			if !ok {
				b.skip(from, "@"+ref+": no such file (left as text)")
				continue
			}
			realRoot, _ := filepath.EvalSymlinks(root)
			realTarget, err := filepath.EvalSymlinks(target)
			switch {
			case err != nil:
				b.skip(from, "@"+ref+": "+err.Error())
			case !inside(realRoot, realTarget):
				b.skip(from, "@"+ref+": outside "+rootName+"; not followed (only files inside it are imported)")
			case !strings.EqualFold(filepath.Ext(target), ".md"):
				b.skip(from, "@"+ref+": not Markdown; not followed (the reference stays in the note as text)")
			case t.depth+1 > maxImportDepth:
				b.skip(from, "@"+ref+": more than five hops of @imports; not followed")
			default:
				queue = append(queue, todo{path: target, via: via, top: top, depth: t.depth + 1})
			}
		}
	}
	return nil
}

// resolveAt finds the file an @reference names: ~/ is the home folder, an
// absolute path is itself, anything else is relative to the importing file's
// folder. Trailing punctuation ("see @docs/setup.md.") is dropped when the
// reference does not resolve with it.
func resolveAt(home, dir, ref string) (path, cleaned string, ok bool) {
	for r := ref; r != ""; r = r[:len(r)-1] {
		var p string
		switch {
		case strings.HasPrefix(r, "~/"):
			if home == "" {
				return "", ref, false
			}
			p = filepath.Join(home, r[2:])
		case filepath.IsAbs(r):
			p = r
		default:
			p = filepath.Join(dir, filepath.FromSlash(r))
		}
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, r, true
		}
		if !strings.ContainsRune(".,;:!?)]'\"", rune(r[len(r)-1])) {
			break
		}
	}
	return "", ref, false
}

// existing returns the paths that exist (links included).
func existing(paths ...string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// markdownBelow lists the .md files below dir, in path order; hidden names are
// skipped.
func markdownBelow(dir string) []string { return filesBelow(dir, ".md") }

// filesBelow lists the files below dir with one of the extensions, in path
// order; hidden names are skipped.
func filesBelow(dir string, exts ...string) []string {
	var out []string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if p != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		for _, ext := range exts {
			if strings.EqualFold(filepath.Ext(p), ext) {
				out = append(out, p)
				break
			}
		}
		return nil
	})
	return out
}

// skipFolders are never searched for nested memory files.
var skipFolders = map[string]bool{"node_modules": true, "vendor": true}

// nestedNamed lists files with one of names in the subfolders of root (not in
// root itself), in path order, skipping hidden folders and dependency trees.
func nestedNamed(root string, names ...string) []string {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	var out []string
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || skipFolders[d.Name()]) {
				return fs.SkipDir
			}
			return nil
		}
		if want[d.Name()] && filepath.Dir(p) != root {
			out = append(out, p)
		}
		return nil
	})
	return out
}
