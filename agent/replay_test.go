package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

func replayer(t *testing.T, from, suite string) Executor {
	t.Helper()
	e, err := New("replay", Options{ReplayFrom: from, Suite: suite})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestReplayRunFiles(t *testing.T) {
	e := replayer(t, "testdata/replay/runs", "demo")
	ctx := context.Background()

	run, err := e.Run(ctx, &Request{TaskID: "explain", Trial: 1, WithSkill: true})
	if err != nil {
		t.Fatal(err)
	}
	d := run.SessionDigest
	// Absent digest fields are derived from the transcript; present ones are kept.
	if d.ToolCallCount != 2 || strings.Join(d.ToolsUsed, ",") != "view,bash" || d.ToolCalls[1].Success || !d.ToolCalls[0].Success {
		t.Errorf("derived tool calls: %+v", d)
	}
	if len(d.SkillInvocations) != 1 || d.SkillInvocations[0].Name != "code-explainer" || len(d.Errors) != 1 {
		t.Errorf("derived skills/errors: %+v", d)
	}
	if d.Usage == nil || d.Usage.InputTokens != 1200 || d.SessionID != "s-1" || run.DurationMS != 5300 {
		t.Errorf("kept fields: %+v duration %d", d, run.DurationMS)
	}

	run, err = e.Run(ctx, &Request{TaskID: "explain", Trial: 2, WithSkill: true})
	if err != nil || run.FinalOutput != "Second trial answer." {
		t.Errorf("trial file: %v %+v", err, run)
	}
	run, err = e.Run(ctx, &Request{TaskID: "explain", Trial: 3, WithSkill: true})
	if err != nil || run.FinalOutput != "The function is recursive." {
		t.Errorf("<task>.json serves trials without their own file: %v", err)
	}
	run, err = e.Run(ctx, &Request{TaskID: "should-1", Trial: 1, Trigger: true, WithSkill: true})
	if err != nil || len(run.SessionDigest.SkillInvocations) != 1 {
		t.Errorf("trigger file: %v %+v", err, run)
	}
	run, err = e.Run(ctx, &Request{TaskID: "crashed", Trial: 1, WithSkill: true})
	if err == nil || err.Error() != "agent exited with status 137" || run.FinalOutput != "half" {
		t.Errorf("a recorded agent failure replays as one: %v %+v", err, run)
	}
	if _, err = e.Run(ctx, &Request{TaskID: "missing", Trial: 1, WithSkill: true}); err == nil ||
		!strings.Contains(err.Error(), "no recorded run for task missing trial 1") {
		t.Errorf("missing run: %v", err)
	}
	if _, err = e.Run(ctx, &Request{TaskID: "broken", Trial: 1, WithSkill: true}); err == nil ||
		!strings.Contains(err.Error(), "not a recorded run") {
		t.Errorf("broken run file: %v", err)
	}
}

func TestReplayResultsFile(t *testing.T) {
	ok := true
	rec := &results.SuiteResult{EvalName: "demo", Tasks: []*results.TaskResult{{ID: "t1", Runs: []*results.RunResult{
		{RunNumber: 1, Status: results.StatusPassed, AgentRun: results.AgentRun{FinalOutput: "one", DurationMS: 12,
			Transcript: []results.Event{{Type: results.EventToolCall, Name: "bash", Success: &ok}}}},
		{RunNumber: 2, Status: results.StatusError, ErrorMsg: "agent: timed out", AgentRun: results.AgentRun{FinalOutput: "", AgentError: "timed out after 1s"}},
	}}}, TriggerResults: []*results.TriggerResult{{ID: "should-1", Trial: 1, Transcript: []results.Event{{Type: results.EventSkillInvocation, Name: "demo"}}}},
		BaselineOutcome: &results.SuiteResult{EvalName: "demo", Tasks: []*results.TaskResult{{ID: "t1", Runs: []*results.RunResult{{RunNumber: 1, AgentRun: results.AgentRun{FinalOutput: "no skill"}}}}}},
	}
	dir := t.TempDir()
	// A previous --out folder: results/<suite>.json.
	if err := results.WriteFile(results.PathIn(dir, "demo"), rec); err != nil {
		t.Fatal(err)
	}
	for _, from := range []string{dir, results.PathIn(dir, "demo")} {
		e := replayer(t, from, "demo")
		ctx := context.Background()
		run, err := e.Run(ctx, &Request{TaskID: "t1", Trial: 1, WithSkill: true})
		if err != nil || run.FinalOutput != "one" || run.DurationMS != 12 || run.SessionDigest.ToolCallCount != 1 {
			t.Errorf("%s: trial 1: %v %+v", from, err, run)
		}
		if _, err := e.Run(ctx, &Request{TaskID: "t1", Trial: 2, WithSkill: true}); err == nil || err.Error() != "timed out after 1s" {
			t.Errorf("%s: recorded agent error: %v", from, err)
		}
		if _, err := e.Run(ctx, &Request{TaskID: "t1", Trial: 3, WithSkill: true}); err == nil || !strings.Contains(err.Error(), "no recorded run for task t1 trial 3") {
			t.Errorf("%s: missing trial: %v", from, err)
		}
		if run, err := e.Run(ctx, &Request{TaskID: "t1", Trial: 1, WithSkill: false}); err != nil || run.FinalOutput != "no skill" {
			t.Errorf("%s: without-skill run from baseline_outcome: %v", from, err)
		}
		if run, err := e.Run(ctx, &Request{TaskID: "should-1", Trial: 1, Trigger: true, WithSkill: true}); err != nil || len(run.SessionDigest.SkillInvocations) != 1 {
			t.Errorf("%s: trigger run: %v", from, err)
		}
	}
}

func TestReplayWazaFile(t *testing.T) {
	data, err := os.ReadFile("../results/testdata/waza-showcase.json")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "waza.json")
	os.WriteFile(path, data, 0o644)
	e := replayer(t, path, "grader-showcase")
	run, err := e.Run(context.Background(), &Request{TaskID: "behavior-demo-001", Trial: 1, WithSkill: true})
	if err != nil {
		t.Fatal(err)
	}
	// waza's digest has no skill invocations: they are derived from its skill.invoked event.
	if run.SessionDigest.ToolCallCount != 2 || len(run.SessionDigest.SkillInvocations) != 1 || run.SessionDigest.SkillInvocations[0].Name != "grader-showcase" {
		t.Errorf("waza run: %+v", run.SessionDigest)
	}
	// waza's errored run failed in its graders, not in the agent: replaying it is not an error.
	if _, err := e.Run(context.Background(), &Request{TaskID: "behavior-demo-001", Trial: 2, WithSkill: true}); err != nil {
		t.Errorf("grader error replayed as agent error: %v", err)
	}
}

func TestReplayNeedsInput(t *testing.T) {
	if _, err := New("replay", Options{}); err == nil || !strings.Contains(err.Error(), "--from") {
		t.Errorf("no input: %v", err)
	}
	if _, err := New("replay", Options{ReplayFrom: "testdata/nope"}); err == nil {
		t.Error("missing input must fail")
	}
}

func TestReplayNativeTranscripts(t *testing.T) {
	dir := t.TempDir()
	copyTo := func(src, dst string) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, dst), data, 0o644)
	}
	copyTo("testdata/transcripts/claude-code/skael-skill-invocation-2.1.220.jsonl", "find.jsonl")
	copyTo("testdata/transcripts/codex/agent-harness-command-execution.jsonl", "echo.2.jsonl")
	copyTo("testdata/transcripts/claude-code/grooph-json-output-auth-error-is_error-true-subtype-success.json", "auth.json")
	e := replayer(t, dir, "demo")
	ctx := context.Background()

	run, err := e.Run(ctx, &Request{TaskID: "find", Trial: 1, WithSkill: true})
	if err != nil {
		t.Fatal(err)
	}
	if inv := run.SessionDigest.SkillInvocations; len(inv) != 1 || inv[0].Name != "find-skills" {
		t.Errorf("claude skill invocation: %+v", inv)
	}
	run, err = e.Run(ctx, &Request{TaskID: "echo", Trial: 2, WithSkill: true})
	if err != nil || run.SessionDigest.ToolCallCount != 1 || run.FinalOutput != "done" {
		t.Errorf("codex trial file: %v %+v", err, run)
	}
	// A recorded session that failed replays as a failed run, with what it recorded.
	if _, err := e.Run(ctx, &Request{TaskID: "auth", Trial: 1, WithSkill: true}); err == nil {
		t.Error("an is_error result must replay as an agent error")
	}
}
