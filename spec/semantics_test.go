package spec

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

// loadInline writes files into a temp suite and loads its eval.yaml, failing on errors.
func loadInline(t *testing.T, files map[string]string) *Suite {
	t.Helper()
	dir := t.TempDir()
	testtree.Write(t, dir, files)
	s, diags := Load(filepath.Join(dir, "eval.yaml"), Options{})
	if diags.HasErrors() {
		t.Fatalf("diagnostics:\n%s", render(diags))
	}
	return s
}

func TestGraderFolding(t *testing.T) {
	s := loadInline(t, map[string]string{"eval.yaml": `
graders:
  - type: prompt
    name: judge
    model: top-model
    rubric: top rubric
    threshold: 0.9
    config: {model: config-model, prompt: Check it}
  - type: llm_comparison
    name: compare
    reference: the answer
  - type: trigger
    name: fires
    config: {should_trigger: false}
  - type: human
    name: review
tasks:
  - id: t
    inputs: {prompt: hi}
    graders:
      - name: quick
        assertions: ["len(output) > 1"]
        weight: 0
`, "trigger_tests.yaml": "skill: from-trigger-tests\nshould_trigger_prompts: [{prompt: x}]\n"})
	g := s.Tasks[0].Graders
	if got := configOf(t, g[0]); !reflect.DeepEqual(got, map[string]any{"model": "config-model", "prompt": "Check it", "rubric": "top rubric", "threshold": 0.9}) {
		t.Errorf("prompt fold (config wins) = %v", got)
	}
	if got := configOf(t, g[1]); !reflect.DeepEqual(got, map[string]any{"reference": "the answer"}) {
		t.Errorf("llm_comparison fold = %v", got)
	}
	// eval.yaml names no skill: trigger graders take trigger_tests.yaml's.
	if got := configOf(t, g[2]); !reflect.DeepEqual(got, map[string]any{"should_trigger": false, "skill": "from-trigger-tests"}) {
		t.Errorf("trigger skill = %v", got)
	}
	if got := configOf(t, g[3]); len(got) != 0 || g[3].config.Kind != 4 /* yaml.MappingNode */ {
		t.Errorf("a grader without config must get an empty mapping, got %v", got)
	}
	if g[3].config.Line == 0 || g[3].ConfigPos().File == "" {
		t.Errorf("the synthesized config must carry the grader's position, got %d in %q", g[3].config.Line, g[3].ConfigPos().File)
	}
	if q := g[4]; q.Type != "code" || q.Name != "quick" || q.Weight != 1 || !reflect.DeepEqual(configOf(t, q), map[string]any{"assertions": []any{"len(output) > 1"}}) {
		t.Errorf("assertions shortcut = %+v %v", q, configOf(t, q))
	}
	// The declared nodes are not modified by folding (an anchor may be shared).
	if s.Graders[0].configNode().Key("rubric") == nil {
		t.Errorf("folded key missing on the global grader")
	}
}

func TestExpectedBehaviorMapping(t *testing.T) {
	s := loadInline(t, map[string]string{"eval.yaml": `
skill: sk
tasks:
  - id: t
    inputs: {prompt: hi}
    expected:
      behavior: {max_response_time_ms: 900, required_tools: [bash]}
      outcomes:
        - {type: output_contains, value: yes}
        - {type: file_not_exists, value: tmp.txt}
      should_trigger: false
`})
	g := s.Tasks[0].Graders
	var names []string
	for _, x := range g {
		names = append(names, x.Name)
	}
	// waza grades no outcome, so {type: output_contains} makes no expected_output grader.
	if !reflect.DeepEqual(names, []string{"expected_outcomes", "expected_behavior", "expected_trigger"}) {
		t.Fatalf("implicit graders = %v", names)
	}
	if got := configOf(t, g[0]); !reflect.DeepEqual(got, map[string]any{"must_not_exist": []any{"tmp.txt"}}) {
		t.Errorf("expected_outcomes = %v", got)
	}
	if got := configOf(t, g[1]); !reflect.DeepEqual(got, map[string]any{"max_duration_ms": 900, "required_tools": []any{"bash"}}) {
		t.Errorf("expected_behavior = %v", got)
	}
	if got := configOf(t, g[2]); !reflect.DeepEqual(got, map[string]any{"skill": "sk", "should_trigger": false}) {
		t.Errorf("expected_trigger = %v", got)
	}
}

// A reference in a task's graders: to a top-level grader already in its list changes nothing;
// one to a grader expected.graders left out adds it.
func TestReferencesInTaskGraders(t *testing.T) {
	s := loadInline(t, map[string]string{"eval.yaml": `
graders:
  - {type: text, name: a, config: {contains: [a]}}
  - {type: text, name: b, config: {contains: [b]}}
tasks:
  - id: all
    inputs: {prompt: hi}
    graders: [a, {name: b}]
  - id: picked
    inputs: {prompt: hi}
    expected: {graders: [b]}
    graders: [a]
`})
	for id, want := range map[int][]*Grader{0: {s.Graders[0], s.Graders[1]}, 1: {s.Graders[1], s.Graders[0]}} {
		if !reflect.DeepEqual(s.Tasks[id].Graders, want) {
			t.Errorf("task %s graders = %v", s.Tasks[id].ID, s.Tasks[id].Graders)
		}
	}
}

func TestDefaults(t *testing.T) {
	s := loadInline(t, map[string]string{"eval.yaml": "tasks:\n  - id: t\n    inputs: {prompt: hi}\n"})
	c := s.Config
	if s.Name != filepath.Base(s.Dir) || c.TrialsPerTask != 1 || c.TimeoutSeconds != 300 || c.MaxWorkers != 4 ||
		c.MaxAttempts != 1 || c.Executor != "mock" || s.ContextDir != filepath.Join(s.Dir, "fixtures") ||
		s.Tasks[0].Name != "t" || s.Tasks[0].TimeoutSeconds != 300 || len(s.Tasks[0].Graders) != 0 || s.TriggerTests != nil {
		t.Errorf("defaults = %+v %+v", s, c)
	}
}

// Relative paths resolve against the declaring file, never the working directory.
func TestPathsIndependentOfWorkingDirectory(t *testing.T) {
	abs, _ := filepath.Abs("testdata/full/eval.yaml")
	wd, _ := os.Getwd()
	t.Cleanup(func() { _ = os.Chdir(wd) })
	if err := os.Chdir(t.TempDir()); err != nil {
		t.Fatal(err)
	}
	s, diags := Load(abs, Options{})
	if len(diags) != 0 || len(s.Tasks) != 6 || s.Tasks[1].Files[0].Source != filepath.Join(filepath.Dir(abs), "task-fixtures", "custom.txt") {
		t.Fatalf("loading from another folder: %d tasks\n%s", len(s.Tasks), render(diags))
	}
}

func TestBroadGlobSkipsSuiteFiles(t *testing.T) {
	s := loadInline(t, map[string]string{
		"eval.yaml":          "skill: s\ntasks: ['*.yaml']\n",
		"trigger_tests.yaml": "skill: s\nshould_trigger_prompts: [{prompt: x}]\n",
		"task.yaml":          "inputs: {prompt: hi}\n",
	})
	if len(s.Tasks) != 1 || s.Tasks[0].ID != "task" {
		t.Fatalf("tasks = %v", s.Tasks)
	}
}

// waza's scaffold writes `outcomes: [{type: task_completed}]` into every task: it becomes the
// implicit `expected_completion` grader; an outcome that needs a value and has none is ignored
// with a warning.
func TestTaskCompletedOutcome(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "eval.yaml"), []byte(`tasks:
  - id: t
    inputs: {prompt: hi}
    expected:
      outcomes:
        - type: task_completed
        - type: file_exists
`), 0o644); err != nil {
		t.Fatal(err)
	}
	s, diags := Load(filepath.Join(dir, "eval.yaml"), Options{})
	if diags.HasErrors() || len(diags) != 1 || !strings.Contains(diags[0].Error(), "outcome file_exists has no value; it is ignored") {
		t.Fatalf("diags:\n%s", render(diags))
	}
	g := s.Tasks[0].Graders
	if len(g) != 1 || g[0].Name != "expected_completion" || g[0].Type != "task_completed" || g[0].Implicit != "expected.outcomes" {
		t.Fatalf("graders = %+v", g)
	}
}

// waza runs two tasks with one id; skillgate does too, the second under a suffixed id.
func TestDuplicateTaskIDsRun(t *testing.T) {
	s, diags := Load("testdata/bad/duplicate-task-ids/eval.yaml", Options{})
	if diags.HasErrors() {
		t.Fatalf("diags:\n%s", render(diags))
	}
	var ids []string
	for _, task := range s.Tasks {
		ids = append(ids, task.ID)
	}
	if strings.Join(ids, ",") != "same,same-2" {
		t.Errorf("ids = %v", ids)
	}
}

// config.cache_inputs keeps its globs as written; a malformed one is a warning that turns the
// run cache off for the suite (a key that misses what the agent reads must not reuse runs).
func TestCacheInputs(t *testing.T) {
	cases := []struct {
		name      string
		list      string
		want      []string
		cacheOff  bool
		wantWarns string
	}{
		{"globs", "[data/**, scripts/helper.py]", []string{"data/**", "scripts/helper.py"}, false, ""},
		{"malformed", "[\"data/[x\", ok.txt]", []string{"ok.txt"}, true, `config.cache_inputs[0]: "data/[x" is not a valid glob`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Write(t, dir, map[string]string{"eval.yaml": "name: s\nconfig:\n  cache_inputs: " + c.list + "\ntasks:\n  - id: t\n    inputs: {prompt: hi}\n"})
			s, diags := Load(filepath.Join(dir, "eval.yaml"), Options{})
			if diags.HasErrors() {
				t.Fatal(render(diags))
			}
			if !reflect.DeepEqual(s.Config.CacheInputs, c.want) {
				t.Errorf("CacheInputs = %q, want %q", s.Config.CacheInputs, c.want)
			}
			if off := s.Config.Cache != nil && !*s.Config.Cache; off != c.cacheOff {
				t.Errorf("cache off = %v, want %v", off, c.cacheOff)
			}
			if got := render(diags); c.wantWarns != "" && !strings.Contains(got, c.wantWarns) || c.wantWarns == "" && got != "" {
				t.Errorf("diagnostics:\n%s\nwant %q", got, c.wantWarns)
			}
		})
	}
}

// Options.Root confines a suite: what it names outside the folder is an error, and is not
// loaded (a file outside holding a valid task must not become one).
func TestRootConfinesTheSuite(t *testing.T) {
	outside := t.TempDir()
	testtree.Write(t, outside, map[string]string{"t.yaml": "id: outside\ninputs: {prompt: hi}\n", "skills/s/SKILL.md": "---\nname: s\n---\n"})
	task := "  - id: in\n    inputs: {prompt: hi}\n    expected: {output_contains: [hi]}\n"
	cases := []struct{ name, yaml, want string }{
		{"absolute task file", "tasks:\n  - " + outside + "/t.yaml\n" + task, "task file " + outside + "/t.yaml lies outside"},
		{"absolute task glob", "tasks:\n  - " + outside + "/*.yaml\n" + task, "task glob " + outside + " lies outside"},
		{"relative task glob", "tasks:\n  - ../../../**/t.yaml\n" + task, " lies outside"},
		{"skill folder", "config:\n  skill_directories: [" + outside + "/skills]\ntasks:\n" + task, "skill directory " + outside + "/skills lies outside"},
		{"context dir", "tasks:\n  - id: in\n    context_dir: " + outside + "\n    inputs: {prompt: hi, files: [{path: t.yaml}]}\n", "context dir " + outside + " lies outside"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "evals", "s")
			testtree.Write(t, dir, map[string]string{"eval.yaml": "name: s\n" + c.yaml})
			s, diags := Load(filepath.Join(dir, "eval.yaml"), Options{Root: root})
			if got := render(diags); !diags.HasErrors() || !strings.Contains(got, c.want) {
				t.Errorf("diagnostics:\n%s\nwant an error with %q", got, c.want)
			}
			for _, tk := range s.Tasks {
				if tk.ID == "outside" {
					t.Error("the task file outside the root was loaded")
				}
				for _, f := range tk.Files {
					if strings.HasPrefix(f.Source, outside) {
						t.Errorf("input file read from outside: %s", f.Source)
					}
				}
			}
			if _, diags := Load(filepath.Join(dir, "eval.yaml"), Options{}); strings.Contains(render(diags), "lies outside") {
				t.Errorf("without a root the suite is not confined:\n%s", render(diags))
			}
		})
	}
}

// A hook runs where waza would run it: in a project with a .waza.yaml (waza is run from that
// file's folder, and its hooks from waza's working directory), relative to that folder;
// elsewhere relative to eval.yaml's folder.
func TestHookWorkingDirectory(t *testing.T) {
	hooks := "hooks:\n  before_run:\n    - command: bun evals/_hooks/prepare.ts\n    - command: make\n      working_directory: scripts\ntasks:\n  - id: t\n    inputs: {prompt: hi}\n"
	for _, c := range []struct {
		name      string
		files     map[string]string
		suite     string
		wantFirst string // relative to the tree's root
	}{
		{"no project file", map[string]string{".git/HEAD": "", "evals/x/eval.yaml": hooks}, "evals/x", "evals/x"},
		{".waza.yaml at the repository root", map[string]string{".git/HEAD": "", ".waza.yaml": "paths: {evals: evals}\n", "evals/x/eval.yaml": hooks}, "evals/x", "."},
		{".waza.yml beside eval.yaml", map[string]string{".git/HEAD": "", "evals/x/.waza.yml": "", "evals/x/eval.yaml": hooks}, "evals/x", "evals/x"},
		{".waza.yaml above the repository root is another project's", map[string]string{".waza.yaml": "", "repo/.git/HEAD": "", "repo/evals/x/eval.yaml": hooks}, "repo/evals/x", "repo/evals/x"},
		{"a folder named .waza.yaml is not the file", map[string]string{".git/HEAD": "", ".waza.yaml/x": "", "evals/x/eval.yaml": hooks}, "evals/x", "evals/x"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			testtree.Write(t, root, c.files)
			s, diags := Load(filepath.Join(root, c.suite, "eval.yaml"), Options{})
			if diags.HasErrors() {
				t.Fatal(render(diags))
			}
			want := filepath.Join(root, c.wantFirst)
			if got := s.Hooks.BeforeRun[0].WorkingDirectory; got != want {
				t.Errorf("default working directory %s, want %s", got, want)
			}
			if got := s.Hooks.BeforeRun[1].WorkingDirectory; got != filepath.Join(want, "scripts") {
				t.Errorf("working_directory: scripts resolved to %s, want %s", got, filepath.Join(want, "scripts"))
			}
		})
	}
}
