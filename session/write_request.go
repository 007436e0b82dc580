package session

import (
	"fmt"
	"path/filepath"

	"github.com/magicfrog/mf-lsp/engine"
)

// The arguments of the commands that write memory, checked before memory is
// touched. Their errors name the argument at fault; a front end adds the
// command's name.

// PromoteRequest is magicfrog.promote's argument besides the note: where to
// (To: a dimension, or "skills": the skills layer of the note's own dimension
// and ID), under which ID (Scope), into which layer besides (Layer).
type PromoteRequest struct {
	To    string  `json:"to"`
	Scope *string `json:"scope,omitempty"`
	Layer string  `json:"layer,omitempty"`
	Copy  bool    `json:"copy,omitempty"`
	// SourceRevision and DestRevision are what the editor showed: the
	// promotion is a compare-and-swap on both ends (engine.PromoteRequest).
	// An absent destRevision is 0: the destination must not exist.
	SourceRevision *int `json:"sourceRevision,omitempty"`
	DestRevision   int  `json:"destRevision,omitempty"`
	Register       bool `json:"register,omitempty"`
}

// Promotion is the promotion of the note at path the request asks for: a
// destination dimension or "skills", a layer that does not contradict it, an
// ID where the destination has IDs.
func (r PromoteRequest) Promotion(path string) (Promotion, error) {
	p := Promotion{Path: path, Owner: r.Scope, Layer: r.Layer, Copy: r.Copy,
		SourceRevision: r.SourceRevision, DestRevision: r.DestRevision, Register: r.Register}
	if r.To == "" {
		return p, fmt.Errorf("argument \"to\" is required")
	}
	if r.To == "skills" {
		if p.Layer != "" && p.Layer != "skills" {
			return p, fmt.Errorf("to \"skills\" and layer %q contradict each other", p.Layer)
		}
		p.Layer = "skills"
	} else {
		var err error
		if p.To, err = engine.ParseDimension(r.To); err != nil {
			return p, fmt.Errorf("argument \"to\": %v (want agent, user, account, task, device or skills)", err)
		}
	}
	if r.Scope != nil {
		if err := checkOwner(p.To, *r.Scope); err != nil {
			return p, err
		}
	}
	return p, nil
}

// checkOwner refuses an owner ID the engine would not write under, and one
// for a dimension (when known, d ≠ 0) whose notes have no ID.
func checkOwner(d engine.Dimension, owner string) error {
	if err := engine.CheckOwnerID(owner); err != nil {
		return fmt.Errorf("argument \"scope\": %v", err)
	}
	if owner != "" && d != 0 && !d.HasOwners() {
		return fmt.Errorf("%s notes have no ID; drop \"scope\"", d)
	}
	return nil
}

// TodayRequest is magicfrog.today's argument: the journal (default: the task
// dimension's shared one), and whether to register an unregistered ID first.
type TodayRequest struct {
	Dimension string `json:"dimension"`
	Scope     string `json:"scope"`
	Register  bool   `json:"register"`
}

// Journal is the dimension of the journal the request names.
func (r TodayRequest) Journal() (engine.Dimension, error) {
	d := engine.Task
	if r.Dimension != "" {
		var err error
		if d, err = engine.ParseDimension(r.Dimension); err != nil {
			return 0, fmt.Errorf("argument \"dimension\": %v", err)
		}
	}
	return d, checkOwner(d, r.Scope)
}

// ResolveDir is a folder argument: absolute, or relative to the project.
func (st Settings) ResolveDir(dir string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("argument \"dir\" is required")
	}
	if filepath.IsAbs(dir) {
		return filepath.Clean(dir), nil
	}
	if st.ProjectDir == "" {
		return "", fmt.Errorf("argument \"dir\" %q is relative and there is no workspace folder to resolve it against; give an absolute path", dir)
	}
	return filepath.Join(st.ProjectDir, dir), nil
}
