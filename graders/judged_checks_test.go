package graders

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

const judgedDef = `type: judged_checks
name: checks
config:
  checks:
    - {name: "1", text: "The program prints hello"}
    - {name: "2", text: "The answer explains how to run it"}
    - "Tests were added"
`

func verdictJSON(entries ...map[string]any) string {
	data, _ := json.Marshal(map[string]any{"expectations": entries})
	return string(data)
}

// One judge call per run grades every check with skill-creator's rule: PASS or FAIL with cited
// evidence; a check the judge leaves out or gives no evidence for fails; each check is a result at
// its own position.
func TestJudgedChecksEndpoint(t *testing.T) {
	reply := verdictJSON(
		map[string]any{"id": 1, "text": "The program prints hello", "passed": true, "evidence": "src/app.py is print('hello')"},
		map[string]any{"id": 2, "passed": true, "evidence": ""},
	)
	f := &fakeJudge{t: t, reply: func(map[string]any) (int, string) { return 200, completion(text(reply)) }}
	env, _ := judgeEnv(t, f, nil)
	g := mustCompile(t, defFromYAML(t, judgedDef), env)
	in := judgedInput(t, "Done: created src/app.py; run it with python")
	in.Executor = "replay"
	rs, err := g.(MultiGrader).GradeChecks(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.requests()) != 1 {
		t.Fatalf("%d judge calls, want 1 for every check", len(f.requests()))
	}
	req := f.requests()[0]
	user, system := userMessage(req), systemMessage(req)
	for _, want := range []string{"1. The program prints hello", "2. The answer explains how to run it", "3. Tests were added",
		"Done: created src/app.py", "bash", "python src/app.py", "src/app.py", `"expectations"`} {
		if !strings.Contains(user, want) {
			t.Errorf("the judge was not shown %q:\n%s", want, user)
		}
	}
	if !strings.Contains(system, "uncertain, the check FAILS") || req["response_format"] == nil {
		t.Errorf("system prompt / format: %s %v", system, req["response_format"])
	}
	want := []struct {
		name     string
		passed   bool
		feedback string
	}{
		{"1", true, "src/app.py is print('hello')"},
		{"2", false, "the judge cited no evidence"},
		{"check-3", false, "the judge gave no verdict for this check (uncertainty is FAIL)"},
	}
	for i, w := range want {
		r := rs[i]
		if r.Name != w.name || r.Passed != w.passed || r.Feedback != w.feedback || r.Weight != 1 || r.Source == nil || r.Source.Line != 5+i {
			t.Errorf("check %d: %+v (source %+v)", i, r, r.Source)
		}
	}
	// Grade is the same verdict as one result: the fraction of checks that passed.
	r, err := g.Grade(context.Background(), in)
	if err != nil || r.Score != 1.0/3 || r.Passed {
		t.Errorf("Grade: %+v %v", r, err)
	}
}

// Without a judge, under the mock executor, or with --judge agent and no agent CLI, every check
// is pending with the reason: never passed.
func TestJudgedChecksPending(t *testing.T) {
	noJudge := &Env{Judge: &JudgeOptions{Getenv: func(string) string { return "" }}}
	g, diags := CompileOne(defFromYAML(t, judgedDef), noJudge)
	if g == nil || len(diags) != 1 || !strings.Contains(diags[0].Message, "stay pending, never passed") || !diags[0].Machine {
		t.Fatalf("%v %v", g, diags)
	}
	f := &fakeJudge{t: t, reply: func(map[string]any) (int, string) { return 500, "" }}
	env, _ := judgeEnv(t, f, nil)
	withJudge := mustCompile(t, defFromYAML(t, judgedDef), env)
	agentDef := defFromYAML(t, strings.Replace(judgedDef, "config:\n", "config:\n  judge: agent\n", 1))
	for _, tc := range []struct {
		name     string
		g        Grader
		executor string
		why      string
	}{
		{"no judge", g, "claude-code", "no judge is configured"},
		{"mock", withJudge, "mock", "the mock executor ran no agent"},
		{"agent judge, no agent", mustCompile(t, agentDef, nil), "replay", "--judge agent needs an agent CLI, and the replay executor is none"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := judgedInput(t, "out")
			in.Executor = tc.executor
			rs, err := tc.g.(MultiGrader).GradeChecks(context.Background(), in)
			if err != nil || len(rs) != 3 {
				t.Fatalf("%v %v", rs, err)
			}
			for _, r := range rs {
				if r.Status != results.StatusPending || r.Passed || !strings.Contains(r.Feedback, tc.why) || !r.AwaitsJudge() {
					t.Errorf("%+v", r)
				}
			}
		})
	}
	if len(f.requests()) != 0 {
		t.Errorf("the mock's answer was sent to the judge")
	}
}

// --judge agent asks the agent CLI under test, in the finished workspace, with the same rule;
// its final answer holds the verdicts (PASS/FAIL words work too). A reply without verdicts is an
// error of the grader, not a pass or a fail.
func TestJudgedChecksAgent(t *testing.T) {
	g := mustCompile(t, defFromYAML(t, strings.Replace(judgedDef, "config:\n", "config:\n  judge: agent\n", 1)), nil)
	var asked string
	in := judgedInput(t, "Done")
	in.Executor = "claude-code"
	in.AskAgent = func(_ context.Context, prompt string) (*results.AgentRun, error) {
		asked = prompt
		return &results.AgentRun{FinalOutput: "Here is my grading:\n```json\n" + `{"expectations": [
 {"text": "The program prints hello", "verdict": "PASS", "evidence": "app.py prints hello"},
 {"text": "The answer explains how to run it", "verdict": "FAIL", "evidence": "no instructions"},
 {"text": "Tests were added", "verdict": "FAIL", "evidence": "no test file"}]}` + "\n```"}, nil
	}
	rs, err := g.(MultiGrader).GradeChecks(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if !rs[0].Passed || rs[1].Passed || rs[2].Passed || rs[0].Details["judge"] != "agent" || rs[2].Feedback != "no test file" {
		t.Errorf("%+v %+v %+v", rs[0], rs[1], rs[2])
	}
	if !strings.Contains(asked, "uncertain, the check FAILS") || !strings.Contains(asked, "read the files in the current folder") {
		t.Errorf("prompt: %s", asked)
	}
	in.AskAgent = func(context.Context, string) (*results.AgentRun, error) {
		return &results.AgentRun{FinalOutput: "Looks good to me."}, nil
	}
	if _, err := g.(MultiGrader).GradeChecks(context.Background(), in); err == nil || !strings.Contains(err.Error(), "no {\"expectations\"") {
		t.Errorf("no verdicts: %v", err)
	}
	in.AskAgent = func(context.Context, string) (*results.AgentRun, error) { return nil, errors.New("crashed") }
	if _, err := g.(MultiGrader).GradeChecks(context.Background(), in); err == nil || !strings.Contains(err.Error(), "crashed") {
		t.Errorf("agent error: %v", err)
	}
}
