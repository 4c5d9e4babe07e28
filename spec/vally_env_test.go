package spec

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

// writeTree writes files (path → content) under a new folder and returns it.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		testtree.WriteSame(t, dir, []byte(content), p)
	}
	return dir
}

// Placeholders that are a whole value are replaced before parsing, from the environment or
// their default; text in prompts and block scalars is left alone, and values that are not plain
// text cannot change the document's structure.
func TestSubstitutePlaceholders(t *testing.T) {
	t.Setenv("SG_SET", "claude-sonnet-4.6")
	t.Setenv("SG_EMPTY", "")
	t.Setenv("SG_TRICKY", "a: b # c")
	for _, c := range []struct{ in, want, diag string }{
		{"model: ${SG_SET}\n", "model: claude-sonnet-4.6\n", "placeholder ${SG_SET} is replaced with the environment variable's value"},
		{"runs: ${SG_UNSET=3}\n", "runs: 3\n", "is replaced with its default"},
		{"runs: ${SG_EMPTY:-2}\n", "runs: 2\n", ""},
		{"runs: ${SG_EMPTY-2}\n", "runs: \"\"\n", ""},
		{"args: [--x, ${SG_UNSET=a b}]\n", "args: [--x, \"a b\"]\n", ""},
		{"x: ${SG_TRICKY}\n", "x: \"a: b # c\"\n", ""},
		{"x: \"${SG_TRICKY}\"\n", "x: \"a: b # c\"\n", ""},
		{"  - ${SG_SET}  # comment\n", "  - claude-sonnet-4.6  # comment\n", ""},
		{"environment: ${SG_UNSET}\n", "environment: ${SG_UNSET}\n", "environment variable SG_UNSET is not set"},
		{"prompt: echo ${SG_SET} here\n", "prompt: echo ${SG_SET} here\n", ""},
		{"prompt: |\n  - ${SG_SET}\n  x: ${SG_SET}\nname: ${SG_SET}\n", "prompt: |\n  - ${SG_SET}\n  x: ${SG_SET}\nname: claude-sonnet-4.6\n", ""},
		{"${SG_SET}: v\n", "${SG_SET}: v\n", ""},
	} {
		got, diags := substitutePlaceholders("eval.yaml", []byte(c.in))
		if string(got) != c.want {
			t.Errorf("%q: got %q, want %q", c.in, got, c.want)
		}
		if c.diag != "" && !strings.Contains(render(diags), c.diag) {
			t.Errorf("%q: diagnostics lack %q:\n%s", c.in, c.diag, render(diags))
		}
		if strings.Contains(render(diags), "claude-sonnet") {
			t.Errorf("%q: a diagnostic shows the variable's value:\n%s", c.in, render(diags))
		}
	}
	// A spec whose placeholder YAML cannot parse unsubstituted loads once it is replaced.
	dir := writeTree(t, map[string]string{"eval.yaml": "defaults:\n  runs: ${SG_RUNS=2}\nstimuli:\n  - name: a\n    prompt: p\n    graders:\n      - type: run-command\n        config: {command: echo, args: [${SG_ARG=hello}]}\n"})
	s, diags := Load(filepath.Join(dir, "eval.yaml"), Options{})
	if diags.HasErrors() || s.Config.TrialsPerTask != 2 {
		t.Errorf("runs %d, diags:\n%s", s.Config.TrialsPerTask, render(diags))
	}
}

// Environments: a SKILL.md path names its folder; a folder src is copied file by file; commands
// are kept in order with their timeout; a stimulus's own skills are its own; a named environment
// comes from .vally.yaml with its paths relative to it; grading environments are separate.
func TestVallyEnvironment(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".vally.yaml":               "environments:\n  shared:\n    files:\n      - {src: fixtures/shared.txt, dest: shared.txt}\n    commands: [make setup]\n",
		"fixtures/shared.txt":       "s",
		"skills/a/SKILL.md":         "---\nname: a\n---\n",
		"skills/b/SKILL.md":         "---\nname: b\n---\n",
		"evals/x/fixtures/p/one.md": "1",
		"evals/x/fixtures/p/q/2.md": "2",
		"evals/x/eval.yaml": `environment:
  skills: [../../skills/a/SKILL.md]
  commandTimeout: 90s
  commands: ["git init -q"]
grading_environment:
  files: [{src: fixtures/p/one.md, dest: expected/one.md}]
  commands: [./check-prepare.sh]
stimuli:
  - name: own
    prompt: p
    environment:
      skills: [../../skills/b]
      files: [{src: fixtures/p, dest: project}]
    agent_environment: shared
  - name: root
    prompt: p
    environment: sharde
`,
	})
	s, diags := Load(filepath.Join(dir, "evals/x/eval.yaml"), Options{})
	if diags.HasErrors() {
		t.Fatal(render(diags))
	}
	base := func(ps []string) (out []string) {
		for _, p := range ps {
			out = append(out, filepath.Base(p))
		}
		return out
	}
	own, root := s.Tasks[0], s.Tasks[1]
	if !slices.Equal(base(s.Config.SkillDirectories), []string{"a"}) || !own.OwnSkills || !slices.Equal(base(own.SkillDirectories), []string{"a", "b"}) || root.OwnSkills {
		t.Errorf("skills: suite %v, own %v %v, root %v", s.Config.SkillDirectories, own.OwnSkills, own.SkillDirectories, root.OwnSkills)
	}
	var files []string
	for _, f := range own.Files {
		files = append(files, f.Path)
	}
	if strings.Join(files, " ") != "project/one.md project/q/2.md shared.txt" {
		t.Errorf("files %v", files)
	}
	if len(own.Setup) != 2 || own.Setup[0].Command != "git init -q" || own.Setup[0].TimeoutSeconds != 90 || own.Setup[1].Command != "make setup" {
		t.Errorf("setup %+v %+v", own.Setup[0], own.Setup[len(own.Setup)-1])
	}
	if len(own.GradingFiles) != 1 || own.GradingFiles[0].Path != "expected/one.md" || len(own.GradingSetup) != 1 {
		t.Errorf("grading %+v %+v", own.GradingFiles, own.GradingSetup)
	}
	if want := "warning: stimuli[1].environment: environment \"sharde\" is not one of the environments of"; !strings.Contains(render(diags), want) ||
		!strings.Contains(render(diags), "did you mean `shared`?") {
		t.Errorf("diagnostics lack %q:\n%s", want, render(diags))
	}
}

// Every Vally grader's config keys are checked against Vally's reference, with a did-you-mean;
// a plugin's type takes any key; `turn` must name a turn of the stimulus.
func TestVallyGraderKeys(t *testing.T) {
	_, diags := loadInlineDiags(t, `stimuli:
  - name: a
    turns: [one, two]
    graders:
      - type: run-command
        config: {command: make, stdout_matche: ok}
      - type: output-contains
        config: {substring: x, case_sensitiv: true}
      - type: completed
        config: {strict: true}
      - type: shell-command-invoked
        config: {anything: goes}
      - type: output-matches
        turn: 2
        config: {pattern: x}
`)
	text := render(diags)
	for _, want := range []string{
		"stimuli[0].graders[0].config.stdout_matche: unknown key `stdout_matche` is ignored (fix: did you mean `stdout_matches`?)",
		"stimuli[0].graders[1].config.case_sensitiv: unknown key `case_sensitiv` is ignored (fix: did you mean `case_sensitive`?)",
		"stimuli[0].graders[2].config.strict: unknown key `strict` is ignored (fix: remove it: a completed grader takes no config)",
		"stimuli[0].graders[4].turn: turn 2 does not exist: the stimulus has 2 turn(s)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "anything") {
		t.Errorf("a plugin grader's keys are its own:\n%s", text)
	}
}

// An experiment's evals take globs and the extglob !(…); its variants become configurations:
// skill-only variants against a skill-free baseline run in uplift mode.
func TestLoadExperiment(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"tests/p/skill-a/eval.vally.yaml":   "stimuli: [{name: a, prompt: p}]\n",
		"tests/p/agent.x/eval.vally.yaml":   "stimuli: [{name: a, prompt: p}]\n",
		"tests/q/skill-b/eval.vally.yaml":   "stimuli: [{name: a, prompt: p}]\n",
		"plugins/p/skills/skill-a/SKILL.md": "---\nname: skill-a\n---\n",
		"x.experiment.yaml": `name: lift
evals: ["tests/*/!(agent.*)/eval.vally.yaml"]
overrides: {runs: 2, model: m}
baseline: none
variants:
  none: {environment: {skills: []}}
  with: {environment: {skills: ["plugins/${eval.grandparent}/skills/${eval.parent}"]}}
  big: {overrides: {model: big}}
`,
	})
	e, diags := LoadExperiment(filepath.Join(dir, "x.experiment.yaml"))
	if diags.HasErrors() {
		t.Fatal(render(diags))
	}
	var evals []string
	for _, f := range e.Evals {
		rel, _ := filepath.Rel(dir, f)
		evals = append(evals, filepath.ToSlash(rel))
	}
	if strings.Join(evals, " ") != "tests/p/skill-a/eval.vally.yaml tests/q/skill-b/eval.vally.yaml" {
		t.Errorf("evals %v", evals)
	}
	var runs []string
	for _, r := range e.Runs() {
		runs = append(runs, filepath.Base(filepath.Dir(r.Eval))+r.Variant.Suffix+map[bool]string{true: " uplift"}[r.Variant.Uplift])
	}
	want := "skill-a [with] uplift, skill-a [none], skill-a [big], skill-b [with] uplift, skill-b [none], skill-b [big]"
	if strings.Join(runs, ", ") != want {
		t.Errorf("runs %s\nwant %s", strings.Join(runs, ", "), want)
	}
	var with *Variant
	for _, r := range e.Runs() {
		if r.Variant.Name == "with" && strings.Contains(r.Eval, "skill-a") {
			with = r.Variant
		}
	}
	s, diags := Load(filepath.Join(dir, "tests/p/skill-a/eval.vally.yaml"), Options{Variant: with})
	if diags.HasErrors() || s.Name != "skill-a [with]" || !s.Baseline || s.Config.TrialsPerTask != 2 || s.Config.Model != "m" ||
		len(s.Config.SkillDirectories) != 1 || filepath.Base(s.Config.SkillDirectories[0]) != "skill-a" {
		t.Errorf("suite %q baseline %v runs %d model %q skills %v\n%s", s.Name, s.Baseline, s.Config.TrialsPerTask, s.Config.Model, s.Config.SkillDirectories, render(diags))
	}
	for _, c := range []struct {
		seg, name string
		ok        bool
	}{{"!(agent.*)", "agent.x", false}, {"!(agent.*)", "skill", true}, {"x-!(a|b)", "x-c", true}, {"x-!(a|b)", "x-b", false}, {"*.yaml", "e.yaml", true}} {
		if segmentMatch(c.seg, c.name) != c.ok {
			t.Errorf("segmentMatch(%q, %q) != %v", c.seg, c.name, c.ok)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.experiment.yaml")); err != nil || !IsExperimentFile("a/x.experiment.yml") || IsExperimentFile("eval.yaml") {
		t.Error("IsExperimentFile")
	}
}

// The same check, with the same message, for every grader of a waza suite: waza's own types by
// the schema, Vally's types by Vally's reference.
func TestUnknownGraderKeysUniform(t *testing.T) {
	_, diags := loadInlineDiags(t, `name: wz
graders:
  - type: text
    name: t
    config: {contains: [x], contain: [y]}
  - type: run-command
    name: rc
    config: {command: ls, stdout_matche: x}
tasks:
  - id: a
    inputs: {prompt: hi}
`)
	text := render(diags)
	for _, want := range []string{
		"eval.yaml:5:29: warning: graders[0].config.contain: unknown key `contain` is ignored (fix: did you mean `contains`?)",
		"eval.yaml:8:27: warning: graders[1].config.stdout_matche: unknown key `stdout_matche` is ignored (fix: did you mean `stdout_matches`?)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, text)
		}
	}
}

// What an experiment gets wrong is reported where it is written: an evals entry that names no
// file (the others still run), and MCP servers a variant configures. A variant that removes
// every MCP server (`mcpServers: null`, as weidongxu-microsoft/azure-skill-evals' baselines do)
// asks for what skillgate does anyway, so it is no warning. The shapes are those of that
// repository's experiments/python/experiment.yaml (no licence file found: written here).
func TestExperimentDiagnostics(t *testing.T) {
	cases := []struct {
		name, experiment string
		want, notWant    []string
	}{
		{"missing eval", `evals:
  - ../../scenarios/present/eval.yaml
  - ../../scenarios/absent/eval.yaml
variants:
  baseline: {environment: {skills: []}}
`, []string{"x.experiment.yaml:3:5: warning: evals[1]: ../../scenarios/absent/eval.yaml matches no file; the experiment runs without it (fix: fix the path"},
			[]string{"evals[0]"}},
		{"every eval present", `evals: [../../scenarios/present/eval.yaml]
`, nil, []string{"matches no file"}},
		{"mcpServers null", `evals: [../../scenarios/present/eval.yaml]
baseline: baseline
variants:
  baseline:
    environment:
      skills: []
      mcpServers: null
`, nil, []string{"mcpServers"}},
		{"mcpServers set", `evals: [../../scenarios/present/eval.yaml]
variants:
  mcp:
    environment:
      mcpServers: {azure: {type: stdio, command: npx}}
`, []string{"x.experiment.yaml:5:7: warning: variants.mcp.environment.mcpServers: environment.mcpServers is not supported yet; the agent runs without it (fix: configure the MCP server in the agent CLI's own settings"},
			nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTree(t, map[string]string{
				"scenarios/present/eval.yaml":      "stimuli: [{name: a, prompt: p}]\n",
				"experiments/py/x.experiment.yaml": c.experiment,
			})
			e, diags := LoadExperiment(filepath.Join(dir, "experiments/py/x.experiment.yaml"))
			if diags.HasErrors() || len(e.Evals) != 1 {
				t.Fatalf("evals %v\n%s", e.Evals, render(diags))
			}
			for _, r := range e.Runs() {
				_, ds := Load(r.Eval, Options{Variant: r.Variant})
				diags = append(diags, ds...)
			}
			text := render(diags)
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("diagnostics lack %q:\n%s", w, text)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(text, w) {
					t.Errorf("diagnostics have %q:\n%s", w, text)
				}
			}
		})
	}
}

// Environment keys skillgate does not apply are warnings that say what to do instead.
func TestUnsupportedEnvironmentKeysHaveAFix(t *testing.T) {
	_, diags := loadInlineDiags(t, `environment:
  git: {type: clone, url: https://github.com/o/r}
  mcpServers: {azure: {type: stdio, command: npx}}
stimuli: [{name: a, prompt: p}]
`)
	for _, d := range diags {
		if strings.Contains(d.Message, "not supported yet") && d.Fix == "" {
			t.Errorf("no fix: %s", d.Error())
		}
	}
	if text := render(diags); !strings.Contains(text, "(fix: clone the repository in `environment.commands`") {
		t.Errorf("git warning lacks its fix:\n%s", text)
	}
}
