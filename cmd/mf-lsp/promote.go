package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/magicfrog/mf-lsp/cmd/internal/shell"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/session"
)

const promoteUsage = "mf-lsp promote --from DIM[/ID] --key KEY (--to DIM[/ID] | --layer NAME | both) [--copy] [--expect-source-revision N] [--expect-dest-revision N] [--register]"

const promoteAbout = `
Move (default) or copy a note to another dimension, scope ID or layer: up the
chain (task/T-7 -> user), into another agent's or task's scope, or into the
skills layer (--layer skills: notes/review.md becomes skills/review.md). Its
body and frontmatter keys travel; the destination's revision goes on from its
own (from a legacy note's, when that is the destination key's only version).

A compare-and-swap on both ends. The source must be at the revision given by
--expect-source-revision (when given; its content must also not change while
the command runs). The destination must be at --expect-dest-revision, which
defaults to 0: the destination must not exist. So an existing destination is
never overwritten blind: pass the revision you saw (mf-lsp tree) to replace
it. Either end differing refuses the promotion (exit 3) and nothing is written;
the first line on stderr is "stale: source at revision M" or "stale:
destination at revision M". A destination ID that is not registered is refused
(exit 2) unless --register adds it. A move writes the destination first, then
removes the source.

Prints one line: "moved FROM -> TO (revision R)" or "copied FROM -> TO (revision R)".`

func runPromote(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("promote", promoteUsage, promoteAbout, stdout, stderr)
	fromFlag := c.FS.String("from", "", "where the note is: `DIM[/ID]`, e.g. task/T-7 or user (required)")
	key := c.FS.String("key", "", "the note's `KEY` (required)")
	toFlag := c.FS.String("to", "", "where it goes: `DIM[/ID]` (default: the source's dimension and ID, with --layer)")
	layer := c.FS.String("layer", "", "the destination layer `NAME`, e.g. skills (default: the note's own layer)")
	cp := c.FS.Bool("copy", false, "copy: keep the source")
	expectSrc := c.FS.Int("expect-source-revision", -1, "refuse (exit 3) unless the source is at revision `N`")
	expectRev := c.FS.Int("expect-revision", -1, "the same as --expect-source-revision (`N`), its earlier name")
	expectDest := c.FS.Int("expect-dest-revision", 0, "refuse (exit 3) unless the destination is at revision `N`; 0: it must not exist")
	register := registerFlag(c)
	if _, code, done := c.Parse(args, 0, 0); done {
		return code
	}
	switch {
	case *fromFlag == "":
		return c.UsageError("--from is required")
	case *key == "":
		return c.UsageError("--key is required")
	case *toFlag == "" && *layer == "":
		return c.UsageError("--to or --layer is required")
	case *expectDest < 0:
		return c.UsageError("--expect-dest-revision %d: want 0 (must not exist) or more", *expectDest)
	case c.IsSet("expect-revision") && c.IsSet("expect-source-revision") && *expectRev != *expectSrc:
		return c.UsageError("--expect-revision and --expect-source-revision disagree")
	}
	if c.IsSet("expect-revision") {
		*expectSrc = *expectRev
	}
	fromDim, fromID, err := parseWhere(*fromFlag)
	if err != nil {
		return c.UsageError("--from: %v", err)
	}
	toDim, toID := fromDim, fromID
	if *toFlag != "" {
		if toDim, toID, err = parseWhere(*toFlag); err != nil {
			return c.UsageError("--to: %v", err)
		}
	}
	if err := session.CheckKey(*key); err != nil {
		return c.UsageError("--key: %v", err)
	}
	m, err := c.Open(false)
	if err != nil {
		return c.Fail("%v", err)
	}
	r := session.PromotePlace{From: fromDim, FromOwner: fromID, Key: *key, To: toDim, ToOwner: toID, Layer: *layer, Copy: *cp,
		DestRevision: *expectDest, Register: *register}
	if *expectSrc >= 0 {
		r.SourceRevision = expectSrc
	}
	placed, err := session.PlacePromotion(m, r)
	if code, ok := refusedPlace(c, err); ok {
		return code
	}
	if err := c.RequireWritable(m, toDim); err != nil {
		return c.Fail("%v", err)
	}
	src := placed.Source
	res, changed, err := session.Promote(m, placed.Promotion)
	if err != nil {
		return promoteFailed(c, err, changed)
	}
	verb := "moved"
	if *cp {
		verb = "copied"
	}
	fmt.Fprintf(stdout, "%s %s -> %s (revision %d)\n", verb, src.Ref(), engine.Ref(toDim, toID, res.Key), res.Revision)
	return exitOK
}

// promoteFailed reports a promotion session.Promote refused or left half
// done (changed: something was written).
func promoteFailed(c *cli, err error, changed bool) int {
	if code, ok := unregistered(c, err); ok {
		return code
	}
	if !changed {
		if code, ok := shell.NotANote(c, err); ok {
			return code
		}
	}
	var end *engine.EndError
	if !changed && errors.As(err, &end) {
		fmt.Fprintf(c.Stderr, "stale: %s at revision %d\n", end.End, end.Err.Revision)
		fmt.Fprintf(c.Stderr, "mf-lsp promote: %v; nothing was moved\n", end.Err)
		return exitStale
	}
	// A move whose destination was written but whose source could not be
	// removed is not a clean refusal: exit 1, the message says what is where.
	return c.Fail("%v", err)
}

// refusedPlace reports a promotion session.PlacePromotion refused: an
// unknown layer and a destination that cannot be a note are bad usage (exit
// 2), a missing note exit 1.
func refusedPlace(c *cli, err error) (int, bool) {
	var noLayer *session.NoLayerError
	var dest *session.DestinationError
	switch {
	case err == nil:
		return 0, false
	case errors.As(err, &noLayer):
		return c.UsageError("--layer: no layer %q (layers: %s)", noLayer.Layer, strings.Join(noLayer.Known, ", ")), true
	case errors.As(err, &dest):
		return c.UsageError("%v", dest.Err), true
	}
	return c.Fail("%v", err), true
}
