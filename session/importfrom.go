package session

import (
	"io"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/importers"
)

// Another agent host's memory (CLAUDE.md, AGENTS.md, Cursor rules, OpenClaw
// workspaces; docs/import.md) as notes, in two steps: the plan, which writes
// nothing, then its apply, which writes the plan's new notes at revision 0
// expected.

// HostImportRequest is what `import --from` asks: the host (claude, agents,
// cursor, openclaw), the files or folders named, one note per top-level
// heading (Split), and the owner ID of the notes ("": shared).
type HostImportRequest struct {
	From  string
	Paths []string
	Split bool
	Owner string
}

// BadSourceError: the request names no known host.
type BadSourceError struct{ Err error }

func (e *BadSourceError) Error() string { return e.Err.Error() }
func (e *BadSourceError) Unwrap() error { return e.Err }

// Check refuses a request that names no known host (*BadSourceError), before
// anything is loaded.
func (r HostImportRequest) Check() error {
	_, err := r.source()
	return err
}

func (r HostImportRequest) source() (importers.Source, error) {
	src, err := importers.ParseSource(r.From)
	if err != nil {
		return src, &BadSourceError{Err: err}
	}
	return src, nil
}

// PlanHostImport plans the import r asks for, writing nothing.
func PlanHostImport(m *engine.Memory, r HostImportRequest) (*importers.Plan, error) {
	src, err := r.source()
	if err != nil {
		return nil, err
	}
	return importers.PlanImport(m, importers.Options{From: src, Paths: r.Paths, Split: r.Split, Owner: r.Owner})
}

// HostImportDimensions are the dimensions the plan's new notes go into: the
// memory roots its apply writes in.
func HostImportDimensions(plan *importers.Plan) []engine.Dimension {
	var out []engine.Dimension
	seen := map[engine.Dimension]bool{}
	for _, it := range plan.Items {
		if it.Status == importers.New && !seen[it.Dimension] {
			seen[it.Dimension] = true
			out = append(out, it.Dimension)
		}
	}
	return out
}

// ApplyHostImport writes the plan's new notes; nothing is overwritten. The
// result tallies what was written also when err stopped it.
func ApplyHostImport(m *engine.Memory, plan *importers.Plan) (*importers.Result, error) {
	return importers.Apply(m, plan)
}

// WriteHostImportPlan prints a plan for people: a line per note (status,
// destination, tokens, source), per file left out, and a summary.
func WriteHostImportPlan(w io.Writer, plan *importers.Plan) { importers.WritePlan(w, plan) }

// WriteHostImportResult prints what an apply did: a line per note written
// or kept, per refusal, and a summary.
func WriteHostImportResult(w io.Writer, res *importers.Result) { importers.WriteResult(w, res) }
