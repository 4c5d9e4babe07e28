package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

// notOurs are real files named like suites that belong to other tools
// (../../spec/testdata/notours/SOURCES.md names each repository, commit and licence).
const notOurs = "../../spec/testdata/notours"

// mixedRepo is a repository holding a GitHub workflow named eval.yml, Skillgrade's eval.yaml
// and an MLflow harness's eval.yaml beside a waza suite (the hello example).
func mixedRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, notOurs+"/19bk__sentiment-eval-harness/.github", filepath.Join(dir, ".github"))
	copyDir(t, notOurs+"/mgechev__skillgrade/examples/superlint", filepath.Join(dir, "skillgrade"))
	copyDir(t, notOurs+"/opendatahub-io__agent-eval-harness", dir)
	copyDir(t, hello, filepath.Join(dir, "evals/hello"))
	return dir
}

// A repository never fails for a file that is not a suite: run, validate, init and the Action
// run the waza suite and name the skipped files in one line.
func TestNotOursSkipped(t *testing.T) {
	dir := mixedRepo(t)
	wantSkipped := []string{".github/workflows/eval.yml (a GitHub workflow)", "skillgrade/eval.yaml (Skillgrade's eval.yaml: tasks with `instruction:`)",
		"eval.yaml (another tool's file: no `tasks:`, and keys waza does not have (execution, runner, models, permissions, …))"}
	t.Chdir(dir)

	out := t.TempDir()
	code, _, stderr := run(t, nil, "run", "--quiet", "--out", out, ".")
	if code != exitOK && code != exitFailed {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(results.PathIn(out, "hello")); err != nil {
		t.Errorf("the waza suite did not run: %v\n%s", err, stderr)
	}
	line := ""
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "skillgate: skipped 3 files that are not suites: ") {
			line = l
		}
	}
	for _, want := range wantSkipped {
		if !strings.Contains(line, want) {
			t.Errorf("the skipped line lacks %q:\n%s", want, stderr)
		}
	}

	code, stdout, stderr := run(t, nil, "validate", ".")
	if code != exitOK || !strings.Contains(stdout, "1 suite(s)") || !strings.Contains(stderr, "skipped 3 files") {
		t.Errorf("validate: exit %d\n%s\n%s", code, stdout, stderr)
	}

	code, stdout, stderr = run(t, nil, "init", "--dir", ".", "--branch", "main")
	if code != exitOK || !strings.Contains(stdout, "1 suite(s): evals/hello/eval.yaml") || !strings.Contains(stdout, "Not suites, skipped (the workflow skips them too): .github/workflows/eval.yml (a GitHub workflow)") {
		t.Fatalf("init: exit %d\n%s\n%s", code, stdout, stderr)
	}
	lint(t, ".github/workflows/skillgate.yml", ".github/workflows/skillgate-report.yml")

	// The workflow init wrote runs the action with check-run and no other input: it succeeds.
	env := map[string]string{"GITHUB_WORKSPACE": dir, "INPUT_CHECK-RUN": "true"}
	code, stdout, stderr = run(t, env, "action")
	if code != exitOK && code != exitFailed {
		t.Fatalf("action: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout+stderr, "skipped 3 files that are not suites") {
		t.Errorf("the action does not name the skipped files:\n%s\n%s", stdout, stderr)
	}
}

// A broken suite fails alone: the other suites run and write results, and the exit code says
// the run cannot pass (1, not 2: something meaningful ran).
func TestBrokenSuiteFailsAlone(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, hello, filepath.Join(dir, "hello"))
	if err := os.MkdirAll(filepath.Join(dir, "broken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken/eval.yaml"), []byte("name: broken\ntasks: [missing/*.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, _, stderr := run(t, nil, "run", "--quiet", "--out", out, dir)
	if code != exitFailed {
		t.Errorf("exit %d, want 1\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "1 suite(s) have errors and do not run: ") || !strings.Contains(stderr, "the other 1 suite(s) run") {
		t.Errorf("the broken suite is not named:\n%s", stderr)
	}
	if res := readResults(t, results.PathIn(out, "hello")); res.Summary.Succeeded != 2 {
		t.Errorf("hello: %+v", res.Summary)
	}
	// Only broken suites: nothing meaningful runs (exit 2).
	code, _, stderr = run(t, nil, "run", "--quiet", "--out", t.TempDir(), filepath.Join(dir, "broken"))
	if code != exitUsage || !strings.Contains(stderr, "nothing was run") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	// Only files that are not suites: nothing to run, which is no failure.
	code, _, stderr = run(t, nil, "run", "--quiet", "--out", t.TempDir(), filepath.Join(notOurs, "mgechev__skillgrade"))
	if code != exitOK || !strings.Contains(stderr, "nothing to run: no suite in") {
		t.Errorf("exit %d\n%s", code, stderr)
	}
}

// `init` in a repository of any of the three formats writes workflows whose run succeeds on the
// first push: the Action runs them as init found them (exit 0 or 1, results written).
func TestInitEveryFormat(t *testing.T) {
	for _, tc := range []struct {
		name, from, suites string
		results            []string
	}{
		{"waza", hello, "1 suite(s): eval.yaml", []string{"hello"}},
		{"vally", "testdata/mixed/vally", "1 suite(s): greeting.eval.yaml", []string{"greeting-vally"}},
		{"skill-creator", creatorCorpus + "/xpepper__tcr-skill", "1 suite(s): evals/evals.json", []string{"tcr"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, tc.from, dir)
			code, stdout, stderr := run(t, nil, "init", "--dir", dir, "--branch", "main")
			if code != exitOK || !strings.Contains(stdout, tc.suites) {
				t.Fatalf("init: exit %d\n%s\n%s", code, stdout, stderr)
			}
			lint(t, filepath.Join(dir, ".github/workflows/skillgate.yml"), filepath.Join(dir, ".github/workflows/skillgate-report.yml"))
			env := map[string]string{"GITHUB_WORKSPACE": dir, "INPUT_CHECK-RUN": "true"}
			code, stdout, stderr = run(t, env, "action")
			if code != exitOK && code != exitFailed {
				t.Fatalf("action: exit %d\n%s\n%s", code, stdout, stderr)
			}
			files, _ := filepath.Glob(filepath.Join(dir, ".skillgate", "results", "*.json"))
			if len(files) == 0 {
				t.Errorf("no results written:\n%s", stdout)
			}
			for _, name := range tc.results {
				if _, err := os.Stat(results.PathIn(filepath.Join(dir, ".skillgate"), name)); err != nil {
					t.Errorf("no results for %s: %v", name, err)
				}
			}
		})
	}
}

// A waza suite kept under another name is named once, with the command that runs it, by run and
// validate alike; given by its path it runs (../../spec/testdata/unnamed/SOURCES.md names the
// repositories, commits and licences).
func TestUnnamedWazaSuiteNamed(t *testing.T) {
	const unnamed = "../../spec/testdata/unnamed"
	for _, tc := range []struct {
		repo, file string
		exit       int // of a folder search: no suite and no skipped file is a usage error
	}{
		{"wukongai__ip-pic-skill", "evals/waza-eval.yaml", exitOK},
		{"ayrtonvwf__skills", "evals/mr-feedback/eval.template.yaml", exitUsage},
	} {
		t.Run(tc.repo, func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, filepath.Join(unnamed, tc.repo), dir)
			t.Chdir(dir)
			want := "not run: " + tc.file + " looks like a waza suite, and a folder search takes only files named eval.yaml or eval.yml (fix: give the path, e.g. skillgate run " + tc.file
			for _, args := range [][]string{{"run", "--quiet", "--out", t.TempDir(), "."}, {"validate", "."}} {
				code, _, stderr := run(t, nil, args...)
				if code != tc.exit || strings.Count(stderr, want) != 1 {
					t.Errorf("%s: exit %d (want %d), the line %d times (want 1):\n%s", args[0], code, tc.exit, strings.Count(stderr, want), stderr)
				}
			}
			code, stdout, stderr := run(t, nil, "validate", tc.file)
			if code != exitOK || !strings.Contains(stdout, "1 suite(s)") || strings.Contains(stderr, "not run:") {
				t.Errorf("validate %s: exit %d\n%s\n%s", tc.file, code, stdout, stderr)
			}
		})
	}
}
