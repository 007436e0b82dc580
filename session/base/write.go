package base

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/managed"
)

// Written is where a rendered block went (magicfrog.renderInto, render
// --into): the file, what happened to its managed section, and the block.
// Its fields are in the order of their JSON names, the order clients have
// always received. URI is the language server's (session.RenderInto sets
// it): a file URI is the protocol's, and net/url's netip started a
// goroutine at every hook call's start.
type Written struct {
	Generation string          `json:"generation"`
	Outcome    managed.Outcome `json:"outcome"`
	Path       string          `json:"path"`
	Tokens     int             `json:"tokens"`
	URI        string          `json:"uri"`
}

// WriteBlockInto puts b into the managed section of file (created when
// missing; every byte outside the markers kept), under the memory's lock. A
// file CheckHostFile refuses is a *HostFileError, and nothing is written.
func WriteBlockInto(m *engine.Memory, file string, b *engine.Block) (Written, error) {
	if err := CheckHostFile(m.Paths, file, ""); err != nil {
		return Written{}, err
	}
	outcome, err := managed.WriteInto(m.Paths.MemoryDir(), file, inHostComment(b)+b.Text)
	if err != nil {
		return Written{}, err
	}
	return Written{Path: file, Outcome: outcome, Generation: b.Generation, Tokens: b.CountTokens()}, nil
}

// inHostComment is the section's comment line naming the notes left out of
// b because they were imported from the file it goes into (RenderOptions.Into),
// "" when none were.
func inHostComment(b *engine.Block) string {
	var refs []string
	for _, o := range b.Omitted {
		if o.Reason == engine.ReasonInHostFile {
			refs = append(refs, o.Note.Ref())
		}
	}
	if len(refs) == 0 {
		return ""
	}
	sort.Strings(refs)
	noun := "notes"
	if len(refs) == 1 {
		noun = "note"
	}
	return fmt.Sprintf("<!-- mf-lsp: left out %d %s imported from this file: %s -->\n", len(refs), noun, strings.Join(refs, ", "))
}

// IntoFile is the path RenderOptions.Into names for a block written into
// file: absolute, links resolved, as the importers record provenance.
func IntoFile(file string) string {
	abs, err := filepath.Abs(file)
	if err != nil {
		return file
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	// A file yet to be created: its folder's links resolved.
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs))
	}
	return abs
}
