package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `--suite NAME` with a filter that nests its tags under `tags:` selects nothing; the run says
// why before it stops, at the filter's file:line:col with the flat form as the fix (the files
// are written for the test; the shape is a public .vally.yaml's, docs/vally.md).
func TestVallySuiteNestedFilter(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		".vally.yaml":       "paths:\n  evals: [evals/]\nsuites:\n  smoke:\n    filter:\n      tags:\n        tier: [smoke]\n  flat:\n    filter:\n      tier: smoke\n",
		"evals/x/eval.yaml": "name: x\nstimuli:\n  - name: a\n    prompt: hello\n    tags: {tier: smoke}\n    graders:\n      - type: completed\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, _, stderr := run(t, nil, "run", "--suite", "smoke", "--executor", "mock", "--quiet", "--out", t.TempDir(), dir)
	for _, want := range []string{
		".vally.yaml:6:7: warning: suites.smoke.filter.tags: a suite filter maps a tag name to a value or a list of values",
		"(fix: write the tag under filter itself (`filter: {tier: …}`), not under \"tags\")",
		`suite "smoke" of ` + filepath.Join(dir, ".vally.yaml") + " selects no stimulus",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("exit %d; stderr lacks %q:\n%s", code, want, stderr)
		}
	}
	// The well-formed suite runs its stimulus; the file's other suite is still reported.
	if code, _, stderr := run(t, nil, "run", "--suite", "flat", "--executor", "mock", "--quiet", "--out", t.TempDir(), dir); code != exitOK || !strings.Contains(stderr, "suites.smoke.filter.tags") {
		t.Errorf("flat filter: exit %d\n%s", code, stderr)
	}
}
