package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/internal/inflight"
	"github.com/skillgate/skillgate/internal/reap"
	"github.com/skillgate/skillgate/internal/testtree"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// The runner is tested with its own grader type so these tests do not depend on the grading
// rules of the graders package: "runner_contains" passes when the output contains config.want,
// and fails its first `fail_first` calls per task/trial when asked to (to exercise retries).
func init() {
	registerTestGrader("runner_contains", func(cfg runnerContainsConfig) graders.GraderFunc {
		var mu sync.Mutex
		calls := map[string]int{}
		return func(ctx context.Context, in *graders.Input) (*results.GraderResult, error) {
			if cfg.Panic != "" {
				var big []byte
				_ = big[len(cfg.Panic)] // a runtime error, as a grader's bug would raise
			}
			if cfg.Err != "" && cfg.ErrDetail != "" {
				return &results.GraderResult{Score: 1, Passed: true, Details: map[string]any{"stderr": cfg.ErrDetail}}, errors.New(cfg.Err)
			}
			if cfg.Err != "" {
				return nil, errors.New(cfg.Err)
			}
			mu.Lock()
			key := in.Task.ID + "/" + string(rune('0'+in.Trial))
			calls[key]++
			n := calls[key]
			mu.Unlock()
			ok := strings.Contains(in.Run.FinalOutput, cfg.Want) && n > cfg.FailFirst
			score := 0.0
			if ok {
				score = 1
			}
			return &results.GraderResult{Score: score, Passed: ok, Feedback: "checked"}, nil
		}
	})
}

// registerTestGrader registers a grader type of these tests: grade makes the grading function
// of one declaration from its config, a C.
func registerTestGrader[C any](name string, grade func(cfg C) graders.GraderFunc) {
	graders.Register(&graders.Type{
		Name:    name,
		Summary: "test grader",
		Config:  func([]string) any { return new(C) },
		Compile: func(def *spec.Grader, _ *graders.Env) (graders.Grader, spec.Diagnostics) {
			return grade(*def.Config.(*C)), nil
		},
	})
}

type runnerContainsConfig struct {
	Want      string `yaml:"want"`
	FailFirst int    `yaml:"fail_first"`
	Err       string `yaml:"error"`
	ErrDetail string `yaml:"error_detail"`
	Panic     string `yaml:"panic"`
}

func grader(t testing.TB, name, cfgYAML string) *spec.Grader {
	t.Helper()
	src := "type: runner_contains\nname: " + name + "\nconfig:\n  " + strings.ReplaceAll(cfgYAML, "\n", "\n  ") + "\n"
	g, err := spec.ParseGrader("eval.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	g.Pos = spec.Pos{File: "/repo/evals/x/eval.yaml", Line: 7, Col: 5}
	return g
}

func task(id, prompt string, gs ...*spec.Grader) *spec.Task {
	return &spec.Task{ID: id, Name: id, Prompt: prompt, Graders: gs, Pos: spec.Pos{File: "/repo/evals/x/tasks/" + id + ".yaml", Line: 1, Col: 1}}
}

func suite(dir string, tasks ...*spec.Task) *spec.Suite {
	return &spec.Suite{
		Name: "demo", Skill: "demo-skill", Dir: dir, File: filepath.Join(dir, "eval.yaml"),
		Config: spec.Config{TrialsPerTask: 1, TimeoutSeconds: 30, MaxWorkers: 4, MaxAttempts: 1, Executor: "mock"},
		Tasks:  tasks,
	}
}

// fixture writes a task's input file below dir/fixtures and returns its path.
func fixture(t *testing.T, dir, name, content string) string {
	t.Helper()
	testtree.Write(t, dir, map[string]string{"fixtures/" + name: content})
	return filepath.Join(dir, "fixtures", name)
}

func compile(t *testing.T, s *spec.Suite) *graders.Compiled {
	t.Helper()
	c, diags := graders.Compile(s)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return c
}

func run(t *testing.T, s *spec.Suite, opts Options) *results.SuiteResult {
	t.Helper()
	if opts.Executor == nil {
		opts.Executor = agent.Mock{}
	}
	opts.Graders = compile(t, s)
	res, err := Run(context.Background(), s, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestRunScoresAndStatuses(t *testing.T) {
	s := suite(t.TempDir(),
		task("good", "say hello", grader(t, "has_hello", "want: hello")),
		task("bad", "say bye", grader(t, "has_hello", "want: hello"), grader(t, "has_bye", "want: bye")),
	)
	s.Config.TrialsPerTask = 3
	res := run(t, s, Options{})
	if res.EvalName != "demo" || res.Config.RunsPerTest != 3 || res.Config.EngineType != "mock" || res.SchemaVersion != results.SchemaVersion {
		t.Errorf("header: %+v", res.Config)
	}
	good, bad := res.Tasks[0], res.Tasks[1]
	if good.Status != results.StatusPassed || len(good.Runs) != 3 || good.Stats.PassRate != 1 {
		t.Errorf("good: %s %+v", good.Status, good.Stats)
	}
	if bad.Status != results.StatusFailed || bad.Stats.AvgScore != 0.5 || bad.Runs[0].Validations[1].Name != "has_bye" {
		t.Errorf("bad: %s %+v", bad.Status, bad.Stats)
	}
	if got := bad.Runs[0].FinalOutput; got != "Mock response for: say bye" {
		t.Errorf("mock output %q", got)
	}
	if v := good.Runs[0].Validations[0]; v.Source == nil || v.Source.Line != 7 || v.Weight != 1 || v.Type != "runner_contains" {
		t.Errorf("grader result metadata: %+v", v)
	}
	if res.Summary.Succeeded != 1 || res.Summary.Failed != 1 || res.Summary.TotalRuns != 6 || res.Gate.Passed {
		t.Errorf("summary %+v gate %+v", res.Summary, res.Gate)
	}
}

func TestMaxAttemptsRetriesFailedRuns(t *testing.T) {
	s := suite(t.TempDir(), task("flaky", "hello", grader(t, "g", "{want: hello, fail_first: 1}")))
	s.Config.MaxAttempts = 3
	res := run(t, s, Options{})
	r := res.Tasks[0].Runs[0]
	if r.Status != results.StatusPassed || r.Attempts != 2 {
		t.Errorf("want a pass on attempt 2, got %s after %d", r.Status, r.Attempts)
	}

	s = suite(t.TempDir(), task("never", "hello", grader(t, "g", "{want: nope}")))
	s.Config.MaxAttempts = 3
	res = run(t, s, Options{})
	if r := res.Tasks[0].Runs[0]; r.Status != results.StatusFailed || r.Attempts != 3 {
		t.Errorf("want 3 failed attempts, got %s after %d", r.Status, r.Attempts)
	}
}

func TestFailFastSkipsTheRest(t *testing.T) {
	s := suite(t.TempDir(),
		task("a", "hello", grader(t, "g", "want: hello")),
		task("b", "bye", grader(t, "g", "want: hello")),
		task("c", "hello", grader(t, "g", "want: hello")),
	)
	s.Config.FailFast = true
	res := run(t, s, Options{})
	got := []results.Status{res.Tasks[0].Status, res.Tasks[1].Status, res.Tasks[2].Status}
	want := []results.Status{results.StatusPassed, results.StatusFailed, results.StatusSkipped}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("statuses %v, want %v", got, want)
		}
	}
	if !strings.Contains(res.Tasks[2].SkipReason, "fail_fast") || res.Summary.Skipped != 1 {
		t.Errorf("skip reason %q, summary %+v", res.Tasks[2].SkipReason, res.Summary)
	}
}

func TestFiltersReportSkipped(t *testing.T) {
	a, b := task("alpha", "hello"), task("beta", "hello")
	b.Tags = []string{"slow"}
	s := suite(t.TempDir(), a, b)
	res := run(t, s, Options{TagGlobs: []string{"sl*"}})
	if res.Tasks[0].Status != results.StatusSkipped || res.Tasks[1].Status != results.StatusPassed {
		t.Errorf("tag filter: %s %s", res.Tasks[0].Status, res.Tasks[1].Status)
	}
	res = run(t, s, Options{TaskGlobs: []string{"al*"}})
	if res.Tasks[0].Status != results.StatusPassed || !strings.HasPrefix(res.Tasks[1].SkipReason, "filtered: --task") {
		t.Errorf("task filter: %+v", res.Tasks[1])
	}
	if n := Selected(s, []string{"nothing*"}, nil); n != 0 {
		t.Errorf("Selected = %d", n)
	}
}

// countingExecutor records the highest number of concurrent runs.
type countingExecutor struct {
	runs  inflight.Gauge
	delay time.Duration
}

func (c *countingExecutor) Name() string { return "counting" }
func (c *countingExecutor) Run(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
	defer c.runs.Enter()()
	select {
	case <-time.After(c.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &results.AgentRun{FinalOutput: "ok " + req.Prompt}, nil
}

func TestParallelismIsBounded(t *testing.T) {
	var tasks []*spec.Task
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		tasks = append(tasks, task(id, "p"))
	}
	s := suite(t.TempDir(), tasks...)
	s.Config.TrialsPerTask = 2
	exec := &countingExecutor{delay: 20 * time.Millisecond}
	parallel := true
	res := run(t, s, Options{Executor: exec, Parallel: &parallel, Workers: 3})
	if p := exec.runs.Peak(); p != 3 {
		t.Errorf("peak concurrency %d, want 3", p)
	}
	if res.Summary.TotalRuns != 16 || res.Config.Workers != 3 {
		t.Errorf("runs %d workers %d", res.Summary.TotalRuns, res.Config.Workers)
	}
	exec = &countingExecutor{delay: time.Millisecond}
	run(t, s, Options{Executor: exec})
	if p := exec.runs.Peak(); p != 1 {
		t.Errorf("sequential peak %d, want 1", p)
	}
}

type blockingExecutor struct{ ignoreCancel bool }

func (b blockingExecutor) Name() string { return "blocking" }
func (b blockingExecutor) Run(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
	if b.ignoreCancel {
		time.Sleep(time.Hour)
	}
	<-ctx.Done()
	return &results.AgentRun{FinalOutput: "partial"}, ctx.Err()
}

func TestTimeoutsAreEnforced(t *testing.T) {
	s := suite(t.TempDir(), task("slow", "hello", grader(t, "g", "want: partial")))
	res := run(t, s, Options{Executor: blockingExecutor{}, Timeout: 50 * time.Millisecond})
	r := res.Tasks[0].Runs[0]
	if r.Status != results.StatusError || !strings.Contains(r.ErrorMsg, "timed out after 50ms") || r.AgentError == "" {
		t.Errorf("run %s %q", r.Status, r.ErrorMsg)
	}
	// What the agent produced before the deadline is kept and graded.
	if r.FinalOutput != "partial" || len(r.Validations) != 1 || !r.Validations[0].Passed {
		t.Errorf("partial output lost: %+v", r)
	}
	if res.Tasks[0].Status != results.StatusError || res.Summary.Errors != 1 {
		t.Errorf("task %s summary %+v", res.Tasks[0].Status, res.Summary)
	}
}

func TestStuckExecutorIsAbandoned(t *testing.T) {
	old := abandonGrace
	abandonGrace = 20 * time.Millisecond
	defer func() { abandonGrace = old }()
	s := suite(t.TempDir(), task("stuck", "hello"))
	res := run(t, s, Options{Executor: blockingExecutor{ignoreCancel: true}, Timeout: 20 * time.Millisecond})
	if r := res.Tasks[0].Runs[0]; r.Status != results.StatusError || !strings.Contains(r.ErrorMsg, "abandoned") {
		t.Errorf("run %s %q", r.Status, r.ErrorMsg)
	}
}

func TestGraderErrorMakesRunError(t *testing.T) {
	s := suite(t.TempDir(), task("t", "hello", grader(t, "ok", "want: hello"), grader(t, "broken", "error: judge unreachable")))
	res := run(t, s, Options{})
	r := res.Tasks[0].Runs[0]
	if r.Status != results.StatusError || !strings.Contains(r.ErrorMsg, "grader broken: judge unreachable") {
		t.Errorf("run %s %q", r.Status, r.ErrorMsg)
	}
	if v := r.Validations.Get("broken"); v == nil || v.Status != results.StatusError || v.Passed {
		t.Errorf("broken grader result: %+v", v)
	}
	if v := r.Validations.Get("ok"); v == nil || !v.Passed {
		t.Errorf("other graders still run: %+v", v)
	}
	if res.Tasks[0].Prompt != "hello" {
		t.Errorf("task prompt %q", res.Tasks[0].Prompt)
	}
}

// panickingChecks is a grader whose checks are separate results (as judged_checks) and which
// panics, as a bug in one would.
type panickingChecks struct{}

func (panickingChecks) Grade(context.Context, *graders.Input) (*results.GraderResult, error) {
	panic("Grade of a multi grader is not called")
}

func (panickingChecks) GradeChecks(_ context.Context, in *graders.Input) ([]*results.GraderResult, error) {
	var checks []*results.GraderResult
	return checks[len(in.Task.ID):], nil // a runtime error: slice bounds out of range
}

func init() {
	graders.Register(&graders.Type{
		Name: "runner_checks_panic", Summary: "test grader",
		Config: func([]string) any { return new(struct{}) },
		Compile: func(*spec.Grader, *graders.Env) (graders.Grader, spec.Diagnostics) {
			return panickingChecks{}, nil
		},
	})
}

// A grader that panics errors its own run; the other graders, runs and tasks are graded and the
// results written (issue 27: a crash in a grader lost the whole run). The same for a grader
// whose checks are separate results.
func TestGraderPanicErrorsItsRunOnly(t *testing.T) {
	checks, err := spec.ParseGrader("eval.yaml", []byte("type: runner_checks_panic\nname: checks\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, crashing := range []*spec.Grader{grader(t, "crashing", "panic: index"), checks} {
		t.Run(crashing.Type, func(t *testing.T) {
			s := suite(t.TempDir(),
				task("t", "hello", grader(t, "ok", "want: hello"), crashing),
				task("u", "hello", grader(t, "ok", "want: hello")))
			res := run(t, s, Options{})
			r := res.Tasks[0].Runs[0]
			if r.Status != results.StatusError || !strings.Contains(r.ErrorMsg, "grader "+crashing.Name+": the grader crashed: ") {
				t.Errorf("run %s %q", r.Status, r.ErrorMsg)
			}
			if v := r.Validations.Get("ok"); v == nil || !v.Passed {
				t.Errorf("the other grader of the run: %+v", v)
			}
			if res.Tasks[1].Status != results.StatusPassed {
				t.Errorf("the other task: %s", res.Tasks[1].Status)
			}
		})
	}
}

// A grader that returns what it learned along with its error (a script's stderr) keeps its
// details; its verdict is dropped.
func TestGraderErrorKeepsDetails(t *testing.T) {
	s := suite(t.TempDir(), task("t", "hello", grader(t, "script", "error: script exited with status 1\nerror_detail: Traceback")))
	r := run(t, s, Options{}).Tasks[0].Runs[0]
	v := r.Validations.Get("script")
	if r.Status != results.StatusError || v.Status != results.StatusError || v.Passed || v.Score != 0 || v.Details["stderr"] != "Traceback" ||
		v.Feedback != "grader could not run: script exited with status 1" {
		t.Errorf("%s %+v", r.Status, v)
	}
}

func TestWorkspaceInputsAndChanges(t *testing.T) {
	dir := t.TempDir()
	tk := task("files", "analyze")
	tk.Files = []*spec.InputFile{
		{Path: "src/main.py", Source: fixture(t, dir, "src.py", "print(1)\n")},
		{Path: "notes.txt", Content: "inline", HasContent: true},
	}
	s := suite(dir, tk)
	var seen []string
	exec := execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		data, _ := os.ReadFile(filepath.Join(req.Workspace, "src/main.py"))
		note, _ := os.ReadFile(filepath.Join(req.Workspace, "notes.txt"))
		seen = append(seen, string(data), string(note))
		os.WriteFile(filepath.Join(req.Workspace, "out.txt"), []byte("new"), 0o644)
		os.WriteFile(filepath.Join(req.Workspace, "notes.txt"), []byte("changed"), 0o644)
		os.MkdirAll(filepath.Join(req.Workspace, ".claude", "skills", "x"), 0o755)
		os.WriteFile(filepath.Join(req.Workspace, ".claude", "skills", "x", "SKILL.md"), []byte("x"), 0o644)
		// Qwen Code's skills folder, and the .gitignore opencode writes into its own.
		os.MkdirAll(filepath.Join(req.Workspace, ".qwen", "skills", "x"), 0o755)
		os.WriteFile(filepath.Join(req.Workspace, ".qwen", "skills", "x", "SKILL.md"), []byte("x"), 0o644)
		os.MkdirAll(filepath.Join(req.Workspace, ".opencode"), 0o755)
		os.WriteFile(filepath.Join(req.Workspace, ".opencode", ".gitignore"), []byte("node_modules\n"), 0o644)
		return &results.AgentRun{FinalOutput: strings.Join(req.InputFiles, ",")}, nil
	})
	root := filepath.Join(dir, "ws")
	res := run(t, s, Options{Executor: exec, KeepWorkspaces: true, WorkspaceRoot: root})
	if len(seen) != 2 || seen[0] != "print(1)\n" || seen[1] != "inline" {
		t.Errorf("inputs in workspace: %q", seen)
	}
	r := res.Tasks[0].Runs[0]
	if r.FinalOutput != "src/main.py,notes.txt" {
		t.Errorf("input list %q", r.FinalOutput)
	}
	want := []results.FileChange{{Path: "notes.txt", Change: "modified", Size: 7, Content: "changed"}, {Path: "out.txt", Change: "added", Size: 3, Content: "new"}}
	if len(r.ChangedFiles) != 2 || r.ChangedFiles[0] != want[0] || r.ChangedFiles[1] != want[1] {
		t.Errorf("changes %+v", r.ChangedFiles)
	}
	if r.WorkspaceDir == "" || !strings.HasPrefix(r.WorkspaceDir, root) {
		t.Errorf("kept workspace %q", r.WorkspaceDir)
	}
	if _, err := os.Stat(filepath.Join(r.WorkspaceDir, "out.txt")); err != nil {
		t.Errorf("kept workspace must stay: %v", err)
	}

	// Without --keep-workspaces nothing is left behind.
	res = run(t, s, Options{Executor: exec, WorkspaceRoot: root + "2"})
	entries, _ := os.ReadDir(root + "2")
	if len(entries) != 0 || res.Tasks[0].Runs[0].WorkspaceDir != "" {
		t.Errorf("workspaces left: %v", entries)
	}

	// An escaping path never reaches the file system, whatever the loader let through.
	tk.Files = []*spec.InputFile{{Path: "../evil.txt", Content: "x", HasContent: true}}
	res = run(t, s, Options{Executor: exec, WorkspaceRoot: root + "3"})
	if r := res.Tasks[0].Runs[0]; r.Status != results.StatusError || !strings.Contains(r.ErrorMsg, "escapes the workspace") {
		t.Errorf("escaping path: %s %q", r.Status, r.ErrorMsg)
	}
	if _, err := os.Stat(filepath.Join(root, "evil.txt")); err == nil {
		t.Error("escaping file was written")
	}
}

type execFunc func(ctx context.Context, req *agent.Request) (*results.AgentRun, error)

func (f execFunc) Name() string { return "func" }
func (f execFunc) Run(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
	return f(ctx, req)
}

func TestHooks(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.txt")
	s := suite(dir, task("a", "hello"), task("b", "hello"))
	s.Hooks = spec.Hooks{
		BeforeRun:  []*spec.Hook{{Command: `echo "before_run $SKILLGATE_SUITE" >> log.txt`}},
		BeforeTask: []*spec.Hook{{Command: `echo "before_task $SKILLGATE_TASK_ID" >> log.txt; test "$SKILLGATE_TASK_ID" != b`, ExitCodes: []int{0}, ErrorOnFail: true}},
		AfterTask:  []*spec.Hook{{Command: `exit 3`, ExitCodes: []int{3}}},
		AfterRun:   []*spec.Hook{{Command: `echo after_run >> log.txt`}},
	}
	res := run(t, s, Options{})
	data, _ := os.ReadFile(log)
	if got := string(data); got != "before_run demo\nbefore_task a\nbefore_task b\nafter_run\n" {
		t.Errorf("hook log:\n%s", got)
	}
	if res.Tasks[0].Status != results.StatusPassed {
		t.Errorf("task a: %s", res.Tasks[0].Status)
	}
	b := res.Tasks[1]
	if b.Status != results.StatusError || len(b.Runs) != 0 || !strings.Contains(b.ErrorMsg, "before_task hook") || res.Summary.Errors != 1 {
		t.Errorf("task b: %+v", b)
	}

	// A failing hook without error_on_fail is a warning with its place and a fix.
	s.Hooks = spec.Hooks{AfterTask: []*spec.Hook{
		{Command: "exit 4", Pos: spec.Pos{File: "eval.yaml", Line: 7, Col: 5}},
		{Command: "echo x", WorkingDirectory: filepath.Join(dir, "missing"), Pos: spec.Pos{File: "eval.yaml", Line: 8, Col: 5}},
	}}
	var warnings strings.Builder
	if _, err := Run(context.Background(), s, Options{Executor: agent.Mock{}, Graders: compile(t, s), Log: &warnings}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`warning: eval.yaml:7:5: after_task hook "exit 4" failed (exit 4) (fix: make the command succeed, or list exit code 4 in exit_codes; set error_on_fail: true to stop on it)`,
		`warning: eval.yaml:8:5: after_task hook "echo x" failed: its working directory ` + filepath.Join(dir, "missing") + ` is not a folder (fix: correct the command or its working_directory; set error_on_fail: true to stop on it)`,
	} {
		if !strings.Contains(warnings.String(), want) {
			t.Errorf("warnings lack %q:\n%s", want, warnings.String())
		}
	}

	s.Hooks = spec.Hooks{BeforeRun: []*spec.Hook{{Command: "exit 1", ErrorOnFail: true, Pos: spec.Pos{File: "eval.yaml", Line: 3, Col: 5}}}}
	_, err := Run(context.Background(), s, Options{Executor: agent.Mock{}, Graders: compile(t, s)})
	var setup *SetupError
	if !errors.As(err, &setup) || !strings.Contains(err.Error(), "eval.yaml:3:5: before_run hook") {
		t.Errorf("before_run failure: %v", err)
	}
}

// TestHooksDoNotSeeTheJudgeKey: hooks run with skillgate's environment without the judge's
// settings, which are meant for the LLM graders inside skillgate.
func TestHooksDoNotSeeTheJudgeKey(t *testing.T) {
	t.Setenv("SKILLGATE_JUDGE_API_KEY", "sk-judge-secret")
	t.Setenv("SKILLGATE_JUDGE_MODEL", "judge-model")
	t.Setenv("SKILLGATE_TEST_VISIBLE", "yes")
	dir := t.TempDir()
	s := suite(dir, task("a", "hello"))
	s.Hooks = spec.Hooks{
		BeforeRun:  []*spec.Hook{{Command: `env | grep '^SKILLGATE_JUDGE_' >> leaked.txt; echo "$SKILLGATE_TEST_VISIBLE $SKILLGATE_HOOK" >> seen.txt`}},
		BeforeTask: []*spec.Hook{{Command: `env | grep '^SKILLGATE_JUDGE_' >> leaked.txt; echo "$SKILLGATE_TEST_VISIBLE $SKILLGATE_TASK_ID" >> seen.txt`}},
	}
	run(t, s, Options{})
	if leaked, _ := os.ReadFile(filepath.Join(dir, "leaked.txt")); len(leaked) > 0 {
		t.Errorf("a hook saw the judge's settings:\n%s", leaked)
	}
	if seen, _ := os.ReadFile(filepath.Join(dir, "seen.txt")); string(seen) != "yes before_run\nyes a\n" {
		t.Errorf("hooks saw %q, want the rest of the environment and their own variables", seen)
	}
}

func TestInterruptKeepsFinishedWork(t *testing.T) {
	s := suite(t.TempDir(), task("a", "hello"), task("b", "hello"), task("c", "hello"))
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	exec := execFunc(func(rctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		calls++
		if calls == 2 {
			cancel()
			<-rctx.Done()
			return nil, rctx.Err()
		}
		return &results.AgentRun{FinalOutput: "done"}, nil
	})
	res, err := Run(ctx, s, Options{Executor: exec, Graders: compile(t, s)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Incomplete || res.Gate.Passed {
		t.Errorf("incomplete %v gate %+v", res.Incomplete, res.Gate)
	}
	if res.Tasks[0].Status != results.StatusPassed || res.Tasks[1].Status != results.StatusSkipped || res.Tasks[2].Status != results.StatusSkipped {
		t.Errorf("statuses: %s %s %s", res.Tasks[0].Status, res.Tasks[1].Status, res.Tasks[2].Status)
	}
}

func TestUpliftRunsWithoutTheSkill(t *testing.T) {
	dir := t.TempDir()
	skillDir := filepath.Join(dir, "demo-skill")
	s := suite(dir, task("t", "use demo-skill please"))
	s.Config.SkillDirectories = []string{skillDir}
	var mu sync.Mutex
	withSkill := map[bool]int{}
	exec := execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		mu.Lock()
		withSkill[req.WithSkill]++
		if req.WithSkill != (len(req.SkillDirs) == 1) {
			t.Errorf("skill dirs %v with skill %v", req.SkillDirs, req.WithSkill)
		}
		mu.Unlock()
		return agent.Mock{}.Run(ctx, req)
	})
	s.Tasks[0].Graders = []*spec.Grader{grader(t, "g", "want: Mock")}
	res := run(t, s, Options{Executor: exec, Uplift: true})
	if withSkill[true] != 1 || withSkill[false] != 1 {
		t.Errorf("passes: %v", withSkill)
	}
	if !res.IsBaseline || res.BaselineOutcome == nil || res.Tasks[0].SkillImpact == nil || res.Tasks[0].SkillImpact.Delta != 0 {
		t.Errorf("uplift result: %+v %+v", res.BaselineOutcome, res.Tasks[0].SkillImpact)
	}
	with := res.Tasks[0].Runs[0].SessionDigest.SkillInvocations
	without := res.BaselineOutcome.Tasks[0].Runs[0].SessionDigest.SkillInvocations
	if len(with) != 1 || with[0].Name != "demo-skill" || len(without) != 0 {
		t.Errorf("mock invokes the skill only when installed: with %v without %v", with, without)
	}
}

func TestTriggerTestsAndMetrics(t *testing.T) {
	for _, tc := range []struct {
		name     string
		executor agent.Executor
		gated    bool
	}{
		// An agent's trigger decisions gate the run through the suite's trigger metrics.
		{"agent", execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
			return agent.Mock{}.Run(ctx, req)
		}), true},
		// The mock's are a keyword match: its trigger metrics are computed but never gate.
		{"mock", agent.Mock{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := suite(t.TempDir(), task("t", "hello"))
			s.TriggerTests = &spec.TriggerTests{
				Skill: "demo-skill",
				ShouldTrigger: []*spec.TriggerPrompt{
					{ID: "should-1", Prompt: "use demo-skill to explain", Confidence: "high", ShouldTrigger: true, Pos: spec.Pos{File: "/repo/evals/x/trigger_tests.yaml", Line: 4, Col: 5}},
					{ID: "should-2", Prompt: "explain this", Confidence: "medium", ShouldTrigger: true},
				},
				ShouldNot: []*spec.TriggerPrompt{{ID: "should-not-1", Prompt: "sort a list", Confidence: "high"}},
			}
			s.Metrics = []*spec.Metric{
				{Name: "trigger_accuracy", Threshold: 0.9, Weight: 1, Enabled: true, Pos: spec.Pos{File: "/repo/evals/x/eval.yaml", Line: 12, Col: 5}},
				{Name: "task_completion", Threshold: 1, Enabled: true},
				{Name: "aggregate_score", Threshold: 0.5, Enabled: false},
			}
			s.Config.TrialsPerTask = 2
			res := run(t, s, Options{Executor: tc.executor})
			if len(res.TriggerResults) != 3 {
				t.Fatalf("trigger results: %d; each prompt runs once, as in waza, whatever trials_per_task says", len(res.TriggerResults))
			}
			first := res.TriggerResults[0]
			if first.ID != "should-1" || !first.DidTrigger || first.Trial != 1 || first.Source == nil || first.Source.Line != 4 {
				t.Errorf("first trigger result: %+v", first)
			}
			m := res.TriggerMetrics
			// should-1 triggers (TP 1), should-2 does not (FN 0.5), should-not-1 does not (TN 1).
			if m.Weighted.TP != 1 || m.Weighted.FN != 0.5 || m.Weighted.TN != 1 || m.Accuracy != 0.8 {
				t.Errorf("metrics %+v %+v", m, m.Weighted)
			}
			if tc := res.Metrics["task_completion"]; tc == nil || !tc.Passed {
				t.Errorf("task_completion: %+v", tc)
			}
			if _, ok := res.Metrics["aggregate_score"]; ok {
				t.Error("disabled metrics do not gate")
			}
			acc := res.Metrics["trigger_accuracy"]
			if !tc.gated {
				if acc != nil || !res.Gate.Passed {
					t.Errorf("the mock's trigger_accuracy gates: %+v, gate %+v", acc, res.Gate)
				}
				return
			}
			if acc == nil || acc.Passed || acc.Value != 0.8 || acc.Source.Line != 12 {
				t.Errorf("trigger_accuracy metric: %+v", acc)
			}
			if res.Gate.Passed || len(res.Gate.Reasons) != 1 || !strings.Contains(res.Gate.Reasons[0], "trigger_accuracy") {
				t.Errorf("gate: %+v", res.Gate)
			}
		})
	}
}

// A trigger metric of a suite without trigger prompts has no data: a warning with its place and
// a fix, and it does not gate.
func TestTriggerMetricWithoutPrompts(t *testing.T) {
	s := suite(t.TempDir(), task("t", "hello"))
	s.Metrics = []*spec.Metric{{Name: "trigger_accuracy", Threshold: 0.9, Weight: 1, Enabled: true, Pos: spec.Pos{File: "eval.yaml", Line: 12, Col: 5}}}
	var log strings.Builder
	res, err := Run(context.Background(), s, Options{Executor: agent.Mock{}, Graders: compile(t, s), Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	want := "eval.yaml:12:5: warning: metrics: metric trigger_accuracy has no data in this run (no trigger prompt ran) and does not gate (fix: add trigger prompts (trigger_tests.yaml beside eval.yaml) or remove the metric)"
	if !strings.Contains(log.String(), want) {
		t.Errorf("log lacks %q:\n%s", want, log.String())
	}
	if _, ok := res.Metrics["trigger_accuracy"]; ok || !res.Gate.Passed {
		t.Errorf("metrics %+v gate %+v", res.Metrics, res.Gate)
	}
}

// waza sends inputs.prompt alone: inputs.context goes to no agent.
func TestPromptLeavesContextOut(t *testing.T) {
	tk := &spec.Task{Prompt: "Explain\n", Context: "task_type: information_query"}
	if got := buildPrompt(tk); got != "Explain\n" {
		t.Errorf("prompt %q", got)
	}
}

func TestLocationsAreRepositoryRelative(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".git"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.MkdirAll(filepath.Join(root, ".git", "refs", "heads"), 0o755)
	os.WriteFile(filepath.Join(root, ".git", "refs", "heads", "main"), []byte("0123456789abcdef0123456789abcdef01234567\n"), 0o644)
	dir := filepath.Join(root, "evals", "x")
	os.MkdirAll(dir, 0o755)
	tk := task("t", "hello")
	tk.Pos = spec.Pos{File: filepath.Join(dir, "tasks", "t.yaml"), Line: 2, Col: 3}
	res := run(t, suite(dir, tk), Options{})
	if loc := res.Tasks[0].Source; loc == nil || loc.File != "evals/x/tasks/t.yaml" || loc.Line != 2 {
		t.Errorf("location %+v", loc)
	}
	if res.Provenance.SuiteFile != "evals/x/eval.yaml" || !strings.HasPrefix(res.Provenance.SuiteHash, "sha256:") {
		t.Errorf("provenance %+v", res.Provenance)
	}
	if got := readHead(root); got != "0123456789abcdef0123456789abcdef01234567" {
		t.Errorf("readHead = %q", got)
	}
}

// TestWorkspaceOnlyWhenSomethingLooks checks the mock executor with graders that never read
// files gets no workspace on disk (the runs are identical), and that anything else does.
func TestWorkspaceOnlyWhenSomethingLooks(t *testing.T) {
	dir := t.TempDir()
	tk := task("t", "hello", grader(t, "g", "want: Analyzed 1 file"))
	tk.Files = []*spec.InputFile{{Path: "a.txt", Content: "x", HasContent: true}}
	s := suite(dir, tk)
	var saw []string
	recordRoot := filepath.Join(dir, "ws")
	probe := execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		saw = append(saw, req.Workspace)
		return agent.Mock{}.Run(ctx, req)
	})
	res := run(t, s, Options{WorkspaceRoot: recordRoot})
	if r := res.Tasks[0].Runs[0]; r.Status != results.StatusPassed || r.ChangedFiles != nil {
		t.Errorf("mock without files on disk must still see its inputs: %+v", r)
	}
	if entries, _ := os.ReadDir(recordRoot); len(entries) != 0 {
		t.Errorf("workspaces created for the mock: %v", entries)
	}
	run(t, s, Options{Executor: probe, WorkspaceRoot: recordRoot})
	if len(saw) != 1 || saw[0] == "" {
		t.Errorf("an executor that may use the workspace gets one: %q", saw)
	}
	tk.Files = []*spec.InputFile{{Path: "../x", Content: "x", HasContent: true}}
	res = run(t, s, Options{})
	if r := res.Tasks[0].Runs[0]; r.Status != results.StatusError || !strings.Contains(r.ErrorMsg, "escapes the workspace") {
		t.Errorf("escaping paths are refused without a workspace too: %s %q", r.Status, r.ErrorMsg)
	}
}

func TestRecordedChangesSurviveReplay(t *testing.T) {
	recorded := []results.FileChange{{Path: "made.txt", Change: "added", Size: 4, Content: "made"}}
	exec := execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		return &results.AgentRun{FinalOutput: "x", ChangedFiles: recorded}, nil
	})
	res := run(t, suite(t.TempDir(), task("t", "p")), Options{Executor: exec})
	if got := res.Tasks[0].Runs[0].ChangedFiles; len(got) != 1 || got[0] != recorded[0] {
		t.Errorf("the executor's recorded changes were replaced: %+v", got)
	}
}

// A skill folder that does not exist: a real agent's runs error instead of running without the
// skill; the mock's runs go on (waza ignores the folder). The agent is never started.
func TestMissingSkillDirectoryFailsRealAgentRuns(t *testing.T) {
	s := suite(t.TempDir(), task("a", "p"))
	s.Config.MissingSkillDirectories = []string{"plugins/x/skills"}
	exec := &countingExecutor{}
	res := run(t, s, Options{Executor: exec})
	r := res.Tasks[0].Runs[0]
	if r.Status != results.StatusError || !strings.Contains(r.ErrorMsg, "skill directory plugins/x/skills does not exist") || exec.runs.Peak() != 0 {
		t.Errorf("status %s error %q, agent started %d times", r.Status, r.ErrorMsg, exec.runs.Peak())
	}
	mock, err := agent.New("mock", agent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res := run(t, s, Options{Executor: mock}); res.Tasks[0].Runs[0].Status == results.StatusError {
		t.Errorf("mock run errored: %s", res.Tasks[0].Runs[0].ErrorMsg)
	}
}

// deadlineExecutor records how long the context it is given leaves it.
type deadlineExecutor struct{ left chan time.Duration }

func (d deadlineExecutor) Name() string { return "deadline" }
func (d deadlineExecutor) Run(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
	dl, _ := ctx.Deadline()
	d.left <- time.Until(dl)
	return &results.AgentRun{FinalOutput: "ok"}, nil
}

// Executors enforce req.Timeout themselves and report "timed out after …"; the runner's own
// deadline must come later, or it wins the race and the run reads "canceled".
func TestExecutorTimerFiresBeforeRunnerDeadline(t *testing.T) {
	s := suite(t.TempDir(), task("t", "hello"))
	exec := deadlineExecutor{left: make(chan time.Duration, 1)}
	run(t, s, Options{Executor: exec, Timeout: 40 * time.Second})
	if left := <-exec.left; left <= 40*time.Second {
		t.Errorf("the runner's deadline leaves the executor %s, want more than its 40s timeout", left)
	}
}

// versionExecutor reports a version after checking how long its context allows it.
type versionExecutor struct {
	agent.Mock
	err error
}

func (v versionExecutor) Version(ctx context.Context) (string, error) {
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < agent.VersionTimeout {
		return "", fmt.Errorf("only %s to report the version", time.Until(dl))
	}
	if v.err != nil {
		return "", v.err
	}
	return "1.2.3", nil
}

// `gemini --version` takes 7–10 s: the runner must give Version the executor's own bound, and
// say so when the version is still missing.
func TestProvenanceAgentVersion(t *testing.T) {
	s := suite(t.TempDir(), task("t", "hello"))
	res := run(t, s, Options{Executor: versionExecutor{}})
	if res.Provenance.AgentVersion != "1.2.3" {
		t.Errorf("agent version %q", res.Provenance.AgentVersion)
	}
	var log strings.Builder
	res = run(t, s, Options{Executor: versionExecutor{err: errors.New("gemini: exited with status 1")}, Log: &log})
	if res.Provenance.AgentVersion != "" || !strings.Contains(log.String(), "warning: the agent's version is not recorded in provenance: gemini: exited with status 1") {
		t.Errorf("version %q, log %q", res.Provenance.AgentVersion, log.String())
	}
}

// cliMock is the mock under an agent CLI's name: it invokes a skill only when the prompt names it.
type cliMock struct{ agent.Mock }

func (cliMock) Name() string { return "some-cli" }

// A suite whose should-trigger prompts all ran without any skill invocation warns that the skill
// may not be loaded; one invocation anywhere is enough to stay quiet.
func TestNoSkillInvocationWarning(t *testing.T) {
	for _, tt := range []struct {
		name     string
		executor agent.Executor
		prompt   string
		warn     bool
	}{
		{"never invoked", cliMock{}, "explain this", true},
		{"invoked once", cliMock{}, "use demo-skill to explain", false},
		{"the mock names no skill by design", agent.Mock{}, "explain this", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := suite(t.TempDir(), task("t", "hello"))
			s.Skill = "demo-skill"
			s.TriggerTests = &spec.TriggerTests{
				Skill: "demo-skill",
				ShouldTrigger: []*spec.TriggerPrompt{
					{ID: "should-1", Prompt: tt.prompt, ShouldTrigger: true},
					{ID: "should-2", Prompt: "explain that", ShouldTrigger: true},
				},
				ShouldNot: []*spec.TriggerPrompt{{ID: "should-not-1", Prompt: "demo-skill is not needed"}},
			}
			var log strings.Builder
			run(t, s, Options{Executor: tt.executor, Log: &log})
			got := strings.Contains(log.String(), "none of its 2 should-trigger run(s) invoked any skill")
			if got != tt.warn {
				t.Errorf("warned %v, want %v; log %q", got, tt.warn, log.String())
			}
		})
	}
}

// An agent that leaves a folder it locked (chmod 000) in its workspace does not leave the
// workspace behind; and a workspace that cannot be removed is reported, naming it, never left
// silently.
func TestLockedWorkspaceIsRemovedOrReported(t *testing.T) {
	root := t.TempDir()
	lockIt := execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		locked := filepath.Join(req.Workspace, "locked")
		os.MkdirAll(filepath.Join(locked, "inner"), 0o755)
		os.WriteFile(filepath.Join(locked, "inner", "f.txt"), []byte("x"), 0o644)
		os.Chmod(filepath.Join(locked, "inner"), 0o000)
		os.Chmod(locked, 0o000)
		return &results.AgentRun{FinalOutput: "hello"}, nil
	})
	s := suite(t.TempDir(), task("t", "say hello", grader(t, "g", "want: hello")))
	var log strings.Builder
	run(t, s, Options{Executor: lockIt, WorkspaceRoot: root, Log: &log})
	if left, _ := os.ReadDir(root); len(left) != 0 {
		t.Errorf("workspaces left behind: %v\n%s", left, log.String())
	}

	defer func(old func(string) error) { removeTree = old }(removeTree)
	removeTree = func(dir string) error {
		return fmt.Errorf("unlinkat %s/locked/inner/f.txt: operation not permitted", dir)
	}
	log.Reset()
	run(t, s, Options{Executor: lockIt, WorkspaceRoot: root, Log: &log})
	left, _ := os.ReadDir(root)
	if len(left) != 1 || !strings.Contains(log.String(), "warning: the workspace "+filepath.Join(root, left[0].Name())+" could not be removed (unlinkat") {
		t.Errorf("left %v, log:\n%s", left, log.String())
	}
	reap.RemoveTree(root)
}
