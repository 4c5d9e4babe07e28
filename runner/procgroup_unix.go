//go:build unix

package runner

import (
	"os/exec"
	"syscall"
)

// setProcessGroup makes a hook its own process group so a cancelled hook is killed with every
// process it started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
