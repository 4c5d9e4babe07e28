package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// vallyRequests records what a Vally suite's runs asked of the executor, by task.
type vallyRequests struct {
	mu   sync.Mutex
	reqs map[string][]agent.Request
}

func (v *vallyRequests) add(req *agent.Request) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.reqs == nil {
		v.reqs = map[string][]agent.Request{}
	}
	v.reqs[req.TaskID] = append(v.reqs[req.TaskID], *req)
}

// conversational is a recording executor that continues sessions: each turn answers its prompt
// and reports the session id "s-1".
type conversational struct {
	*vallyRequests
	answer func(req *agent.Request) *results.AgentRun
}

func (c conversational) Name() string            { return "conversational" }
func (c conversational) ContinuesSessions() bool { return true }
func (c conversational) Run(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
	c.add(req)
	return c.answer(req), nil
}

func loadVally(t *testing.T, file string) *Prepared {
	t.Helper()
	prepared, diags, err := LoadSuitesWith([]string{file}, LoadOptions{})
	if err != nil || diags.HasErrors() || len(prepared) != 1 {
		t.Fatalf("%s: %v %v", file, err, diags.Errors())
	}
	return prepared[0]
}

// heaths/plugins' linting spec gives each stimulus a skill of its own: each run installs its
// stimulus's skill only, and in uplift mode's without-skill pass none.
func TestVallyPerStimulusSkills(t *testing.T) {
	p := loadVally(t, "testdata/vally/heaths__plugins/evals/linting/eval.yaml")
	rec := &vallyRequests{}
	exec := execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		rec.add(req)
		return &results.AgentRun{FinalOutput: "done"}, nil
	})
	run(t, p.Suite, Options{Executor: exec, Graders: p.Graders, Uplift: true})
	want := map[string]string{
		"check-spelling-fixes-typos-and-updates-dictionary": "check-spelling",
		"lint-markdown-fixes-bullet-style":                  "lint-markdown",
	}
	for task, skill := range want {
		reqs := rec.reqs[task]
		if len(reqs) != 2 {
			t.Fatalf("%s: %d runs, want 2 (with and without the skill)", task, len(reqs))
		}
		for _, req := range reqs {
			var names []string
			for _, d := range req.SkillDirs {
				names = append(names, filepath.Base(d))
			}
			switch {
			case req.WithSkill && !slices.Equal(names, []string{skill}):
				t.Errorf("%s: skills %v, want only %s", task, names, skill)
			case !req.WithSkill && len(names) > 0:
				t.Errorf("%s without the skill: skills %v", task, names)
			}
		}
	}
}

// Azure/azure-sdk-tools' fix-pipeline stimulus seeds a git baseline with environment.commands
// after its files are copied: the command runs in the workspace before the agent, and what it
// made is the agent's starting point, not the agent's change. A failing command errors the run
// and names itself.
func TestVallyEnvironmentCommands(t *testing.T) {
	p := loadVally(t, "testdata/vally/Azure__azure-sdk-tools/evals/workflows/mock/fix-pipeline.eval.yaml")
	task := p.Suite.Tasks[0]
	if len(task.Setup) != 1 || !strings.HasPrefix(task.Setup[0].Command, "git init -q && git add -A") {
		t.Fatalf("setup %+v", task.Setup)
	}
	var sawGit, sawFile bool
	exec := execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		_, err := os.Stat(filepath.Join(req.Workspace, ".git", "HEAD"))
		sawGit = err == nil
		_, err = os.Stat(filepath.Join(req.Workspace, "sdk/storage/Azure.Storage.Queues/src/QueueClientOptions.cs"))
		sawFile = err == nil
		os.WriteFile(filepath.Join(req.Workspace, "fix.patch"), []byte("patch"), 0o644)
		return &results.AgentRun{FinalOutput: "fixed"}, nil
	})
	res := run(t, p.Suite, Options{Executor: exec, Graders: p.Graders})
	r := res.Tasks[0].Runs[0]
	if !sawGit || !sawFile {
		t.Errorf("the agent did not start from the seeded repository: git %v, file %v", sawGit, sawFile)
	}
	if len(r.ChangedFiles) != 1 || r.ChangedFiles[0].Path != "fix.patch" || r.ChangedFiles[0].Change != "added" {
		t.Errorf("changed files %+v, want only the agent's fix.patch", r.ChangedFiles)
	}
	if strings.Contains(r.ErrorMsg, "preparing workspace") {
		t.Errorf("set-up failed: %s", r.ErrorMsg)
	}

	task.Setup = append(task.Setup, &spec.SetupCommand{Command: "echo building >&2; exit 3", Pos: spec.Pos{File: "eval.yaml", Line: 7, Col: 9}})
	called := false
	res = run(t, p.Suite, Options{Executor: execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		called = true
		return &results.AgentRun{FinalOutput: "x"}, nil
	}), Graders: p.Graders})
	r = res.Tasks[0].Runs[0]
	if called || r.Status != results.StatusError ||
		r.ErrorMsg != `preparing workspace: environment command "echo building >&2; exit 3" (eval.yaml:7:9) failed: exit 3: building` {
		t.Errorf("failing command: agent ran %v, %s %q", called, r.Status, r.ErrorMsg)
	}
}

// microsoft/hve-core's sssc-planner stimuli are two-turn conversations whose graders are pinned
// to turn 1: the second turn resumes the session the first reported, the run records both turns,
// and a grader pinned to turn 1 sees that turn's answer alone.
func TestVallyConversation(t *testing.T) {
	p := loadVally(t, "testdata/vally/microsoft__hve-core/evals/agent-conformance/sssc-planner/eval.yaml")
	task := p.Suite.Tasks[0]
	if len(task.Turns) != 2 || task.Graders[1].Turn == nil || *task.Graders[1].Turn != 1 {
		t.Fatalf("turns %q, wall-time grader turn %v", task.Turns, task.Graders[1].Turn)
	}
	p.Suite.Tasks = p.Suite.Tasks[:1]
	// Keep the graders that need no judge: wall-time (turn 1) and output-contains.
	var kept []*spec.Grader
	for _, g := range task.Graders {
		if g.Type != "prompt" {
			kept = append(kept, g)
		}
	}
	task.Graders = kept
	rec := &vallyRequests{}
	exec := conversational{rec, func(req *agent.Request) *results.AgentRun {
		ms := int64(1000)
		if req.ResumeSession != "" {
			ms = 200_000 // the second turn takes longer than the wall-time budget of 120s
		}
		return &results.AgentRun{FinalOutput: "answer to: " + req.Prompt, DurationMS: ms,
			SessionDigest: results.SessionDigest{SessionID: "s-1", Usage: &results.Usage{InputTokens: 10, OutputTokens: 5, Turns: 1}}}
	}}
	res := run(t, p.Suite, Options{Executor: exec, Graders: p.Graders})
	reqs := rec.reqs[task.ID]
	if len(reqs) != 2 || reqs[0].ResumeSession != "" || reqs[1].ResumeSession != "s-1" || reqs[1].Prompt != task.Turns[1] {
		t.Fatalf("requests %+v", reqs)
	}
	if reqs[1].Timeout >= reqs[0].Timeout {
		t.Errorf("the second turn must get what the first left of the limit: %s then %s", reqs[0].Timeout, reqs[1].Timeout)
	}
	r := res.Tasks[0].Runs[0]
	if len(r.Turns) != 2 || r.Turns[1].Output != "answer to: "+task.Turns[1] ||
		r.FinalOutput != "answer to: "+task.Turns[0]+"\n\nanswer to: "+task.Turns[1] || r.SessionDigest.Usage.InputTokens != 20 {
		t.Errorf("run %+v", r.AgentRun)
	}
	for _, v := range r.Validations {
		if v.Type == "wall-time" && (v.Passed || !strings.HasPrefix(v.Feedback, "200000 milliseconds exceed")) {
			t.Errorf("wall-time pinned to turn 1 must see that turn alone: %+v", v)
		}
	}

	// An executor that cannot continue a session sends the first turn only.
	once := &vallyRequests{}
	run(t, p.Suite, Options{Executor: execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		once.add(req)
		return &results.AgentRun{FinalOutput: "x"}, nil
	}), Graders: p.Graders})
	if got := once.reqs[task.ID]; len(got) != 1 || got[0].Prompt != task.Turns[0] {
		t.Errorf("non-conversational executor: %+v", got)
	}
}

// The fork-safe report mode (SkipHooks) executes nothing from the suite: no set-up command.
func TestVallyEnvironmentCommandsSkipped(t *testing.T) {
	p := loadVally(t, "testdata/vally/Azure__azure-sdk-tools/evals/workflows/mock/fix-pipeline.eval.yaml")
	var sawGit bool
	exec := execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		_, err := os.Stat(filepath.Join(req.Workspace, ".git"))
		sawGit = err == nil
		return &results.AgentRun{FinalOutput: "x"}, nil
	})
	run(t, p.Suite, Options{Executor: exec, SkipHooks: true})
	if sawGit {
		t.Error("a set-up command ran with SkipHooks")
	}
}
