//go:build unix

package graders

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// assertGroupKilled checks that the child the script started died with it.
func assertGroupKilled(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the script did not record its child: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err != nil {
			return
		}
		// A killed child may linger as a zombie until reaped by init; check its state.
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(stat), ") Z ") {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	t.Errorf("child %d outlived the timeout", pid)
}
