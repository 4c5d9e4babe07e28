//go:build unix

package agent

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// An agent that prints without end is stopped at the output limit: the run errors with "output
// over the limit" instead of holding gigabytes.
func TestAgentOutputLimit(t *testing.T) {
	old := MaxOutputBytes
	MaxOutputBytes = 1 << 20
	defer func() { MaxOutputBytes = old }()
	var read int64
	out, err := runCommand(context.Background(), command{Path: "/bin/sh", Args: []string{"-c", "yes 'a line of agent output'"}}, time.Minute,
		func(r io.Reader) error {
			n, err := io.Copy(io.Discard, r)
			read = n
			return err
		})
	if err != nil {
		t.Fatal(err)
	}
	if out.TimedOut || out.ReadErr == nil || !strings.Contains(out.ReadErr.Error(), "output is over the limit of 1 MiB") {
		t.Fatalf("outcome %+v", out)
	}
	if read != MaxOutputBytes {
		t.Errorf("read %d bytes, want the limit %d", read, MaxOutputBytes)
	}
	if got := strings.Join(out.failure(time.Minute), "; "); !strings.Contains(got, "over the limit") {
		t.Errorf("failure: %s", got)
	}
}
