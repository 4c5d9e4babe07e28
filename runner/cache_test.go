package runner

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/runcache"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// invocationLog counts the runs an executor was asked for, by task id.
type invocationLog struct {
	mu   sync.Mutex
	runs map[string]int
}

func (l *invocationLog) Name() string { return "logged" }
func (l *invocationLog) Run(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
	l.mu.Lock()
	l.runs[req.TaskID]++
	l.mu.Unlock()
	if req.Workspace != "" {
		os.WriteFile(filepath.Join(req.Workspace, "answer.txt"), []byte("answer to "+req.Prompt), 0o644)
	}
	return &results.AgentRun{FinalOutput: "said: " + req.Prompt, SessionDigest: results.SessionDigest{
		Usage: &results.Usage{InputTokens: 100, OutputTokens: 10},
	}}, nil
}

func (l *invocationLog) total() int {
	n := 0
	for _, c := range l.runs {
		n += c
	}
	return n
}

func TestRunCacheExecutesOnlyChangedInputs(t *testing.T) {
	store, err := runcache.Open(t.TempDir(), runcache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	newSuite := func(prompt2, want string) *spec.Suite {
		s := suite(t.TempDir(),
			task("one", "say hello", grader(t, "g", "want: hello")),
			task("two", prompt2, grader(t, "g", "want: "+want)),
		)
		s.Config.TrialsPerTask = 2
		s.TriggerTests = &spec.TriggerTests{Skill: "demo-skill", ShouldTrigger: []*spec.TriggerPrompt{{ID: "should-1", Prompt: "use demo-skill", ShouldTrigger: true}}}
		return s
	}
	pass := func(l *invocationLog, s *spec.Suite) *results.SuiteResult {
		return run(t, s, Options{Executor: l, Cache: &CacheOptions{Store: store}})
	}

	first := &invocationLog{runs: map[string]int{}}
	res := pass(first, newSuite("say bye", "bye"))
	// Two tasks × 2 trials, and the trigger prompt once.
	if first.total() != 5 || res.Summary.Spend.Reused != 0 || res.Summary.Spend.Runs != 5 {
		t.Fatalf("first run: %d executions, spend %+v", first.total(), res.Summary.Spend)
	}
	if res.Tasks[0].Runs[0].RunKey == "" || res.Tasks[0].Runs[0].RunKey == res.Tasks[0].Runs[1].RunKey {
		t.Fatalf("run keys: %q %q", res.Tasks[0].Runs[0].RunKey, res.Tasks[0].Runs[1].RunKey)
	}

	cases := []struct {
		name          string
		suite         *spec.Suite
		wantExecuted  map[string]int
		wantTwoStatus results.Status
	}{
		{"unchanged", newSuite("say bye", "bye"), map[string]int{}, results.StatusPassed},
		{"grader changed", newSuite("say bye", "farewell"), map[string]int{}, results.StatusFailed},
		{"one prompt changed", newSuite("say goodbye", "bye"), map[string]int{"two": 2}, results.StatusPassed},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l := &invocationLog{runs: map[string]int{}}
			res := pass(l, c.suite)
			if len(l.runs) != len(c.wantExecuted) || l.runs["two"] != c.wantExecuted["two"] {
				t.Errorf("executed %v, want %v", l.runs, c.wantExecuted)
			}
			if got := res.Tasks[1].Status; got != c.wantTwoStatus {
				t.Errorf("task two: %s, want %s", got, c.wantTwoStatus)
			}
			sp := res.Summary.Spend
			if sp.Runs != 5 || sp.Executed() != l.total() || sp.InputTokens != 500 {
				t.Errorf("spend %+v (executed %d)", sp, l.total())
			}
			for _, r := range res.Tasks[0].Runs {
				if r.Reused == nil || r.Reused.Key != r.RunKey || r.FinalOutput != "said: say hello" {
					t.Errorf("task one run %d not reused: %+v", r.RunNumber, r.Reused)
				}
			}
		})
	}
}

func TestRunCacheRestoresChangedFilesForWorkspaceGraders(t *testing.T) {
	store, _ := runcache.Open(t.TempDir(), runcache.Options{})
	l := &invocationLog{runs: map[string]int{}}
	s := suite(t.TempDir(), task("one", "say hello", grader(t, "g", "want: hello")))
	opts := Options{Executor: l, Cache: &CacheOptions{Store: store}, KeepWorkspaces: true, WorkspaceRoot: t.TempDir()}
	run(t, s, opts)
	res := run(t, s, opts)
	if l.total() != 1 {
		t.Fatalf("executed %d times", l.total())
	}
	r := res.Tasks[0].Runs[0]
	data, err := os.ReadFile(filepath.Join(r.WorkspaceDir, "answer.txt"))
	if r.Reused == nil || err != nil || string(data) != "answer to say hello" {
		t.Fatalf("reused %v, restored file %q (%v)", r.Reused, data, err)
	}
}

// The mock and replay executors never use the run cache: a mock run costs less than its entry,
// and replay serves recorded runs already.
func TestRunCacheOffForMockAndReplay(t *testing.T) {
	store, _ := runcache.Open(t.TempDir(), runcache.Options{})
	s := suite(t.TempDir(), task("one", "say hello", grader(t, "g", "want: hello")))
	for range 2 {
		res := run(t, s, Options{Executor: agent.Mock{}, Cache: &CacheOptions{Store: store}})
		if r := res.Tasks[0].Runs[0]; r.RunKey != "" || r.Reused != nil {
			t.Fatalf("mock run: key %q, reused %v", r.RunKey, r.Reused)
		}
	}
}

func TestRunCacheOffBySuiteConfig(t *testing.T) {
	store, _ := runcache.Open(t.TempDir(), runcache.Options{})
	l := &invocationLog{runs: map[string]int{}}
	s := suite(t.TempDir(), task("one", "say hello", grader(t, "g", "want: hello")))
	off := false
	s.Config.Cache = &off
	run(t, s, Options{Executor: l, Cache: &CacheOptions{Store: store}})
	res := run(t, s, Options{Executor: l, Cache: &CacheOptions{Store: store}})
	if l.total() != 2 || res.Tasks[0].Runs[0].RunKey != "" {
		t.Fatalf("executed %d times, key %q", l.total(), res.Tasks[0].Runs[0].RunKey)
	}
}

// A workspace's inputs give the run key the hashes they were written with (the inputs are not
// read again for every run): the same key as reading them, and a changed input changes it.
func TestRunKeyFromWorkspaceHashes(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "data.csv")
	if err := os.WriteFile(src, []byte("a,b\n1,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tk := task("t", "read the data")
	tk.Files = []*spec.InputFile{{Path: "in/data.csv", Source: src}, {Path: "notes.txt", Content: "hi", HasContent: true}}
	s := suite(dir, tk)
	store, err := runcache.Open(t.TempDir(), runcache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := newSuiteRun(s, Options{Executor: &invocationLog{runs: map[string]int{}}, Cache: &CacheOptions{Store: store}, WorkspaceRoot: t.TempDir()})
	defer r.inputs.remove()
	req := &agent.Request{Prompt: tk.Prompt, Timeout: r.timeout(tk), Trial: 1, WithSkill: true}
	ws, err := r.newWorkspace(tk, 1, true, true)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.cleanup(false)
	read, fromWS := r.runKey(context.Background(), req, tk.Files, nil), r.runKey(context.Background(), req, tk.Files, ws)
	if read == "" || read != fromWS {
		t.Errorf("key from the workspace %q, from reading the inputs %q", fromWS, read)
	}
	if err := os.WriteFile(src, []byte("a,b\n1,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if changed := r.runKey(context.Background(), req, tk.Files, nil); changed == read {
		t.Error("a changed input must change the key")
	}
	// The workspace holds what was written before the change: its key does not read the source.
	if again := r.runKey(context.Background(), req, tk.Files, ws); again != read {
		t.Error("the key of a workspace must come from the hashes its inputs were written with")
	}
}

// Changing what the agent reads executes it again (issue 27): an environment value, the agent
// program the suite ships, and a file config.cache_inputs names. The runs go through the real
// command executor and a script agent that prints what it read.
func TestRunCacheKeyCoversWhatTheAgentReads(t *testing.T) {
	if _, err := os.Stat("/bin/sh"); err != nil {
		t.Skip("needs /bin/sh")
	}
	dir := t.TempDir()
	agentScript := filepath.Join(dir, "agent.sh")
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	evalYAML := func(mode string) string {
		return "name: cachekey\nconfig:\n  executor: command\n  command:\n    argv: [" + agentScript + "]\n    output: text\n" +
			"  cache_inputs: [data/*.txt]\ntasks:\n  - id: t\n    inputs:\n      prompt: hi\n      environment:\n        MODE: " + mode +
			"\n    graders:\n      - type: runner_contains\n        name: g\n        config:\n          want: mode\n"
	}
	write(agentScript, "#!/bin/sh\nprintf \"mode $MODE, script v1\"\n")
	write(filepath.Join(dir, "data", "notes.txt"), "first notes\n")
	store, err := runcache.Open(t.TempDir(), runcache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	runOnce := func(mode string) *results.RunResult {
		t.Helper()
		write(filepath.Join(dir, "eval.yaml"), evalYAML(mode))
		s, diags := spec.Load(filepath.Join(dir, "eval.yaml"), spec.Options{})
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		ex, err := NewExecutor(s, ExecutorOptions{})
		if err != nil {
			t.Fatal(err)
		}
		res := run(t, s, Options{Executor: ex, Cache: &CacheOptions{Store: store}, Log: io.Discard})
		return res.Tasks[0].Runs[0]
	}
	if r := runOnce("a"); r.Reused != nil || r.FinalOutput != "mode a, script v1" {
		t.Fatalf("first run: reused %v, output %q", r.Reused, r.FinalOutput)
	}
	steps := []struct {
		name       string
		change     func() string // returns the MODE value of the run
		wantReused bool
		wantOutput string
	}{
		{"unchanged", func() string { return "a" }, true, "mode a, script v1"},
		{"environment value", func() string { return "b" }, false, "mode b, script v1"},
		{"agent script", func() string {
			write(agentScript, "#!/bin/sh\nprintf \"mode $MODE, script v2\"\n")
			return "b"
		}, false, "mode b, script v2"},
		{"cache input", func() string {
			write(filepath.Join(dir, "data", "notes.txt"), "second notes\n")
			return "b"
		}, false, "mode b, script v2"},
		{"cache input added", func() string {
			write(filepath.Join(dir, "data", "more.txt"), "more\n")
			return "b"
		}, false, "mode b, script v2"},
		{"unchanged again", func() string { return "b" }, true, "mode b, script v2"},
	}
	for _, st := range steps {
		r := runOnce(st.change())
		if (r.Reused != nil) != st.wantReused || r.FinalOutput != st.wantOutput {
			t.Errorf("%s: reused %v (want %v), output %q (want %q)", st.name, r.Reused, st.wantReused, r.FinalOutput, st.wantOutput)
		}
	}
	// The environment's values never reach the cache folder in clear.
	filepath.WalkDir(store.Dir(), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), `"MODE"`) || strings.Contains(string(data), "MODE=") {
				t.Errorf("%s holds the environment: %s", path, data)
			}
		}
		return nil
	})
}

// A cache input that cannot be hashed (here a FIFO, which would block a read) turns the cache
// off for the suite, with a warning, instead of reusing runs on a partial key.
func TestRunCacheOffWhenACacheInputCannotBeRead(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := mkfifo(filepath.Join(dir, "data", "pipe.txt")); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	store, _ := runcache.Open(t.TempDir(), runcache.Options{})
	l := &invocationLog{runs: map[string]int{}}
	s := suite(dir, task("one", "say hello", grader(t, "g", "want: hello")))
	s.Config.CacheInputs = []string{"data/*.txt"}
	var log strings.Builder
	run(t, s, Options{Executor: l, Cache: &CacheOptions{Store: store}, Log: &log})
	res := run(t, s, Options{Executor: l, Cache: &CacheOptions{Store: store}, Log: &log})
	if l.total() != 2 || res.Tasks[0].Runs[0].RunKey != "" {
		t.Errorf("executed %d times, key %q", l.total(), res.Tasks[0].Runs[0].RunKey)
	}
	if !strings.Contains(log.String(), "the run cache is off for this suite: cache_inputs:") || !strings.Contains(log.String(), "pipe.txt is not a regular file") {
		t.Errorf("log: %s", log.String())
	}
}
