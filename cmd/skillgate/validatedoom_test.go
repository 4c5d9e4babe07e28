package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `validate` says what a valid suite's warnings doom — "valid, but N tasks will error when run"
// — and `--strict --allow KIND` keeps the warnings of that kind as warnings.
func TestValidateSaysWhatWillError(t *testing.T) {
	dir := t.TempDir()
	suite := `name: doomed
metrics:
  - {name: task_completion, threshold: 80}
  - {name: task_sucess, threshold: 0.5}
tasks:
  - id: typo
    inputs: {prompt: hi}
    graders: [{type: txt, name: g, config: {contains: [hi]}}]
  - id: fixture
    inputs: {prompt: hi, files: [{path: data.csv}]}
    graders: [{type: text, name: g, config: {contains: [hi]}}]
  - id: fine
    inputs: {prompt: hi}
    graders: [{type: text, name: g, config: {contains: [hi]}}]
`
	if err := os.WriteFile(filepath.Join(dir, "eval.yaml"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, nil, "validate", dir)
	// The missing input file is a warning, not a doomed task: waza runs the task without it.
	want := `1 suite(s), 3 task(s): valid (4 warning(s)), but 1 task(s) will error when run: doomed/typo (grader "g": unknown grader type "txt"); and doomed: metric task_completion can never pass (threshold 80; its value is at most 1)`
	if code != exitOK || strings.TrimSpace(stdout) != want {
		t.Errorf("exit %d\n%s\nwant\n%s\n%s", code, stdout, want, stderr)
	}
	// Every warning fails under --strict; --allow keeps the kinds named.
	code, _, stderr = run(t, nil, "validate", "--strict", dir)
	if code != exitUsage || !strings.Contains(stderr, "4 error(s), 0 warning(s)") {
		t.Errorf("strict: exit %d\n%s", code, stderr)
	}
	code, _, stderr = run(t, nil, "validate", "--strict", "--allow", "unknown-metric", "--allow", "range", dir)
	if code != exitUsage || !strings.Contains(stderr, "2 error(s), 2 warning(s)") || !strings.Contains(stderr, "warning: metrics[1].name: unknown metric") {
		t.Errorf("allow: exit %d\n%s", code, stderr)
	}
	code, _, stderr = run(t, nil, "validate", "--strict", "--allow", "unknown-metric", "--allow", "range", "--allow", "unknown-grader", "--allow", "missing-file", dir)
	if code != exitOK {
		t.Errorf("all allowed: exit %d\n%s", code, stderr)
	}
	if code, _, stderr = run(t, nil, "validate", "--strict", "--allow", "typos", dir); code != exitUsage || !strings.Contains(stderr, "the kinds are unknown-key, unknown-metric") {
		t.Errorf("an unknown kind: exit %d\n%s", code, stderr)
	}
}

// A suite whose executor this build lacks (a Vally --executor-plugin) is valid: the run chooses
// its executor with --executor, so validate warns, also under --strict (it is this build's gap,
// not the suite's), and `validate --executor NAME` checks the suite for that executor.
func TestValidateWithAPluginExecutor(t *testing.T) {
	dir := t.TempDir()
	spec := `name: plugin-executor
defaults:
  executor: integration-test-agent-runner
stimuli:
  - name: hello
    prompt: say hello
    graders:
      - type: output-contains
        config: {substring: hello}
`
	if err := os.WriteFile(filepath.Join(dir, "hello.eval.yaml"), []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	warning := `hello.eval.yaml:3:13: warning: defaults.executor: executor "integration-test-agent-runner" is not available in this build of skillgate (a Vally --executor-plugin? skillgate cannot load one); its runs need --executor`
	for _, c := range []struct {
		args        []string
		code        int
		warns       bool
		stdout, err string
	}{
		{[]string{"validate", dir}, exitOK, true, "1 suite(s), 1 task(s): valid (1 warning(s))", ""},
		{[]string{"validate", "--strict", dir}, exitOK, true, "1 suite(s), 1 task(s): valid (1 warning(s))", ""},
		{[]string{"validate", "--executor", "copilot", dir}, exitOK, false, "1 suite(s), 1 task(s): valid", ""},
		{[]string{"validate", "--executor", "bogus", dir}, exitUsage, false, "", `skillgate validate: --executor "bogus": the executors are claude, claude-code`},
		// run has no later moment to choose one: the suite cannot run.
		{[]string{"run", "--out", t.TempDir(), dir}, exitUsage, false, "", `hello.eval.yaml:3:13: error: defaults.executor: executor "integration-test-agent-runner" is not available`},
	} {
		code, stdout, stderr := run(t, nil, c.args...)
		if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.err) || strings.Contains(stderr, warning) != c.warns {
			t.Errorf("%v: exit %d\nstdout: %s\nstderr: %s", c.args, code, stdout, stderr)
		}
	}
}
