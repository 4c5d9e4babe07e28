//go:build unix

package proctest

import (
	"os/exec"
	"testing"
	"time"
)

func TestWaitGone(t *testing.T) {
	sleeper := exec.Command("sleep", "60")
	if err := sleeper.Start(); err != nil {
		t.Skip("no sleep:", err)
	}
	pid := sleeper.Process.Pid
	if Gone(pid) {
		t.Fatal("a running process counts as gone")
	}
	if WaitGone(pid, 100*time.Millisecond) {
		t.Fatal("WaitGone reported a running process gone")
	}
	// WaitGone killed it; unreaped it is a zombie, which counts as gone.
	if !WaitGone(pid, 5*time.Second) {
		t.Fatal("the killed process is not gone")
	}
	sleeper.Wait()
	if !Gone(pid) {
		t.Fatal("a reaped process is not gone")
	}
}
