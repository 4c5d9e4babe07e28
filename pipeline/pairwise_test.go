package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/internal/testtree"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// creatorSuite loads a skill-creator suite with two prompt-only evals and one with a check,
// judged at judgeURL.
func creatorSuite(t *testing.T, judgeURL string) *runner.Prepared {
	t.Helper()
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"s/SKILL.md":         "---\nname: s\ndescription: d\n---\n",
		"s/evals/evals.json": `{"skill_name": "s", "evals": [{"id": 1, "prompt": "one", "expected_output": "a haiku"}, {"id": 2, "prompt": "two"}, {"id": 3, "prompt": "three", "expectations": ["is kind"]}]}`,
	})
	env := map[string]string{"SKILLGATE_JUDGE_BASE_URL": judgeURL, "SKILLGATE_JUDGE_API_KEY": "k", "SKILLGATE_JUDGE_MODEL": "jm"}
	prepared, diags, err := runner.LoadSuitesWith([]string{dir}, runner.LoadOptions{Judge: &graders.JudgeOptions{Getenv: func(k string) string { return env[k] }}})
	if err != nil || diags.HasErrors() || len(prepared) != 1 {
		t.Fatalf("%v %v", err, diags)
	}
	return prepared[0]
}

func creatorResult(engine string, answers ...string) *results.SuiteResult {
	r := &results.SuiteResult{EvalName: "s", Config: results.RunConfig{EngineType: engine}}
	for i, a := range answers {
		task := &results.TaskResult{ID: []string{"1", "2", "3"}[i], Prompt: "p", GradedByChecks: true,
			Runs: []*results.RunResult{{RunNumber: 1, AgentRun: results.AgentRun{FinalOutput: a}}}}
		if i == 2 {
			task.Runs[0].Validations = results.Validations{{Name: "check-1", Passed: true}}
		}
		task.Finish()
		r.Tasks = append(r.Tasks, task)
	}
	return r
}

// Each prompt-only eval gets the blind judge's verdict against the baseline's answer (one call per
// trial pair); evals with checks, mock runs and suites without a judge are left alone.
func TestComparePairwisePipeline(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		calls++
		// The answer "short" always loses.
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.Unmarshal(body, &req)
		user := req.Messages[len(req.Messages)-1].Content
		winner := "tie"
		if a, b := strings.Index(user, "\nshort\n"), strings.Index(user, "\nlong and complete\n"); a >= 0 && b >= 0 {
			winner = "B"
			if b < a {
				winner = "A"
			}
		}
		content, _ := json.Marshal(map[string]string{"winner": winner, "reasoning": "judged " + winner})
		reply, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion", "model": "jm",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(content)}}}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(reply)
	}))
	defer srv.Close()
	p := creatorSuite(t, srv.URL)
	head := creatorResult("claude-code", "long and complete", "same", "x")
	base := creatorResult("claude-code", "short", "same", "y")
	file := filepath.Join(t.TempDir(), "s.json")
	var log bytes.Buffer
	heads := []Head{{Result: head, File: file, Base: &Baseline{Result: base}}}
	ComparePairwise(context.Background(), heads, PairwiseOptions{Prepared: []*runner.Prepared{p}, Log: &log})
	if calls != 2 {
		t.Errorf("%d judge calls, want 2 (the two prompt-only evals)", calls)
	}
	if v := head.Tasks[0].Pairwise; v == nil || v.Verdict != results.PairwiseBetter || v.Judge != "jm" || v.Better != 1 || !strings.HasPrefix(v.Reason, "judged") {
		t.Errorf("task 1: %+v", v)
	}
	if v := head.Tasks[1].Pairwise; v == nil || v.Verdict != results.PairwiseTie {
		t.Errorf("task 2: %+v", v)
	}
	if head.Tasks[2].Pairwise != nil {
		t.Errorf("an eval with checks got a pairwise verdict")
	}
	if written, err := results.ReadFile(file); err != nil || written.Tasks[0].Pairwise == nil {
		t.Errorf("the results file was not rewritten: %v", err)
	}
	// A verdict given already (by a shard) is kept: the merge judges only what is missing.
	ComparePairwise(context.Background(), heads, PairwiseOptions{Prepared: []*runner.Prepared{p}, Log: &log})
	if calls != 2 {
		t.Errorf("%d judge calls after judging again, want 2: judged evals are judged once", calls)
	}
	// The base's answer better: worse, a regression candidate.
	heads[0].Result = creatorResult("claude-code", "short", "same", "x")
	heads[0].Base.Result = creatorResult("claude-code", "long and complete", "same", "y")
	ComparePairwise(context.Background(), heads, PairwiseOptions{Prepared: []*runner.Prepared{p}})
	if v := heads[0].Result.Tasks[0].Pairwise; v == nil || v.Verdict != results.PairwiseWorse {
		t.Errorf("worse: %+v", v)
	}
	// Mock answers are not compared; neither without a baseline.
	calls = 0
	mock := creatorResult("mock", "a", "b", "c")
	ComparePairwise(context.Background(), []Head{{Result: mock, Base: &Baseline{Result: base}}, {Result: creatorResult("codex", "a", "b", "c")}},
		PairwiseOptions{Prepared: []*runner.Prepared{p}})
	if calls != 0 || mock.Tasks[0].Pairwise != nil {
		t.Errorf("compared mock answers or without a baseline")
	}
	// No judge: the evals stay not graded, and the log says why.
	noJudge := creatorSuite(t, "")
	noJudge.Judge = &graders.JudgeOptions{Getenv: func(string) string { return "" }}
	h := creatorResult("codex", "a", "b", "c")
	ComparePairwise(context.Background(), []Head{{Result: h, Base: &Baseline{Result: base}}}, PairwiseOptions{Prepared: []*runner.Prepared{noJudge}, Log: &log})
	if h.Tasks[0].Pairwise != nil || !strings.Contains(log.String(), "2 prompt-only eval(s) not compared with the base branch: no judge is configured") {
		t.Errorf("no judge: %s", log.String())
	}
}
