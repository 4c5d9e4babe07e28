package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeSuite(t testing.TB, dir, evalYAML string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "eval.yaml"), []byte(evalYAML), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoadSuitesReportsEveryProblemOnce(t *testing.T) {
	dir := t.TempDir()
	writeSuite(t, dir, `name: x
config:
  executor: mock
  trials_per_task: 0
graders:
  - type: text
    name: t
    config:
      regex_match: ["(unclosed"]
  - type: action_sequence
    name: a
    config:
      matching_mode: exact
      expected_actions: [bash]
tasks:
  - id: t1
    inputs: {prompt: hi}
`)
	prepared, diags, err := LoadSuites([]string{dir}, "")
	if err != nil || len(prepared) != 0 {
		t.Fatalf("prepared %d err %v", len(prepared), err)
	}
	var lines []string
	for _, d := range diags {
		lines = append(lines, d.Error())
	}
	got := strings.Join(lines, "\n")
	for _, want := range []string{"eval.yaml:4:20: warning: config.trials_per_task", "eval.yaml:9:21: error: config.regex_match[0]", "eval.yaml:13:22: error: graders[1].config.matching_mode"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Count(got, ":13:22:") != 1 {
		t.Errorf("a problem reported twice:\n%s", got)
	}
}

func TestLoadSuitesChecksExecutorSettings(t *testing.T) {
	dir := t.TempDir()
	writeSuite(t, dir, `name: x
config:
  executor: command
  command:
    argv: []
tasks:
  - id: t1
    inputs: {prompt: hi}
`)
	_, diags, _ := LoadSuites([]string{dir}, "")
	if !diags.HasErrors() || !strings.Contains(diags[0].Error(), "eval.yaml:5:5") {
		t.Errorf("command settings: %v", diags)
	}
}

func TestLoadSuitesRefusesTwoSuitesOfOneName(t *testing.T) {
	root := t.TempDir()
	for _, sub := range []string{"a", "b"} {
		os.MkdirAll(filepath.Join(root, sub), 0o755)
		writeSuite(t, filepath.Join(root, sub), "name: same\nconfig: {executor: mock}\ntasks:\n  - id: t\n    inputs: {prompt: hi}\n    expected: {output_contains: [hi]}\n")
	}
	prepared, diags, _ := LoadSuites([]string{root}, "")
	if len(prepared) != 1 || !diags.HasErrors() || !strings.Contains(diags.Errors()[0].Message, "same results file name") {
		t.Errorf("prepared %d diags %v", len(prepared), diags)
	}
}

// FuzzLoadSuites feeds arbitrary eval.yaml text through loading and grader compilation, which
// also runs on partial suites: neither may panic.
func FuzzLoadSuites(f *testing.F) {
	f.Add("name: x\ngraders:\n  - type: code\n    config: {assertions: ['len(output) >']}\ntasks:\n  - id: a\n    inputs: {prompt: p}\n")
	f.Add("graders:\n  - {type: diff, config: {expected_files: [{path: ../x, snapshot: y}]}}\ntasks: [{id: a, inputs: {prompt: p}}]\n")
	f.Add("tasks:\n  - id: a\n    inputs: {prompt: '{{x'}\n    graders: [{name: n}]\n")
	f.Fuzz(func(t *testing.T, evalYAML string) {
		dir := t.TempDir()
		writeSuite(t, dir, evalYAML)
		LoadSuites([]string{dir}, "")
	})
}
