package graders

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
	"github.com/skillgate/skillgate/spec"
)

func seedFixtures(t *testing.T) string {
	abs, err := filepath.Abs(filepath.Join("testdata", "seeds", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func TestDiff(t *testing.T) {
	fixtures := seedFixtures(t)
	task := &spec.Task{ID: "t", ContextDir: fixtures}
	cases := []struct {
		name, grader string
		files        map[string]string
		score        float64
		passed       bool
		feedback     string
	}{
		{"config_update passes", "config_update", map[string]string{
			"src/config.json": "{\"port\": 8080}\n",
			"README.md":       "# App\n## Installation\nnpm install\n"}, 1, true, "All diff checks passed"},
		// 2 checks for config.json + 4 for README; the snapshot differs only by the final newline.
		{"snapshot is byte-exact", "config_update", map[string]string{
			"src/config.json": "{\"port\": 8080}",
			"README.md":       "# App\n## Installation\nnpm install\n"}, 5.0 / 6, false,
			"File src/config.json does not match snapshot expected/config.json"},
		{"a missing file fails all its checks", "config_update", map[string]string{
			"src/config.json": "{\"port\": 8080}\n"}, 2.0 / 6, false,
			"Expected file not found in workspace: README.md; Contains check skipped (file not found): README.md → +## Installation; " +
				"Contains check skipped (file not found): README.md → +npm install; Contains check skipped (file not found): README.md → -pip install"},
		{"- fragments must be absent", "config_update", map[string]string{
			"src/config.json": "{\"port\": 8080}\n",
			"README.md":       "## Installation\n\n    pip install x\n"}, 4.0 / 6, false,
			"File README.md missing expected fragment: npm install; File README.md contains fragment that should be absent: pip install"},
		{"fragments are trimmed substrings of the whole file", "code_edits", map[string]string{
			"src/main.py":      "def new_function():\n    return 42\n",
			"requirements.txt": "flask\nrequests>=2.28\n"}, 1, true, "All diff checks passed"},
		{"seed code_edits_002 fragment '+ return 42' is trimmed", "code_edits_002", map[string]string{
			"src/main.py": "def new_function():\n    return 42\n",
			"README.md":   "# App\n\n## Installation\n\nnpm install\n"}, 1, true, "All diff checks passed"},
		{"snapshot missing from the workspace", "exact_output", map[string]string{}, 0, false,
			"Expected file not found in workspace: output/result.txt; Snapshot comparison skipped (file not found): output/result.txt"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := mustCompile(t, seedDef(t, "diff.yaml", c.grader))
			ws := writeFiles(t, c.files)
			r := grade(t, g, &Input{Run: runWith(""), Workspace: ws, Task: task})
			assertResult(t, r, c.score, c.passed, c.feedback)
		})
	}
}

func TestDiffSnapshotResolution(t *testing.T) {
	ctxA := writeFiles(t, map[string]string{"want.txt": "A"})
	ctxB := writeFiles(t, map[string]string{"want.txt": "B"})
	ws := writeFiles(t, map[string]string{"out.txt": "A"})
	def := defFromYAML(t, "type: diff\nname: d\nconfig:\n  expected_files:\n    - path: out.txt\n      snapshot: want.txt\n")
	g := mustCompile(t, def)
	// The task's context dir decides…
	assertResult(t, grade(t, g, &Input{Workspace: ws, Task: &spec.Task{ContextDir: ctxA}}), 1, true, "All diff checks passed")
	assertResult(t, grade(t, g, &Input{Workspace: ws, Task: &spec.Task{ContextDir: ctxB}}), 0.5, false, "File out.txt does not match snapshot want.txt")
	// …else the suite's.
	assertResult(t, grade(t, g, &Input{Workspace: ws, Suite: &spec.Suite{ContextDir: ctxA}}), 1, true, "All diff checks passed")
	// config.context_dir, relative to the declaring file, wins over both.
	def = defFromYAML(t, "type: diff\nname: d\nconfig:\n  context_dir: b\n  expected_files:\n    - path: out.txt\n      snapshot: want.txt\n")
	def.Dir = filepath.Dir(ctxB)
	def.Config.(*diffConfig).ContextDir = filepath.Base(ctxB)
	assertResult(t, grade(t, mustCompile(t, def), &Input{Workspace: ws, Task: &spec.Task{ContextDir: ctxA}}), 0.5, false,
		"File out.txt does not match snapshot want.txt")
}

func TestDiffEmptyFragmentPasses(t *testing.T) {
	def := defFromYAML(t, "type: diff\nname: d\nconfig:\n  expected_files:\n    - path: a\n      contains: ['+  ', 'x']\n")
	r := grade(t, mustCompile(t, def), &Input{Workspace: writeFiles(t, map[string]string{"a": "y"})})
	assertResult(t, r, 2.0/3, false, "File a missing expected fragment: x")
}

// A snapshot path written as waza reads it — relative to the working directory, typically the
// repository root — resolves from any folder between the suite and the repository root.
func TestDiffSnapshotRelativeToRepositoryRoot(t *testing.T) {
	repo := t.TempDir()
	testtree.Write(t, repo, map[string]string{
		".git/HEAD":                       "ref: refs/heads/main\n",
		"evals/tidy/fixtures/HISTORY.txt": "a\nb\n",
		"evals/tidy/eval.yaml":            "name: tidy\n",
	})
	def := defFromYAML(t, "type: diff\nname: d\nconfig:\n  expected_files:\n    - path: HISTORY.txt\n      snapshot: evals/tidy/fixtures/HISTORY.txt\n")
	def.Dir = filepath.Join(repo, "evals", "tidy")
	g, diags := CompileOne(def, &Env{Suite: &spec.Suite{Dir: def.Dir, ContextDir: filepath.Join(def.Dir, "fixtures")}})
	if len(diags) != 0 {
		t.Fatalf("diags: %v", diags)
	}
	r := grade(t, g, &Input{Workspace: writeFiles(t, map[string]string{"HISTORY.txt": "a\nb\n"})})
	assertResult(t, r, 1, true, "All diff checks passed")
}

func TestDiffWithoutWorkspace(t *testing.T) {
	def := defFromYAML(t, "type: diff\nname: d\nconfig:\n  expected_files:\n    - path: a\n      contains: [x]\n")
	assertResult(t, grade(t, mustCompile(t, def), &Input{}), 0, false, "No workspace directory available for diff grading")
}

func TestDiffCompileErrors(t *testing.T) {
	fixtures := seedFixtures(t)
	def := seedDef(t, "diff.yaml", "config_update")
	suite := &spec.Suite{ContextDir: fixtures, Tasks: []*spec.Task{{ID: "a", ContextDir: t.TempDir(), Graders: []*spec.Grader{def}}}}
	// The snapshot exists in the suite's fixtures but not in the context dir of the task using
	// it: a warning, and the snapshot check fails when the grader runs (as in waza).
	g, diags := CompileOne(def, &Env{Suite: suite})
	text := diagText(diags)
	if diags.HasErrors() || !strings.Contains(text, `snapshot file "expected/config.json" not found (`) || !strings.Contains(text, suite.Tasks[0].ContextDir) ||
		!strings.Contains(text, "diff.yaml:7:19: warning: config.expected_files[0].snapshot") {
		t.Errorf("got %s", text)
	}
	ws := writeFiles(t, map[string]string{"src/config.json": "{}"})
	r := grade(t, g, &Input{Workspace: ws, Task: suite.Tasks[0]})
	if r.Passed || !strings.Contains(r.Feedback, "Failed to read snapshot file expected/config.json") {
		t.Errorf("a missing snapshot must fail its check: %+v", r)
	}
	// The same grader compiles when its tasks have the snapshot.
	suite.Tasks[0].ContextDir = fixtures
	mustCompile(t, def, &Env{Suite: suite})

	checkCompileErrors(t, []compileErrorCase{
		{"neither snapshot nor contains", "type: diff\nname: d\nconfig:\n  expected_files:\n    - path: a\n", "5:7", `expected file "a" has neither snapshot nor contains`},
		{"absolute path", "type: diff\nname: d\nconfig:\n  expected_files:\n    - path: /tmp/a\n      contains: [x]\n", "5:13", "is absolute"},
		{"escaping snapshot", "type: diff\nname: d\nconfig:\n  expected_files:\n    - path: a\n      snapshot: ../../etc/passwd\n", "6:17", "leaves the context dir"},
		{"missing path", "type: diff\nname: d\nconfig:\n  expected_files:\n    - contains: [x]\n", "5:7", "expected file without a path"},
	})
}
