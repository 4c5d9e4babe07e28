//go:build !unix

package agent

import (
	"os"
	"os/exec"
)

// setProcessGroup is a no-op where process groups are not available.
func setProcessGroup(cmd *exec.Cmd) {}

// processStarted has nothing to record where processes are not tagged.
func processStarted(cmd *exec.Cmd) {}

// killProcessGroup kills the agent process only: without process groups its descendants are not
// reachable from here (known limit on non-unix systems).
func killProcessGroup(p *os.Process) error {
	if p == nil {
		return nil
	}
	err := p.Kill()
	if err == os.ErrProcessDone {
		return nil
	}
	return err
}

// interruptProcessGroup kills the agent: there is no SIGINT to send on non-unix systems.
func interruptProcessGroup(p *os.Process) error { return killProcessGroup(p) }
