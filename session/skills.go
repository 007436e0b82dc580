package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/store"
	"github.com/magicfrog/mf-lsp/session/base"
)

// SkillManagedBy is the value of the `metadata.managed-by` key of every
// SKILL.md that SkillsInto writes: the mark by which it knows its own files
// and never touches another.
const SkillManagedBy = "mf-lsp"

// SkillOutcome is what SkillsInto did with one skill folder.
type SkillOutcome string

const (
	SkillCreated   SkillOutcome = "created"
	SkillUpdated   SkillOutcome = "updated"
	SkillUnchanged SkillOutcome = "unchanged"
	SkillRemoved   SkillOutcome = "removed"   // written by mf-lsp, its skill left the scope
	SkillForeign   SkillOutcome = "untouched" // a SKILL.md mf-lsp did not write: left alone
	SkillSkipped   SkillOutcome = "skipped"   // a skill that cannot be written (Why)
)

// SkillFile is one row of a SkillsInto report.
type SkillFile struct {
	Name    string       `json:"name"`
	File    string       `json:"file"`          // DIR/<name>/SKILL.md
	Ref     string       `json:"ref,omitempty"` // the note, dimension/[ID/]key
	Outcome SkillOutcome `json:"outcome"`
	Why     string       `json:"why,omitempty"`
}

// skillName is the Agent Skills name rule: lower-case letters, digits and
// hyphens, not starting or ending with one, at most 64 characters.
var skillName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$`) })

var hyphens = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`-+`) })

// SkillNameOf is the folder name a skill note is written under: its `name`
// frontmatter, else its file name (the folder's for a skills/NAME/SKILL.md),
// lower-cased with every other character a hyphen. "" when nothing is left.
func SkillNameOf(e *engine.Note) string {
	name, _ := e.Doc().String("name")
	if name == "" {
		base := path.Base(e.Key)
		if strings.EqualFold(base, "SKILL.md") && path.Dir(e.Key) != "." {
			base = path.Base(path.Dir(e.Key))
		}
		name = strings.TrimSuffix(base, path.Ext(base))
	}
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	s := strings.Trim(hyphens().ReplaceAllString(b.String(), "-"), "-")
	if len(s) > 64 {
		s = strings.TrimRight(s[:64], "-")
	}
	if !skillName().MatchString(s) {
		return ""
	}
	return s
}

// skillFile is the SKILL.md written for note e under name: `name` and
// `description` frontmatter (the description is the note's, else its first
// line of text), the mark (metadata: managed-by, source ref, the note's
// content hash), then the note's body.
func skillFile(e *engine.Note, name string) ([]byte, error) {
	doc := e.Doc()
	desc, _ := doc.String("description")
	body, err := e.Body()
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(desc) == "" {
		for _, l := range strings.Split(string(body), "\n") {
			if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
				desc = l
				break
			}
		}
	}
	if desc == "" {
		desc = name
	}
	if r := []rune(desc); len(r) > 1024 {
		desc = string(r[:1024])
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	var b bytes.Buffer
	b.WriteString("---\n")
	b.WriteString("name: " + name + "\n")
	b.WriteString("description: " + q(desc) + "\n")
	b.WriteString("metadata:\n")
	b.WriteString("  managed-by: " + SkillManagedBy + "\n")
	b.WriteString("  source: " + q(e.Ref()) + "\n")
	b.WriteString("  hash: " + q(e.Hash()[:16]) + "\n")
	b.WriteString("---\n")
	b.WriteString("<!-- written by mf-lsp skills --into from " + e.Ref() + ": edit the note, not this file (it is replaced) -->\n")
	b.Write(body)
	if len(body) > 0 && !bytes.HasSuffix(body, []byte("\n")) {
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// ManagedSkill reports whether src is a SKILL.md SkillsInto wrote: its
// frontmatter's metadata says managed-by: mf-lsp.
func ManagedSkill(src []byte) bool {
	d := frontmatter.Parse(src)
	if !d.Has() || len(d.Errors) > 0 {
		return false
	}
	for _, f := range d.Fields {
		if f.Key != "metadata" {
			continue
		}
		if m, ok := f.Value.(map[string]any); ok {
			return m["managed-by"] == SkillManagedBy
		}
	}
	return false
}

// SkillsInto writes each skill of block b (the skills in its scope) as
// dir/<name>/SKILL.md, the Agent Skills layout Claude Code, Codex and
// OpenClaw read: created, updated when the note changed, left as it is when
// unchanged; a SKILL.md it wrote earlier whose skill left the scope is
// removed (and its folder, when empty). A SKILL.md it did not write is never
// touched: its skill is reported untouched. dir is made when missing; one that
// CheckHostFolder refuses is a *HostFileError, and nothing is written.
func SkillsInto(m *engine.Memory, dir string, b *engine.Block) ([]SkillFile, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := CheckHostFolder(m.Paths, dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var out []SkillFile
	wanted := map[string]bool{}
	for _, e := range b.Skills {
		name := SkillNameOf(e)
		row := SkillFile{Name: name, Ref: e.Ref()}
		if name == "" {
			row.Outcome, row.Why = SkillSkipped, "its name makes no folder name (letters, digits, hyphens): set `name:` in the note"
			out = append(out, row)
			continue
		}
		row.File = filepath.Join(dir, name, "SKILL.md")
		if wanted[name] {
			row.Outcome, row.Why = SkillSkipped, "another skill of the scope has the name "+name+": rename one (`name:`)"
			out = append(out, row)
			continue
		}
		wanted[name] = true
		text, err := skillFile(e, name)
		if err != nil {
			return out, err
		}
		row.Outcome, err = writeSkill(m, dir, row.File, text)
		if err != nil {
			return out, err
		}
		out = append(out, row)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return out, err
	}
	for _, d := range ents {
		if !d.IsDir() || wanted[d.Name()] || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		file := filepath.Join(dir, d.Name(), "SKILL.md")
		if !ownSkill(file) {
			continue
		}
		if err := removeSkill(m, file); err != nil {
			return out, err
		}
		out = append(out, SkillFile{Name: d.Name(), File: file, Outcome: SkillRemoved})
	}
	sortSkillFiles(out)
	return out, nil
}

// ownSkill reports whether file is a regular SKILL.md SkillsInto wrote.
func ownSkill(file string) bool {
	info, err := os.Lstat(file)
	if err != nil || !info.Mode().IsRegular() || info.Size() > engine.MaxNoteSize {
		return false
	}
	src, err := os.ReadFile(file)
	return err == nil && ManagedSkill(src)
}

// writeSkill writes content to file unless a SKILL.md mf-lsp did not write
// is there; atomically, under the data directory's lock.
func writeSkill(m *engine.Memory, dir, file string, content []byte) (SkillOutcome, error) {
	if t := store.LinkTarget(filepath.Dir(file)); t != "" {
		return SkillForeign, nil
	}
	if info, err := os.Lstat(file); err == nil && (!info.Mode().IsRegular() || !ownSkill(file)) {
		return SkillForeign, nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return "", err
	}
	outcome := SkillUnchanged
	_, err := store.UpdateFile(m.Paths.MemoryDir(), file, func(cur []byte, exists bool) ([]byte, error) {
		switch {
		case !exists:
			outcome = SkillCreated
		case !ManagedSkill(cur):
			outcome = SkillForeign // appeared since the check: left alone
			return cur, nil
		case !bytes.Equal(cur, content):
			outcome = SkillUpdated
		default:
			return cur, nil
		}
		return content, nil
	})
	if err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	return outcome, nil
}

// removeSkill removes a SKILL.md it wrote, and its folder when nothing else
// is in it.
func removeSkill(m *engine.Memory, file string) error {
	unlock, err := store.Lock(m.Paths.MemoryDir())
	if err != nil {
		return err
	}
	defer unlock()
	if !ownSkill(file) {
		return nil
	}
	if err := os.Remove(file); err != nil {
		return err
	}
	_ = os.Remove(filepath.Dir(file)) // only when empty
	return nil
}

// CheckHostFolder is CheckHostFile's rule for a folder of host files (skills
// --into): outside the data directory and the project's .magicfrog/, and not
// a symbolic link.
func CheckHostFolder(p engine.Paths, dir string) error {
	if err := base.CheckOutsideOwn(p, dir, "write the skills into an agent host's skill folder, such as the project's .claude/skills"); err != nil {
		return err
	}
	if t := store.LinkTarget(dir); t != "" {
		return &base.HostFileError{Path: dir, Reason: "is a symbolic link to " + t + ": name the folder itself"}
	}
	return nil
}

// sortSkillFiles orders a report by skill name.
func sortSkillFiles(rows []SkillFile) {
	sort.SliceStable(rows, func(a, b int) bool { return rows[a].Name < rows[b].Name })
}

// SkillsWritten is magicfrog.skillsInto's answer: the folder and a row per
// skill.
type SkillsWritten struct {
	Dir   string      `json:"dir"`
	Files []SkillFile `json:"files"`
}

// DefaultSkillsDir is where magicfrog.skillsInto writes without a dir:
// Claude Code's project skills.
const DefaultSkillsDir = ".claude/skills"

// SkillsIntoWorkspace is magicfrog.skillsInto: the skills of r's scope into
// dir (relative to the project; "" is DefaultSkillsDir), which must lie in
// the workspace (else a *HostFileError, nothing written).
func SkillsIntoWorkspace(snap *Snapshot, r RenderRequest, dir string) (SkillsWritten, error) {
	m := snap.Memory
	project := m.Paths.ProjectDir
	if project == "" {
		return SkillsWritten{}, &base.HostFileError{Path: dir, Reason: "cannot be written: the session has no workspace folder, and the language server writes skills only into a folder of its workspace"}
	}
	if dir == "" {
		dir = filepath.FromSlash(DefaultSkillsDir)
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(project, dir)
	}
	if !engine.Inside(project, dir) {
		return SkillsWritten{}, &base.HostFileError{Path: dir, Reason: "is outside the workspace " + project + ": the language server writes skills only into a folder of its workspace"}
	}
	if err := CheckHostFolder(m.Paths, dir); err != nil {
		return SkillsWritten{}, err
	}
	opts, err := snap.RenderOptions(r)
	if err != nil {
		return SkillsWritten{}, err
	}
	rows, err := SkillsFor(m, opts, dir)
	if err != nil {
		return SkillsWritten{}, err
	}
	if rows == nil {
		rows = []SkillFile{}
	}
	return SkillsWritten{Dir: dir, Files: rows}, nil
}

// SkillsFor keeps dir's skills to those of opts' scope (SkillsInto), every
// skill in scope whatever opts' budget: magicfrog.skillsInto and `mf-lsp
// skills`. A failed render is the engine's error; a failed keeping is a
// *WriteError, with the rows of what was done before it.
func SkillsFor(m *engine.Memory, opts engine.RenderOptions, dir string) ([]SkillFile, error) {
	opts.Budget = 0
	b, err := m.Render(opts)
	if err != nil {
		return nil, err
	}
	rows, err := SkillsInto(m, dir, b)
	if err != nil {
		return rows, &WriteError{Err: err}
	}
	return rows, nil
}
