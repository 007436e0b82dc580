package main

import (
	"fmt"
	"strings"

	"github.com/magicfrog/mf-lsp/engine"
)

// parseWhere reads DIM or DIM/ID (promote's --from and --to).
func parseWhere(s string) (engine.Dimension, string, error) {
	dim, id, _ := strings.Cut(s, "/")
	d, err := engine.ParseDimension(dim)
	if err != nil {
		return 0, "", err
	}
	if strings.Contains(id, "/") {
		return 0, "", fmt.Errorf("%q: want DIMENSION or DIMENSION/ID", s)
	}
	if id != "" && !d.HasOwners() {
		return 0, "", fmt.Errorf("%q: %s notes have no ID", s, d)
	}
	return d, id, nil
}

// where names a dimension and scope: "agent/larry", "user".
func where(d engine.Dimension, scope string) string {
	if scope != "" {
		return d.String() + "/" + scope
	}
	return d.String()
}

// journalFlags are --dimension and --scope: which journal a command acts on.
type journalFlags struct {
	dimension string
	scope     string
}

func (j *journalFlags) register(c *cli, dimDefault, dimHelp string) {
	j.dimension = dimDefault
	c.FS.StringVar(&j.dimension, "dimension", dimDefault, dimHelp)
	c.FS.StringVar(&j.scope, "scope", "", "the agent or task `ID` prefix of the journal (default: the dimension's shared journal)")
}

// dim parses --dimension; "" is 0 (every dimension).
func (j *journalFlags) dim() (engine.Dimension, error) {
	if j.dimension == "" {
		return 0, nil
	}
	return engine.ParseDimension(j.dimension)
}

// oneDim is --dimension for commands that act on one journal: it must name a
// dimension.
func (j *journalFlags) oneDim() (engine.Dimension, error) {
	d, err := j.dim()
	if err != nil {
		return 0, err
	}
	if d == 0 {
		return 0, fmt.Errorf("want account, user, agent, task or device")
	}
	return d, nil
}
