//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"

	"github.com/skillgate/skillgate/internal/reap"
)

// Set makes cmd the leader of a new process group that dies with skillgate, and makes cancelling
// cmd kill the whole group.
func Set(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	reap.SetDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
