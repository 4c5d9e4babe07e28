package graders

import (
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

const labelsYAML = `# labels for the review sheet
greet:
  1: {pass: true, note: "friendly and correct"}
  2: {score: 0.4, note: "too terse"}
  3:
    pass: false
    graders:
      security: {pass: true}
  4: {pass: null, note: ""}
farewell:
  1: {score: 1}
`

func TestParseLabels(t *testing.T) {
	l, diags := ParseLabels("labels.yaml", []byte(labelsYAML))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	tests := []struct {
		task   string
		trial  int
		grader string
		passed bool
		score  float64
		note   string
		none   bool
	}{
		{"greet", 1, "review", true, 1, "friendly and correct", false},
		{"greet", 2, "review", false, 0.4, "too terse", false},
		{"greet", 3, "review", false, 0, "", false},
		{"greet", 3, "security", true, 1, "", false},
		{"greet", 4, "review", false, 0, "", true},
		{"greet", 5, "review", false, 0, "", true},
		{"farewell", 1, "review", true, 1, "", false},
		{"other", 1, "review", false, 0, "", true},
	}
	for _, tc := range tests {
		lb := l.For(tc.task, tc.trial, tc.grader)
		if tc.none {
			if lb != nil {
				t.Errorf("%s/%d: unexpected label %+v", tc.task, tc.trial, lb)
			}
			continue
		}
		if lb == nil || lb.Passed != tc.passed || !near(lb.Score, tc.score) || lb.Note != tc.note {
			t.Errorf("%s/%d/%s: %+v", tc.task, tc.trial, tc.grader, lb)
		}
	}
	if l.Unlabeled != 1 || l.Len() != 5 {
		t.Errorf("unlabeled %d len %d", l.Unlabeled, l.Len())
	}
	// JSON is YAML: the same labels as JSON.
	lj, diags := ParseLabels("labels.json", []byte(`{"greet": {"1": {"pass": true, "note": "ok"}}}`))
	if diags.HasErrors() || lj.For("greet", 1, "x") == nil || !lj.For("greet", 1, "x").Passed {
		t.Errorf("JSON labels: %v", diags)
	}
}

func TestParseLabelsErrors(t *testing.T) {
	tests := []struct{ src, want string }{
		{"greet:\n  1: {score: 1.5}\n", "labels.yaml:2:14: error: greet[1].score: score must be a number from 0 to 1, not the number 1.5"},
		{"greet:\n  1: {score: high}\n", `score must be a number from 0 to 1, not the string "high"`},
		{"greet:\n  1: {pass: \"yes\"}\n", `labels.yaml:2:13: error: greet[1].pass: pass must be true or false, not the string "yes"`},
		{"greet:\n  first: {pass: true}\n", `labels.yaml:2:3: error: greet: task "greet": "first" is not a trial number`},
		{"greet:\n  0: {pass: true}\n", `"0" is not a trial number`},
		{"greet:\n  1: {pas: true}\n", `unknown label key "pas"`},
		{"greet: [1, 2]\n", "labels must be a mapping of trial numbers, not a list"},
		{"- greet\n", "labels file must be a mapping of task ids"},
		{"greet:\n  1: true\n", "label must be a mapping"},
		{"greet: {1: {pass: true}}\ngreet: {2: {pass: true}}\n", `labels.yaml:2:1: error: greet: task "greet" appears twice`},
		{"greet:\n  1: {pass: true\n", "labels.yaml:"},
	}
	for _, tc := range tests {
		_, diags := ParseLabels("labels.yaml", []byte(tc.src))
		if !diags.HasErrors() || !strings.Contains(diagText(diags), tc.want) {
			t.Errorf("%q\ngot %v\nwant %q", tc.src, diags, tc.want)
		}
	}
}

func TestLabelsCheckTasks(t *testing.T) {
	l, _ := ParseLabels("labels.yaml", []byte("greet:\n  1: {pass: true}\ngreeet:\n  1: {pass: true}\nzzz: {}\n"))
	s := &spec.Suite{Tasks: []*spec.Task{{ID: "greet"}, {ID: "farewell"}}}
	diags := l.CheckTasks([]*spec.Suite{s})
	if len(diags) != 1 || diags.HasErrors() || !strings.Contains(diags[0].Error(), "labels for unknown task ids are ignored: greeet, zzz") ||
		!strings.Contains(diags[0].Error(), `did you mean "greet"?`) || diags[0].Pos.Line != 3 {
		t.Errorf("%v", diags)
	}
	if d := (&Labels{}).CheckTasks([]*spec.Suite{s}); d != nil {
		t.Errorf("empty labels: %v", d)
	}
}

func TestHumanGrader(t *testing.T) {
	l, _ := ParseLabels("labels.yaml", []byte(labelsYAML))
	def := defFromYAML(t, "type: human\nname: review\nconfig:\n  instructions: Review for security best practices\n  criteria: [No hardcoded secrets]\n")
	pending := mustCompile(t, def)
	r := grade(t, pending, &Input{Task: &spec.Task{ID: "greet"}, Run: runWith("x"), Trial: 1})
	if r.Status != results.StatusPending || r.Feedback != "Awaiting human review: Review for security best practices" ||
		r.Details["criteria"].([]string)[0] != "No hardcoded secrets" {
		t.Errorf("pending: %+v", r)
	}
	labeled := mustCompile(t, def, &Env{Labels: l})
	r = grade(t, labeled, &Input{Task: &spec.Task{ID: "greet"}, Run: runWith("x"), Trial: 2})
	if r.Status != "" || r.Passed || !near(r.Score, 0.4) || r.Feedback != "Human label: fail (score 0.40): too terse" || r.Details["note"] != "too terse" {
		t.Errorf("labeled: %+v", r)
	}
	r = grade(t, labeled, &Input{Task: &spec.Task{ID: "greet"}, Run: runWith("x"), Trial: 4})
	if r.Status != results.StatusPending {
		t.Errorf("an unlabeled entry stays pending: %+v", r)
	}
}

// calibrationSuite builds a suite whose task has the given graders plus a human_calibration
// grader naming target.
func calibrationSuite(t *testing.T, target string, others ...string) (*spec.Suite, *spec.Grader) {
	t.Helper()
	cal := defFromYAML(t, "type: human_calibration\nname: cal\nconfig:\n  calibrate_grader: "+target+"\n")
	task := &spec.Task{ID: "greet"}
	for _, src := range others {
		task.Graders = append(task.Graders, defFromYAML(t, src))
	}
	task.Graders = append(task.Graders, cal)
	return &spec.Suite{Tasks: []*spec.Task{task}}, cal
}

func TestHumanCalibrationValidation(t *testing.T) {
	tests := []struct {
		target string
		others []string
		want   string
	}{
		{"quality", []string{"type: text\nname: fmt\nconfig:\n  contains: [x]\n"}, `config.calibrate_grader: grader "cal": calibrate_grader "quality" names no grader of task "greet" (fix: this task has no LLM grader`},
		{"qualty", []string{"type: llm\nname: quality\nconfig:\n  rubric: r\n"}, `did you mean "quality"? LLM graders of this task: quality`},
		{"fmt", []string{"type: text\nname: fmt\nconfig:\n  contains: [x]\n"}, `calibrate_grader "fmt" is a text grader, not an LLM grader`},
	}
	for _, tc := range tests {
		s, cal := calibrationSuite(t, tc.target, tc.others...)
		diags := compileDiags(t, cal, &Env{Suite: s})
		if !strings.Contains(diagText(diags), tc.want) || diags[0].Pos.Line != 4 {
			t.Errorf("%s: %v\nwant %q", tc.target, diags, tc.want)
		}
	}
	s, cal := calibrationSuite(t, "quality", "type: llm\nname: quality\nconfig:\n  rubric: r\n")
	l, _ := ParseLabels("l.yaml", []byte("greet:\n  1: {pass: false}\n"))
	g := mustCompile(t, cal, &Env{Suite: s, Labels: l})
	r := grade(t, g, &Input{Task: s.Tasks[0], Run: runWith("x"), Trial: 1})
	if r.Passed || r.Details["human_passed"] != false || r.Details["calibrate_grader"] != "quality" {
		t.Errorf("%+v", r)
	}
	r = grade(t, g, &Input{Task: s.Tasks[0], Run: runWith("x"), Trial: 2})
	if r.Status != results.StatusPending || !strings.Contains(r.Feedback, `the LLM grader "quality"`) {
		t.Errorf("%+v", r)
	}
}

func FuzzParseLabels(f *testing.F) {
	for _, s := range []string{labelsYAML, `{"a": {"1": {"pass": true}}}`, "a:\n  1: {score: 2}\n", "a: [", "&x a: *x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		l, diags := ParseLabels("f.yaml", []byte(src))
		if diags.HasErrors() {
			if l != nil {
				t.Fatal("labels returned with errors")
			}
			return
		}
		for k, lb := range l.runs {
			if lb == nil || lb.Score < 0 || lb.Score > 1 || k.trial < 1 {
				t.Fatalf("bad label %+v %+v", k, lb)
			}
		}
	})
}
