package results

import (
	"fmt"
	"path/filepath"
	"testing"
)

// bigSuite builds a results file of tasks × trials runs with two graders each, like the one a
// 10,000-task benchmark run writes.
func bigSuite(tasks, trials int) *SuiteResult {
	s := &SuiteResult{SchemaVersion: SchemaVersion, EvalName: "bench", Skill: "bench", Metrics: map[string]*MetricResult{}}
	for i := 0; i < tasks; i++ {
		t := &TaskResult{ID: fmt.Sprintf("task-%05d", i), Name: fmt.Sprintf("Task %d", i), Source: &Location{File: "tasks/t.yaml", Line: 1, Col: 1}}
		for r := 1; r <= trials; r++ {
			t.Runs = append(t.Runs, &RunResult{RunNumber: r, Attempts: 1, Validations: Validations{
				{Name: "answered", Type: "text", Score: 1, Weight: 1, Passed: true, Feedback: "All text checks passed", Source: &Location{File: "tasks/t.yaml", Line: 9, Col: 5}},
				{Name: "shape", Type: "text", Score: 1, Weight: 1, Passed: true, Feedback: "All text checks passed", Source: &Location{File: "tasks/t.yaml", Line: 15, Col: 5}},
			}, AgentRun: AgentRun{FinalOutput: fmt.Sprintf("Mock response for: Explain item %d of the benchmark in one sentence.\nAnalyzed 1 file(s)", i),
				SessionDigest: SessionDigest{ToolsUsed: []string{}, Errors: []string{}}}})
		}
		t.Finish()
		s.Tasks = append(s.Tasks, t)
	}
	Summarize(s)
	return s
}

func BenchmarkWriteFile10kx3(b *testing.B) {
	s := bigSuite(10000, 3)
	path := filepath.Join(b.TempDir(), "r.json")
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteFile(path, s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadFile10kx3(b *testing.B) {
	path := filepath.Join(b.TempDir(), "r.json")
	if err := WriteFile(path, bigSuite(10000, 3)); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadFile(path); err != nil {
			b.Fatal(err)
		}
	}
}
