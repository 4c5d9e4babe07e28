//go:build !unix

package agent

import "os/exec"

func detach(cmd *exec.Cmd) {}
