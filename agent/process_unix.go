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
// setsid and left the group. A tag is filed under its *exec.Cmd until the process starts, then
// under its *os.Process: a kill looks its own process up and never reads another command's
// Process field, which exec.Cmd.Start writes in other goroutines.
var tags sync.Map // *exec.Cmd, then *os.Process → string

// processStarted files the tag of cmd under its process once cmd.Start has returned (and drops
// it when the process did not start).
func processStarted(cmd *exec.Cmd) {
	if tag, ok := tags.LoadAndDelete(cmd); ok && cmd.Process != nil {
		tags.Store(cmd.Process, tag)
	}
}

// killProcessGroup kills the agent's whole process group. The group outlives its leader, so this
// also reaps descendants left behind after the agent itself exited.
func killProcessGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	err := syscall.Kill(-p.Pid, syscall.SIGKILL)
	if tag, ok := tags.LoadAndDelete(p); ok {
		reap.KillTagged(tag.(string))
	}
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
