package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/magicfrog/mf-lsp/cmd/internal/shell"
	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/session"
)

func runTree(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("tree", "mf-lsp tree [--json] [--task ID] [--agent ID]... [--machine ID]", `
Print the effective view of a scope: every key, the note that wins it
(dimension, scope ID, revision, layer, path) and the notes it shadows, then this
machine's device notes, each its own row. The scope defaults to the project
binding and this machine, as for render. --json prints the same as one JSON
object (see docs/cli.md for its fields). Files that cannot be read are listed on
stderr as warnings (and in the JSON's "problems").`, stdout, stderr)
	var sf shell.ScopeFlags
	sf.Register(c)
	asJSON := c.FS.Bool("json", false, "print JSON instead of aligned text")
	if _, code, done := c.Parse(args, 0, 0); done {
		return code
	}
	c.FrontmatterOnly = true // every row is the frontmatter's and the hash
	m, err := c.Open(true)
	if err != nil {
		return c.Fail("%v", err)
	}
	v := session.Effective(m, sf.Scope(c, m))
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(treeJSON(m, v)); err != nil {
			return c.Fail("%v", err)
		}
		return exitOK
	}
	// One write for the listing, not one per line (a write each cost 10,000
	// syscalls at 10,000 notes).
	out := bufio.NewWriter(stdout)
	printTree(out, m, v)
	out.Flush() // a failed write was never an error here (Fprintf's were not checked)
	return exitOK
}

// jsonTree is `mf-lsp tree --json`. Its fields are a documented contract
// (docs/cli.md): add fields, never rename or remove them.
type jsonTree struct {
	DataDir    string      `json:"dataDir"`
	ProjectDir string      `json:"projectDir"`
	Scope      jsonScope   `json:"scope"`
	Keys       []jsonKey   `json:"keys"`
	Device     []jsonEntry `json:"device"`
	// Unregistered lists the notes under unregistered folders: in no block.
	Unregistered []jsonEntry   `json:"unregistered"`
	Problems     []jsonProblem `json:"problems"`
}

type jsonScope struct {
	Task    string   `json:"task"`
	Agents  []string `json:"agents"`
	Machine string   `json:"machine"`
}

type jsonKey struct {
	Key      string      `json:"key"`
	Winner   jsonEntry   `json:"winner"`
	Shadowed []jsonEntry `json:"shadowed"`
}

type jsonEntry struct {
	Ref       string `json:"ref"`
	Dimension string `json:"dimension"`
	Scope     string `json:"scope"`
	Key       string `json:"key"`
	Layer     string `json:"layer"`
	Revision  int    `json:"revision"`
	Updated   string `json:"updated"`
	Machine   string `json:"machine"`
	Legacy    bool   `json:"legacy"`
	Path      string `json:"path"`
	Hash      string `json:"hash"`
}

type jsonProblem struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

func toJSONEntry(e *engine.Note) jsonEntry {
	return jsonEntry{
		Ref: e.Ref(), Dimension: e.Dimension.String(), Scope: e.Owner, Key: e.Key, Layer: e.Layer.Name,
		Revision: e.Revision(), Updated: e.Updated(), Machine: e.Machine(), Legacy: e.Legacy,
		Path: e.Path, Hash: e.Hash(),
	}
}

func treeJSON(m *engine.Memory, v *engine.View) jsonTree {
	t := jsonTree{
		DataDir: m.Paths.DataDir, ProjectDir: m.Paths.ProjectDir,
		Scope: jsonScope{Task: v.Scope.Task, Agents: append([]string{}, v.Scope.Agents...), Machine: v.Scope.Machine},
		Keys:  []jsonKey{}, Device: []jsonEntry{}, Unregistered: []jsonEntry{}, Problems: []jsonProblem{},
	}
	for _, kv := range v.Keys {
		k := jsonKey{Key: kv.Key, Winner: toJSONEntry(kv.Winner), Shadowed: []jsonEntry{}}
		for _, e := range kv.Shadowed {
			k.Shadowed = append(k.Shadowed, toJSONEntry(e))
		}
		t.Keys = append(t.Keys, k)
	}
	for _, e := range v.Device {
		t.Device = append(t.Device, toJSONEntry(e))
	}
	for _, e := range v.Unregistered {
		t.Unregistered = append(t.Unregistered, toJSONEntry(e))
	}
	for _, p := range m.Problems() {
		t.Problems = append(t.Problems, jsonProblem{Path: p.Path, Message: p.Message})
	}
	return t
}

// printTree prints the view as aligned columns: one row per key with its
// winner, an indented "shadows" row per note it shadows, then the device rows.
func printTree(w io.Writer, m *engine.Memory, v *engine.View) {
	s := v.Scope
	fmt.Fprintf(w, "data     %s\nproject  %s\nscope    task=%s agents=%s machine=%s\n\n",
		m.Paths.DataDir, m.Paths.ProjectDir, orNone(s.Task), orNone(joinComma(s.Agents)), orNone(s.Machine))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tFROM\tREV\tLAYER\tPATH")
	for _, kv := range v.Keys {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", kv.Key, from(kv.Winner), strconv.Itoa(kv.Winner.Revision()), kv.Winner.Layer.Name, kv.Winner.Path)
		for _, e := range kv.Shadowed {
			fmt.Fprintf(tw, "  shadows\t%s\t%s\t\t%s\n", from(e), strconv.Itoa(e.Revision()), e.Path)
		}
	}
	if len(v.Keys) == 0 {
		fmt.Fprintln(tw, "(no notes)\t\t\t\t")
	}
	tw.Flush()
	fmt.Fprintf(w, "\nDEVICE (machine %s)\n", orNone(s.Machine))
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tFROM\tREV\tLAYER\tPATH")
	for _, e := range v.Device {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Key, from(e), strconv.Itoa(e.Revision()), e.Layer.Name, e.Path)
	}
	if len(v.Device) == 0 {
		fmt.Fprintln(tw, "(no notes)\t\t\t\t")
	}
	tw.Flush()
	if len(v.Unregistered) > 0 {
		fmt.Fprintf(w, "\nUNREGISTERED (no registered ID: in no block; register the folder or keep it shared)\n")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "KEY\tFROM\tREV\tLAYER\tPATH")
		for _, e := range v.Unregistered {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Key, from(e), strconv.Itoa(e.Revision()), e.Layer.Name, e.Path)
		}
		tw.Flush()
	}
}

// from is where a note comes from: "agent/larry", "task", "device (legacy)".
func from(e *engine.Note) string {
	s := where(e.Dimension, e.Owner)
	if e.Legacy {
		s += " (legacy)"
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func joinComma(xs []string) string {
	var s shell.StringList = xs
	return s.String()
}
