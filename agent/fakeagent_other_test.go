//go:build !unix

package agent

import (
	"os/exec"
)

func detach(cmd *exec.Cmd) {}

func processGone(pid int) bool { return true }

func killPID(pid int) {}
