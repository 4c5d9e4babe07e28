//go:build !unix

package agent

import (
	"os/exec"
	"time"
)

func detach(cmd *exec.Cmd) {}

func processGone(pid int) bool { return true }

func killPID(pid int) {}

func processCPU() time.Duration { return 0 }
