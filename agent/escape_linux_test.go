//go:build linux

package agent

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/internal/proctest"
)

// A descendant that calls setsid leaves the agent's process group, so killing the group misses
// it; it still carries the agent's tag and is stopped with the agent.
func TestSetsidDescendantIsStopped(t *testing.T) {
	t.Parallel() // waits out the timeout
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid")
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := "setsid sh -c 'echo $$ > " + pidFile + "; exec sleep 60' </dev/null >/dev/null 2>&1 & sleep 60"
	out, err := runCommand(context.Background(), command{Path: "/bin/sh", Args: []string{"-c", script}}, 500*time.Millisecond,
		func(r io.Reader) error { _, err := io.Copy(io.Discard, r); return err })
	if err != nil {
		t.Fatal(err)
	}
	if !out.TimedOut {
		t.Fatalf("outcome %+v", out)
	}
	var pid int
	for i := 0; i < 100 && pid == 0; i++ {
		if data, err := os.ReadFile(pidFile); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatal("the escapee never started")
	}
	if !proctest.WaitGone(pid, 2*time.Second) {
		t.Errorf("the setsid descendant (pid %d) outlived the agent", pid)
	}
}
