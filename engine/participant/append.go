package participant

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/journal"
	"github.com/magicfrog/mf-lsp/engine/rollup"
)

// AppendResult is where an append landed.
type AppendResult struct {
	NoteInfo
	Path     string `json:"path" jsonschema:"the daily note's file"`
	Created  bool   `json:"created" jsonschema:"true: this append made today's daily note"`
	Attempts int    `json:"attempts" jsonschema:"writes tried: more than 1 when other writers appended at the same moment"`
}

// AppendTimeout bounds how long Append keeps retrying while other writers
// win the revision check. Each retry reads the note again; under contention a
// retry is a few milliseconds, so only a stuck writer (a file that keeps
// changing) reaches it.
const AppendTimeout = 30 * time.Second

// ErrBusy is an append that gave up: the note kept changing under it.
var ErrBusy = errors.New("busy")

// DefaultJournal is the journal an append without a dimension goes to: the
// project's (task) when the participant has a project with a .magicfrog
// folder, else its own agent's, else the user's; a journal kept in place
// for the project or the agent comes before them.
func (p *Participant) DefaultJournal() string {
	// A journal kept in place (init --journal) is the one the host writes:
	// an append goes there, the project's first, then the agent's own.
	for _, d := range []engine.Dimension{engine.Task, engine.Agent} {
		for _, mt := range p.m.Paths.Mounts() {
			switch {
			case mt.Dimension != d:
			case d == engine.Task && (mt.Owner == "" || mt.Owner == p.scope.Task):
				return Place{Dimension: d, ID: mt.Owner}.String()
			case d == engine.Agent && mt.Owner != "" && mt.Owner == p.Agent():
				return Place{Dimension: d, ID: mt.Owner}.String()
			}
		}
	}
	if p.m.Paths.ProjectDir != "" && p.rootExists(engine.Task) == nil {
		return engine.Task.String()
	}
	if a := p.Agent(); a != "" {
		return engine.Agent.String() + "/" + a
	}
	return engine.User.String()
}

// Day is the journal's today for the participant.
func (p *Participant) Day() (journal.Day, error) { return engine.Today(p.today) }

// Append adds text as a block at the end of today's daily note in the journal
// of place ("" is DefaultJournal), making the note (frontmatter and a dated
// title) when it is missing. Each try reads the note and writes it with the
// revision and hash it read; when another writer got there first the try is
// repeated on the new note, so concurrent appends all land, in the order they
// won, each once. day zero is the participant's today.
func (p *Participant) Append(place, text string, day journal.Day) (*AppendResult, error) {
	if strings.TrimSpace(text) == "" {
		return nil, refuse("text is empty: nothing to append")
	}
	if err := engine.CheckNote([]byte(text)); err != nil {
		if e, ok := engine.AsNotANote(err); ok {
			e.What = "the text"
		}
		return nil, err
	}
	if place == "" {
		place = p.DefaultJournal()
	}
	pl, err := p.ParsePlace(place)
	if err != nil {
		return nil, err
	}
	if day.IsZero() {
		if day, err = p.Day(); err != nil {
			return nil, err
		}
	}
	if err := p.rootExists(pl.Dimension); err != nil {
		return nil, err
	}
	j, err := rollup.JournalFor(p.m, pl.Dimension, pl.ID)
	if err != nil {
		return nil, err
	}
	key := j.Key(journal.Path(journal.Daily, day, journal.Week{}, journal.Month{}))
	path, err := p.target(pl, key)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(AppendTimeout)
	for attempt := 1; ; attempt++ {
		if attempt > 1 || !p.m.OneShot() {
			// The tree may be older than the note (a server's); a one-shot
			// process loaded it moments ago, and a change since then fails
			// the write below, whose retry refreshes.
			p.m.Refresh(path)
		}
		e := p.m.Note(path)
		req := engine.WriteRequest{Dimension: pl.Dimension, Owner: pl.ID, Key: key}
		if e == nil {
			req.Body = joinBlock([]byte(rollup.DailyTitle(day)), text)
		} else {
			body, err := e.Body()
			if err != nil {
				return nil, err
			}
			req.Body = joinBlock(body, text)
			req.ExpectRevision, req.ExpectHash = e.Revision(), e.Hash()
			if d := e.Doc(); d.Present && (!d.Has() || len(d.Errors) > 0) {
				return nil, fmt.Errorf("%s: its frontmatter does not parse; fix it before appending (nothing was written)", path)
			}
		}
		res, err := p.m.Write(req)
		if err == nil {
			r := &AppendResult{Path: path, Created: e == nil, Attempts: attempt}
			r.NoteInfo = NoteInfo{Dimension: pl.String(), Key: key, URI: URIScheme + "://" + engine.Ref(pl.Dimension, pl.ID, key), Revision: res.Revision, Hash: res.Hash}
			if now := p.m.Note(path); now != nil && now.Hash() == res.Hash {
				r.NoteInfo = NoteOf(now)
			}
			return r, nil
		}
		if _, stale := engine.IsStale(err); !stale {
			return nil, err
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: %s kept changing for %v (%d tries): nothing was appended; try again", ErrBusy, path, AppendTimeout, attempt)
		}
		// Back off a little, with jitter, so that writers that collided do not
		// collide again in lockstep.
		time.Sleep(time.Duration(rand.IntN(1+min(attempt, 20))) * time.Millisecond)
	}
}
