package engine

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Unbound is what a block rendered with no task and no agent says on its first
// line: notes under a task or agent ID are not in it.
const Unbound = "no task and no agent: notes under a task or agent ID are left out"

// RenderOptions say what to render.
type RenderOptions struct {
	Scope Scope
	// Budget is the most tokens the block may take; 0 means no limit. What does
	// not fit is left out visibly, one <omitted/> line per note.
	Budget int
	// Previous is the generation of the block the agent holds now. When the view
	// changed, the new block says replaces="<Previous>".
	Previous string
	// Today is the journal's today (YYYY-MM-DD) for the boot set; "" is the local
	// date.
	Today string
	// Earlier adds the refined days of the Earlier days before yesterday to the
	// journal's boot set, oldest first.
	Earlier int
	// Into is the host file (CLAUDE.md, AGENTS.md…) the block is written
	// into, absolute, or "". The notes imported from it, or from what it
	// @imports (ImportedFrom), are left out of the block: the host reads that
	// file already. Each is in Block.Omitted with ReasonInHostFile.
	Into string
}

// Block is a rendered <memory> block.
type Block struct {
	Text       string
	Generation string
	// Tokens is the block's size under a budget, exact. Without a budget
	// nothing is counted and it stays 0 until CountTokens is called.
	Tokens   int
	Included []*Note   // notes whose bodies are in the block
	Skills   []*Note   // skills listed
	Omitted  []Omitted // notes left out, and why

	count     func() int   // counts an unbudgeted block's parts
	flush     func() error // writes the counts made to the memory's token cache
	countOnce sync.Once
}

// CountTokens is the block's size in tokens: Tokens under a budget; without
// one, counted on the first call as the sum of its parts, which is the count
// of Text (every part ends in ">\n" and the next begins with "<", a boundary
// o200k's pre-tokenizer never merges across).
func (b *Block) CountTokens() int {
	if b.count != nil {
		b.countOnce.Do(func() {
			b.Tokens = b.count()
			b.flush()
		})
	}
	return b.Tokens
}

// Omitted is a note the block leaves out.
type Omitted struct {
	Note   *Note
	Tokens int
	Reason string // "budget", "unregistered-scope" or "in-host-file" (Tokens 0: never counted)
}

// ReasonUnregistered is the omitted reason of a note under an unregistered
// first folder (SPEC §2): it is no one's, so no block holds it.
const ReasonUnregistered = "unregistered-scope"

// ReasonInHostFile is the omitted reason of a note imported from the file the
// block is written into (RenderOptions.Into): the host reads it there.
const ReasonInHostFile = "in-host-file"

// Provenance keys an import (engine/importers) writes into a note's
// frontmatter: the source file's real absolute path, and for a file reached
// through another's @import, the file the chain started at.
const (
	ImportedFromKey = "imported-from"
	ImportedViaKey  = "imported-via"
)

// ImportedFrom reports whether note e was imported from file (a real
// absolute path), itself or through an @import chain that starts there.
func ImportedFrom(e *Note, file string) bool {
	if file == "" {
		return false
	}
	doc := e.Doc()
	for _, k := range []string{ImportedFromKey, ImportedViaKey} {
		if v, _ := doc.String(k); v != "" && filepath.Clean(v) == filepath.Clean(file) {
			return true
		}
	}
	return false
}

// SeveralAgentsError refuses to answer for several agents at once: each
// participant sees its own agent dimension and no one else's (SPEC §5). It is
// the one refusal every front end sends when a scope names several agents and
// none was chosen (participant.Resolve decides), with code
// errcode.SeveralAgents and the agents as the choices.
type SeveralAgentsError struct {
	Agents []string
	// From says who named them: "the project binding (PATH)", "--agent", the
	// setting "agents"; "" is "the scope".
	From string
}

func (e *SeveralAgentsError) Error() string {
	from := e.From
	if from == "" {
		from = "the scope"
	}
	return fmt.Sprintf("%s names %d agents (%s) and one participant is one agent: choose one (--agent ID, $%s, or the editor's \"participant\" setting)", from, len(e.Agents), strings.Join(e.Agents, ", "), AgentEnv)
}

// AgentEnv names the environment variable that picks the agent when no flag
// or setting does: agent hosts that start one command for several agents set
// it (participant.Resolve reads it).
const AgentEnv = "MAGICFROG_AGENT"

// blockGroup is one element of the block: a dimension, and for agent and task the ID.
type blockGroup struct {
	dim   Dimension
	id    string // scope ID; "" for the shared notes of agent and task
	notes []*Note
}

// Render renders the <memory> block for a scope (SPEC §5): most specific
// dimension first, inside a dimension ID-scoped notes before shared ones, sorted
// by key; skills listed, not inlined; journal files outside the boot set left out,
// the boot set in its own order (bootSet).
func (m *Memory) Render(opts RenderOptions) (*Block, error) {
	r, err := m.newRenderer(opts)
	if err != nil {
		return nil, err
	}
	defer r.texts.close()
	var blk *Block
	if opts.Budget <= 0 {
		blk = r.unbudgeted()
	} else {
		blk = r.budgeted()
	}
	if err := r.failed(); err != nil {
		return nil, err // a note changed behind the tree's back: never its old text
	}
	return blk, nil
}

// RenderTo is Render writing the block's text to w instead of Block.Text
// (which stays ""): the block is never held whole, so a command printing
// it needs memory for the notes and a buffer, not for the block too. A
// note that cannot be read (changed on disk since the load) fails the
// render before anything is written.
func (m *Memory) RenderTo(w io.Writer, opts RenderOptions) (*Block, error) {
	r, err := m.newRenderer(opts)
	if err != nil {
		return nil, err
	}
	defer r.texts.close()
	if opts.Budget > 0 {
		// A budgeted block is what fits the budget: small, built as Render
		// builds it.
		blk := r.budgeted()
		if err := r.failed(); err != nil {
			return nil, err
		}
		if _, err := io.WriteString(w, blk.Text); err != nil {
			return nil, err
		}
		blk.Text = ""
		return blk, nil
	}
	r.choose(r.headerEstimate)
	blk, err := r.stream(w)
	if err != nil {
		return nil, err
	}
	r.countLater(blk)
	return blk, nil
}

// renderer renders one <memory> block. Its methods are the steps of Render:
// select the notes (newRenderer), count them against the budget (countParts),
// choose which fit (choose), and write the block (build).
type renderer struct {
	opts   RenderOptions
	tc     *TokenCache // the memory's (Options.TokenCache); nil: none
	scope  Scope       // opts.Scope, looking from this machine unless it names one
	view   *View
	groups []blockGroup
	skills []*Note
	inHost []*Note // left out: imported from opts.Into
	// slots are the notes' places, per group, then the skills list last.
	slots [][]slot
	// overhead is the budgeted size of all but the slots; headerEstimate the
	// part of it the header line takes (countParts).
	overhead, headerEstimate int
	// project is the project folder skill lines name their files from.
	project string
	// err is the first note whose text could not be had (Note.Text: changed
	// on disk since the load); set from the counting workers too.
	err atomic.Pointer[error]
	// texts reads the elements' texts of a tree loaded with
	// Options.BodiesOnDemand again as the block is written (writeElement,
	// one note after the other), through roots opened once and one buffer.
	texts textReader
}

// fail keeps err, the first a step met.
func (r *renderer) fail(err error) {
	if err != nil {
		r.err.CompareAndSwap(nil, &err)
	}
}

// failed is the first error a step met, or nil.
func (r *renderer) failed() error {
	if p := r.err.Load(); p != nil {
		return *p
	}
	return nil
}

// newRenderer selects what the block holds: the scope's view (one agent at
// most), the boot set of its journals, the groups and the skills list.
func (m *Memory) newRenderer(opts RenderOptions) (*renderer, error) {
	s := opts.Scope
	s.Machine = m.MachineOf(s)
	if agents := unique(append([]string(nil), s.Agents...)); len(agents) > 1 {
		return nil, &SeveralAgentsError{Agents: agents}
	}
	if err := m.checkLoadedFor(s); err != nil {
		return nil, err
	}
	boot, err := newBootSet(opts.Today, opts.Earlier)
	if err != nil {
		return nil, err
	}
	r := &renderer{opts: opts, scope: s, view: m.View(s), tc: m.tokenCache, project: m.Paths.ProjectDir}
	r.groups, r.skills, r.inHost = arrange(r.view, boot, opts.Into)
	for _, g := range r.groups {
		r.slots = append(r.slots, slotsOf(g.notes, false))
	}
	if len(r.skills) > 0 {
		r.slots = append(r.slots, slotsOf(r.skills, true))
	}
	return r, nil
}

// slotsOf gives each note a place in the block, as an element or a skill line.
func slotsOf(notes []*Note, skill bool) []slot {
	row := make([]slot, len(notes))
	for i, e := range notes {
		row[i] = slot{e: e, skill: skill}
	}
	return row
}

// unbudgeted renders every note. Nothing reads a count, so the tokenizer is
// not run (an agent boots without one at every session start):
// Block.CountTokens counts later, if asked.
func (r *renderer) unbudgeted() *Block {
	r.choose(r.headerEstimate)
	blk := r.build()
	r.countLater(blk)
	return blk
}

// countLater has an unbudgeted block count its parts when asked
// (Block.CountTokens).
func (r *renderer) countLater(blk *Block) {
	blk.count = func() int {
		r.countParts()
		return r.choose(r.headerEstimate) - r.headerEstimate + r.tc.count(r.header(blk.Generation, r.replaces(blk)))
	}
	blk.flush = r.tc.Flush
}

// budgeted renders what fits the budget, a ceiling. Every element, wrapper
// and omitted line is counted first, as if every note were left out; then
// notes are taken in the block's order (most specific first) while trading a
// note's omitted line for its element still fits.
func (r *renderer) budgeted() *Block {
	defer r.tc.Flush()
	r.countParts()
	header := r.headerEstimate
	used := r.choose(header)
	blk := r.build()
	// Every part ends in ">\n" and the next begins with "<", a boundary o200k's
	// pre-tokenizer never merges across, so the sum of the parts is the block's
	// count once the header line's estimate is replaced by its real count.
	blk.Tokens = used - header + headerTokens(r.tc, blk)
	if real := headerTokens(r.tc, blk); real < header {
		// The generation took fewer tokens than reserved for it: choose again
		// with what the header really takes, and keep that block if it fits.
		usedAgain := r.choose(real)
		if b := r.build(); usedAgain-real+headerTokens(r.tc, b) <= r.opts.Budget {
			blk = b
			blk.Tokens = usedAgain - real + headerTokens(r.tc, b)
		} else {
			r.choose(header)
		}
	}
	return blk
}

// header is the block's first line, <memory …>.
func (r *renderer) header(gen, replaces string) string {
	s := r.scope
	var b strings.Builder
	b.WriteString(`<memory generation="` + gen + `"`)
	if replaces != "" {
		b.WriteString(` replaces="` + attr(replaces) + `"`)
	}
	if s.Task != "" {
		b.WriteString(` task="` + attr(s.Task) + `"`)
	}
	if len(s.Agents) > 0 {
		b.WriteString(` agents="` + attr(strings.Join(s.Agents, ",")) + `"`)
	}
	if s.Machine != "" {
		b.WriteString(` machine="` + attr(s.Machine) + `"`)
	}
	if s.Task == "" && len(s.Agents) == 0 {
		// The view of nobody in particular says so in its first line (Unbound).
		b.WriteString(` unbound="` + Unbound + `"`)
	}
	b.WriteString(">\n")
	return b.String()
}

// headerTokens counts the first line of a built block.
func headerTokens(c *TokenCache, b *Block) int {
	return c.count(b.Text[:strings.IndexByte(b.Text, '\n')+1])
}

// choose marks the notes taken when the header line (with the generation)
// costs header tokens, and returns the block's size. Without a budget every
// note is taken.
func (r *renderer) choose(header int) int {
	budget := r.opts.Budget
	used := r.overhead - r.headerEstimate + header
	for _, row := range r.slots {
		for i := range row {
			row[i].included = false
			if budget > 0 {
				used += row[i].omitted
			}
		}
	}
	for _, row := range r.slots {
		for i := range row {
			sl := &row[i]
			if budget <= 0 {
				sl.included = true
				used += sl.tokens
				continue
			}
			if delta := sl.tokens - sl.omitted; used+delta <= budget {
				sl.included = true
				used += delta
			}
		}
	}
	return used
}

// blockWriter is what a block's body is written to: its buffer, the
// generation's hash, or the reader's stream (RenderTo).
type blockWriter interface {
	io.Writer
	io.StringWriter
}

// build writes the block as chosen: the group elements, the skills list, the
// lines naming unregistered notes, and the header with the generation.
func (r *renderer) build() *Block {
	blk := &Block{}
	var body bytes.Buffer
	body.Grow(r.sizeHint())
	r.writeBody(&body, blk)
	blk.Generation = r.generation(func(h blockWriter) { h.Write(body.Bytes()) })
	text := make([]byte, 0, r.headerSize()+body.Len())
	text = append(text, r.header(blk.Generation, r.replaces(blk))...)
	blk.Text = string(append(text, body.Bytes()...))
	return blk
}

// stream writes the block as chosen to w, never holding it whole: one pass
// hashes the body for the generation (the header comes first and names it),
// a second writes it. Each note's element is written from its text, so what
// the block costs beyond the notes is a buffer.
func (r *renderer) stream(w io.Writer) (*Block, error) {
	blk := &Block{}
	r.texts.keeping = true // the writing pass reads what fits from these
	blk.Generation = r.generation(func(h blockWriter) { r.writeBody(h, blk) })
	r.texts.keeping = false
	if err := r.failed(); err != nil {
		return nil, err
	}
	out := bufio.NewWriterSize(w, 64<<10)
	out.WriteString(r.header(blk.Generation, r.replaces(blk)))
	r.writeBody(out, nil)
	if err := out.Flush(); err != nil {
		return nil, err
	}
	if err := r.failed(); err != nil {
		// A note read on demand changed between the passes: what was written
		// is cut short, and the caller must not take it for the block.
		return nil, err
	}
	return blk, nil
}

// generation hashes everything the agent would read except the generation
// itself (the header without it, then the body written by body), so an
// unchanged view keeps its generation.
func (r *renderer) generation(body func(blockWriter)) string {
	h := hashWriter{sha256.New()}
	h.WriteString(r.header("", ""))
	body(h)
	return hex.EncodeToString(h.Sum(nil))[:8]
}

// replaces is the header's replaces attribute: the generation the agent
// holds, when the block's is another.
func (r *renderer) replaces(blk *Block) string {
	if r.opts.Previous != "" && r.opts.Previous != blk.Generation {
		return r.opts.Previous
	}
	return ""
}

// headerSize is at least the header's length once its generation is known.
func (r *renderer) headerSize() int { return len(r.header("00000000", r.opts.Previous)) }

// hashWriter gives a hash the WriteString of a blockWriter.
type hashWriter struct{ hash.Hash }

func (h hashWriter) WriteString(s string) (int, error) { return h.Write([]byte(s)) }

// writeBody writes the block's body as chosen: the group elements, the skills
// list, the lines naming unregistered notes and the closing tag. With blk it
// records there what the block holds and leaves out.
func (r *renderer) writeBody(body blockWriter, blk *Block) {
	for gi, g := range r.groups {
		openTag, closeTag := groupTags(g, r.scope)
		body.WriteString(openTag)
		r.writeSlots(body, blk, r.slots[gi], r.writeElement, blk.included())
		body.WriteString(closeTag)
	}
	if len(r.skills) > 0 {
		body.WriteString("<skills>\n")
		r.writeSlots(body, blk, r.slots[len(r.slots)-1], func(w blockWriter, e *Note) { w.WriteString(skillLine(e, r.project)) }, blk.skills())
		body.WriteString("</skills>\n")
	}
	for _, e := range r.view.Unregistered {
		body.WriteString(unregisteredLine(e))
		blk.omit(Omitted{Note: e, Reason: ReasonUnregistered})
	}
	if blk != nil {
		for _, e := range r.inHost {
			blk.omit(Omitted{Note: e, Reason: ReasonInHostFile})
		}
	}
	body.WriteString("</memory>\n")
}

// included, skills and omit record into a block being written; a nil block
// (stream's second pass) records nothing.
func (b *Block) included() *[]*Note {
	if b == nil {
		return nil
	}
	return &b.Included
}

func (b *Block) skills() *[]*Note {
	if b == nil {
		return nil
	}
	return &b.Skills
}

func (b *Block) omit(o Omitted) {
	if b != nil {
		b.Omitted = append(b.Omitted, o)
	}
}

// writeElement writes e's <note> element: its cached one when the note keeps
// it, else built from the text as it is written; a failure is kept (fail).
func (r *renderer) writeElement(w blockWriter, e *Note) {
	if el, ok := e.cachedElement(); ok {
		w.WriteString(el)
		return
	}
	src, err := r.texts.text(e)
	if err != nil {
		r.fail(err)
		return
	}
	writeNoteElement(w, e, src[e.front.body:])
}

// writeSlots writes one row: a taken note by line, recorded in taken (when
// not nil); a note left out as its omitted line.
func (r *renderer) writeSlots(body blockWriter, blk *Block, row []slot, line func(blockWriter, *Note), taken *[]*Note) {
	for _, sl := range row {
		if sl.included {
			line(body, sl.e)
			if taken != nil {
				*taken = append(*taken, sl.e)
			}
			continue
		}
		line, err := sl.e.omittedLine(r.tc, r.project)
		r.fail(err)
		body.WriteString(line)
		blk.omit(Omitted{Note: sl.e, Tokens: sl.tokens, Reason: "budget"})
	}
}

// sizeHint is about the block's length in bytes: each element taken is the
// body plus its tags, each left out its omitted line. Under a budget most
// notes of a large memory are left out: counting them whole grew the
// buffer to the size of every note in scope (730 MB at 100,000 notes of
// 8-64 KB) for a block of 8,000 tokens.
func (r *renderer) sizeHint() int {
	size := 64
	for _, row := range r.slots {
		for _, sl := range row {
			if sl.included {
				size += sl.e.Size() + 96
			} else {
				size += 160
			}
		}
	}
	return size
}

// countParts counts what a budget weighs: the header line without its
// generation, plus 8 tokens for the generation's 8 hex digits (the most they
// can take, so that the estimate is an upper bound: the generation is not
// known before the body is), the group and closing tags, and each slot's
// element (or skill line) and omitted line, and the lines naming unregistered
// notes. It sets the overhead (all but the slots) and the header's estimate.
// Counting is spread over the CPUs.
func (r *renderer) countParts() {
	r.headerEstimate = r.tc.count(r.header("", r.opts.Previous)) + 8
	r.overhead = r.headerEstimate + r.tc.count("</memory>\n")
	for _, e := range r.view.Unregistered {
		r.overhead += r.tc.count(unregisteredLine(e))
	}
	for _, g := range r.groups {
		openTag, closeTag := groupTags(g, r.scope)
		r.overhead += r.tc.count(openTag) + r.tc.count(closeTag)
	}
	if len(r.skills) > 0 {
		r.overhead += r.tc.count("<skills>\n") + r.tc.count("</skills>\n")
	}
	var all []*slot
	for _, row := range r.slots {
		for i := range row {
			all = append(all, &row[i])
		}
	}
	parallel(len(all), func(i int) {
		sl := all[i]
		var err error
		if sl.skill {
			sl.tokens = sl.e.skillTokens(r.tc, r.project)
		} else {
			sl.tokens, err = sl.e.elementTokens(r.tc)
			r.fail(err)
		}
		sl.omitted, err = sl.e.omittedTokens(r.tc, r.project)
		r.fail(err)
	})
}

// slot is one note's place in a rendered block.
type slot struct {
	e        *Note
	skill    bool
	included bool
	tokens   int // of its element (note or skill line)
	omitted  int // of its omitted line
}

// arrange sorts the view's winners into the block's elements and its skill
// list, leaving out (and returning) the notes imported from the host file into.
func arrange(v *View, boot bootSet, into string) ([]blockGroup, []*Note, []*Note) {
	var skills, inHost []*Note
	byGroup := map[Dimension]map[string][]*Note{}
	add := func(e *Note) {
		if e.Layer.Kind == KindFractal && !boot.keep(e) {
			return
		}
		if ImportedFrom(e, into) {
			inHost = append(inHost, e)
			return
		}
		if e.Layer.IsSkills() {
			skills = append(skills, e)
			return
		}
		if byGroup[e.Dimension] == nil {
			byGroup[e.Dimension] = map[string][]*Note{}
		}
		byGroup[e.Dimension][e.Owner] = append(byGroup[e.Dimension][e.Owner], e)
	}
	for _, kv := range v.Keys {
		add(kv.Winner)
	}
	for _, e := range v.Device {
		add(e)
	}
	var groups []blockGroup
	for _, d := range RenderOrder {
		scopes := byGroup[d]
		var ids []string
		for id := range scopes {
			if id != "" {
				ids = append(ids, id)
			}
		}
		// ID-scoped groups in the order the scope names them, then the shared one.
		order := v.Scope.Agents
		if d == Task {
			order = []string{v.Scope.Task}
		}
		for _, id := range order {
			if id != "" && len(scopes[id]) > 0 {
				groups = append(groups, blockGroup{dim: d, id: id, notes: boot.order(scopes[id])})
			}
		}
		if len(scopes[""]) > 0 {
			groups = append(groups, blockGroup{dim: d, notes: boot.order(scopes[""])})
		}
	}
	// Keys are already sorted within the view; device notes were sorted too.
	return groups, skills, inHost
}

func groupTags(g blockGroup, s Scope) (string, string) {
	name := g.dim.String()
	switch {
	case g.dim == Device:
		return `<device machine="` + attr(s.Machine) + "\">\n", "</device>\n"
	case g.id != "":
		return "<" + name + ` id="` + attr(g.id) + "\">\n", "</" + name + ">\n"
	}
	return "<" + name + ">\n", "</" + name + ">\n"
}

func noteElement(e *Note) (string, error) {
	src, err := e.Body()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	writeNoteElement(&b, e, src)
	return b.String(), nil
}

// writeNoteElement writes e's <note> element, of body src, to w, the body
// escaped (EscapeBody) as it goes.
func writeNoteElement(w blockWriter, e *Note, src []byte) {
	w.WriteString(`<note path="` + attr(e.Key) + `"`)
	if r := e.Revision(); r > 0 {
		w.WriteString(` revision="` + strconv.Itoa(r) + `"`)
	}
	if u := e.Updated(); u != "" {
		w.WriteString(` updated="` + attr(u) + `"`)
	}
	w.WriteString(">\n")
	writeEscaped(w, src)
	if len(src) > 0 && src[len(src)-1] != '\n' {
		w.WriteString("\n")
	}
	w.WriteString("</note>\n")
}

// skillLine is a skill's entry in <skills>: its portable ref (path), the file
// a host opens to load it (file: relative to the project folder, where the
// host runs and reads the block; absolute without a project), its name and
// description. file names the note even where skills --into wrote a copy of
// it into a host folder: the note is current and is where an edit goes.
func skillLine(e *Note, project string) string {
	doc := e.Doc()
	name, _ := doc.String("name")
	if name == "" {
		name = strings.TrimSuffix(path.Base(e.Key), path.Ext(e.Key))
	}
	line := `<skill path="` + attr(e.Ref()) + `" file="` + attr(skillFile(e.Path, project)) + `" name="` + attr(name) + `"`
	if d, _ := doc.String("description"); d != "" {
		line += ` description="` + attr(d) + `"`
	}
	return line + "/>\n"
}

// skillFile is the skill note's file as a host opens it: relative to the
// project when there is one, slash-separated; else absolute.
func skillFile(file, project string) string {
	if project != "" {
		if rel, err := filepath.Rel(project, file); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(file)
}

func omittedLine(e *Note, tokens int, reason string) string {
	return fmt.Sprintf("<omitted path=\"%s\" tokens=\"%d\" reason=\"%s\"/>\n", attr(e.Ref()), tokens, reason)
}

// unregisteredLine is the omitted line of a note under an unregistered first
// folder: its path and why, never its body or size.
func unregisteredLine(e *Note) string {
	return `<omitted path="` + attr(e.Ref()) + `" reason="` + ReasonUnregistered + "\"/>\n"
}

var attrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "\n", "&#10;", "\r", "&#13;", "\t", "&#9;")

func attr(s string) string { return attrEscaper.Replace(s) }
