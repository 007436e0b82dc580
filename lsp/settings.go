package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/magicfrog/mf-lsp/engine"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Settings are the client's initializationOptions (docs/protocol.md), validated.
// Empty fields mean "not set": the engine resolves the defaults (SPEC §1), because
// only it knows the data directory and the project's config.
type Settings struct {
	DataDir      string   // absolute, "~" expanded
	Task         string   // task id
	Agents       []string // agent ids, deduplicated, in the client's order
	Participant  string   // the one agent hover, code lens, render and the effective view answer for
	Machine      string   // machine id
	Budget       int      // token budget for magicfrog.render; 0: no limit
	AutoRevision bool     // bump revision/updated on save; default true
	Summarizer   string   // rollup summarizer command line
	Today        string   // YYYY-MM-DD; "" means the local date
	OpenLoopDays int      // age at which a blocker or next step is an open loop; 0: the default (7)
	Earlier      int      // refined days before yesterday that magicfrog.render adds to a journal's boot set

	// ProjectDir is not an option: it is the first workspace folder, else rootUri.
	ProjectDir string
}

// DefaultSettings are the settings with no initializationOptions.
func DefaultSettings() Settings { return Settings{AutoRevision: true} }

func (s Settings) clone() Settings {
	s.Agents = slices.Clone(s.Agents)
	return s
}

// SettingError is one invalid initializationOptions entry; its key keeps its default.
type SettingError struct {
	Key     string
	Problem string
}

func (e *SettingError) Error() string {
	if e.Key == "" {
		return "initializationOptions " + e.Problem
	}
	return fmt.Sprintf("initializationOptions.%s %s", e.Key, e.Problem)
}

// ParseSettings reads initializationOptions. It never fails as a whole: an editor must
// not refuse to start over a typo. Each invalid or unknown key is reported in problems
// and keeps its default; the server shows them to the user after initialized.
func ParseSettings(raw json.RawMessage) (Settings, []error) {
	s := DefaultSettings()
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return s, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return s, []error{&SettingError{Problem: "must be a JSON object, got " + truncate(string(raw), 40)}}
	}
	var problems []error
	bad := func(key, format string, args ...any) {
		problems = append(problems, &SettingError{Key: key, Problem: fmt.Sprintf(format, args...)})
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic problem order
	for _, key := range keys {
		v := bytes.TrimSpace(fields[key])
		if string(v) == "null" {
			continue // null means "default", as if absent
		}
		switch key {
		case "dataDir":
			str, ok := jsonString(v)
			if !ok {
				bad(key, "must be a string, got %s", truncate(string(v), 40))
				continue
			}
			dir, err := cleanDir(str)
			if err != nil {
				bad(key, "%v", err)
				continue
			}
			s.DataDir = dir
		case "task", "machine", "participant":
			str, ok := jsonString(v)
			if !ok {
				bad(key, "must be a string, got %s", truncate(string(v), 40))
				continue
			}
			if err := checkID(str); err != nil {
				bad(key, "%v", err)
				continue
			}
			switch key {
			case "task":
				s.Task = str
			case "participant":
				s.Participant = str
			default:
				s.Machine = str
			}
		case "agents":
			var list []json.RawMessage
			if json.Unmarshal(v, &list) != nil {
				bad(key, "must be an array of agent ids, got %s", truncate(string(v), 40))
				continue
			}
			var agents []string
			ok := true
			for i, item := range list {
				str, isStr := jsonString(item)
				if !isStr {
					bad(fmt.Sprintf("%s[%d]", key, i), "must be a string, got %s", truncate(string(item), 40))
					ok = false
					break
				}
				if err := checkID(str); err != nil {
					bad(fmt.Sprintf("%s[%d]", key, i), "%v", err)
					ok = false
					break
				}
				if !slices.Contains(agents, str) {
					agents = append(agents, str)
				}
			}
			if ok {
				s.Agents = agents
			}
		case "budget":
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil || n < 0 || n > 1<<31-1 {
				bad(key, "must be a non-negative whole number of tokens, got %s", truncate(string(v), 40))
				continue
			}
			s.Budget = int(n)
		case "autoRevision":
			var b bool
			if json.Unmarshal(v, &b) != nil {
				bad(key, "must be true or false, got %s", truncate(string(v), 40))
				continue
			}
			s.AutoRevision = b
		case "summarizer":
			str, ok := jsonString(v)
			if !ok {
				bad(key, "must be a command line string, got %s", truncate(string(v), 40))
				continue
			}
			s.Summarizer = strings.TrimSpace(str)
		case "today":
			str, ok := jsonString(v)
			if !ok {
				bad(key, "must be a YYYY-MM-DD string, got %s", truncate(string(v), 40))
				continue
			}
			if _, err := time.Parse(time.DateOnly, str); err != nil {
				bad(key, "must be a date as YYYY-MM-DD, got %q", str)
				continue
			}
			s.Today = str
		case "earlier":
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil || n < 0 || n > 3650 {
				bad(key, "must be a whole number of days from 0 to 3650, got %s", truncate(string(v), 40))
				continue
			}
			s.Earlier = int(n)
		case "openLoopDays":
			n, err := strconv.ParseInt(string(v), 10, 64)
			if err != nil || n < 1 || n > 3650 {
				bad(key, "must be a whole number of days from 1 to 3650, got %s", truncate(string(v), 40))
				continue
			}
			s.OpenLoopDays = int(n)
		default:
			bad(key, "is not a known option (known: agents, autoRevision, budget, dataDir, earlier, machine, openLoopDays, summarizer, task, today)")
		}
	}
	return s, problems
}

func jsonString(v json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// checkID accepts a task, agent or machine id: it becomes a folder name, so it must be
// one non-empty path element that the engine would write under
// (engine.CheckScopeID: no hidden name, no ":", no control character). A
// setting with spaces at either end is refused too: it is almost always a typo.
func checkID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("must not be empty")
	case id == "." || id == "..", strings.ContainsAny(id, `/\`):
		return fmt.Errorf("must be a plain name, not a path: %q", id)
	case strings.TrimSpace(id) != id:
		return fmt.Errorf("must not start or end with spaces: %q", id)
	}
	if err := engine.CheckOwnerID(id); err != nil {
		return fmt.Errorf("is not a usable ID: %v", err)
	}
	return nil
}

// cleanDir expands a leading "~" and requires an absolute path: a relative one would
// depend on the editor's working directory.
func cleanDir(dir string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("must not be empty")
	}
	if dir == "~" || strings.HasPrefix(dir, "~/") || strings.HasPrefix(dir, `~\`) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("cannot expand ~: %v", err)
		}
		dir = filepath.Join(home, dir[1:])
	}
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("must be an absolute path, got %q", dir)
	}
	return filepath.Clean(dir), nil
}
