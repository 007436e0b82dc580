package engine

import "fmt"

// Dimension is one of the five places a note can live (SPEC §1).
type Dimension uint8

const (
	Account Dimension = iota + 1
	User
	Agent
	Task
	Device
)

// Chain lists the dimensions that override each other, least specific first
// (SPEC §3). Device sits outside the chain.
var Chain = []Dimension{Account, User, Agent, Task}

// Ref is the portable path of the note at key under dimension d and owner
// ("" for the shared notes): "agent/larry/notes/style.md", "user/prefs.md".
// The <memory> block, the mf:// resources, import plans and the command line
// name notes this way; Note.Ref is the same for a loaded note.
func Ref(d Dimension, owner, key string) string { return joinRef(d.String(), owner, key) }

// joinRef joins a top folder, an owner (when there is one) and a key.
func joinRef(top, owner, key string) string {
	if owner != "" {
		return top + "/" + owner + "/" + key
	}
	return top + "/" + key
}

// RenderOrder is the order of the <memory> block: most specific first (SPEC §5).
var RenderOrder = []Dimension{Task, Agent, User, Account, Device}

func (d Dimension) String() string {
	switch d {
	case Account:
		return "account"
	case User:
		return "user"
	case Agent:
		return "agent"
	case Task:
		return "task"
	case Device:
		return "device"
	}
	return fmt.Sprintf("Dimension(%d)", uint8(d))
}

// Specificity ranks chain dimensions: account 1 … task 4. Device is 0: it never
// competes in the chain.
func (d Dimension) Specificity() int {
	switch d {
	case Account:
		return 1
	case User:
		return 2
	case Agent:
		return 3
	case Task:
		return 4
	}
	return 0
}

// InChain reports whether d takes part in the override chain.
func (d Dimension) InChain() bool { return d.Specificity() > 0 }

// HasOwners reports whether notes of d may carry an ID prefix (agent and task).
func (d Dimension) HasOwners() bool { return d == Agent || d == Task }

// ParseDimension reads a dimension name. The legacy names "machine" and
// "project" read as device and task, as the legacy trees do.
func ParseDimension(s string) (Dimension, error) {
	switch s {
	case "account":
		return Account, nil
	case "user":
		return User, nil
	case "agent":
		return Agent, nil
	case "task", "project":
		return Task, nil
	case "device", "machine":
		return Device, nil
	}
	return 0, fmt.Errorf("unknown dimension %q (want account, user, agent, task or device)", s)
}
