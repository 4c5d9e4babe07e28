//go:build !unix

package procgroup

import "os/exec"

// Set does nothing where there are no process groups: cancelling kills the child alone.
func Set(cmd *exec.Cmd) {}
