package results

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writtenResults is a small skillgate results file, as WriteFile writes it.
func writtenResults(t *testing.T) []byte {
	t.Helper()
	in := &SuiteResult{EvalName: "hello", Skill: "hello", Metrics: map[string]*MetricResult{
		"task_completion": {Name: "task_completion", Value: 1, Threshold: 0.8, Weight: 1},
	}, Tasks: []*TaskResult{
		{ID: "a", Name: "A", Runs: []*RunResult{{RunNumber: 1, Attempts: 1, Validations: Validations{
			{Name: "g", Type: "text", Score: 1, Weight: 1, Passed: true},
		}, AgentRun: AgentRun{FinalOutput: "out", DurationMS: 10, SessionDigest: SessionDigest{Usage: &Usage{InputTokens: 5}}}}}},
		{ID: "b", Name: "B", Runs: []*RunResult{{RunNumber: 1, Attempts: 1, Validations: Validations{
			{Name: "g", Type: "text", Score: 0, Weight: 1},
		}}}},
	}}
	for _, tk := range in.Tasks {
		tk.Finish()
	}
	Summarize(in)
	data, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Figures out of range, written by hand or by another tool, are clamped when read, with a
// warning: none reaches a reader as a number that overflows a sum (issue 27: `compare` panicked
// on a baseline whose task avg_score was 1.7e308).
func TestReadClampsFiguresOutOfRange(t *testing.T) {
	cases := []struct {
		name   string
		edit   func(string) string
		warn   string
		verify func(t *testing.T, s *SuiteResult)
	}{
		{"task stats", func(s string) string {
			return strings.Replace(s, `"avg_score":1,`, `"avg_score":1.7e308,`, 1)
		}, "tasks' stats: 1 value(s) out of range or not finite, recomputed from their runs", func(t *testing.T, s *SuiteResult) {
			if st := s.Tasks[0].Stats; st.AvgScore != 1 || s.Summary.AggregateScore != 0.5 {
				t.Errorf("avg_score %v, summary %v", st.AvgScore, s.Summary.AggregateScore)
			}
		}},
		{"negative task stats", func(s string) string {
			return strings.Replace(s, `"avg_score":1,`, `"avg_score":-1.7e308,`, 1)
		}, "tasks' stats", func(t *testing.T, s *SuiteResult) {
			if s.Tasks[0].Stats.AvgScore != 1 {
				t.Errorf("avg_score %v", s.Tasks[0].Stats.AvgScore)
			}
		}},
		{"run and grader scores", func(s string) string {
			s = strings.Replace(s, `"score":1,"weight":1`, `"score":1e308,"weight":1e300`, 1)
			return strings.Replace(s, `"score":1,"weighted_score":1`, `"score":5,"weighted_score":-3`, 1)
		}, "graders' score: 1 value(s) out of range or not finite, clamped to 0–1", func(t *testing.T, s *SuiteResult) {
			r := s.Tasks[0].Runs[0]
			if r.Score != 1 || r.WeightedScore != 0 || r.Validations[0].Score != 1 || r.Validations[0].Weight != maxWeight {
				t.Errorf("run %v %v, grader %v %v", r.Score, r.WeightedScore, r.Validations[0].Score, r.Validations[0].Weight)
			}
		}},
		{"usage and durations", func(s string) string {
			s = strings.ReplaceAll(s, `"input_tokens":5`, `"input_tokens":-5`)
			return strings.Replace(s, `"duration_ms":10`, `"duration_ms":9223372036854775807`, 1)
		}, "runs' duration_ms", func(t *testing.T, s *SuiteResult) {
			r := s.Tasks[0].Runs[0]
			if r.DurationMS != maxDurationMS || r.SessionDigest.Usage.InputTokens != 0 {
				t.Errorf("duration %d, tokens %d", r.DurationMS, r.SessionDigest.Usage.InputTokens)
			}
		}},
		{"metric", func(s string) string {
			return strings.Replace(s, `"threshold":0.8`, `"threshold":1e308`, 1)
		}, "metrics' threshold", func(t *testing.T, s *SuiteResult) {
			if m := s.Metrics["task_completion"]; m.Threshold != 1 {
				t.Errorf("threshold %v", m.Threshold)
			}
		}},
		{"beyond float64", func(s string) string {
			return strings.Replace(s, `"avg_score":1,`, `"avg_score":1e999,`, 1)
		}, "1 number(s) beyond the range of a 64-bit number read as the largest one", func(t *testing.T, s *SuiteResult) {
			if s.Tasks[0].Stats.AvgScore != 1 {
				t.Errorf("avg_score %v", s.Tasks[0].Stats.AvgScore)
			}
		}},
		{"beyond int64", func(s string) string {
			return strings.Replace(s, `"duration_ms":10`, `"duration_ms":-99999999999999999999999`, 1)
		}, "beyond the range of a 64-bit number", func(t *testing.T, s *SuiteResult) {
			if d := s.Tasks[0].Runs[0].DurationMS; d != 0 {
				t.Errorf("duration %d", d)
			}
		}},
		{"in range", func(s string) string { return s }, "", nil},
	}
	good := string(writtenResults(t))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := c.edit(good)
			if c.warn != "" && data == good {
				t.Fatal("the edit changed nothing")
			}
			path := filepath.Join(t.TempDir(), "r.json")
			os.WriteFile(path, []byte(data), 0o644)
			s, err := ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			warnings := strings.Join(s.ReadWarnings, "\n")
			if c.warn == "" && warnings != "" || !strings.Contains(warnings, c.warn) {
				t.Errorf("warnings %q, want %q", warnings, c.warn)
			}
			if c.verify != nil {
				c.verify(t, s)
			}
			assertFiguresFinite(t, s)
		})
	}
}

// assertFiguresFinite fails when any number of s, as it would be written, is out of [-1e300, 1e300].
func assertFiguresFinite(t *testing.T, s *SuiteResult) {
	t.Helper()
	data, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("results no longer encode: %v", err)
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if f, ok := e.(float64); ok && (math.Abs(f) > 1e300) {
					t.Errorf("%s = %v", k, f)
				}
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	var v any
	json.Unmarshal(data, &v)
	walk(v)
}

func TestVallyImportClampsFigures(t *testing.T) {
	in := `{"type":"trial-result","evalName":"e","stimulus":"s","durationMs":1e300,"gradeResult":{"passed":true,"score":1e999,"details":[]}}` + "\n"
	suites, err := ReadVally(strings.NewReader(in), "results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s := suites[0]
	r := s.Tasks[0].Runs[0]
	if r.DurationMS != maxDurationMS || r.Validations[0].Score != 1 || len(s.ReadWarnings) != 3 {
		t.Errorf("duration %d, score %v, warnings %q", r.DurationMS, r.Validations[0].Score, s.ReadWarnings)
	}
}

func TestBoundNumbersLeavesStringsAlone(t *testing.T) {
	in := `{"a":"1e999 \"2e999\"","b":1e999,"c":[-1e999,1e-999,12,99999999999999999999]}`
	got, n := boundNumbers([]byte(in))
	want := `{"a":"1e999 \"2e999\"","b":9223372036854775807,"c":[-9223372036854775807,1e-999,12,9223372036854775807]}`
	if string(got) != want || n != 3 {
		t.Errorf("got %s (%d)\nwant %s", got, n, want)
	}
}
