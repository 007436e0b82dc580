package session

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/rollup"
	"github.com/magicfrog/mf-lsp/engine/safefs"
)

// RollupRequest is what a rollup is asked for (magicfrog.rollup's argument).
// Dimension and Scope select journals as the CLI's --dimension and --scope
// do (absent: every journal with files; scope "" is a dimension's shared
// journal).
type RollupRequest struct {
	Kind      string  `json:"kind"` // day, week, month or due
	Period    string  `json:"period"`
	Dimension string  `json:"dimension"`
	Scope     *string `json:"scope"`
}

// Parse checks the request: the rollup request its kind and period make, the
// journals it selects, and a label naming it ("rollup week 2026-W48"). Its
// errors name the argument at fault.
func (r RollupRequest) Parse() (rollup.Request, RollupSetup, string, error) {
	setup := RollupSetup{Timeout: rollup.DefaultTimeout}
	if r.Kind == "" {
		return rollup.Request{}, setup, "", fmt.Errorf("argument \"kind\" is required")
	}
	words := []string{r.Kind}
	switch r.Kind {
	case "due":
		if r.Period != "" {
			return rollup.Request{}, setup, "", fmt.Errorf("kind \"due\" takes no period")
		}
	case "day", "week", "month":
		if r.Period == "" {
			return rollup.Request{}, setup, "", fmt.Errorf("argument \"period\" is required")
		}
		words = append(words, r.Period)
	default:
		return rollup.Request{}, setup, "", fmt.Errorf("argument \"kind\" must be day, week, month or due, got %q", r.Kind)
	}
	req, err := rollup.ParseRequest(words)
	if err != nil {
		return rollup.Request{}, setup, "", err
	}
	if r.Dimension != "" {
		if setup.Dimension, err = engine.ParseDimension(r.Dimension); err != nil {
			return rollup.Request{}, setup, "", fmt.Errorf("argument \"dimension\": %v", err)
		}
	}
	if r.Scope != nil {
		if err := engine.CheckOwnerID(*r.Scope); err != nil {
			return rollup.Request{}, setup, "", fmt.Errorf("argument \"scope\": %v", err)
		}
	}
	setup.Owner = r.Scope
	return req, setup, "rollup " + strings.Join(words, " "), nil
}

// RollupPlan is a rollup ready to run on a snapshot's tree: its request, its
// options, and how many jobs it plans.
type RollupPlan struct {
	Request rollup.Request
	Options rollup.Options
	Jobs    int
	memory  *engine.Memory
}

// PlanRollup plans req in the snapshot's session: its summarizer setting and
// today over setup (RollupOptions), and the jobs rollup.Plan finds.
func PlanRollup(snap *Snapshot, req rollup.Request, setup RollupSetup) (*RollupPlan, error) {
	setup.Summarizer, setup.Today = snap.Settings.Summarizer, snap.Today
	opts, err := RollupOptions(snap.Memory, setup)
	if err != nil {
		return nil, err
	}
	jobs, err := RollupJobs(snap.Memory, req, opts)
	if err != nil {
		return nil, err
	}
	return &RollupPlan{Request: req, Options: opts, Jobs: len(jobs), memory: snap.Memory}, nil
}

// RollupRun is what running a plan did: its report, and the outcomes whose
// lessons it may offer.
type RollupRun struct {
	Report *RollupReport
	outs   []rollup.Outcome
	memory *engine.Memory
}

// Run runs the plan (RunRollup), calling each, when not nil, after every job
// with its step. The run's report tallies the jobs that ran also when err
// stopped it.
func (p *RollupPlan) Run(ctx context.Context, each func(RollupStep)) (*RollupRun, error) {
	report, outs, err := RunRollup(ctx, p.memory, p.Request, p.Options, func(_ rollup.Outcome, step RollupStep) {
		if each != nil {
			each(step)
		}
	})
	return &RollupRun{Report: report, outs: outs, memory: p.memory}, err
}

// Lessons are the MEMORY.md edits the run's monthlies propose, per journal
// (LessonsEdits).
func (r *RollupRun) Lessons() ([]JournalLessons, []error) { return LessonsEdits(r.memory, r.outs) }

// LessonsSource is the MEMORY.md a lessons edit inserts into, as on disk (the
// edit's offset is the disk's): an error when its open buffer differs.
func (s *Session) LessonsSource(path string) ([]byte, error) {
	src, err := safefs.ReadFile(path, engine.MaxNoteSize)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	ds := s.byPath[path]
	open := ds != nil && ds.doc != nil
	var text []byte
	if open {
		text = ds.doc.Text
	}
	s.mu.Unlock()
	if open && !bytes.Equal(text, src) {
		return nil, fmt.Errorf("%s has unsaved changes; save it and run the rollup again to review the lessons", path)
	}
	return src, nil
}
