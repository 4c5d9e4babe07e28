package graders

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lookProgram reads a Vally program as a shell does; what it cannot find is said in the words of
// where it looked: huanluu/evalVally's `program: /bin/zsh` on a machine without zsh is a program
// this machine lacks, not a file missing from the workspace.
func TestLookProgram(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "check.sh"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	abs := filepath.Join(t.TempDir(), "no-such-shell")
	cases := []struct {
		name, want, err string
	}{
		{"./check.sh", filepath.Join(ws, "check.sh"), ""},
		{"sub/missing.sh", "", "program sub/missing.sh not found in the workspace"},
		{abs, "", "program " + abs + " is not installed on this machine (no such file)"},
		{"/bin/sh", "/bin/sh", ""},
		{"no-such-program-h4", "", "program no-such-program-h4 is not installed on this machine (not found on PATH)"},
	}
	for _, c := range cases {
		got, err := lookProgram(c.name, ws)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("%s: %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: %q %v, want %q", c.name, got, err, c.want)
		}
	}
	if _, err := lookProgram(abs, ws); !strings.Contains(err.Error(), "is not installed on this machine") {
		t.Errorf("an absolute program this machine lacks: %v", err)
	}
}
