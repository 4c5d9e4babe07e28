package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/internal/ghlog"
	"github.com/skillgate/skillgate/internal/proctest"
	"github.com/skillgate/skillgate/internal/testtree"
	"github.com/skillgate/skillgate/results"
)

type testApp struct {
	*app
	out, err *bytes.Buffer
}

func newTestApp(env map[string]string) *testApp {
	out, errb := &bytes.Buffer{}, &bytes.Buffer{}
	return &testApp{
		app: &app{stdout: out, stderr: errb, getenv: func(k string) string { return env[k] }, ctx: context.Background()},
		out: out, err: errb,
	}
}

func run(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	a := newTestApp(env)
	code = a.main(args)
	return code, a.out.String(), a.err.String()
}

func readResults(t *testing.T, path string) *results.SuiteResult {
	t.Helper()
	s, err := results.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const hello = "../../examples/hello"

func TestRunHelloEndToEnd(t *testing.T) {
	out := t.TempDir()
	code, stdout, stderr := run(t, nil, "run", hello, "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"Running hello: 7 agent runs: 2 tasks × 2 trials + 3 trigger prompts\n", "✓ [1/2]", "✓ [2/2]", "trigger tests: accuracy 1.00", "SUITE", "hello", "passed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	res := readResults(t, results.PathIn(out, "hello"))
	if res.Summary.Succeeded != 2 || res.Config.RunsPerTest != 2 || res.TriggerMetrics.Accuracy != 1 || !res.Gate.Passed {
		t.Errorf("results: %+v %+v", res.Summary, res.Gate)
	}
	for _, f := range []string{"junit.xml", "results.sarif", "comment.md", "summary.md"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("report %s: %v", f, err)
		}
	}
}

// --task selects trigger prompts by id as it selects tasks, and --skip-triggers runs none; the
// plan line says what will run.
func TestRunSelectsTriggerPrompts(t *testing.T) {
	tests := []struct {
		args     []string
		plan     string
		tasks    int // tasks run
		triggers int // trigger prompt runs
	}{
		// Trigger prompts run once each, as in waza, while tasks run their trials.
		{[]string{"--task", "should-not-*"}, "Running hello: 1 agent run: 1 trigger prompt\n", 0, 1},
		{[]string{"--task", "greet", "--task", "should-1"}, "Running hello: 3 agent runs: 1 task × 2 trials + 1 trigger prompt\n", 1, 1},
		{[]string{"--skip-triggers", "--trials", "1"}, "Running hello: 2 agent runs: 2 tasks × 1 trial\n", 2, 0},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := run(t, nil, append([]string{"run", hello, "--out", out}, tc.args...)...)
			if code != exitOK || !strings.HasPrefix(stdout, tc.plan) {
				t.Fatalf("exit %d\n%s\n%s\nwant the plan %q first", code, stdout, stderr, tc.plan)
			}
			res := readResults(t, results.PathIn(out, "hello"))
			ran := 0
			for _, task := range res.Tasks {
				if task.Status != results.StatusSkipped {
					ran++
				}
			}
			if ran != tc.tasks || len(res.TriggerResults) != tc.triggers {
				t.Errorf("ran %d task(s) and %d trigger run(s), want %d and %d", ran, len(res.TriggerResults), tc.tasks, tc.triggers)
			}
		})
	}
}

func TestReplayReproducesGrades(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	suite := "../../examples/showcase"
	if code, stdout, stderr := run(t, nil, "run", suite, "--out", first, "--quiet"); code != exitOK {
		t.Fatalf("mock run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if code, stdout, stderr := run(t, nil, "run", suite, "--out", second, "--quiet", "--from", first); code != exitOK {
		t.Fatalf("replay: exit %d\n%s\n%s", code, stdout, stderr)
	}
	a, b := readResults(t, results.PathIn(first, "showcase")), readResults(t, results.PathIn(second, "showcase"))
	if b.Config.EngineType != "replay" || b.Config.ReplayFrom != first {
		t.Errorf("replay config: %+v", b.Config)
	}
	if len(a.Tasks) != len(b.Tasks) || len(a.Tasks) == 0 {
		t.Fatalf("tasks %d vs %d", len(a.Tasks), len(b.Tasks))
	}
	graded := 0
	for i := range a.Tasks {
		ta, tb := a.Tasks[i], b.Tasks[i]
		if ta.ID != tb.ID || ta.Status != tb.Status || len(ta.Runs) != len(tb.Runs) {
			t.Fatalf("task %s: %s vs %s", ta.ID, ta.Status, tb.Status)
		}
		for j := range ta.Runs {
			ra, rb := ta.Runs[j], tb.Runs[j]
			if ra.FinalOutput != rb.FinalOutput || ra.Score != rb.Score || len(ra.Validations) != len(rb.Validations) {
				t.Fatalf("%s run %d differs", ta.ID, j+1)
			}
			for k, va := range ra.Validations {
				vb := rb.Validations[k]
				if va.Name != vb.Name || va.Score != vb.Score || va.Passed != vb.Passed || va.Feedback != vb.Feedback {
					t.Errorf("%s run %d grader %s: %+v vs %+v", ta.ID, j+1, va.Name, va, vb)
				}
				graded++
			}
		}
	}
	if graded < 20 || a.TriggerMetrics.Accuracy != b.TriggerMetrics.Accuracy || a.Summary.AggregateScore != b.Summary.AggregateScore {
		t.Errorf("graded %d; trigger %v vs %v", graded, a.TriggerMetrics, b.TriggerMetrics)
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"a task fails", []string{"run", "testdata/failing", "--quiet"}, exitFailed, ""},
		{"threshold missed", []string{"run", "testdata/threshold", "--quiet"}, exitFailed, ""},
		{"validation errors", []string{"run", "testdata/bad"}, exitUsage, "nothing was run"},
		{"no suites", []string{"run", "testdata/bad/nowhere"}, exitUsage, "no such file"},
		{"filter matches nothing", []string{"run", hello, "--task", "nope*"}, exitUsage, "no task or trigger prompt matches"},
		{"malformed filter", []string{"run", hello, "--tags", "tier=[smoke"}, exitUsage, "--task/--tags \"tier=[smoke\""},
		{"bad flag", []string{"run", "--trials", "x"}, exitUsage, "invalid value"},
		{"bad timeout", []string{"run", hello, "--timeout", "0"}, exitUsage, "at least 1"},
		{"unknown executor", []string{"run", hello, "--executor", "nope"}, exitUsage, "unknown executor \"nope\""},
		{"replay without input", []string{"run", hello, "--executor", "replay"}, exitUsage, "--from"},
		{"agent not installed", []string{"run", hello, "--executor", "codex", "--agent-path", "/nonexistent/codex"}, exitUsage, "agent CLI \"/nonexistent/codex\" not found"},
		{"unknown command", []string{"frobnicate"}, exitUsage, "unknown command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append(tc.args, "--out", t.TempDir())
			if tc.args[0] == "frobnicate" {
				args = tc.args
			}
			code, stdout, stderr := run(t, nil, args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d\n%s\n%s", code, tc.code, stdout, stderr)
			}
			if !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.stderr, stderr)
			}
		})
	}
}

func TestFailingRunStillWritesEverything(t *testing.T) {
	out := t.TempDir()
	code, stdout, _ := run(t, nil, "run", "testdata/failing", "--out", out, "-o", filepath.Join(out, "copy.json"))
	if code != exitFailed {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stdout, "✗") || !strings.Contains(stdout, "wants_python: Missing expected substring: python") {
		t.Errorf("progress should explain the failure:\n%s", stdout)
	}
	for _, f := range []string{"copy.json", "junit.xml", "results.sarif", "comment.md", "results/failing.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s must be written even when tasks fail: %v", f, err)
		}
	}
	junit, _ := os.ReadFile(filepath.Join(out, "junit.xml"))
	if !strings.Contains(string(junit), `type="GraderFailure"`) {
		t.Errorf("junit lacks the failure:\n%s", junit)
	}
}

func TestSeveralSuitesAndOutputNaming(t *testing.T) {
	out := t.TempDir()
	// examples/graders needs python3 and a TypeScript runner; it has its own test.
	code, _, stderr := run(t, nil, "run", hello, "../../examples/showcase", "--out", out, "--quiet", "-o", filepath.Join(out, "res.json"))
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, f := range []string{"res_hello.json", "res_showcase.json", "results/hello.json", "results/showcase.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestValidate(t *testing.T) {
	code, stdout, stderr := run(t, nil, "validate", hello, "../../examples/showcase")
	if code != exitOK || !strings.Contains(stdout, "2 suite(s), 7 task(s): valid") {
		t.Errorf("examples: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, map[string]string{"GITHUB_ACTIONS": "true"}, "validate", "testdata/bad")
	if code != exitUsage {
		t.Fatalf("bad suite: exit %d", code)
	}
	// Every problem at once, each at its position, key named: values waza ignores are warnings,
	// a grader that cannot be evaluated is an error.
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`testdata/bad/eval\.yaml:3:20: warning: config\.trials_per_task: `),
		regexp.MustCompile(`testdata/bad/eval\.yaml:8:7: warning: graders\[0\]\.config\.contians: .*contains`),
		regexp.MustCompile(`testdata/bad/eval\.yaml:12:20: error: config\.must_match\[0\]: grader "broken": invalid regular expression`),
	} {
		if !want.MatchString(stderr) {
			t.Errorf("stderr lacks %s:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "::warning col=20,file=testdata/bad/eval.yaml,line=3::config.trials_per_task") ||
		!strings.Contains(stdout, "::error col=20,file=testdata/bad/eval.yaml,line=12::") {
		t.Errorf("no workflow-command annotation:\n%s", stdout)
	}
	// --strict makes every warning an error.
	code, _, stderr = run(t, nil, "validate", "--strict", "testdata/bad")
	if code != exitUsage || !strings.Contains(stderr, "eval.yaml:3:20: error: config.trials_per_task") {
		t.Errorf("--strict: exit %d\n%s", code, stderr)
	}
	// Warnings alone pass, and --strict fails them.
	if code, stdout, _ := run(t, nil, "validate", "testdata/warnings"); code != exitOK || !strings.Contains(stdout, "warning(s)") {
		t.Errorf("warnings: exit %d\n%s", code, stdout)
	}
	if code, _, _ := run(t, nil, "validate", "--strict", "testdata/warnings"); code != exitUsage {
		t.Errorf("warnings under --strict: exit %d, want %d", code, exitUsage)
	}
}

func TestGitHubActionsProgress(t *testing.T) {
	code, stdout, _ := run(t, map[string]string{"GITHUB_ACTIONS": "true"}, "run", hello, "--out", t.TempDir())
	if code != exitOK || !strings.Contains(stdout, "::group::hello (7 agent runs: 2 tasks × 2 trials + 3 trigger prompts; mock)\n") || !strings.Contains(stdout, "::endgroup::") {
		t.Errorf("exit %d:\n%s", code, stdout)
	}
}

func TestCompareAndReport(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := run(t, nil, "run", hello, "--out", out, "--quiet"); code != exitOK {
		t.Fatal(stderr)
	}
	file := results.PathIn(out, "hello")
	code, stdout, stderr := run(t, nil, "compare", file, file, "--format", "json")
	if code != exitOK {
		t.Fatalf("compare: exit %d %s", code, stderr)
	}
	var cmp map[string]any
	if err := json.Unmarshal([]byte(stdout), &cmp); err != nil || cmp["verdict"] == nil {
		t.Errorf("compare json: %v %s", err, stdout)
	}
	other := t.TempDir()
	run(t, nil, "run", "testdata/failing", "--out", other, "--quiet")
	if code, _, stderr := run(t, nil, "compare", file, results.PathIn(other, "failing")); code != exitUsage || !strings.Contains(stderr, "different suites") {
		t.Errorf("different suites: exit %d %s", code, stderr)
	}
	truncated := filepath.Join(t.TempDir(), "t.json")
	data, _ := os.ReadFile(file)
	os.WriteFile(truncated, data[:len(data)/2], 0o644)
	if code, _, stderr := run(t, nil, "compare", file, truncated); code != exitUsage || !strings.Contains(stderr, "byte") {
		t.Errorf("truncated: exit %d %s", code, stderr)
	}
	if code, _, stderr := run(t, nil, "compare", file, file, "--format", "yaml"); code != exitUsage {
		t.Errorf("unknown format: exit %d %s", code, stderr)
	}

	again := t.TempDir()
	code, stdout, stderr = run(t, nil, "report", file, "--out", again, "--baseline", file, "--junit", filepath.Join(again, "extra", "j.xml"))
	if code != exitOK {
		t.Fatalf("report: exit %d %s", code, stderr)
	}
	for _, f := range []string{"junit.xml", "results.sarif", "comment.md", "summary.md", "extra/j.xml"} {
		if _, err := os.Stat(filepath.Join(again, f)); err != nil {
			t.Errorf("report %s: %v", f, err)
		}
	}
	if !strings.Contains(stdout, "Δ SCORE") {
		t.Errorf("the table shows deltas with a baseline:\n%s", stdout)
	}
}

// compare takes --out folders, and says what `run --baseline` says on the same files: the
// headline of the comment, the verdict and the exit status of the same fail-on.
func TestCompareFoldersAgreesWithRunBaseline(t *testing.T) {
	base, head := t.TempDir(), t.TempDir()
	if code, _, stderr := run(t, nil, "run", "testdata/failing", "--out", base, "--quiet"); code == exitUsage {
		t.Fatal(stderr)
	}
	code, _, stderr := run(t, nil, "run", "testdata/failing", "--out", head, "--quiet", "--baseline", base)
	comment, err := os.ReadFile(filepath.Join(head, "comment.md"))
	if err != nil {
		t.Fatal(err, stderr)
	}
	lines := strings.Split(string(comment), "\n")
	if lines[1] != "**mock executor: the suites were checked, no agent ran.**" {
		t.Errorf("the comment does not say that no agent ran: %s", lines[1])
	}
	headline := lines[3]
	if !strings.Contains(headline, "No change:") || !strings.Contains(headline, "failing on both") {
		t.Errorf("a rerun of a failing suite: %s", headline)
	}
	cmpCode, stdout, stderr := run(t, nil, "compare", base, head, "--format", "markdown")
	if cmpCode != code {
		t.Errorf("compare exits %d, run --baseline %d: %s", cmpCode, code, stderr)
	}
	if !strings.Contains(stdout, strings.TrimPrefix(headline, "### ")) {
		t.Errorf("compare does not say what the comment says (%s):\n%s", headline, stdout)
	}
	// The failures are main's too: the default fail-on passes, blocking on any failure does not.
	if code != exitOK {
		t.Errorf("run --baseline with only the baseline's failures: exit %d", code)
	}
	if code, _, _ := run(t, nil, "compare", base, head, "--fail-on", `!passed || verdict == "regressed"`); code != exitFailed {
		t.Errorf("fail-on any failure: exit %d", code)
	}
	again := t.TempDir()
	if code, _, stderr := run(t, nil, "report", head, "--out", again, "--baseline", base); code != exitOK {
		t.Errorf("report of a folder: exit %d %s", code, stderr)
	}
}

func TestVersionAndHelp(t *testing.T) {
	code, stdout, _ := run(t, nil, "version")
	if code != exitOK || !strings.HasPrefix(stdout, "skillgate ") || !strings.Contains(stdout, "commit ") {
		t.Errorf("version: %d %q", code, stdout)
	}
	code, stdout, _ = run(t, nil, "--help")
	if code != exitOK || !strings.Contains(stdout, "validate") {
		t.Errorf("help: %d %q", code, stdout)
	}
}

func TestReplayMissingTaskIsAnErrorRunOnly(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := run(t, nil, "run", hello, "--out", out, "--quiet", "--task", "greet"); code != exitOK {
		t.Fatal(stderr)
	}
	// The recording holds greet only: replaying the whole suite errors farewell's runs with a
	// clear message and grades greet as before.
	again := t.TempDir()
	code, _, _ := run(t, nil, "run", hello, "--out", again, "--quiet", "--from", results.PathIn(out, "hello"))
	if code != exitFailed {
		t.Fatalf("exit %d", code)
	}
	res := readResults(t, results.PathIn(again, "hello"))
	byID := map[string]*results.TaskResult{}
	for _, tk := range res.Tasks {
		byID[tk.ID] = tk
	}
	if tk := byID["farewell"]; tk.Status != results.StatusError || !strings.Contains(tk.Runs[0].ErrorMsg, "no recorded run for task farewell trial 1") {
		t.Errorf("farewell: %s %+v", tk.Status, tk.Runs)
	}
	if tk := byID["greet"]; tk.Status != results.StatusPassed {
		t.Errorf("greet: %s", tk.Status)
	}
}

func TestInterruptedRunWritesIncompleteResults(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "marker")
	t.Setenv("SKILLGATE_TEST_MARKER", marker)
	a := newTestApp(nil)
	ctx, cancel := context.WithCancel(context.Background())
	a.ctx = ctx
	go func() {
		// Interrupt once task b's hook runs, like Ctrl-C in the middle of a suite.
		for {
			if _, err := os.Stat(marker); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	out := t.TempDir()
	if code := a.main([]string{"run", "testdata/slow", "--out", out, "--quiet"}); code != exitFailed {
		t.Fatalf("exit %d: %s", code, a.err.String())
	}
	if _, err := os.Stat(marker + ".done"); err == nil {
		t.Errorf("the interrupted hook was waited out, not killed")
	}
	if data, err := os.ReadFile(marker + ".pid"); err != nil {
		t.Errorf("the hook did not record its pid: %v", err)
	} else if pid, _ := strconv.Atoi(strings.TrimSpace(string(data))); !proctest.WaitGone(pid, 5*time.Second) {
		t.Errorf("the interrupted hook (pid %d) outlived the run", pid)
	}
	res := readResults(t, results.PathIn(out, "slow"))
	if !res.Incomplete || res.Gate.Passed || !strings.Contains(a.err.String(), "interrupted") {
		t.Errorf("incomplete %v gate %+v\n%s", res.Incomplete, res.Gate, a.err.String())
	}
	if res.Tasks[0].Status != results.StatusPassed || res.Tasks[1].Status != results.StatusSkipped {
		t.Errorf("finished work is kept, the rest skipped: %s %s", res.Tasks[0].Status, res.Tasks[1].Status)
	}
}

// A mistake in --fail-on is found before any work: nothing runs and nothing is written.
func TestFailOnCheckedFirst(t *testing.T) {
	for _, cmd := range []string{"run", "report", "merge"} {
		t.Run(cmd, func(t *testing.T) {
			out := t.TempDir()
			code, _, stderr := run(t, nil, cmd, hello, "--out", out, "--fail-on", "new_failures >")
			if code != exitUsage || !strings.Contains(stderr, `--fail-on "new_failures >"`) {
				t.Fatalf("exit %d, stderr:\n%s", code, stderr)
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("%s wrote %d entries to --out before refusing", cmd, len(entries))
			}
		})
	}
}

// A baseline whose figures overflow (hand-edited, or from another tool) is read with its figures
// clamped and a warning, and compared without a panic (issue 27).
func TestCompareClampsOverflowingBaseline(t *testing.T) {
	out := t.TempDir()
	if code, _, stderr := run(t, nil, "run", hello, "--out", out, "--quiet"); code != exitOK {
		t.Fatal(stderr)
	}
	file := results.PathIn(out, "hello")
	data, _ := os.ReadFile(file)
	huge := regexp.MustCompile(`"avg_score":[0-9.e+-]+`).ReplaceAll(data, []byte(`"avg_score":1.7e308`))
	base := filepath.Join(t.TempDir(), "base.json")
	os.WriteFile(base, huge, 0o644)
	for _, args := range [][]string{{"compare", base, file}, {"compare", file, base}, {"report", file, "--out", t.TempDir(), "--baseline", base}} {
		code, stdout, stderr := run(t, nil, args...)
		if code != exitOK || !strings.Contains(stderr, "skillgate: warning: "+base+": tasks' stats:") || strings.Contains(stdout, "Inf") || strings.Contains(stdout, "NaN") {
			t.Errorf("%s: exit %d\n%s\n%s", args[0], code, stderr, stdout)
		}
	}
}

// Inside GitHub Actions no suite-controlled text reaches the log as a workflow command: names,
// messages and outputs holding a line break ("\n" or a lone "\r", which the runner also reads as
// one) followed by `::…` are defused; only skillgate's own group markers and annotations are
// commands (issue 27).
func TestGitHubActionsLogHasNoInjectedCommands(t *testing.T) {
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"eval.yaml": "name: \"inject\\n::error::suite name\"\nconfig:\n  executor: mock\ngraders:\n  - type: text\n    name: \"g\\r::add-mask::grader\"\n    config:\n      contains: [\"never there\\n::warning::pattern\"]\n" +
			"tasks:\n  - id: t1\n    name: \"task\\n::error title=forged::all evals passed\"\n    inputs:\n      prompt: \"say\\r\\n##[error]prompt\"\n  - id: t2\n    name: \"::stop-commands::token\"\n    inputs:\n      prompt: hi\n      environment: {\"X\\n::notice::env\": \"1\"}\n",
	})
	code, stdout, stderr := run(t, map[string]string{"GITHUB_ACTIONS": "true"}, "run", dir, "--out", t.TempDir())
	if code != exitFailed {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	groups := 0
	for _, out := range []string{stdout, stderr} {
		for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' }) {
			if !ghlog.IsCommand([]byte(line)) {
				continue
			}
			switch {
			case strings.HasPrefix(line, "::group::inject%0A::error::suite name ("), line == "::endgroup::":
				groups++
			default:
				t.Errorf("a workflow command reached the log: %q", line)
			}
		}
	}
	if groups != 2 || !strings.Contains(stdout, ghlog.Mark+"::error title=forged::all evals passed") {
		t.Errorf("%d group markers; the forged line is not shown defused:\n%s\n%s", groups, stdout, stderr)
	}
}
