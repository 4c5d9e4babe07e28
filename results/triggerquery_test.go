package results

import (
	"math"
	"testing"
)

// Each query is judged over its runs at the threshold, as skill-creator judges it; an errored run
// makes the query an error, never "did not trigger" (which would pass a should-not query).
func TestComputeTriggerQueries(t *testing.T) {
	tr := func(id string, should, did bool, errMsg string) *TriggerResult {
		return &TriggerResult{ID: id, ShouldTrigger: should, DidTrigger: did, ErrorMsg: errMsg}
	}
	trs := []*TriggerResult{
		tr("a", true, true, ""), tr("a", true, false, ""), tr("a", true, false, ""), // 1/3 < 0.5: failed
		tr("b", true, true, ""), tr("b", true, false, ""), // 1/2 ≥ 0.5: passed
		tr("c", false, false, ""), tr("c", false, false, "timed out"), // errored: error
		tr("d", false, true, ""), tr("d", false, false, ""), // 1/2 not < 0.5: failed
		tr("e", false, false, ""), nil,
	}
	qs := ComputeTriggerQueries(trs, 0.5)
	want := map[string]Status{"a": StatusFailed, "b": StatusPassed, "c": StatusError, "d": StatusFailed, "e": StatusPassed}
	if len(qs) != len(want) {
		t.Fatalf("%d queries", len(qs))
	}
	for _, q := range qs {
		if q.Status != want[q.ID] {
			t.Errorf("%s: %s (%s), want %s", q.ID, q.Status, q.Verdict(), want[q.ID])
		}
	}
	if qs[0].TriggerRate != 0.3333 || qs[0].Verdict() != "triggered in 1 of 3 runs, below 0.5" {
		t.Errorf("a: %+v %q", qs[0], qs[0].Verdict())
	}
	if ComputeTriggerQueries(trs, 0) != nil {
		t.Errorf("waza's trigger tests have no per-query verdicts")
	}
	s := &SuiteResult{TriggerQueries: qs}
	if g := ComputeGate(s); g.Passed || g.Reasons[0] != "2 of 5 trigger queries failed and 1 errored" {
		t.Errorf("gate %+v", g)
	}
}

// A task graded by its checks is not graded (skipped, never passed) while a check is pending or
// it has none; a failed check still fails it.
func TestNotGraded(t *testing.T) {
	pending := &GraderResult{Name: "c", Status: StatusPending, Feedback: "no judge is configured"}
	passed := &GraderResult{Name: "d", Passed: true, Score: 1}
	failed := &GraderResult{Name: "f"}
	for _, tc := range []struct {
		name   string
		vals   Validations
		status Status
		reason string
	}{
		{"no checks", Validations{}, StatusSkipped, "not graded: the eval has no checks (prompt-only); its answers are recorded"},
		{"pending", Validations{passed, pending}, StatusSkipped, "not graded: 1 of 2 checks pending: no judge is configured"},
		{"failed with pending", Validations{failed, pending}, StatusFailed, ""},
		{"all decided", Validations{passed}, StatusPassed, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			task := &TaskResult{GradedByChecks: true, Runs: []*RunResult{{Validations: tc.vals}}}
			task.Finish()
			if task.Status != tc.status || task.SkipReason != tc.reason || task.NotGraded() != (tc.reason != "") {
				t.Errorf("%s %q", task.Status, task.SkipReason)
			}
			waza := &TaskResult{Runs: []*RunResult{{Validations: tc.vals}}}
			if waza.Finish(); waza.Status == StatusSkipped {
				t.Errorf("a waza task is never left ungraded")
			}
		})
	}
}

// Newcombe's hybrid score interval of a difference of proportions: his worked example (56/70 −
// 48/80: 0.0524 to 0.3339), the bounds at 0 and 1, and uplift's use of it.
func TestDiffInterval(t *testing.T) {
	ci := DiffInterval(56, 70, 48, 80)
	if math.Abs(ci.Lower-0.0524) > 5e-4 || math.Abs(ci.Upper-0.3339) > 5e-4 {
		t.Errorf("56/70 − 48/80: %+v", ci)
	}
	if ci := DiffInterval(3, 3, 0, 3); ci.Upper != 1 || ci.Lower <= 0 {
		t.Errorf("3/3 − 0/3: %+v", ci)
	}
	if ci := DiffInterval(1, 0, 1, 2); ci.Lower != -1 || ci.Upper != 1 {
		t.Errorf("no trials: %+v", ci)
	}
	task := func(id string, passed int) *TaskResult {
		tr := &TaskResult{ID: id}
		for i := range 3 {
			tr.Runs = append(tr.Runs, &RunResult{Validations: Validations{{Name: "g", Passed: i < passed, Score: 1}}})
		}
		tr.Finish()
		return tr
	}
	with := &SuiteResult{Tasks: []*TaskResult{task("a", 3)}}
	without := &SuiteResult{Tasks: []*TaskResult{task("a", 0)}}
	ComputeSkillImpact(with, without)
	imp := with.Tasks[0].SkillImpact
	if imp == nil || imp.Delta != 1 || imp.DeltaCI == nil || imp.DeltaCI.Lower <= 0 {
		t.Errorf("impact %+v", imp)
	}
}
