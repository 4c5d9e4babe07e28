//go:build unix

package runner

import (
	"os/exec"
	"syscall"

	"github.com/skillgate/skillgate/internal/reap"
)

// setProcessGroup makes a hook its own process group so a cancelled hook is killed with every
// process it started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	reap.SetDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
