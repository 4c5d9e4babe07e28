package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
	"github.com/skillgate/skillgate/results"
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

// Skill-creator suites take their names from skill_name or the skill, not from a `name:` their
// author wrote: real repositories hold the same evals twice (the repository's root and the skill's
// folder, a plugin's dist/ copies, a skill's versions side by side). Each suite of a shared name
// runs under "<name> (<its folder>)"; two waza suites of one name stay an error.
func TestLoadSuitesQualifiesSharedSkillCreatorNames(t *testing.T) {
	waza := t.TempDir()
	testtree.Write(t, waza, map[string]string{
		"atl/eval.yaml":                "name: atl\nconfig: {executor: mock}\ntasks:\n  - id: t\n    inputs: {prompt: hi}\n",
		"skill/SKILL.md":               "---\nname: atl\ndescription: d\n---\n",
		"skill/evals/evals.json":       `{"skill_name": "atl", "evals": [{"id": 1, "prompt": "p"}]}`,
		"other/skill/evals/evals.json": `{"skill_name": "atl", "evals": [{"id": 1, "prompt": "p"}]}`,
		"other/skill/SKILL.md":         "---\nname: atl\ndescription: d\n---\n",
		"zz/eval.yaml":                 "name: zz\nconfig: {executor: mock}\ntasks:\n  - id: t\n    inputs: {prompt: hi}\n",
	})
	for _, tc := range []struct {
		root  string
		names []string
	}{
		{"testdata/skill-creator/mazuninky__atl", []string{"atl (evals)", "atl (skill/evals)"}},
		{"testdata/skill-creator/melanie531__sample-agent-skill-eval", []string{
			"pr-naming", "pr-naming-convention (examples/lifecycle-demo/v2/evals)", "pr-naming-convention (examples/lifecycle-demo/v3/evals)"}},
		// A waza suite keeps the name its author wrote; the skill-creator suites are qualified.
		{waza, []string{"atl", "atl (other/skill/evals)", "atl (skill/evals)", "zz"}},
	} {
		t.Run(filepath.Base(tc.root), func(t *testing.T) {
			prepared, diags, err := LoadSuites([]string{tc.root}, "")
			if err != nil || diags.HasErrors() {
				t.Fatalf("%v %v", err, diags.Errors())
			}
			var names []string
			files := map[string]bool{}
			for _, p := range prepared {
				names = append(names, p.Suite.Name)
				files[results.Slug(p.Suite.Name)] = true
			}
			if strings.Join(names, " | ") != strings.Join(tc.names, " | ") || len(files) != len(names) {
				t.Errorf("names %q, want %q", names, tc.names)
			}
		})
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
