package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

// counts is one task's trials: passed of trials (passed trials score 1, failed ones 0).
type counts struct{ passed, trials int }

// suiteOf builds a real results file of suite name with one task per entry, ids t00, t01…
func suiteOf(name string, tasks []counts) *results.SuiteResult {
	s := &results.SuiteResult{SchemaVersion: results.SchemaVersion, EvalName: name, Skill: name, Metrics: map[string]*results.MetricResult{}}
	for i, c := range tasks {
		t := &results.TaskResult{ID: fmt.Sprintf("t%02d", i), Name: fmt.Sprintf("Task %d", i),
			Source: &results.Location{File: "evals/" + name + "/tasks/t.yaml", Line: i + 1}}
		for k := 0; k < c.trials; k++ {
			ok := k < c.passed
			score := 0.0
			if ok {
				score = 1
			}
			t.Runs = append(t.Runs, &results.RunResult{RunNumber: k + 1, Attempts: 1, Validations: results.Validations{
				{Name: "check", Type: "text", Score: score, Weight: 1, Passed: ok, Feedback: "checked",
					Source: &results.Location{File: "evals/" + name + "/tasks/t.yaml", Line: i + 1, Col: 3}},
			}, AgentRun: results.AgentRun{DurationMS: 1000}})
		}
		t.Finish()
		s.Tasks = append(s.Tasks, t)
	}
	return finishSuite(s)
}

// assertContains reports each of wants that text, named what, lacks.
func assertContains(t *testing.T, what, text string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("%s lacks %q:\n%s", what, want, text)
		}
	}
}

// finishSuite summarizes s and computes its gate, as a run does before it writes the results.
func finishSuite(s *results.SuiteResult) *results.SuiteResult {
	results.Summarize(s)
	s.Gate = results.ComputeGate(s)
	return s
}

func repeat(c counts, n int) []counts {
	out := make([]counts, n)
	for i := range out {
		out[i] = c
	}
	return out
}

func readFixture(t testing.TB, name string) *results.SuiteResult {
	t.Helper()
	s, err := results.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// bigSuite is a realistic large results file: tasks × trials, three graders per run, agent
// output and feedback text, a share of failing, flaky and errored tasks.
func bigSuite(name string, tasks, trials int, shift int) *results.SuiteResult {
	s := &results.SuiteResult{SchemaVersion: results.SchemaVersion, EvalName: name, Skill: name, Metrics: map[string]*results.MetricResult{},
		Config:     results.RunConfig{RunsPerTest: trials, EngineType: "replay", ModelID: "model-x"},
		Provenance: &results.Provenance{SuiteFile: "evals/" + name + "/eval.yaml", SkillgateVersion: "0.1.0"}}
	output := strings.Repeat("The function parses the | input and `returns` a map. ", 4)
	for i := 0; i < tasks; i++ {
		t := &results.TaskResult{ID: fmt.Sprintf("task-%05d", i), Name: fmt.Sprintf("Task number %d", i),
			Source: &results.Location{File: fmt.Sprintf("evals/%s/tasks/task-%05d.yaml", name, i), Line: 1, Col: 1}}
		for k := 0; k < trials; k++ {
			fail := (i*7+k*3+shift)%11 == 0
			r := &results.RunResult{RunNumber: k + 1, Attempts: 1, AgentRun: results.AgentRun{FinalOutput: output, DurationMS: int64(1000 + i%500)}}
			if (i+shift)%97 == 0 && k == 0 {
				r.Status = results.StatusError
				r.ErrorMsg = "agent timed out after 300s"
			} else {
				score := 1.0
				if fail {
					score = 0
				}
				r.Validations = results.Validations{
					{Name: "has_output", Type: "code", Score: 1, Weight: 1, Passed: true, Feedback: "All assertions passed", Source: &results.Location{File: "evals/" + name + "/eval.yaml", Line: 12, Col: 5}},
					{Name: "mentions", Type: "text", Score: score, Weight: 1, Passed: !fail, Feedback: "Missing expected substring: closure | `x`", Source: &results.Location{File: t.Source.File, Line: 8, Col: 7}},
					{Name: "steps", Type: "behavior", Score: 1, Weight: 1, Passed: true, Feedback: "ok", Source: &results.Location{File: t.Source.File, Line: 14, Col: 7}},
				}
			}
			t.Runs = append(t.Runs, r)
		}
		t.Finish()
		s.Tasks = append(s.Tasks, t)
	}
	return finishSuite(s)
}
