package main

import (
	"fmt"
	"io"

	"github.com/magicfrog/mf-lsp/cmd/internal/shell"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/session"
)

func runWrite(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("write", "mf-lsp write --dimension DIM [--scope ID] --key KEY --expect-revision N [--expect-hash H] [--register] < BODY", `
Write a note: the body (Markdown without frontmatter) is read from stdin. The
write lands only if the disk still holds revision N (0: the note must not exist
yet) and, with --expect-hash, exactly the content whose hash is H (the "hash" of
mf-lsp tree --json). The new note has revision N+1 and updated set to now; other
frontmatter keys are kept. On success the new revision is printed on stdout.

A stale write changes nothing and exits 3; the first line on stderr is exactly
"stale: current revision M" (M is 0 when the note does not exist or has no
readable revision), the second says why.

A note under an agent or task ID that is not registered (magicfrog.json
"agents", the project's "task"/"tasks") would be in no one's view: the write is
refused (exit 2) unless --register adds the ID in the same step. A key whose
only version is a legacy note (machine/, project/) goes on from it: N is the
legacy note's revision, the canonical note gets N+1, and the legacy file is
removed once the canonical one is written (said on stderr).

A body that would not be read back as the note is refused (exit 2, nothing
written) with the rule it breaks: "not a note (too-large|nul-byte|not-utf8|
frontmatter-in-body)"; the last is a body that opens with a frontmatter block
of its own (pass the body only).`, stdout, stderr)
	dim := c.FS.String("dimension", "", "the dimension `DIM`: account, user, agent, task or device (required)")
	scope := c.FS.String("scope", "", "the agent or task `ID` the note belongs to (default: shared by every agent or task)")
	key := c.FS.String("key", "", "the note's `KEY`, its path inside the dimension: notes/style.md (required)")
	expectRev := c.FS.Int("expect-revision", -1, "the revision `N` the writer read; 0: the note must not exist (required)")
	expectHash := c.FS.String("expect-hash", "", "the content hash `H` the writer read (optional)")
	register := registerFlag(c)
	if _, code, done := c.Parse(args, 0, 0); done {
		return code
	}
	switch {
	case *dim == "":
		return c.UsageError("--dimension is required")
	case *key == "":
		return c.UsageError("--key is required")
	case !c.IsSet("expect-revision"):
		return c.UsageError("--expect-revision is required (0 when the note must not exist yet)")
	case *expectRev < 0:
		return c.UsageError("--expect-revision %d: want 0 or more", *expectRev)
	}
	d, err := engine.ParseDimension(*dim)
	if err != nil {
		return c.UsageError("--dimension: %v", err)
	}
	m, err := c.Open(false)
	if err != nil {
		return c.Fail("%v", err)
	}
	path, err := session.NotePath(m, d, *scope, *key)
	if err != nil {
		return c.UsageError("%v", err)
	}
	if err := c.RequireWritable(m, d); err != nil {
		return c.Fail("%v", err)
	}
	body, err := io.ReadAll(stdin)
	if err != nil {
		return c.Fail("reading the body from stdin: %v", err)
	}
	res, err := session.Write(m, engine.WriteRequest{
		Dimension: d, Owner: *scope, Key: *key, Body: body,
		ExpectRevision: *expectRev, ExpectHash: *expectHash, Register: *register,
	})
	if code, ok := unregistered(c, err); ok {
		return code
	}
	if code, ok := shell.NotANote(c, err); ok {
		return code
	}
	if st, ok := engine.IsStale(err); ok {
		fmt.Fprintf(stderr, "stale: current revision %d\n", st.Revision)
		fmt.Fprintf(stderr, "mf-lsp write: %v\n", err)
		return exitStale
	}
	if err != nil {
		return c.Fail("%s: %v", path, err)
	}
	reportWrite(c, res)
	fmt.Fprintln(stdout, res.Revision)
	return exitOK
}
