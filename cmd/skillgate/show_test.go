package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShow prints a mock run of examples/hello at each level; the outputs are golden files
// (go test ./cmd/skillgate -run TestShow -update rewrites them).
func TestShow(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := run(t, nil, "run", "--executor", "mock", "--quiet", "--out", out, "../../examples/hello"); code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	tests := []struct {
		name string
		args []string
		code int
		want string // golden file, or a substring of stderr for refusals
	}{
		{"suite", []string{out}, exitOK, "show-suite.golden"},
		{"task", []string{out, "greet"}, exitOK, "show-task.golden"},
		{"trial by glob", []string{out, "gree*", "2"}, exitOK, "show-trial.golden"},
		{"results file", []string{filepath.Join(out, "results", "hello.json"), "farewell", "1"}, exitOK, "show-farewell.golden"},
		{"unknown task", []string{out, "nope"}, exitUsage, `no task "nope" in hello (its tasks: farewell, greet)`},
		{"unknown trial", []string{out, "greet", "9"}, exitUsage, "task greet has no trial 9 (it has 2)"},
		{"bad trial", []string{out, "greet", "first"}, exitUsage, `TRIAL "first": give the trial number (1 to 2)`},
		{"no results", []string{t.TempDir()}, exitUsage, "no results/<suite>.json below"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(t, nil, append([]string{"show"}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s", code, tt.code, stderr)
			}
			if tt.code != exitOK {
				if !strings.Contains(stderr, tt.want) {
					t.Errorf("stderr %q lacks %q", stderr, tt.want)
				}
				return
			}
			golden := filepath.Join("testdata", "show", tt.want)
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(stdout), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if stdout != string(want) {
				t.Errorf("output differs from %s:\n%s", golden, stdout)
			}
		})
	}
}
