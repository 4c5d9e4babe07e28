package results

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillgate/skillgate/internal/cputime"
	"github.com/skillgate/skillgate/internal/redact"
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

// withTextDetails gives every grader result the details skillgate's text grader writes: its
// config echoed and the failures, as in a real run's results file.
func withTextDetails(s *SuiteResult) *SuiteResult {
	for _, t := range s.Tasks {
		for _, r := range t.Runs {
			for _, g := range r.Validations {
				g.Details = map[string]any{
					"contains": []string{"Mock response"}, "not_contains": []string{"TODO"},
					"contains_cs": []string(nil), "not_contains_cs": []string(nil),
					"regex_match": []string(nil), "regex_not_match": []string{"(?i)error", "(?i)traceback"},
					"failures": []string(nil),
				}
			}
		}
	}
	return s
}

// The 10,000-task × 3-trial results file, written compact (the default) and indented (--pretty).
func BenchmarkWriteFile10kx3(b *testing.B) {
	s := withTextDetails(bigSuite(10000, 3))
	path := filepath.Join(b.TempDir(), "r.json")
	write := func(name string, pretty bool) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				if err := WriteFileAs(path, s, pretty); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
			reportSize(b, path)
		})
	}
	for _, pretty := range []bool{false, true} {
		write(style(pretty), pretty)
	}
	// The secrets of a CI job with an agent registered (internal/redact keeps them for the rest
	// of the process, so this comes last): what redacting a results file costs.
	redact.Add("ghs_benchWorkflowToken0123456789abcd", "sk-ant-benchAgentKey-0123456789abcdef", "sk-benchJudgeKey-0123456789abcdef",
		"eyJbench.RuntimeToken.0123456789abcdef", "eyJbench.OidcToken.0123456789abcdefgh", "github_pat_benchCopilot0123456789abc")
	write(style(false)+"-6-secrets", false)
}

func BenchmarkReadFile10kx3(b *testing.B) {
	s := withTextDetails(bigSuite(10000, 3))
	for _, pretty := range []bool{false, true} {
		b.Run(style(pretty), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "r.json")
			if err := WriteFileAs(path, s, pretty); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu := cputime.Process()
			for b.Loop() {
				if _, err := ReadFile(path); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
			reportSize(b, path)
		})
	}
}

func style(pretty bool) string {
	if pretty {
		return "pretty"
	}
	return "compact"
}

func reportSize(b *testing.B, path string) {
	if info, err := os.Stat(path); err == nil {
		b.ReportMetric(float64(info.Size())/1e6, "MB-file")
	}
}
