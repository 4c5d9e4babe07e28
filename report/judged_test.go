package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

// The skill-creator additions reach the terminal and the job summary: checks awaiting a judge,
// pairwise verdicts (the worse ones named), trigger queries below their threshold.
func TestCreatorAdditions(t *testing.T) {
	r := &results.SuiteResult{EvalName: "tcr", SchemaVersion: 1}
	pending := &results.GraderResult{Name: "c1", Type: "judged_checks", Status: results.StatusPending, Feedback: "the mock executor ran no agent, so there is no answer to judge"}
	for i, p := range []*results.Pairwise{
		{Verdict: results.PairwiseWorse, Reason: "The base's answer names the reset step.", Worse: 1},
		{Verdict: results.PairwiseBetter, Better: 1},
		{Verdict: results.PairwiseTie, Tie: 1},
		nil,
	} {
		task := &results.TaskResult{ID: []string{"a", "b", "c", "d"}[i], GradedByChecks: true, Pairwise: p, Runs: []*results.RunResult{{RunNumber: 1}}}
		if p == nil {
			task.Runs[0].Validations = results.Validations{pending}
		}
		task.Finish()
		r.Tasks = append(r.Tasks, task)
	}
	r.TriggerQueries = []*results.TriggerQuery{
		{ID: "should-1", Prompt: "use tcr", ShouldTrigger: true, Runs: 3, Triggers: 1, TriggerRate: 0.3333, Threshold: 0.5, Status: results.StatusFailed},
		{ID: "should-not-1", Prompt: "hi", Runs: 3, Errors: 1, Threshold: 0.5, Status: results.StatusError},
		{ID: "should-2", Prompt: "tcr please", ShouldTrigger: true, Runs: 3, Triggers: 3, TriggerRate: 1, Threshold: 0.5, Status: results.StatusPassed},
	}
	results.Summarize(r)
	r.Gate = results.ComputeGate(r)
	s, err := NewSuite(r, nil, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := &Input{Suites: []*Suite{s}}
	var term bytes.Buffer
	if err := Terminal(&term, in, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"tcr: 1 check awaiting a judge, not graded: the mock executor ran no agent",
		"tcr: answers against the base branch's (blind pairwise judge): 1 better, 1 worse, 1 tie; worse: a",
		"tcr: trigger query should-1 (should trigger): triggered in 1 of 3 runs, below 0.5",
		"tcr: trigger query should-not-1 (should not trigger): 1 of 3 runs errored",
	} {
		if !strings.Contains(term.String(), want) {
			t.Errorf("terminal lacks %q:\n%s", want, term.String())
		}
	}
	sum := Summary(in)
	for _, want := range []string{"#### Answers against the base branch's", "| `a` | 🔻 worse | 0/1/0 | The base's answer names the reset step. |",
		"#### Trigger queries below their threshold (2 of 3)", "| `should-1` use tcr | should trigger | 1/3 | 0.33 | 0.5 | failed |"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
}

// A prompt-only eval has no checks to test, so its word comes from the blind pairwise verdict:
// a worse answer is a regression candidate (a warning, never blocking), a better one is better,
// a tie or no verdict is not compared.
func TestPairwiseChangeWords(t *testing.T) {
	suite := func(pairwise ...*results.Pairwise) *results.SuiteResult {
		r := &results.SuiteResult{EvalName: "tcr", SchemaVersion: 1}
		for i, p := range pairwise {
			task := &results.TaskResult{ID: []string{"worse", "better", "tie", "none"}[i], GradedByChecks: true, Pairwise: p, Runs: []*results.RunResult{{RunNumber: 1}}}
			task.Finish()
			r.Tasks = append(r.Tasks, task)
		}
		results.Summarize(r)
		return r
	}
	base := suite(nil, nil, nil, nil)
	head := suite(&results.Pairwise{Verdict: results.PairwiseWorse, Worse: 2, Tie: 1}, &results.Pairwise{Verdict: results.PairwiseBetter, Better: 1},
		&results.Pairwise{Verdict: results.PairwiseTie, Tie: 1}, nil)
	c, err := Compare(base, head, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		change, level string
		why           string
	}{
		"worse":  {ChangeUnconfirmed, LevelWarning, "preferred the base branch's answer (0 better, 2 worse, 1 tie)"},
		"better": {ChangeBetter, "", "preferred this answer (1 better, 0 worse, 0 tie)"},
		"tie":    {ChangeNotCompared, "", "found the answers even"},
		"none":   {ChangeNotCompared, "", "not compared"},
	}
	for _, u := range c.Tasks {
		w := want[u.ID]
		if u.Change != w.change || u.Level != w.level || u.Blocking || !strings.Contains(u.Why, w.why) {
			t.Errorf("%s: %s %q blocking %v, why %q; want %s %q, why with %q", u.ID, u.Change, u.Level, u.Blocking, u.Why, w.change, w.level, w.why)
		}
	}
	if c.Verdict == VerdictRegressed {
		t.Errorf("verdict %s: one judge's preference never blocks", c.Verdict)
	}
}
