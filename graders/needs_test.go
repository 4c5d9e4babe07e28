package graders

import (
	"os/exec"
	"testing"
)

// needs skips a test when a program it runs is not installed.
func needs(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
}
