package runner

import (
	"context"
	"os"
	"path/filepath"
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
