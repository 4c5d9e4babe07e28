package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadWazaFile(t *testing.T) {
	s, err := ReadFile("testdata/waza-showcase.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.EvalName != "grader-showcase" || len(s.Tasks) != 2 {
		t.Fatalf("eval %q tasks %d", s.EvalName, len(s.Tasks))
	}
	beh := s.Tasks[0]
	// waza reports pass_rate 1 for this task because errored runs count as passed; skillgate
	// recomputes with docs/results.md#tasks-and-runs: the errored trial makes the task `error`,
	// pass rate 0.
	if beh.Status != StatusError || beh.Stats.PassRate != 0 || beh.Stats.ErrorTrials != 1 {
		t.Errorf("behavior task: status %s stats %+v", beh.Status, beh.Stats)
	}
	if !near(beh.Stats.AvgScore, 0.458333) || !near(beh.Runs[0].Score, 0.916667) {
		t.Errorf("behavior scores: avg %.5f run1 %.5f", beh.Stats.AvgScore, beh.Runs[0].Score)
	}
	// Validations keep file order, not sorted order.
	if v := beh.Runs[0].Validations; len(v) != 2 || v[0].Name != "efficient_behavior" || v[1].Name != "has_output" {
		t.Errorf("validations order: %+v", v)
	}
	if beh.Runs[1].Validations != nil {
		t.Errorf("null validations must read as empty")
	}
	tr := beh.Runs[0].Transcript
	if len(tr) != 4 || tr[0].Type != EventMessage || tr[0].Role != "assistant" ||
		tr[1].Type != EventToolCall || tr[1].ID != "c1" || tr[1].Name != "bash" || tr[1].Success == nil || !*tr[1].Success ||
		tr[2].Type != EventSkillInvocation || tr[2].Name != "grader-showcase" || tr[3].Type != EventRaw || tr[3].Name != "session.idle" {
		t.Errorf("normalized transcript: %+v", tr)
	}
	rx := s.Tasks[1]
	if rx.Status != StatusFailed || rx.Stats.PassRate != 0.5 || !rx.Stats.Flaky || !near(rx.Stats.AvgWeightedScore, 0.90625) {
		t.Errorf("regex task: %s %+v", rx.Status, rx.Stats)
	}
	if s.Summary.Errors != 1 || s.Summary.Failed != 1 || !near(s.Summary.AggregateScore, 0.697917) || s.Summary.DurationMS != 1636 {
		t.Errorf("summary: %+v", s.Summary)
	}
	if s.Gate == nil || s.Gate.Passed {
		t.Errorf("gate: %+v", s.Gate)
	}
}

func TestRoundTrip(t *testing.T) {
	ok := true
	in := &SuiteResult{EvalName: "hello", Skill: "hello", Metrics: map[string]*MetricResult{}, Tasks: []*TaskResult{{
		ID: "t1", Name: "T1", Source: &Location{File: "evals/hello/tasks/t1.yaml", Line: 1, Col: 1},
		Runs: []*RunResult{{RunNumber: 1, Attempts: 1, Validations: Validations{
			{Name: "zeta", Type: "text", Score: 1, Weight: 1, Passed: true},
			{Name: "alpha", Type: "regex", Score: 0, Weight: 1, Passed: false, Feedback: "Missing expected pattern: x"},
		}, AgentRun: AgentRun{FinalOutput: "out", Transcript: []Event{{Type: EventToolCall, ID: "1", Name: "bash", Success: &ok}}}}},
	}}}
	for _, t := range in.Tasks {
		t.Finish()
	}
	Summarize(in)
	path := filepath.Join(t.TempDir(), "sub", "results.json")
	if err := WriteFile(path, in); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	if strings.Index(string(raw), `"zeta"`) > strings.Index(string(raw), `"alpha"`) {
		t.Error("validations must be written in execution order")
	}
	out, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if out.SchemaVersion != SchemaVersion || out.Tasks[0].Runs[0].Validations[1].Feedback != "Missing expected pattern: x" ||
		out.Tasks[0].Status != StatusFailed || out.Tasks[0].Source.Line != 1 || out.Tasks[0].Runs[0].FinalOutput != "out" {
		t.Errorf("round trip lost data: %+v", out.Tasks[0])
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestReadBadFiles(t *testing.T) {
	dir := t.TempDir()
	good, _ := os.ReadFile("testdata/waza-showcase.json")
	tests := []struct {
		name, content, want string
		offset              int64
	}{
		{"truncated", string(good[:700]), "truncated JSON", 700},
		{"syntax", `{"eval_name": "x", "tasks": [}`, "invalid JSON", 30},
		{"newer", `{"schema_version": 99, "eval_name": "x", "tasks": []}`, "schema_version 99 is newer", 0},
		{"not results", `{"name": "x"}`, "not a results file", 0},
		{"empty", ``, "empty file", 0},
		{"array", `[1,2]`, "expected a JSON object", 1},
		{"wrong type", `{"eval_name": "x", "tasks": [{"test_id": 5}]}`, "field", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, tc.name+".json")
			os.WriteFile(path, []byte(tc.content), 0o644)
			_, err := ReadFile(path)
			var re *ReadError
			if !errors.As(err, &re) {
				t.Fatalf("want *ReadError, got %v", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), path) {
				t.Errorf("error %q should start with the path and mention %q", err, tc.want)
			}
			if tc.offset != 0 && re.Offset != tc.offset {
				t.Errorf("offset %d, want %d", re.Offset, tc.offset)
			}
		})
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.json")); err == nil {
		t.Error("missing file must fail")
	}
}

func FuzzDecode(f *testing.F) {
	good, _ := os.ReadFile("testdata/waza-showcase.json")
	f.Add(good)
	f.Add([]byte(`{"schema_version":1,"eval_name":"x","tasks":[{"runs":[{"validations":{"a":{}}}]}]}`))
	f.Add([]byte(`{"eval_name":"x","tasks":[{"runs":[{"transcript":[{"type":"tool.execution_complete"}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data, "fuzz.json")
		if err == nil {
			if _, err := Marshal(s); err != nil {
				t.Fatalf("decoded results must re-encode: %v", err)
			}
		}
	})
}

func TestEncodeMatchesStandardEncoding(t *testing.T) {
	// Streaming the tasks must give exactly what encoding the whole value at once gives, compact
	// and indented (these suites' graders have no details to share).
	for _, s := range []*SuiteResult{
		bigSuite(3, 2),
		bigSuite(200, 1), // several encoding batches
		{EvalName: "empty", Metrics: map[string]*MetricResult{}, Tasks: []*TaskResult{}},
		{EvalName: "tail", Tasks: []*TaskResult{{ID: "a"}}, TriggerMetrics: &TriggerMetrics{Accuracy: 1}, Provenance: &Provenance{SuiteFile: "x"}},
	} {
		s.SchemaVersion = SchemaVersion
		for _, pretty := range []bool{false, true} {
			var got bytes.Buffer
			if err := encode(&got, s, pretty); err != nil {
				t.Fatal(err)
			}
			want, err := marshalCompact(s)
			if pretty {
				want, err = marshalIndent(s, "")
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want) {
				t.Errorf("%s (pretty %v): streamed encoding differs:\n%s\nwant:\n%s", s.EvalName, pretty, got.String(), want)
			}
		}
	}
}

func TestSharedDetailsRoundTrip(t *testing.T) {
	s := bigSuite(4, 3)
	for i, tr := range s.Tasks {
		for j, r := range tr.Runs {
			r.Validations[0].Details = map[string]any{"contains": []any{"print"}, "regex_not_match": []any{"(?i)error"}, "failures": nil, "run": float64(j)}
			if i == 2 && j == 1 {
				r.Validations[0].Details["contains"] = []any{"other"} // differs once: stays in every run
			}
			r.Validations[1].Details = map[string]any{"pattern": "x"}
		}
	}
	s.Tasks[3].Runs[0].Validations[1].Details = nil // one result without details: nothing of this grader is shared
	s.BaselineOutcome = bigSuite(2, 2)
	for _, tr := range s.BaselineOutcome.Tasks {
		for _, r := range tr.Runs {
			r.Validations[0].Details = map[string]any{"contains": []any{"print"}}
		}
	}
	data, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte(`"(?i)error"`)); n != 1 {
		t.Errorf("a detail every run repeats is written %d times, want once", n)
	}
	if n := bytes.Count(data, []byte(`"pattern":"x"`)); n != 11 {
		t.Errorf("details of a grader one result lacks are written %d times, want in each of the 11 runs", n)
	}
	if !bytes.Contains(data, []byte(`"grader_details":{"answered":{"contains":["print"]}}`)) {
		t.Errorf("baseline's shared details missing:\n%s", data)
	}
	back, err := Decode(data, "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if back.SharedDetails != nil || back.BaselineOutcome.SharedDetails != nil {
		t.Error("shared details must be put back into the runs")
	}
	want, _ := marshalCompact(s)
	got, _ := marshalCompact(back)
	// Summaries are recomputed on reading and equal; the rest must round-trip exactly.
	if string(got) != string(want) {
		t.Errorf("round trip differs:\n%s\nwant:\n%s", got, want)
	}
	if s.SharedDetails != nil || s.Tasks[0].Runs[0].Validations[0].Details["regex_not_match"] == nil {
		t.Error("encoding must not change the value it encodes")
	}
}

// A baseline source without a date (method none) has no created_at, not year 1.
func TestBaselineSourceWithoutDate(t *testing.T) {
	data, err := json.Marshal(&BaselineSource{Method: BaselineNone, Detail: "compared by the report workflow"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "created_at") {
		t.Errorf("%s", data)
	}
}
