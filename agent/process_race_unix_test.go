//go:build unix

package agent

import (
	"context"
	"io"
	"sync"
	"testing"
)

// Agents started at the same time: one agent's kill must not read another's exec.Cmd while
// Start writes it (a data race `go test -race` reported in killProcessGroup), and every tag is
// forgotten once its process is reaped.
func TestConcurrentAgentsKillOnlyTheirOwnGroup(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				out, err := runCommand(context.Background(), command{Path: "/bin/sh", Args: []string{"-c", "exit 0"}, Dir: t.TempDir()}, 0,
					func(r io.Reader) error { _, err := io.Copy(io.Discard, r); return err })
				if err != nil || out.ExitCode != 0 {
					t.Errorf("run: %+v, %v", out, err)
				}
			}
		}()
	}
	wg.Wait()
	tags.Range(func(k, _ any) bool {
		t.Errorf("tag left behind for %T", k)
		return true
	})
}
