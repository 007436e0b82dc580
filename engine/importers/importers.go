package importers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/rollup"
)

// Source names a kind of memory to import.
type Source string

const (
	Claude   Source = "claude"   // CLAUDE.md, CLAUDE.local.md, .claude/rules, ~/.claude, @imports
	Agents   Source = "agents"   // AGENTS.md, nested ones keyed by their folder
	Cursor   Source = "cursor"   // .cursor/rules/*.mdc and a legacy .cursorrules
	OpenClaw Source = "openclaw" // an OpenClaw workspace: journal, SOUL.md, USER.md, skills
)

// Sources lists every source, in the order help texts name them.
var Sources = []Source{Claude, Agents, Cursor, OpenClaw}

// ParseSource reads a --from value.
func ParseSource(s string) (Source, error) {
	for _, src := range Sources {
		if string(src) == s {
			return src, nil
		}
	}
	return "", fmt.Errorf("unknown source %q: want claude, agents, cursor or openclaw", s)
}

// Options say what to import.
type Options struct {
	From  Source
	Paths []string // files or folders, as the user named them
	// Split makes one note per top-level heading of each file.
	Split bool
	// Owner is the ID prefix of the notes (an agent ID for agent notes, a task
	// ID for task notes); "" makes them shared.
	Owner string
	// Home is the user's home folder: Claude Code's ~/.claude is user memory.
	// "" is os.UserHomeDir.
	Home string
	// Now is the `updated` time of imported notes; zero is the time of Apply.
	Now time.Time
}

// Status is what importing an item does.
type Status string

const (
	New       Status = "new"       // the note does not exist: it will be written
	Unchanged Status = "unchanged" // the note exists with this body
	Exists    Status = "exists"    // the note exists with another body: kept, never overwritten
)

// Item is one note of a plan.
type Item struct {
	From      string // the source file, as shown: relative to the folder named, or ~/…
	Via       string // how it was reached, when not named directly ("@docs/x.md in CLAUDE.md")
	Part      string // the heading a --split part starts with ("" for the text before it)
	Dimension engine.Dimension
	Owner     string
	Key       string
	Meta      []frontmatter.Set // frontmatter kept from the source
	Body      []byte
	Tokens    int
	Status    Status
	// Journal items are files of an OpenClaw journal: they go through
	// rollup.ImportJournal, with their frontmatter but the engine's keys
	// (revision 1, updated = the import's time, no machine).
	Journal bool

	path string // the absolute source file
}

// Ref is the item's destination as export and the <memory> block name it.
func (it Item) Ref() string { return engine.Ref(it.Dimension, it.Owner, it.Key) }

// Skip is a file (or an @import) the plan leaves out, and why.
type Skip struct {
	From   string
	Reason string
}

func (s Skip) String() string { return s.From + ": " + s.Reason }

// Plan is what an import would do. Nothing is written until Apply.
type Plan struct {
	From    Source
	Items   []Item
	Skipped []Skip

	workspaces []string // OpenClaw workspaces whose journal Apply imports
	now        time.Time
}

// Count returns how many items have status s.
func (p *Plan) Count(s Status) int {
	n := 0
	for _, it := range p.Items {
		if it.Status == s {
			n++
		}
	}
	return n
}

// Tokens is the sum of the items' tokens.
func (p *Plan) Tokens() int {
	n := 0
	for _, it := range p.Items {
		n += it.Tokens
	}
	return n
}

// builder collects a plan.
type builder struct {
	m    *engine.Memory
	opts Options
	home string
	plan *Plan
	keys map[string]string // destination ref -> the source that took it
	seen map[string]bool   // real paths of files already planned
}

// PlanImport reads the sources and plans their notes; it writes nothing. A
// source path that does not exist is an error; a file inside it that cannot be
// imported (a link out of the tree, not Markdown, an @import leaving the
// project) is a Skip.
func PlanImport(m *engine.Memory, opts Options) (*Plan, error) {
	if len(opts.Paths) == 0 {
		return nil, errors.New("import: name at least one file or folder")
	}
	home := opts.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home != "" {
		if h, err := filepath.Abs(home); err == nil {
			home = h
		}
	}
	if err := checkScope(m, opts); err != nil {
		return nil, err
	}
	b := &builder{m: m, opts: opts, home: home, plan: &Plan{From: opts.From, now: opts.Now}, keys: map[string]string{}, seen: map[string]bool{}}
	for _, p := range opts.Paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		info, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("import --from %s: %w", opts.From, err)
		}
		switch opts.From {
		case Claude:
			err = b.claude(abs, info.IsDir())
		case Agents:
			err = b.agents(abs, info.IsDir())
		case Cursor:
			err = b.cursor(abs, info.IsDir())
		case OpenClaw:
			if !info.IsDir() {
				return nil, fmt.Errorf("import --from openclaw: %s is not a workspace folder", p)
			}
			err = b.openclaw(abs)
		default:
			return nil, fmt.Errorf("import: unknown source %q", opts.From)
		}
		if err != nil {
			return nil, err
		}
	}
	sortItems(b.plan.Items)
	return b.plan, nil
}

// checkScope refuses an ID prefix nobody would see: notes under an agent or
// task ID that is not registered are in no one's view (SPEC §2), and no write
// may create such a folder.
func checkScope(m *engine.Memory, opts Options) error {
	if opts.Owner == "" {
		return nil
	}
	if opts.From == OpenClaw {
		for _, a := range m.Roster() {
			if a == opts.Owner {
				return nil
			}
		}
		return fmt.Errorf("import --scope %s: %q is not a registered agent ID: add it to magicfrog.json \"agents\" first", opts.Owner, opts.Owner)
	}
	if !m.IsTaskID(opts.Owner) {
		return fmt.Errorf("import --scope %s: %q is not a task ID of this project: bind it (.magicfrog/config.json \"task\" or \"tasks\") first", opts.Owner, opts.Owner)
	}
	return nil
}

// display shows a source path the way the user would type it: relative to base
// (the folder they named), or ~/… under the home folder.
func (b *builder) display(base, p string) string {
	if rel, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	if b.home != "" {
		if rel, err := filepath.Rel(b.home, p); err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + filepath.ToSlash(rel)
		}
	}
	return p
}

// read reads a source file below root (readNote), or records why not.
func (b *builder) read(root, p string) (from string, src []byte, ok bool) {
	from = b.display(root, p)
	src, err := readNote(root, p)
	if err != nil {
		b.skip(from, err.Error())
		return from, nil, false
	}
	return from, src, true
}

func (b *builder) skip(from, reason string) {
	b.plan.Skipped = append(b.plan.Skipped, Skip{From: from, Reason: reason})
}

// readNote reads a source file that is to become a note: a regular file (a link
// only when it stays inside root), UTF-8 text, at most engine.MaxNoteSize.
func readNote(root, p string) ([]byte, error) {
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return nil, err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	if !inside(realRoot, real) {
		return nil, errors.New("a link that leaves the folder; refused")
	}
	info, err := os.Stat(real)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	if info.Size() > engine.MaxNoteSize {
		return nil, engine.TooLarge(info.Size())
	}
	f, err := os.Open(real)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, engine.MaxNoteSize+1))
	if err != nil {
		return nil, err
	}
	if err := engine.CheckNote(src); err != nil {
		return nil, err
	}
	return src, nil
}

// realFile is p with its links resolved (p itself when that fails): the
// provenance a note records, which render --into compares with its file.
func realFile(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// inside reports whether p is dir or below it.
func inside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// reserved frontmatter keys are the engine's: an import gives the note its own.
// So are the provenance keys (engine.ImportedFromKey, ImportedViaKey): the
// import writes where the note came from.
var reserved = map[string]bool{"revision": true, "updated": true, "machine": true, engine.ImportedFromKey: true, engine.ImportedViaKey: true}

// splitFrontmatter returns a source's frontmatter keys (but the engine's own)
// and its body. Frontmatter YAML cannot read — Cursor writes `globs: *.ts`,
// which YAML takes for an alias — is read line by line as `key: text`.
func splitFrontmatter(src []byte) ([]frontmatter.Set, []byte) {
	src = bytes.TrimPrefix(src, []byte("\xEF\xBB\xBF"))
	d := frontmatter.Parse(src)
	if !d.Has() {
		return nil, src
	}
	body := src[d.Body:]
	var meta []frontmatter.Set
	if len(d.Errors) == 0 {
		for _, f := range d.Fields {
			if !f.Duplicate && !reserved[f.Key] && f.Value != nil {
				meta = append(meta, frontmatter.Set{Key: f.Key, Value: f.Value})
			}
		}
		return meta, body
	}
	for _, l := range lines(src[d.YAML.Start:d.YAML.End]) {
		k, v, ok := strings.Cut(strings.TrimRight(string(l), "\r\n"), ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || strings.HasPrefix(k, "#") || strings.HasPrefix(k, "-") || strings.ContainsAny(k, " \t") || reserved[k] || v == "" {
			continue
		}
		var val any = strings.Trim(v, `"'`)
		switch v {
		case "true":
			val = true
		case "false":
			val = false
		}
		meta = append(meta, frontmatter.Set{Key: k, Value: val})
	}
	return meta, body
}

func metaValue(meta []frontmatter.Set, key string) (any, bool) {
	for _, s := range meta {
		if s.Key == key {
			return s.Value, true
		}
	}
	return nil, false
}

// add plans one source file as a note (or, with --split, one note per
// section) at key in dimension d.
func (b *builder) add(d engine.Dimension, key string, from, via, abs string, src []byte, extra ...frontmatter.Set) {
	meta, body := splitFrontmatter(src)
	meta = append(meta, extra...)
	meta = append(meta, frontmatter.Set{Key: engine.ImportedFromKey, Value: realFile(abs)})
	if len(bytes.TrimSpace(body)) == 0 {
		b.skip(from, "empty: nothing to import")
		return
	}
	skill := b.m.Layers().Match(key).IsSkills()
	if b.opts.Split && !skill {
		if secs := splitSections(body); secs != nil {
			titles := make([]string, len(secs))
			for i, s := range secs {
				titles[i] = s.title
			}
			base := strings.TrimSuffix(key, path.Ext(key))
			for i, s := range uniqueSlugs(titles) {
				if len(bytes.TrimSpace(secs[i].body)) == 0 {
					continue
				}
				part := secs[i].title
				if part == "" {
					part = "(before the first heading)"
				}
				b.put(Item{From: from, Via: via, Part: part, Dimension: d, Key: base + "/" + s + ".md", Meta: meta, Body: secs[i].body, path: abs})
			}
			return
		}
	}
	b.put(Item{From: from, Via: via, Dimension: d, Key: key, Meta: meta, Body: body, path: abs})
}

// put checks an item's destination and adds it to the plan.
func (b *builder) put(it Item) {
	if it.Owner == "" && it.Dimension.HasOwners() {
		it.Owner = b.opts.Owner
	}
	if err := engine.CheckKey(it.Key); err != nil {
		b.skip(it.From, err.Error())
		return
	}
	ref := it.Ref()
	if prev, ok := b.keys[ref]; ok {
		b.skip(it.From, fmt.Sprintf("%s is already planned from %s; import this one on its own", ref, prev))
		return
	}
	it.Tokens = engine.Tokens(string(it.Body))
	var dest string
	var err error
	if it.Journal {
		var j rollup.Journal
		if j, err = rollup.JournalFor(b.m, it.Dimension, it.Owner); err == nil {
			dest, err = j.Path(b.m, it.Key)
			it.Key = j.Key(it.Key)
			ref = it.Ref()
		}
	} else {
		dest, err = b.m.PathOf(it.Dimension, it.Owner, it.Key)
	}
	if err != nil {
		b.skip(it.From, err.Error())
		return
	}
	it.Status = New
	if cur, err := os.ReadFile(dest); err == nil {
		it.Status = Exists
		if _, body := splitFrontmatter(cur); bytes.Equal(body, it.Body) {
			it.Status = Unchanged
		}
	}
	b.keys[ref] = it.From
	b.plan.Items = append(b.plan.Items, it)
}

// Result is what Apply did.
type Result struct {
	Written   []Item // notes written
	Unchanged int    // already there with the same body
	Kept      []Item // already there with another body: left as they are
	Skipped   []Skip // refused while writing
}

// Apply writes the plan's new notes, each with expected revision 0 so that a
// note that appeared since the plan is kept, not overwritten; then imports
// each OpenClaw journal through rollup.ImportJournal.
func Apply(m *engine.Memory, p *Plan) (*Result, error) {
	res := &Result{}
	now := p.now
	if now.IsZero() {
		now = time.Now()
	}
	for _, it := range p.Items {
		switch {
		case it.Journal && it.Status == New:
			continue // applyJournal
		case it.Journal && it.Status == Unchanged:
			res.Unchanged++
			continue
		case it.Journal:
			res.Kept = append(res.Kept, it)
			continue
		}
		switch it.Status {
		case Unchanged:
			res.Unchanged++
			continue
		case Exists:
			res.Kept = append(res.Kept, it)
			continue
		}
		_, err := m.Write(engine.WriteRequest{Dimension: it.Dimension, Owner: it.Owner, Key: it.Key, Body: it.Body, Meta: it.Meta, ExpectRevision: 0, Now: now})
		if _, stale := engine.IsStale(err); stale {
			res.Kept = append(res.Kept, it)
			continue
		}
		if err != nil {
			res.Skipped = append(res.Skipped, Skip{From: it.From, Reason: err.Error()})
			continue
		}
		res.Written = append(res.Written, it)
	}
	for _, ws := range p.workspaces {
		if err := applyJournal(m, p, ws, now, res); err != nil {
			return res, err
		}
	}
	return res, nil
}

// applyJournal imports the new files of an OpenClaw workspace's journal with
// rollup.ImportJournal and files its report under the plan's items. Only the
// files the plan found new are handed over, staged (stageCopy) in a folder of
// their own: import --journal replaces a note at a lower revision, and an
// import --from never overwrites one.
func applyJournal(m *engine.Memory, p *Plan, ws string, now time.Time, res *Result) error {
	byFrom := map[string]Item{}
	var d engine.Dimension
	scope := ""
	for _, it := range p.Items {
		if it.Journal && it.Status == New && inside(ws, it.path) {
			rel, _ := filepath.Rel(ws, it.path)
			byFrom[filepath.ToSlash(rel)] = it
			d, scope = it.Dimension, it.Owner
		}
	}
	if len(byFrom) == 0 {
		return nil
	}
	stage, err := os.MkdirTemp("", "mf-lsp-import-journal-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	for rel, it := range byFrom {
		if err := stageCopy(it.path, filepath.Join(stage, filepath.FromSlash(rel)), now); err != nil {
			res.Skipped = append(res.Skipped, Skip{From: it.From, Reason: err.Error()})
			delete(byFrom, rel)
		}
	}
	rep, err := rollup.ImportJournal(m, stage, d, scope)
	if err != nil {
		return fmt.Errorf("import --from openclaw: journal: %w", err)
	}
	for _, f := range rep.Files {
		it, ok := byFrom[f.From]
		if !ok {
			continue
		}
		switch f.Status {
		case rollup.Imported:
			res.Written = append(res.Written, it)
		case rollup.Unchanged:
			res.Unchanged++
		case rollup.Kept:
			res.Kept = append(res.Kept, it)
		case rollup.Skipped:
			res.Skipped = append(res.Skipped, Skip{From: it.From, Reason: f.Why})
		}
	}
	return nil
}

// stageCopy copies a journal file with the engine's keys of a new note: as
// for every import, a source's revision, updated and machine are never
// carried (the engine writes them), so the copy has revision 1, updated =
// now and no machine; every other byte is kept. Frontmatter that does not
// parse is copied as it is, for import --journal to refuse.
func stageCopy(src, dst string, now time.Time) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
	d := frontmatter.Parse(b)
	sets := []frontmatter.Set{{Key: "revision", Value: 1}, {Key: "updated", Value: engine.FormatTime(now)}, {Key: "machine"}}
	if edits, ok := frontmatter.SetFields(b, d, sets); ok {
		b = frontmatter.Apply(b, edits)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	return os.WriteFile(dst, b, 0o600)
}

// sortItems orders a plan's items by destination.
func sortItems(items []Item) {
	sort.SliceStable(items, func(a, b int) bool { return items[a].Ref() < items[b].Ref() })
}
