package session

import (
	"fmt"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/errcode"
)

// PromotePlace is `mf-lsp promote`'s request: the note by its place
// (dimension, owner, key) rather than by its file, where it goes (To and
// ToOwner; Layer, "" for the note's own), and the compare-and-swap of both
// ends as in Promotion.
type PromotePlace struct {
	From      engine.Dimension
	FromOwner string
	Key       string
	To        engine.Dimension
	ToOwner   string
	Layer     string
	Copy      bool
	// SourceRevision nil: the source is not checked.
	SourceRevision *int
	DestRevision   int
	Register       bool
}

// PlacedPromotion is the promotion a PromotePlace names: its source note, the
// key at the destination, and the Promotion to hand to Promote.
type PlacedPromotion struct {
	Source    *engine.Note
	DestKey   string
	Promotion Promotion
}

// NoNoteError: no note is at the place a request names.
type NoNoteError struct {
	Ref  string // the place as a ref
	Path string // the file looked for; "-" when the place has none
}

func (e *NoNoteError) Error() string {
	return fmt.Sprintf("no note %s (looked for %s)", e.Ref, e.Path)
}

func (*NoNoteError) ErrorCode() errcode.Code { return errcode.NotFound }

// DestinationError: the destination of a promotion can hold no note (its
// key, under the destination's layer, or its owner is not one a note can have).
type DestinationError struct{ Err error }

func (e *DestinationError) Error() string         { return e.Err.Error() }
func (e *DestinationError) Unwrap() error         { return e.Err }
func (*DestinationError) ErrorCode() errcode.Code { return errcode.InvalidArgument }

// CheckKey refuses a key no note can have.
func CheckKey(key string) error { return engine.CheckKey(key) }

// PlacePromotion finds the note r names (the canonical file, else the legacy
// one: machine/ for device, project/ for task) and where it goes. A layer
// layers.json does not define is a *NoLayerError, a missing note a
// *NoNoteError, a destination that cannot be a note a *DestinationError.
func PlacePromotion(m *engine.Memory, r PromotePlace) (PlacedPromotion, error) {
	layers := m.Layers()
	if r.Layer != "" {
		if _, ok := layers.ByName(r.Layer); !ok {
			return PlacedPromotion{}, noLayer(layers, r.Layer)
		}
	}
	src := findNote(m, r.From, r.FromOwner, r.Key)
	if src == nil {
		return PlacedPromotion{}, &NoNoteError{Ref: engine.Ref(r.From, r.FromOwner, r.Key), Path: pathOrDash(m, r.From, r.FromOwner, r.Key)}
	}
	destKey := src.Key
	if r.Layer != "" {
		l, _ := layers.ByName(r.Layer)
		destKey = l.Prefix + strings.TrimPrefix(src.Key, src.Layer.Prefix)
	}
	if _, err := m.PathOf(r.To, r.ToOwner, destKey); err != nil {
		return PlacedPromotion{}, &DestinationError{Err: err}
	}
	owner := r.ToOwner
	p := Promotion{Path: src.Path, To: r.To, Owner: &owner, Layer: r.Layer, Copy: r.Copy,
		SourceRevision: r.SourceRevision, DestRevision: r.DestRevision, Register: r.Register}
	return PlacedPromotion{Source: src, DestKey: destKey, Promotion: p}, nil
}

// findNote finds the note of a dimension, owner and key: the canonical file,
// else the legacy one.
func findNote(m *engine.Memory, d engine.Dimension, owner, key string) *engine.Note {
	var legacy *engine.Note
	for _, e := range m.Versions(key) {
		if e.Dimension != d || e.Owner != owner {
			continue
		}
		if !e.Legacy {
			return e
		}
		legacy = e
	}
	return legacy
}

func pathOrDash(m *engine.Memory, d engine.Dimension, owner, key string) string {
	p, err := m.PathOf(d, owner, key)
	if err != nil {
		return "-"
	}
	return p
}

// noLayer is the refusal of a layer layers.json does not define, with the
// layers it does.
func noLayer(ls engine.Layers, name string) *NoLayerError {
	e := &NoLayerError{Layer: name}
	for _, l := range ls {
		e.Known = append(e.Known, l.Name)
	}
	return e
}
