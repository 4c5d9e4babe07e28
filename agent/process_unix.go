//go:build unix

package agent

import (
	"errors"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/skillgate/skillgate/internal/reap"
)

// setProcessGroup starts the agent in a process group of its own, so a timeout can kill it
// together with every process it started (shells, language servers, test runners…).
func setProcessGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	reap.SetDeathSignal(cmd.SysProcAttr)
	tags.Store(cmd, reap.Tag(cmd))
}

// tags are the agents' child tags (reap.Tag), so a kill also reaches descendants that called
// setsid and left the group.
var tags sync.Map // *exec.Cmd → string

// killProcessGroup kills the agent's whole process group. The group outlives its leader, so this
// also reaps descendants left behind after the agent itself exited.
func killProcessGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	tags.Range(func(k, v any) bool {
		if k.(*exec.Cmd).Process == p {
			tags.Delete(k)
			reap.KillTagged(v.(string))
			return false
		}
		return true
	})
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// interruptProcessGroup sends SIGINT to the agent's process group, as Ctrl-C in a terminal would.
func interruptProcessGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	err := syscall.Kill(-p.Pid, syscall.SIGINT)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
