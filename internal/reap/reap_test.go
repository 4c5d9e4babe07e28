package reap

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

func TestOwnerOf(t *testing.T) {
	for name, want := range map[string]string{
		"skillgate-123.456-abc": "123.456", "skillgate-99-x": "99", "skillgate-trigger-1": "", "other-1-x": "", "skillgate-123": "",
	} {
		got, ok := ownerOf(name)
		if got != want || ok != (want != "") {
			t.Errorf("ownerOf(%q) = %q %v, want %q", name, got, ok, want)
		}
	}
}

// Sweep removes the workspaces of dead owners only.
func TestSweepWorkspaces(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	tmp := t.TempDir()
	gone := filepath.Join(tmp, "skillgate-"+strconv.Itoa(dead.Process.Pid)+"-x1")
	mine := filepath.Join(tmp, WorkspacePrefix()+"x2")
	other := filepath.Join(tmp, "skillgate-notanowner")
	for _, d := range []string{gone, mine, other} {
		os.Mkdir(d, 0o755)
	}
	var log bytes.Buffer
	Sweep(tmp, &log)
	if _, err := os.Stat(gone); err == nil && !alive(strconv.Itoa(dead.Process.Pid)) {
		t.Errorf("the dead owner's workspace is still there")
	}
	for _, d := range []string{mine, other} {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed", d)
		}
	}
}
