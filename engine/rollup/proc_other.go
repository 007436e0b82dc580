//go:build !unix

package rollup

import "os/exec"

// setProcessGroup does nothing where there are no process groups: a
// cancellation kills the command itself (exec.CommandContext).
func setProcessGroup(cmd *exec.Cmd) {}
