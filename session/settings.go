package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/magicfrog/mf-lsp/engine"
	"github.com/magicfrog/mf-lsp/engine/participant"
)

// Settings are the client's settings as plain values (the language server reads
// them from initializationOptions). Empty fields mean "not set": the engine
// resolves the defaults (SPEC §1), because only it knows the data directory and
// the project's config.
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

// DefaultSettings are the settings a client that names none gets.
func DefaultSettings() Settings { return Settings{AutoRevision: true} }

// Clone is a copy that shares no slice with s.
func (s Settings) Clone() Settings {
	s.Agents = slices.Clone(s.Agents)
	return s
}

// Named is the scope the settings name, given to engine.Open: agents and a
// task named there are IDs even when no configuration registers them.
func (s Settings) Named() engine.Scope {
	agents := append([]string(nil), s.Agents...)
	if s.Participant != "" {
		agents = append(agents, s.Participant)
	}
	return engine.Scope{Task: s.Task, Agents: agents}
}

// Scope is the session scope over m: the settings, else the project binding.
func (s Settings) Scope(m *engine.Memory) engine.Scope {
	sc := m.DefaultScope()
	if s.Task != "" {
		sc.Task = s.Task
	}
	if len(s.Agents) > 0 {
		sc.Agents = slices.Clone(s.Agents)
	}
	if s.Machine != "" {
		sc.Machine = s.Machine
	}
	return sc
}

// Given is what the settings say about the scope, for participant.Resolve
// (the one place that decides who the editor answers for): a task or machine
// set replaces the binding's, agents set replace the binding's agents, and
// participant is the one agent chosen.
func (s Settings) Given() participant.Given {
	g := participant.Given{Task: s.Task, TaskSet: s.Task != "", Machine: s.Machine, MachineSet: s.Machine != ""}
	if len(s.Agents) > 0 {
		g.Agents, g.AgentsSet, g.AgentsFrom = slices.Clone(s.Agents), true, `the setting "agents"`
	}
	if s.Participant != "" {
		g.Agent, g.AgentSet = s.Participant, true
	}
	return g
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

// ParseSettings reads the settings a client sends as a JSON object (the
// language server's initializationOptions). It never fails as a whole: an editor must
// not refuse to start over a typo. Each invalid or unknown key is reported in problems
// and keeps its default; the front end shows them to the user.
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
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic problem order
	var problems []error
	for _, key := range keys {
		v := bytes.TrimSpace(fields[key])
		if string(v) == "null" {
			continue // null means "default", as if absent
		}
		opt, known := settingKeys[key]
		if !known {
			problems = append(problems, &SettingError{Key: key, Problem: "is not a known option (known: agents, autoRevision, budget, dataDir, earlier, machine, openLoopDays, summarizer, task, today)"})
			continue
		}
		if err := opt(&s, v); err != nil {
			var se *SettingError
			if errors.As(err, &se) {
				se.Key = key + se.Key // an element of the value: agents[2]
			} else {
				se = &SettingError{Key: key, Problem: err.Error()}
			}
			problems = append(problems, se)
		}
	}
	return s, problems
}

// settingKeys is the table of initializationOptions: each key's parser checks
// the JSON value and sets its field, or says what is wrong with it (the field
// then keeps its default).
var settingKeys = map[string]func(s *Settings, v json.RawMessage) error{
	"dataDir": stringSetting("must be a string", func(s *Settings, str string) error {
		dir, err := cleanDir(str)
		s.DataDir = dir
		return err
	}),
	"task":        idSetting(func(s *Settings, id string) { s.Task = id }),
	"participant": idSetting(func(s *Settings, id string) { s.Participant = id }),
	"machine":     idSetting(func(s *Settings, id string) { s.Machine = id }),
	"agents":      parseAgents,
	"budget": intSetting(0, 1<<31-1, "must be a non-negative whole number of tokens, got %s",
		func(s *Settings, n int) { s.Budget = n }),
	"autoRevision": func(s *Settings, v json.RawMessage) error {
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return fmt.Errorf("must be true or false, got %s", truncate(string(v), 40))
		}
		s.AutoRevision = b
		return nil
	},
	"summarizer": stringSetting("must be a command line string", func(s *Settings, str string) error {
		s.Summarizer = strings.TrimSpace(str)
		return nil
	}),
	"today": stringSetting("must be a YYYY-MM-DD string", func(s *Settings, str string) error {
		if _, err := time.Parse(time.DateOnly, str); err != nil {
			return fmt.Errorf("must be a date as YYYY-MM-DD, got %q", str)
		}
		s.Today = str
		return nil
	}),
	"earlier": intSetting(0, 3650, "must be a whole number of days from 0 to 3650, got %s",
		func(s *Settings, n int) { s.Earlier = n }),
	"openLoopDays": intSetting(1, 3650, "must be a whole number of days from 1 to 3650, got %s",
		func(s *Settings, n int) { s.OpenLoopDays = n }),
}

// stringSetting parses a JSON string and hands it to set; notString says what
// the key must be when the value is not a string.
func stringSetting(notString string, set func(s *Settings, str string) error) func(*Settings, json.RawMessage) error {
	return func(s *Settings, v json.RawMessage) error {
		str, ok := jsonString(v)
		if !ok {
			return fmt.Errorf("%s, got %s", notString, truncate(string(v), 40))
		}
		next := *s
		if err := set(&next, str); err != nil {
			return err
		}
		*s = next
		return nil
	}
}

// idSetting parses a task, agent or machine ID (checkID).
func idSetting(set func(s *Settings, id string)) func(*Settings, json.RawMessage) error {
	return stringSetting("must be a string", func(s *Settings, id string) error {
		if err := checkID(id); err != nil {
			return err
		}
		set(s, id)
		return nil
	})
}

// intSetting parses a whole number from lo to hi.
func intSetting(lo, hi int64, problem string, set func(s *Settings, n int)) func(*Settings, json.RawMessage) error {
	return func(s *Settings, v json.RawMessage) error {
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil || n < lo || n > hi {
			return fmt.Errorf(problem, truncate(string(v), 40))
		}
		set(s, int(n))
		return nil
	}
}

// parseAgents parses the agents list: IDs, deduplicated, in the client's order.
// The first bad element is reported as agents[i]; the list then keeps its default.
func parseAgents(s *Settings, v json.RawMessage) error {
	var list []json.RawMessage
	if json.Unmarshal(v, &list) != nil {
		return fmt.Errorf("must be an array of agent ids, got %s", truncate(string(v), 40))
	}
	var agents []string
	for i, item := range list {
		str, isStr := jsonString(item)
		if !isStr {
			return &SettingError{Key: fmt.Sprintf("[%d]", i), Problem: "must be a string, got " + truncate(string(item), 40)}
		}
		if err := checkID(str); err != nil {
			return &SettingError{Key: fmt.Sprintf("[%d]", i), Problem: err.Error()}
		}
		if !slices.Contains(agents, str) {
			agents = append(agents, str)
		}
	}
	s.Agents = agents
	return nil
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

// truncate shortens s to at most n bytes for a message, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
