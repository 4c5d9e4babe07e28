package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/results"
)

// judgedSuite has tasks × trials runs, each judged by an llm grader "quality" (passing runs
// whose index is divisible by pass) and a pending human_calibration grader.
func judgedSuite(tasks, trials, pass int) *results.SuiteResult {
	s := &results.SuiteResult{SchemaVersion: results.SchemaVersion, EvalName: "judged", Metrics: map[string]*results.MetricResult{}}
	n := 0
	for i := 0; i < tasks; i++ {
		t := &results.TaskResult{ID: fmt.Sprintf("task-%02d", i), Name: fmt.Sprintf("Task %d", i), Prompt: "Explain closure number " + fmt.Sprint(i),
			Source: &results.Location{File: "evals/judged/eval.yaml", Line: 10 + i}}
		for k := 0; k < trials; k++ {
			ok := n%pass == 0
			n++
			r := &results.RunResult{RunNumber: k + 1, AgentRun: results.AgentRun{
				FinalOutput: strings.Repeat("A closure captures variables. ", 40),
				SessionDigest: results.SessionDigest{ToolCalls: []results.ToolCall{
					{Name: "view", Arguments: map[string]any{"path": "a.py"}, Success: true},
					{Name: "bash", Arguments: map[string]any{"command": "python a.py"}, Success: false},
					{Name: "view", Success: true}, {Name: "edit", Success: true}, {Name: "bash", Success: true}, {Name: "report", Success: true},
				}},
				ChangedFiles: []results.FileChange{{Path: "a.py", Change: "modified", Size: 10}},
			}}
			r.Validations = results.Validations{
				{Name: "quality", Type: "llm", Score: map[bool]float64{true: 1, false: 0.25}[ok], Weight: 1, Passed: ok, Feedback: "Judge score 4/5: clear"},
				{Name: "cal", Type: "human_calibration", Status: results.StatusPending, Feedback: "Awaiting human review", Details: map[string]any{"calibrate_grader": "quality"}},
			}
			t.Runs = append(t.Runs, r)
		}
		t.Finish()
		s.Tasks = append(s.Tasks, t)
	}
	return finishSuite(s)
}

func TestCalibrationSheetStratifiedAndSeeded(t *testing.T) {
	s := judgedSuite(10, 3, 3) // 30 runs: 10 passed by the judge, 20 failed
	sheet, err := CalibrationSheet([]*results.SuiteResult{s}, SheetOptions{Sample: 8, Seed: 7, LabelsFile: "cal-labels.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if sheet.Grader != "quality" || sheet.Sampled != 8 || sheet.Passes != 10 || sheet.Failures != 20 {
		t.Fatalf("%+v", sheet)
	}
	if strings.Count(sheet.Markdown, "quality says PASS") != 4 || strings.Count(sheet.Markdown, "quality says FAIL") != 4 {
		t.Errorf("not stratified 4/4:\n%s", sheet.Markdown)
	}
	assertContains(t, "sheet", sheet.Markdown, "> Explain closure number", "```text\nA closure captures", "- 1. `view` `{\"path\":\"a.py\"}` → ok", "- 2. `bash`", "→ failed", "- …",
		"**Changed files:** a.py (modified)", "**Verdict of `quality` (llm):**", "--labels cal-labels.yaml")
	again, _ := CalibrationSheet([]*results.SuiteResult{s}, SheetOptions{Sample: 8, Seed: 7, LabelsFile: "cal-labels.yaml"})
	if again.Markdown != sheet.Markdown || again.Labels != sheet.Labels {
		t.Error("the same seed must give the same sheet")
	}
	other, _ := CalibrationSheet([]*results.SuiteResult{s}, SheetOptions{Sample: 8, Seed: 8})
	if other.Labels == sheet.Labels {
		t.Error("another seed should sample other runs")
	}
	// The skeleton is a valid labels file, with every entry still unlabelled.
	l, diags := graders.ParseLabels("cal-labels.yaml", []byte(sheet.Labels))
	if diags.HasErrors() || l.Len() != 0 || l.Unlabeled != 8 {
		t.Fatalf("skeleton: %v len %d unlabeled %d\n%s", diags, l.Len(), l.Unlabeled, sheet.Labels)
	}
	filled := strings.Replace(sheet.Labels, "    pass: null", "    pass: true", 1)
	if l, diags := graders.ParseLabels("x.yaml", []byte(filled)); diags.HasErrors() || l.Len() != 1 {
		t.Errorf("filled skeleton: %v", diags)
	}
}

func TestCalibrationSheetShortStratumAndRunStatus(t *testing.T) {
	s := judgedSuite(2, 3, 6) // 6 runs: 1 pass, 5 failures
	sheet, err := CalibrationSheet([]*results.SuiteResult{s}, SheetOptions{Sample: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(sheet.Markdown, "says PASS") != 1 || strings.Count(sheet.Markdown, "says FAIL") != 3 {
		t.Errorf("the short stratum is filled from the other:\n%s", sheet.Markdown)
	}
	if _, err := CalibrationSheet([]*results.SuiteResult{s}, SheetOptions{Grader: "nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown grader: %v", err)
	}
	plain := suiteOf("plain", []counts{{1, 2}, {2, 2}})
	sheet, err = CalibrationSheet([]*results.SuiteResult{plain}, SheetOptions{Sample: 10})
	if err != nil || sheet.Grader != "" || sheet.Sampled != 4 || !strings.Contains(sheet.Markdown, "run passed") || !strings.Contains(sheet.Markdown, "_(not recorded in this results file)_") {
		t.Errorf("run-status sheet: %v\n%+v", err, sheet)
	}
}

func TestYAMLKey(t *testing.T) {
	for in, want := range map[string]string{"greet": "greet", "1": `"1"`, "yes": `"yes"`, "a: b": `"a: b"`, "-x": `"-x"`, "task-01": "task-01"} {
		if got := yamlKey(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

func TestReportsShowReviewAndCalibration(t *testing.T) {
	s := judgedSuite(2, 2, 2)
	// Label the human_calibration grader of every run: the judge is right on 3 of 4.
	human := []bool{true, false, false, false}
	i := 0
	for _, task := range s.Tasks {
		for _, r := range task.Runs {
			v := r.Validations.Get("cal")
			v.Status, v.Passed = "", human[i]
			v.Details["human_passed"] = human[i]
			i++
		}
		task.Finish()
	}
	s.Tasks[1].Runs[1].Validations = append(s.Tasks[1].Runs[1].Validations, &results.GraderResult{Name: "review", Type: "human", Status: results.StatusPending, Feedback: "Awaiting human review: check tone"})
	finishSuite(s)
	if len(s.Calibration) != 1 || s.Calibration[0].Labeled != 4 {
		t.Fatalf("calibration %+v", s.Calibration)
	}
	in := &Input{Suites: []*Suite{{Result: s}}}
	md := Summary(in)
	assertContains(t, "summary", md, "#### Judge calibration", "| `quality` | 4 | 75% |", "#### Awaiting human review (1)", "`task-01` trial 2: `review` (human) — Awaiting human review: check tone", "1 grade awaiting a human label")
	var buf bytes.Buffer
	if err := Terminal(&buf, in, TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	assertContains(t, "terminal output", buf.String(), "judged: 1 grade awaiting human review", "judged: judge quality vs human labels: agreement 75%, Cohen's kappa 0.50, false passes 33%, false failures 0% over 4 labelled runs")
}

func TestDeferredGradesAreNotHumanReview(t *testing.T) {
	s := &results.SuiteResult{EvalName: "s", Tasks: []*results.TaskResult{{ID: "t", Status: results.StatusPassed, Runs: []*results.RunResult{{RunNumber: 1, Status: results.StatusPassed, Validations: results.Validations{
		{Name: "judge", Type: "llm", Status: results.StatusPending, Feedback: "Deferred to the report workflow", Details: map[string]any{results.DeferredKey: "report"}},
		{Name: "review", Type: "human", Status: results.StatusPending, Feedback: "Awaiting human review"},
	}}}}}}
	results.Summarize(s)
	if human, deferred := pendingCounts(s); human != 1 || deferred != 1 {
		t.Fatalf("human %d deferred %d", human, deferred)
	}
	lines := strings.Join(reviewLines(s), "\n")
	if !strings.Contains(lines, "1 grade awaiting human review") || !strings.Contains(lines, "1 grade deferred to the report workflow") {
		t.Errorf("terminal lines:\n%s", lines)
	}
	sec := reviewSection(s)
	if sec == nil || len(sec.items) != 1 || !strings.Contains(sec.items[0], "`review`") {
		t.Errorf("only the human grade awaits review: %+v", sec)
	}
}
