package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

// Issue 15's acceptance: an assertion that would allocate without bound fails alone; the run
// exits 1 with every other task graded and every report written.
func TestMemoryHungryAssertionFailsAlone(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := run(t, nil, "run", "testdata/memory", "--out", out)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFailed, stdout, stderr)
	}
	res := readResults(t, results.PathIn(out, "memory"))
	passed := map[string]bool{}
	for _, task := range res.Tasks {
		passed[task.ID] = task.Status == results.StatusPassed
		if task.ID != "greedy" {
			continue
		}
		for _, run := range task.Runs {
			fb := run.Validations.Get("greedy").Feedback
			if !strings.Contains(fb, "over its memory budget of 256 MiB") {
				t.Errorf("greedy feedback: %q", fb)
			}
		}
	}
	if len(passed) != 3 || passed["greedy"] || !passed["healthy-one"] || !passed["healthy-two"] {
		t.Errorf("tasks passed: %v", passed)
	}
	for _, f := range []string{"junit.xml", "results.sarif", "comment.md", "summary.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("report %s: %v", f, err)
		}
	}
}
