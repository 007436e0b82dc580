//go:build unix

package rollup

import (
	"os/exec"
	"syscall"
)

// setProcessGroup runs the command in a process group of its own and makes a
// cancellation kill the whole group: a summarizer script that started a model
// CLI must not leave it running after a timeout.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
