//go:build unix

package action

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
)

// A full disk stops the run as an I/O failure (exit 1, the results so far kept), not as the
// configuration error (exit 2) of anything else that stops it.
func TestFullDiskIsAnIOFailure(t *testing.T) {
	var out bytes.Buffer
	r := &run{cmd: newCommands(&out, io.Discard, func(string) string { return "" }), outDir: "/out"}
	full := fmt.Errorf("writing results: %w", &os.PathError{Op: "write", Path: "/out/results/x.json", Err: syscall.ENOSPC})
	if code := r.failureCode(full); code != ExitFailed || !strings.Contains(out.String(), "::error title=skillgate%3A I/O failure::no space left on the device holding /out") {
		t.Errorf("full disk: exit %d, log %q", code, out.String())
	}
	if code := r.failureCode(errors.New("writing results: permission denied")); code != ExitUsage {
		t.Errorf("other failure: exit %d", code)
	}
}
