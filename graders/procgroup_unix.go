//go:build unix

package graders

import (
	"os/exec"
	"syscall"

	"github.com/skillgate/skillgate/internal/reap"
)

// setProcessGroup runs a grader program in a process group of its own, so a timeout kills it
// together with everything it started (a shell script's children, a test runner's workers).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	reap.SetDeathSignal(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// isExecutable reports whether a file mode allows executing it.
func isExecutableMode(mode uint32) bool { return mode&0o111 != 0 }
