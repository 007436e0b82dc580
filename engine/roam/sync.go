package roam

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/gofrs/flock"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/frontmatter"
	"github.com/magicfrog/mf-lsp/engine/secrets"
	"github.com/magicfrog/mf-lsp/engine/store"
)

// Options of a sync.
type Options struct {
	Memory *engine.Memory
	// Remote is the repository URL (a path, file://, ssh://, git://, https://);
	// "" uses the one remembered from the last sync. A new one is remembered.
	Remote string
	Auth   transport.AuthMethod // nil: go-git's default (an ssh agent for ssh)
	// Scan finds secrets in a note about to leave the machine; nil uses
	// gitleaks' default rules (engine/secrets).
	Scan Scanner
	// Status plans without changing anything: no local write, no commit, no
	// push, no state saved. It still fetches, unless Offline.
	Status  bool
	Offline bool
	Now     func() time.Time
	// Retries is how often a rejected push (another machine pushed first) is
	// fetched, merged and pushed again; 0 means 10.
	Retries int
	// BeforePush, when set (by tests), runs between the local writes and the
	// push, on every attempt: where another machine's push makes this one's
	// rejected.
	BeforePush func()
	// OnStep, when set (by tests), is called at each step of a sync: "fetched",
	// "local-written", "pushed" (before the state is saved). The kill test ends
	// the process there.
	OnStep func(step string)
}

// Scanner returns the secrets in a note about to leave the machine.
type Scanner func(content []byte) ([]secrets.Finding, error)

// Change is one path a sync moved.
type Change struct {
	Path     string // portable path
	Op       string // "add", "update", "delete", "merge"
	Revision int    // the revision now (0 for a deletion)
}

// Held is a note kept back from the remote, with why.
type Held struct {
	Path     string
	Reason   string
	Findings []secrets.Finding // the secrets, when that is why
}

// ConflictReport is a note that waits for the user.
type ConflictReport struct {
	Path   string
	Reason string
	File   string // the remote version, beside the sync state ("" when the remote deleted it)
	Local  string // the local note ("" when deleted locally)
}

// Report says what a sync did (or, for a status, would do).
type Report struct {
	Remote     string
	MadeRemote bool   // the remote was an empty local folder and a bare repository was made there
	Commit     string // the remote head after the sync
	Pushed     []Change
	Pulled     []Change
	Conflicts  []ConflictReport
	Held       []Held
	Ignored    []Held // remote files in the sync set that are not notes this machine takes
	// HeldConfig is configuration from the remote that would widen a view:
	// not written here until accepted (Accept) or rejected (Reject).
	HeldConfig []HeldConfig
	Failed     []Held // local writes that failed (a note edited during the sync): retried next time
	TaskNote   string // why the project's task notes do not roam ("" when they do)
	// Rewritten says how the remote's history was rewritten since the last
	// sync (a force-push, a rewind) and what sync did about it; "" when not.
	Rewritten string
	// Migrated says that the remote kept the project's task notes in the
	// layout before the portable tree's and that this sync rewrote them;
	// "" when not.
	Migrated string
	Task     string // the task ID whose notes roam
	Retries  int
	LastSync time.Time // the previous sync (status) or this one
	// Unreachable is set by a status that could not fetch: the plan is
	// against the remote as of the last fetch.
	Unreachable error
}

// MarshalJSON writes the report with Unreachable as its message.
func (r *Report) MarshalJSON() ([]byte, error) {
	type plain Report
	out := struct {
		*plain
		Unreachable string `json:"Unreachable,omitempty"`
	}{plain: (*plain)(r)}
	if r.Unreachable != nil {
		out.Unreachable = r.Unreachable.Error()
	}
	return json.Marshal(out)
}

// Quiet reports whether the sync had nothing left to move.
func (r *Report) Quiet() bool {
	return len(r.Pushed) == 0 && len(r.Pulled) == 0 && len(r.Conflicts) == 0 && len(r.Failed) == 0
}

// ErrNoRemote: no --remote given and none remembered.
var ErrNoRemote = errors.New("no remote: give one the first time (mf-lsp sync --remote URL)")

// Sync fetches, merges, commits and pushes (or, with Status, only plans),
// in its steps: begin (the state, the remote, the repository), then per
// attempt fetchAndPlan and applyAndPush, again after a rejected push, and
// finish (the new state saved).
func Sync(ctx context.Context, o Options) (*Report, error) {
	data := o.Memory.Paths.DataDir
	if info, err := os.Stat(data); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("data directory %s does not exist", data)
	}
	o.defaults()
	if !o.Status {
		unlock, err := lockSync(ctx, data)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	r, err := begin(o)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		s, head, err := r.fetchAndPlan(ctx)
		if err != nil {
			return nil, err
		}
		if o.Status {
			return r.rep, nil
		}
		pushed, err := r.applyAndPush(ctx, s, head)
		if errors.Is(err, ErrRejected) || (err != nil && s.remoteMoved(ctx, head)) {
			if attempt >= o.Retries {
				return nil, fmt.Errorf("the remote kept moving during %d attempts: %w", attempt+1, err)
			}
			r.again(attempt)
			continue
		}
		if err != nil {
			return nil, err
		}
		if err := r.finish(s, pushed); err != nil {
			return nil, err
		}
		return r.rep, nil
	}
}

// defaults fills in what the caller left unset: the clock, the secret
// scanner and the number of retries.
func (o *Options) defaults() {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Scan == nil {
		o.Scan = secrets.Scan
	}
	if o.Retries == 0 {
		o.Retries = 10
	}
}

// syncRun is what a sync's attempts share: the options, the state it
// started from, the remote, this machine, the repository, the mapping of the
// portable tree and the report.
type syncRun struct {
	o       Options
	st      *State
	url     string
	data    string
	machine string
	g       *gitRepo
	mp      *mapping
	rep     *Report
}

// begin loads the last synced state, settles the remote (o.Remote, else the
// remembered one; a new remote drops the old one's base), this machine's ID,
// the remote made when it is a missing folder (not for a status) and the
// repository.
func begin(o Options) (*syncRun, error) {
	m := o.Memory
	data := m.Paths.DataDir
	st, err := LoadState(data)
	if err != nil {
		return nil, err
	}
	url := o.Remote
	if url == "" {
		url = st.Remote
	}
	if url == "" {
		return nil, ErrNoRemote
	}
	if st.Remote != "" && url != st.Remote {
		// The last sync's base belongs to the old remote: against another one
		// every difference must be a conflict, never a silent deletion.
		st.Notes, st.Commit = nil, ""
	}
	st.Remote = url // saved with the first progress (applyLocal) or at the end
	machine, err := m.EnsureMachineID()
	if err != nil {
		return nil, err
	}
	rep := &Report{Remote: url, LastSync: st.LastSync}
	if !o.Status {
		if rep.MadeRemote, err = ensureLocalRemote(url); err != nil {
			return nil, err
		}
	}
	g, err := openRepo(data, url, o.Auth)
	if err != nil {
		return nil, err
	}
	mp := newMapping(m)
	rep.TaskNote, rep.Task = mp.taskNote, mp.task
	st.migrateState(data, mp.task, !o.Status)
	return &syncRun{o: o, st: st, url: url, data: data, machine: machine, g: g, mp: mp, rep: rep}, nil
}

// fetchAndPlan fetches the remote's head (offline: the one of the last
// fetch; a status says an unreachable remote and falls back to it) and plans
// the attempt against it.
func (r *syncRun) fetchAndPlan(ctx context.Context) (*syncer, plumbing.Hash, error) {
	var head plumbing.Hash
	var err error
	if r.o.Offline {
		head, err = r.g.tracked()
	} else {
		head, err = r.g.fetch(ctx)
	}
	if err != nil && r.o.Status {
		r.rep.Unreachable = err
		head, err = r.g.tracked()
	}
	if err != nil {
		return nil, head, err
	}
	r.o.step("fetched")
	s := &syncer{o: r.o, g: r.g, mp: r.mp, st: r.st, rep: r.rep, data: r.data, machine: r.machine}
	if err := s.plan(head); err != nil {
		return nil, head, err
	}
	return s, head, nil
}

// applyAndPush writes the plan's local changes, then commits and pushes the
// merged tree on top of head.
func (r *syncRun) applyAndPush(ctx context.Context, s *syncer, head plumbing.Hash) (plumbing.Hash, error) {
	s.applyLocal()
	r.o.step("local-written")
	if r.o.BeforePush != nil {
		r.o.BeforePush()
	}
	return s.commitAndPush(ctx, head)
}

// again prepares the next attempt after a rejected push: a random,
// exponential back-off (up to 2 s), so machines racing for the branch do not
// collide again in lockstep and a slow one is not starved by fast ones; an
// empty report; the tree read again.
func (r *syncRun) again(attempt int) {
	rep := r.rep
	rep.Retries++
	time.Sleep(time.Duration(rand.Int64N(int64(min(50*time.Millisecond<<attempt, 2*time.Second)))))
	rep.Pushed, rep.Pulled, rep.Conflicts, rep.Held, rep.Ignored, rep.Failed = nil, nil, nil, nil, nil, nil
	rep.HeldConfig, rep.Migrated = nil, ""
	r.o.Memory.Reload()
}

// finish records the pushed commit as the last synced state (the new base,
// the conflicts, the held configuration, the stat cache), keeps the
// conflicts' remote versions, saves the state and reloads the tree.
func (r *syncRun) finish(s *syncer, pushed plumbing.Hash) error {
	r.o.step("pushed")
	st := r.st
	st.Remote, st.Branch, st.Commit = r.url, branch, pushed.String()
	if pushed.IsZero() {
		st.Commit = ""
	}
	st.Notes, st.Conflicts = s.newBase, s.conflicts
	if r.mp.task != "" {
		st.PortableTask = r.mp.task // the remote's head is in the portable layout now
	}
	if err := s.keepHeld(); err != nil {
		return err
	}
	st.Held = s.held
	st.Stat, st.ScanAt = statCache(s.local, s.scanAt, s.written), s.scanAt
	st.LastSync = r.o.Now().UTC()
	if err := s.keepConflicts(); err != nil {
		return err
	}
	if err := st.save(r.data); err != nil {
		return err
	}
	r.rep.Commit, r.rep.LastSync = st.Commit, st.LastSync
	r.o.Memory.Reload()
	return nil
}

func (o *Options) step(name string) {
	if o.OnStep != nil {
		o.OnStep(name)
	}
}

// lockSync serializes syncs of one data directory (the editor's sync on save
// and a sync from the shell).
func lockSync(ctx context.Context, data string) (func(), error) {
	if err := os.MkdirAll(syncDir(data), 0o755); err != nil {
		return nil, err
	}
	lk := flock.New(filepath.Join(syncDir(data), ".lock"))
	wait, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	ok, err := lk.TryLockContext(wait, 50*time.Millisecond)
	if err != nil || !ok {
		return nil, fmt.Errorf("another sync of %s is running (waited 2 minutes): %v", data, err)
	}
	return func() { lk.Unlock() }, nil
}

// syncer is one attempt: a plan against one remote head, then its execution.
type syncer struct {
	o       Options
	g       *gitRepo
	mp      *mapping
	st      *State
	rep     *Report
	data    string
	machine string

	remote    map[string]treeFile // the remote head's files
	merged    map[string]treeFile // the tree to push
	newBase   map[string]Base
	conflicts map[string]Conflict
	writes    []localWrite
	theirs    map[string][]byte // remote versions of new conflicts, to keep beside the state
	local     map[string]*localFile
	scanAt    time.Time
	written   map[string]bool // paths applyLocal wrote
	rw        *rewritten      // the remote was rewritten since the last sync (nil: it was not)
	migrated  bool            // the remote's task notes are read from the old layout (layout.go)
	// held are the configuration changes from the remote held back because
	// they would widen a view (holdWidening), with the version each would write.
	held        map[string]HeldState
	heldContent map[string][]byte
}

// localWrite is a change to this machine's tree.
type localWrite struct {
	rel     string
	local   *localFile // nil: the note does not exist locally
	content []byte     // nil: remove
	change  Change
	blob    plumbing.Hash // what the path holds once written
	// theirs is the remote version the write is based on: once written, the
	// path is in sync with it whatever happens to the push (see applyLocal).
	theirs  plumbing.Hash
	removed bool // the remote deleted it
}

func (s *syncer) plan(head plumbing.Hash) error {
	var err error
	if s.remote, err = s.g.files(head); err != nil {
		return fmt.Errorf("read the remote tree: %w", err)
	}
	if err := s.rebaseRewritten(head); err != nil {
		return fmt.Errorf("compare the remote with the last synced commit: %w", err)
	}
	if err := s.migrateRemote(head); err != nil {
		return fmt.Errorf("read the remote's layout: %w", err)
	}
	s.scanAt = time.Now()
	local, held, err := s.mp.scan(s.st.Stat, s.st.ScanAt)
	if err != nil {
		return err
	}
	s.local = local
	s.merged = make(map[string]treeFile, len(s.remote))
	for p, f := range s.remote {
		s.merged[p] = f
	}
	s.newBase = map[string]Base{}
	s.conflicts = map[string]Conflict{}
	s.theirs = map[string][]byte{}
	s.held, s.heldContent = map[string]HeldState{}, map[string][]byte{}
	heldSet := map[string]bool{}
	for _, h := range held {
		heldSet[h.Path] = true
		s.rep.Held = append(s.rep.Held, Held{Path: h.Path, Reason: h.Reason})
	}
	paths := map[string]bool{}
	for p := range local {
		paths[p] = true
	}
	for p := range s.st.Notes {
		paths[p] = true
	}
	for p := range s.st.Conflicts {
		paths[p] = true
	}
	for p := range s.remote {
		if s.mp.owns(p) {
			paths[p] = true
		}
	}
	sorted := make([]string, 0, len(paths))
	for p := range paths {
		sorted = append(sorted, p)
	}
	sort.Strings(sorted)
	for _, p := range sorted {
		if !s.mp.owns(p) {
			continue // a base from a sync with other settings (another task)
		}
		if heldSet[p] {
			s.keepBase(p)
			continue
		}
		if rf, ok := s.remote[p]; ok {
			if why := s.unfit(p, rf); why != "" {
				// Skipped from its tree entry and size alone, never read:
				// one bad entry of a remote does not stop the rest.
				s.rep.Ignored = append(s.rep.Ignored, Held{Path: p, Reason: why})
				s.keepBase(p)
				continue
			}
		}
		if err := s.decide(p, local[p]); err != nil {
			return err
		}
	}
	s.rewrittenChanges()
	s.holdWidening()
	return nil
}

// keepBase leaves a path as the last sync left it.
func (s *syncer) keepBase(p string) {
	if b, ok := s.st.Notes[p]; ok {
		s.newBase[p] = b
	}
}

func (s *syncer) decide(p string, l *localFile) error {
	var lh, rh, bh plumbing.Hash
	if l != nil {
		lh = l.hash
	}
	rf, inRemote := s.remote[p]
	if inRemote {
		rh = rf.hash
	}
	base, inBase := s.st.Notes[p]
	if inBase {
		bh = plumbing.NewHash(base.Blob)
	}
	if c, ok := s.st.Conflicts[p]; ok {
		if lh == rh {
			s.agree(p, rh, l)
			return nil
		}
		c.Theirs, c.TheirsRevision = "", 0
		if inRemote {
			c.Theirs = rh.String()
			c.TheirsRevision = s.remoteRevision(rh)
		}
		s.conflict(p, l, c.Reason, c.Since, rh, inRemote)
		s.keepBase(p)
		return nil
	}
	switch {
	case lh == rh:
		if l != nil || inRemote {
			s.agree(p, rh, l)
		}
	case lh == bh && inBase && l != nil && inRemote && s.remoteRevision(rh) < l.rev:
		// The remote moved this note to a lower revision than the one here
		// (a machine that merged a rewritten remote pushed its side's older
		// version): never taken as a rollback; both versions are kept.
		s.conflict(p, l, "the remote holds a lower revision than this machine's", s.o.Now().UTC(), rh, inRemote)
		s.keepBase(p)
	case lh == bh && inBase || (!inBase && l == nil):
		return s.take(p, l, rh, inRemote)
	case rh == bh && inBase || (!inBase && !inRemote):
		s.send(p, l)
	case l == nil:
		s.conflict(p, l, "deleted here, changed on the remote", s.o.Now().UTC(), rh, inRemote)
		s.keepBase(p)
	case !inRemote:
		s.conflict(p, l, "changed here, deleted on the remote", s.o.Now().UTC(), rh, inRemote)
		s.keepBase(p)
	default:
		var baseContent []byte
		if inBase {
			b, err := s.g.blob(bh)
			if err != nil {
				return fmt.Errorf("%s: the last synced version is missing from %s: %w", p, repoDir(s.data), err)
			}
			baseContent = b
		}
		theirs, err := s.g.blob(rh)
		if err != nil {
			return err
		}
		if !s.takeable(p, theirs) {
			s.keepBase(p)
			return nil
		}
		ours, err := l.load()
		if err != nil {
			s.rep.Failed = append(s.rep.Failed, Held{Path: p, Reason: err.Error()})
			s.keepBase(p)
			return nil
		}
		merged, ok := s.mergeChanged(p, baseContent, ours, theirs)
		if !ok {
			s.theirs[p] = theirs
			s.conflict(p, l, "changed on both sides, and the changes overlap", s.o.Now().UTC(), rh, inRemote)
			s.keepBase(p)
			return nil
		}
		if s.secretHeld(p, merged) {
			s.keepBase(p)
			return nil
		}
		h, err := s.g.put(plumbing.BlobObject, merged)
		if err != nil {
			return err
		}
		ch := Change{Path: p, Op: "merge", Revision: revision(merged)}
		s.writes = append(s.writes, localWrite{rel: p, local: l, content: merged, change: ch, blob: h, theirs: rh})
		s.merged[p] = treeFile{hash: h, mode: filemode.Regular}
		s.rep.Pushed = append(s.rep.Pushed, ch)
	}
	return nil
}

// agree: both sides hold the same version (or neither holds the path).
func (s *syncer) agree(p string, h plumbing.Hash, l *localFile) {
	if l == nil {
		return
	}
	s.newBase[p] = Base{Blob: h.String(), Revision: l.rev}
}

// take brings the remote version (or its deletion) to this machine.
func (s *syncer) take(p string, l *localFile, rh plumbing.Hash, inRemote bool) error {
	if !inRemote {
		if l == nil {
			return nil
		}
		s.writes = append(s.writes, localWrite{rel: p, local: l, change: Change{Path: p, Op: "delete"}, removed: true})
		s.rep.Pulled = append(s.rep.Pulled, Change{Path: p, Op: "delete"})
		return nil
	}
	content, err := s.g.blob(rh)
	if err != nil {
		return err
	}
	if !s.takeable(p, content) {
		s.keepBase(p)
		return nil
	}
	op := "update"
	if l == nil {
		op = "add"
	}
	ch := Change{Path: p, Op: op, Revision: revision(content)}
	s.writes = append(s.writes, localWrite{rel: p, local: l, content: content, change: ch, blob: rh, theirs: rh})
	s.rep.Pulled = append(s.rep.Pulled, ch)
	return nil
}

// takeable checks a remote file before it lands in the memory tree.
func (s *syncer) takeable(p string, content []byte) bool {
	reason := ""
	if _, _, ok := s.mp.local(p); !ok {
		reason = "not a note path this machine keeps"
	} else if err := engine.CheckNote(content); err != nil {
		reason = err.Error()
	} else if d := frontmatter.Parse(content); d.Has() && p != rosterPath && p != layersPath {
		if mach, _ := d.String("machine"); mach != "" {
			reason = "bound to machine " + mach + ": a device note is never taken into a chain dimension"
		}
	}
	if reason != "" {
		s.rep.Ignored = append(s.rep.Ignored, Held{Path: p, Reason: reason})
		return false
	}
	return true
}

// send puts the local version (or its deletion) into the tree to push.
func (s *syncer) send(p string, l *localFile) {
	if l == nil {
		delete(s.merged, p)
		s.rep.Pushed = append(s.rep.Pushed, Change{Path: p, Op: "delete"})
		return
	}
	content, err := l.load()
	if err != nil {
		s.rep.Failed = append(s.rep.Failed, Held{Path: p, Reason: err.Error()})
		s.keepBase(p)
		return
	}
	if s.secretHeld(p, content) {
		s.keepBase(p)
		return
	}
	h, err := s.g.put(plumbing.BlobObject, content)
	if err != nil {
		s.rep.Failed = append(s.rep.Failed, Held{Path: p, Reason: err.Error()})
		s.keepBase(p)
		return
	}
	op := "update"
	if _, ok := s.remote[p]; !ok {
		op = "add"
	}
	s.merged[p] = treeFile{hash: h, mode: filemode.Regular}
	s.newBase[p] = Base{Blob: h.String(), Revision: l.rev}
	s.rep.Pushed = append(s.rep.Pushed, Change{Path: p, Op: op, Revision: l.rev})
}

// secretHeld scans content about to leave the machine; a finding holds the
// note back.
func (s *syncer) secretHeld(p string, content []byte) bool {
	fs, err := s.o.Scan(content)
	if err == nil {
		// The path leaves the machine too: a finding in it is reported at
		// line 0.
		var inName []secrets.Finding
		if inName, err = s.o.Scan([]byte(p)); err == nil {
			for _, f := range inName {
				f.Line = 0
				fs = append(fs, f)
			}
		}
	}
	if err != nil {
		// The rules did not load: nothing may leave unscanned.
		s.rep.Held = append(s.rep.Held, Held{Path: p, Reason: "could not scan for secrets: " + err.Error()})
		return true
	}
	if len(fs) == 0 {
		return false
	}
	s.rep.Held = append(s.rep.Held, Held{Path: p, Reason: "a secret was found", Findings: fs})
	return true
}

func (s *syncer) conflict(p string, l *localFile, reason string, since time.Time, rh plumbing.Hash, inRemote bool) {
	c := Conflict{Reason: reason, Since: since}
	if inRemote {
		c.Theirs = rh.String()
		c.TheirsRevision = s.remoteRevision(rh)
		if _, ok := s.theirs[p]; !ok {
			if b, err := s.g.blob(rh); err == nil {
				s.theirs[p] = b
			}
		}
	}
	s.conflicts[p] = c
	cr := ConflictReport{Path: p, Reason: reason}
	if inRemote {
		cr.File = ConflictFile(s.data, p)
	}
	if l != nil {
		cr.Local = l.file
	}
	s.rep.Conflicts = append(s.rep.Conflicts, cr)
}

func (s *syncer) remoteRevision(h plumbing.Hash) int {
	b, err := s.g.blob(h)
	if err != nil {
		return 0
	}
	return revision(b)
}

// applyLocal writes the plan's local changes through engine/store, each
// checked against what the plan read. A note changed meanwhile (an editor
// saved it during the sync) is left alone and reported: the next sync sees
// it as changed here.
func (s *syncer) applyLocal() {
	if s.st.Notes == nil {
		s.st.Notes = map[string]Base{}
	}
	progressed := false
	s.written = map[string]bool{}
	for _, w := range s.writes {
		file, lock, ok := s.mp.local(w.rel)
		if !ok {
			continue
		}
		expect := store.Expect{}
		var err error
		var cur []byte
		if w.local != nil {
			if cur, err = w.local.load(); err == nil {
				expect = store.Expect{Revision: revision(cur), Hash: store.Hash(cur)}
			}
		}
		s.written[w.rel] = true
		switch {
		case err != nil:
		case w.content == nil:
			err = store.Remove(lock, file, expect)
		default:
			if err = os.MkdirAll(lock, 0o755); err == nil {
				err = store.Write(lock, file, w.content, expect)
			}
		}
		if err != nil {
			s.rep.Failed = append(s.rep.Failed, Held{Path: w.rel, Reason: err.Error()})
			// The remote keeps what it has; the base stays, so the next sync
			// decides again.
			if rf, ok := s.remote[w.rel]; ok {
				s.merged[w.rel] = rf
			} else {
				delete(s.merged, w.rel)
			}
			s.keepBase(w.rel)
			continue
		}
		keepInHistory(s.o.Memory, file, cur, w.content)
		if w.content == nil {
			delete(s.newBase, w.rel)
		} else {
			s.newBase[w.rel] = Base{Blob: w.blob.String(), Revision: revision(w.content)}
		}
		// The note now holds, or is merged from, what the remote held: that
		// is its base from here on, even if the push below is rejected and
		// the sync starts over against a newer remote. Left at the old base,
		// a note this machine never touched would look changed on both sides.
		progressed = true
		if w.removed {
			delete(s.st.Notes, w.rel)
		} else {
			s.st.Notes[w.rel] = Base{Blob: w.theirs.String(), Revision: s.remoteRevision(w.theirs)}
		}
	}
	if progressed {
		// Saved now so a sync killed before its push resumes from here.
		s.st.save(s.data)
	}
}

// commitAndPush commits the merged tree on top of head and pushes it; it
// returns the new remote head (head itself when nothing changed).
func (s *syncer) commitAndPush(ctx context.Context, head plumbing.Hash) (plumbing.Hash, error) {
	if len(s.merged) == 0 && head.IsZero() && s.rw == nil {
		return head, nil
	}
	tree, err := s.g.buildTree(s.merged)
	if err != nil {
		return head, err
	}
	parents := s.parents(head)
	var c plumbing.Hash
	switch {
	case (s.rw == nil || !s.rw.oldOK) && tree == s.g.treeOf(head):
		return head, nil
	case len(parents) == 1 && parents[0] != head && tree == s.g.treeOf(parents[0]):
		c = parents[0] // a rewind, nothing new: the last synced commit goes back
	default:
		if c, err = s.g.commit(tree, parents, s.message(), s.machine, s.o.Now()); err != nil {
			return head, err
		}
	}
	if err := s.g.flush(); err != nil {
		return head, err
	}
	if err := s.g.push(ctx, c); err != nil {
		return head, err
	}
	return c, nil
}

// remoteMoved reports whether the remote branch is no longer at head: a push
// that failed because another machine pushed first, whatever the transport
// called it.
func (s *syncer) remoteMoved(ctx context.Context, head plumbing.Hash) bool {
	now, err := s.g.fetch(ctx)
	return err == nil && now != head
}

func (s *syncer) message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "sync from machine %s: %d sent\n\n", s.machine, len(s.rep.Pushed))
	for i, c := range s.rep.Pushed {
		if i == 100 {
			fmt.Fprintf(&b, "… and %d more\n", len(s.rep.Pushed)-i)
			break
		}
		fmt.Fprintf(&b, "%s %s", c.Op, c.Path)
		if c.Revision > 0 {
			fmt.Fprintf(&b, " (revision %d)", c.Revision)
		}
		b.WriteByte('\n')
	}
	if s.migrated {
		fmt.Fprintf(&b, "task notes of task %s moved to the portable tree's layout (task/%s/… to task/…)\n", s.mp.task, s.mp.task)
	}
	if s.mp.task != "" {
		fmt.Fprintf(&b, "\n%s%s\n", portableTrailer, s.mp.task)
	}
	return b.String()
}

// keepConflicts writes the remote version of every conflict beside the sync
// state and removes the copies of conflicts that are gone.
func (s *syncer) keepConflicts() error {
	dir := conflictDir(s.data)
	for p := range s.st.Conflicts {
		if _, still := s.conflicts[p]; !still {
			os.Remove(ConflictFile(s.data, p))
		}
	}
	for p, c := range s.conflicts {
		f := ConflictFile(s.data, p)
		if c.Theirs == "" {
			os.Remove(f)
			continue
		}
		b, ok := s.theirs[p]
		if !ok {
			var err error
			if b, err = s.g.blob(plumbing.NewHash(c.Theirs)); err != nil {
				return err
			}
		}
		if err := writeSyncFile(s.data, f, b); err != nil {
			return err
		}
	}
	if len(s.conflicts) == 0 {
		os.RemoveAll(dir)
	}
	return nil
}
