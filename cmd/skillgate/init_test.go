package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/action"
	"github.com/skillgate/skillgate/agent"
)

// initRepo is a repository with the hello example and a suite that has an LLM judge.
func initRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	copyDir(t, hello, filepath.Join(dir, "evals/hello"))
	judged := "name: judged\nconfig:\n  executor: claude-code\ngraders:\n  - type: llm\n    name: kind\n    rubric: Be kind.\ntasks:\n  - id: a\n    inputs:\n      prompt: hi\n"
	if err := os.MkdirAll(filepath.Join(dir, "evals/judged"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "evals/judged/eval.yaml"), []byte(judged), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if info.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// lint runs actionlint v1.7.12 (the version .ci/run pins) on workflow files.
func lint(t *testing.T, files ...string) {
	t.Helper()
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{Shellcheck: "-", Pyflakes: "-"})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", e.Filepath, e.Line, e.Column, e.Message, e.Kind)
	}
}

func TestInitWritesWorkflowsThatLint(t *testing.T) {
	dir := initRepo(t)
	code, stdout, stderr := run(t, nil, "init", "--dir", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	evaluate := filepath.Join(dir, ".github/workflows/skillgate.yml")
	report := filepath.Join(dir, ".github/workflows/skillgate-report.yml")
	lint(t, evaluate, report)
	for _, want := range []string{"2 suite(s): evals/hello/eval.yaml, evals/judged/eval.yaml", "1 skill(s): evals/hello/skills/hello-world",
		`make the check "skillgate (skillgate)" required`, "claude-code"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	ev, _ := os.ReadFile(evaluate)
	rep, _ := os.ReadFile(report)
	for _, want := range []string{"models: read", "check-run: true", "!.skillgate/cache/**", "include-hidden-files: true", "#   suite evals/judged/eval.yaml"} {
		if !strings.Contains(string(ev), want) {
			t.Errorf("skillgate.yml lacks %q:\n%s", want, ev)
		}
	}
	for _, want := range []string{"workflow_run:", "workflows: [skillgate]", "mode: report", "models: read", "checks: write"} {
		if !strings.Contains(string(rep), want) {
			t.Errorf("skillgate-report.yml lacks %q:\n%s", want, rep)
		}
	}
	if strings.Contains(string(rep), "actions/checkout") || strings.Contains(string(rep), "pull_request_target:") {
		t.Errorf("the report workflow checks out or uses pull_request_target:\n%s", rep)
	}

	// Never overwrites without --force.
	os.WriteFile(report, []byte("# mine\n"), 0o644)
	code, _, stderr = run(t, nil, "init", "--dir", dir)
	if code != exitUsage || !strings.Contains(stderr, "already exist") {
		t.Errorf("second init: exit %d\n%s", code, stderr)
	}
	if data, _ := os.ReadFile(report); string(data) != "# mine\n" {
		t.Errorf("init overwrote a file without --force")
	}
	if code, _, stderr = run(t, nil, "init", "--dir", dir, "--force"); code != exitOK {
		t.Fatalf("--force: exit %d\n%s", code, stderr)
	}
	if data, _ := os.ReadFile(report); !strings.Contains(string(data), "mode: report") {
		t.Errorf("--force did not overwrite")
	}
}

// The check name init prints is the one the action creates for the inputs it wrote.
func TestInitNamesTheCheckTheActionCreates(t *testing.T) {
	dir := initRepo(t)
	code, stdout, stderr := run(t, nil, "init", "--dir", dir, "--suites", "evals/hello", "--uses", "skillgate/skillgate@v1.2.3")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	data, _ := os.ReadFile(filepath.Join(dir, ".github/workflows/skillgate.yml"))
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses string            `yaml:"uses"`
				With map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	var with map[string]string
	for _, st := range wf.Jobs["evals"].Steps {
		// The suites use claude-code: the composite action of the same release.
		if st.Uses == "skillgate/skillgate/composite@v1.2.3" {
			with = st.With
		}
	}
	cfg, err := action.ParseInputs(func(name string) string { return with[name] })
	if err != nil {
		t.Fatal(err)
	}
	want := action.CheckRunName(action.Key("skillgate.yml", cfg.WorkingDirectory, cfg.Suites))
	if !strings.Contains(stdout, `"`+want+`"`) || want == "skillgate (skillgate)" {
		t.Errorf("init printed another check name than %q:\n%s", want, stdout)
	}
	lint(t, filepath.Join(dir, ".github/workflows/skillgate.yml"))
}

func TestInitRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{{"init", "--branch", "a b"}, {"init", "--uses", "skillgate"}, {"init", "extra"}, {"init", "--dir", "/nonexistent/x"}} {
		if code, _, _ := run(t, nil, args...); code != exitUsage {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

// A repository with .vally.yaml: its specs are suites of the workflow, and init names its suites.
func TestInitDetectsVally(t *testing.T) {
	dir := t.TempDir()
	copyDir(t, "testdata/vally/Azure__AKS-Skills", dir)
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, nil, "init", "--dir", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"2 suite(s): evals/tests/aks-network-capture/eval.yaml, evals/tests/aks-troubleshooting/eval.yaml",
		"Found .vally.yaml", "(mock, smoke)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}

// The baseline is recorded by pushes to the default branch: init reads it from the GitHub
// event, else from git's origin/HEAD, else writes main; --branch wins.
func TestInitReadsTheDefaultBranch(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	withOrigin := func(t *testing.T, dir, branch string) {
		for _, args := range [][]string{{"init", "-q"}, {"symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/" + branch}} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	event := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(event, []byte(`{"repository": {"full_name": "acme/demo", "default_branch": "trunk"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		origin string // git's origin/HEAD, "" for a folder without git
		env    map[string]string
		args   []string
		want   string
		how    string
	}{
		{"git", "develop", nil, nil, "develop", "from git's origin/HEAD"},
		{"the event first", "develop", map[string]string{"GITHUB_EVENT_PATH": event}, nil, "trunk", "from the GitHub event"},
		{"neither", "", nil, nil, "main", "no GitHub event, and git names no origin/HEAD"},
		{"--branch", "develop", map[string]string{"GITHUB_EVENT_PATH": event}, []string{"--branch", "release/v2"}, "release/v2", "from --branch"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			copyDir(t, hello, filepath.Join(dir, "evals/hello"))
			if tc.origin != "" {
				withOrigin(t, dir, tc.origin)
			}
			code, stdout, stderr := run(t, tc.env, append([]string{"init", "--dir", dir}, tc.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			wf, _ := os.ReadFile(filepath.Join(dir, ".github/workflows/skillgate.yml"))
			if !strings.Contains(string(wf), "    branches: ["+tc.want+"]\n") {
				t.Errorf("the push trigger is not on %s:\n%s", tc.want, wf)
			}
			if want := "Default branch: " + tc.want + " (" + tc.how; !strings.Contains(stdout, want) {
				t.Errorf("output lacks %q:\n%s", want, stdout)
			}
			lint(t, filepath.Join(dir, ".github/workflows/skillgate.yml"))
		})
	}
}

// A suite on a real agent gets the composite action, which runs on the runner, with the agent
// CLI installed before it and its key mapped from a secret; the report workflow runs no agent
// and keeps the container action. Suites on mock get neither.
func TestInitPicksTheCompositeActionForAgents(t *testing.T) {
	dir := initRepo(t) // evals/judged runs on claude-code
	if code, _, stderr := run(t, nil, "init", "--dir", dir, "--uses", "skillgate/skillgate@v1.2.3"); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	evaluate := filepath.Join(dir, ".github/workflows/skillgate.yml")
	report := filepath.Join(dir, ".github/workflows/skillgate-report.yml")
	lint(t, evaluate, report)
	ev, _ := os.ReadFile(evaluate)
	for _, want := range []string{"uses: actions/setup-node@v4", "run: npm install -g @anthropic-ai/claude-code",
		"uses: skillgate/skillgate/composite@v1.2.3\n        env:\n          ANTHROPIC_API_KEY: ${{ secrets.ANTHROPIC_API_KEY }}\n"} {
		if !strings.Contains(string(ev), want) {
			t.Errorf("skillgate.yml lacks %q:\n%s", want, ev)
		}
	}
	if rep, _ := os.ReadFile(report); !strings.Contains(string(rep), "uses: skillgate/skillgate@v1.2.3\n") {
		t.Errorf("the report workflow must keep the container action:\n%s", rep)
	}

	mockOnly := t.TempDir()
	copyDir(t, hello, filepath.Join(mockOnly, "evals/hello"))
	if code, _, stderr := run(t, nil, "init", "--dir", mockOnly); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	ev, _ = os.ReadFile(filepath.Join(mockOnly, ".github/workflows/skillgate.yml"))
	if !strings.Contains(string(ev), "uses: skillgate/skillgate@v1\n") || strings.Contains(string(ev), "setup-node") || strings.Contains(string(ev), "secrets.") {
		t.Errorf("a mock suite needs the container action and nothing installed:\n%s", ev)
	}
}

// Qwen Code reads its endpoint and model besides its key: init maps them from repository
// variables and says so.
func TestInitMapsQwenCodesEndpointAndModel(t *testing.T) {
	dir := t.TempDir()
	suite := "name: qwen\nconfig:\n  executor: qwen-code\ntasks:\n  - id: a\n    inputs:\n      prompt: hi\n"
	if err := os.MkdirAll(filepath.Join(dir, "evals/qwen"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "evals/qwen/eval.yaml"), []byte(suite), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, nil, "init", "--dir", dir, "--uses", "skillgate/skillgate@v1")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	evaluate := filepath.Join(dir, ".github/workflows/skillgate.yml")
	lint(t, evaluate)
	ev, _ := os.ReadFile(evaluate)
	want := "run: npm install -g @qwen-code/qwen-code\n"
	env := "        env:\n          OPENAI_API_KEY: ${{ secrets.OPENAI_API_KEY }}\n" +
		"          OPENAI_BASE_URL: ${{ vars.OPENAI_BASE_URL }}\n          OPENAI_MODEL: ${{ vars.OPENAI_MODEL }}\n"
	if !strings.Contains(string(ev), want) || !strings.Contains(string(ev), env) {
		t.Errorf("skillgate.yml lacks the install step or the mapped variables:\n%s", ev)
	}
	if !strings.Contains(stdout, "Add the repository variable(s) OPENAI_BASE_URL, OPENAI_MODEL") {
		t.Errorf("init does not name the variables to add:\n%s", stdout)
	}
}

// Every agent executor has an install step, and it is the one docs/agents.md shows.
func TestInitAgentSetupsMatchTheDocs(t *testing.T) {
	docs, err := os.ReadFile(filepath.Join(repoRoot, "docs/agents.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range agent.Names() {
		canonical, _ := agent.Canonical(name)
		if canonical != name || name == "mock" || name == "replay" || name == "command" {
			continue
		}
		s, ok := agentSetups[name]
		if !ok {
			t.Errorf("executor %s has no install step for skillgate init", name)
			continue
		}
		for _, want := range []string{"npm install -g " + s.Package, s.Env} {
			if !bytes.Contains(docs, []byte(want)) {
				t.Errorf("%s: docs/agents.md does not show %q", name, want)
			}
		}
	}
}
