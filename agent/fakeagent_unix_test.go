//go:build unix

package agent

import (
	"os/exec"
	"syscall"
)

// detach starts a command in a process group of its own, out of reach of the agent's group.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
