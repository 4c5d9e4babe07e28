//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A run whose --out lies on a tiny tmpfs: the results file does not fit, the journal does. The
// run exits 1 with the I/O failure and the journal kept, and `skillgate report` recovers it.
// Mounting needs privileges; without them the test skips (TestDiskFullIsAnIOFailure injects).
func TestDiskFullOnATinyTmpfs(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=8k"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	out := filepath.Join(dir, "out")
	code, stdout, stderr := run(t, nil, "run", hello, "--out", out, "--quiet")
	if code != exitFailed || !strings.Contains(stderr, "I/O failure: no space left on the device holding "+out) {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	journal := filepath.Join(out, "results", "hello.json.journal")
	if !strings.Contains(stderr, "kept: "+journal) {
		t.Errorf("the journal is not said to be kept:\n%s", stderr)
	}
	elsewhere := t.TempDir()
	if code, _, stderr := run(t, nil, "report", journal, "--out", elsewhere); code == exitUsage || !strings.Contains(stderr, "recovered 2 finished task(s)") {
		t.Errorf("report of the kept journal: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "report.html")); err != nil {
		t.Error(err)
	}
}
