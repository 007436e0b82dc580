package session

import (
	"bytes"
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

// PlanRollup is a rollup's options in the snapshot's session (its summarizer
// setting and today over setup; RollupOptions) and how many jobs req plans.
func PlanRollup(snap *Snapshot, req rollup.Request, setup RollupSetup) (rollup.Options, int, error) {
	setup.Summarizer, setup.Today = snap.Settings.Summarizer, snap.Today
	opts, err := RollupOptions(snap.Memory, setup)
	if err != nil {
		return opts, 0, err
	}
	jobs, err := rollup.Plan(snap.Memory, req, opts)
	if err != nil {
		return opts, 0, err
	}
	return opts, len(jobs), nil
}

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
