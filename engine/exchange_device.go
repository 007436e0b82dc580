package engine

import (
	"fmt"
	"strings"

	"github.com/magicfrog/mf-lsp/engine/frontmatter"
)

// OtherMachinesDir is the folder of the device root that holds other
// machines' device notes, one folder per machine ID: an import puts a note
// bound to another machine at device/machines/<its ID>/<key>, beside this
// machine's own notes, never in their place (SPEC §8). Those notes stay bound
// to their machine, so they are in no block of this one.
const OtherMachinesDir = "machines"

// deviceImportRel is where a device note of a portable tree lands inside
// the device root: at its key when it is this machine's (or unbound), else
// under OtherMachinesDir/<its machine>/. A tree exported with every
// machine's notes has those already there; the folder is not doubled, and a
// machine's own notes come back to the root. reason is why the note is
// refused: a binding that cannot be a folder name.
func (m *Memory) deviceImportRel(inner string, src []byte) (rel, reason string) {
	bound, _ := frontmatter.Parse(src).String("machine")
	if bound == "" {
		return inner, ""
	}
	inner = strings.TrimPrefix(inner, OtherMachinesDir+"/"+bound+"/")
	if bound == m.MachineID() {
		return inner, ""
	}
	if !machineFolderOK(bound) {
		return "", fmt.Sprintf("bound to machine %q, which cannot be a folder name: refused", bound)
	}
	return OtherMachinesDir + "/" + bound + "/" + inner, ""
}

// exportPath is where e goes in a portable tree: a device note bound to
// another machine that is not in that machine's folder yet goes there, so
// it never takes the path of this machine's note with the same key.
func exportPath(e *Note, thisMachine string) string {
	rel := portablePath(e)
	if e.Dimension != Device {
		return rel
	}
	bound := e.Machine()
	if bound == "" || bound == thisMachine || strings.HasPrefix(e.Key, OtherMachinesDir+"/"+bound+"/") || !machineFolderOK(bound) {
		return rel
	}
	return joinRef(exportDir(Device), e.Owner, OtherMachinesDir+"/"+bound+"/"+e.Key)
}

// machineFolderOK reports whether a machine ID can be a folder name.
func machineFolderOK(id string) bool {
	return CheckImportPath(id) == nil && !strings.Contains(id, "/")
}
