package pipeline

import (
	"testing"

	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

func TestNewVars(t *testing.T) {
	pass := &results.SuiteResult{EvalName: "a", Summary: results.Summary{AggregateScore: 1, SuccessRate: 1},
		Tasks:          []*results.TaskResult{{ID: "t", Status: results.StatusPassed, Stats: &results.TaskStats{PassRate: 1, AvgScore: 1}}},
		Metrics:        map[string]*results.MetricResult{"trigger_accuracy": {Name: "trigger_accuracy", Value: 0.9, Threshold: 0.8, Passed: true}},
		TriggerMetrics: &results.TriggerMetrics{Accuracy: 0.9}, Gate: &results.Gate{Passed: true}}
	fail := &results.SuiteResult{EvalName: "b", Summary: results.Summary{AggregateScore: 0, SuccessRate: 0},
		Tasks: []*results.TaskResult{{ID: "t", Status: results.StatusFailed, Stats: &results.TaskStats{PassRate: 0}},
			{ID: "u", Status: results.StatusError, Stats: &results.TaskStats{}}, {ID: "s", Status: results.StatusSkipped}},
		Metrics: map[string]*results.MetricResult{"trigger_accuracy": {Name: "trigger_accuracy", Value: 0.5, Threshold: 0.8, Passed: false}},
		Gate:    &results.Gate{Passed: false}}
	results.Summarize(pass)
	results.Summarize(fail)
	in := &report.Input{Suites: []*report.Suite{{Result: pass}, {Result: fail}}, Unaffected: []report.Unaffected{{Name: "c"}}}
	v := NewVars(in, false, "pull_request")
	if v.Passed || v.Verdict != VerdictNoBaseline || v.SuitesRun != 2 || v.Tasks != 3 || v.FailedTasks != 1 || v.ErroredTasks != 1 || v.Unaffected != 1 {
		t.Errorf("vars %+v", v)
	}
	if v.Score != 1.0/3 || v.TriggerAccuracy != 0.9 {
		t.Errorf("score %v trigger %v", v.Score, v.TriggerAccuracy)
	}
	m := v.Metrics["trigger_accuracy"]
	if !m.Present || m.Passed || m.Value != 0.5 {
		t.Errorf("merged metric %+v", m)
	}
	if w := v.Metrics["trigger_f1"]; w.Present || !w.Passed {
		t.Errorf("absent metric %+v", w)
	}
	for expr, want := range map[string]bool{
		`!passed || verdict == "regressed"`:             true,
		`verdict == "regressed"`:                        false,
		`metrics.trigger_accuracy.passed == false`:      true,
		`metrics.trigger_f1.passed == false`:            false,
		`any(suites, .name == "b" && !.passed)`:         true,
		`suites[0].metrics.trigger_accuracy.value > .8`: true,
		`unaffected == 1 && event == "pull_request"`:    true,
	} {
		prog, err := CompileFailOn(expr)
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		got, err := EvalFailOn(prog, v)
		if err != nil || got != want {
			t.Errorf("%s = %v (%v), want %v", expr, got, err, want)
		}
	}
	if v := NewVars(&report.Input{}, false, "push"); v.Verdict != VerdictSkipped || !v.Passed {
		t.Errorf("empty run %+v", v)
	}
	if v := NewVars(&report.Input{Suites: []*report.Suite{{Result: pass}}}, true, "push"); v.Passed {
		t.Errorf("a suite that could not start leaves passed true")
	}
}

// The default fail-on blocks on what a run brings, not on failures its baseline already has.
func TestDefaultFailOnBlocksOnNewProblemsOnly(t *testing.T) {
	// The mock executor gives the same run every time, so a flip there is real; an agent's flip
	// of three trials is not confirmed without confirmation trials (ConfirmHeads).
	executor := "mock"
	suite := func(passed ...bool) *results.SuiteResult {
		s := &results.SuiteResult{EvalName: "s", Metrics: map[string]*results.MetricResult{}, Config: results.RunConfig{EngineType: executor}}
		for i, p := range passed {
			task := &results.TaskResult{ID: string(rune('a' + i))}
			for k := 0; k < 3; k++ {
				task.Runs = append(task.Runs, &results.RunResult{Validations: results.Validations{{Name: "g", Type: "text", Score: 1, Weight: 1, Passed: p}}})
			}
			task.Finish()
			s.Tasks = append(s.Tasks, task)
		}
		results.Summarize(s)
		s.Gate = results.ComputeGate(s)
		return s
	}
	prog, err := CompileFailOn(DefaultFailOn)
	if err != nil {
		t.Fatal(err)
	}
	agentBase, agentHead := func() (*results.SuiteResult, *results.SuiteResult) {
		executor = "command"
		defer func() { executor = "mock" }()
		return suite(true, false), suite(false, false)
	}()
	for _, tc := range []struct {
		name       string
		base, head *results.SuiteResult
		fail       bool
	}{
		{"agent, one task flipped, not confirmed", agentBase, agentHead, false},
		{"main already failing, nothing new", suite(true, false), suite(true, false), false},
		{"main already failing, one new failure", suite(true, false), suite(false, false), true},
		{"a fix", suite(false, true), suite(true, true), false},
		{"no baseline, a failure", nil, suite(true, false), true},
		{"no baseline, all pass", nil, suite(true, true), false},
	} {
		s, err := report.NewSuite(tc.head, tc.base, report.CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		v := NewVars(&report.Input{Suites: []*report.Suite{s}}, false, "pull_request")
		got, err := EvalFailOn(prog, v)
		if err != nil || got != tc.fail {
			t.Errorf("%s: fail-on %v (%v), want %v; new_failures %d", tc.name, got, err, tc.fail, v.NewFailures)
		}
	}
}
