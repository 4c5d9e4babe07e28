package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

// A full disk while writing outputs is an I/O failure (exit 1) that says what was kept, not a
// configuration error (exit 2). The error is injected here; diskfull_linux_test.go fills a real
// tmpfs when it may mount one.
func TestDiskFullIsAnIOFailure(t *testing.T) {
	out := t.TempDir()
	testtree.Write(t, out, map[string]string{
		"results/a.json":           "{}",
		"results/b.json.journal":   "{}\n",
		"results/.b.json.1234.tmp": "partial",
		"junit.xml":                "<testsuites/>",
		"unrelated/results/c.json": "{}",
	})
	full := fmt.Errorf("writing results: %w", &os.PathError{Op: "write", Path: filepath.Join(out, "results", ".b.json.1.tmp"), Err: errNoSpaceForTest})
	a := newTestApp(nil)
	code, ok := a.diskFullFailure(full, out)
	msg := a.err.String()
	if !ok || code != exitFailed {
		t.Fatalf("code %d, ok %v", code, ok)
	}
	for _, want := range []string{"I/O failure: no space left on the device holding " + out, "kept: " + filepath.Join(out, "results", "a.json") + ", " + filepath.Join(out, "results", "b.json.journal") + " (a journal: `skillgate report",
		filepath.Join(out, "junit.xml")} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, ".b.json.1234.tmp") || strings.Contains(msg, "unrelated") {
		t.Errorf("message lists what was not kept:\n%s", msg)
	}
	for _, err := range []error{nil, errors.New("writing results: permission denied"), os.ErrNotExist} {
		if _, ok := newTestApp(nil).diskFullFailure(err, out); ok {
			t.Errorf("%v taken for a full disk", err)
		}
	}
}
