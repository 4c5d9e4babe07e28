package spec

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

type wantGrader struct {
	name, typ string
	weight    float64
	file      string // relative to the suite folder
	line, col int
	global    bool
	implicit  string
	config    map[string]any
}

func configOf(t *testing.T, g *Grader) map[string]any {
	t.Helper()
	if g.config == nil {
		t.Fatalf("grader %s: nil config", g.Name)
	}
	out := map[string]any{}
	if err := g.config.Decode(&out); err != nil {
		t.Fatalf("grader %s: %v", g.Name, err)
	}
	return out
}

func checkGraders(t *testing.T, dir, task string, got []*Grader, want []wantGrader) {
	t.Helper()
	if len(got) != len(want) {
		var names []string
		for _, g := range got {
			names = append(names, g.Name)
		}
		t.Fatalf("task %s: graders %v, want %d", task, names, len(want))
	}
	for i, w := range want {
		g := got[i]
		file := filepath.Join(dir, w.file)
		if g.Name != w.name || g.Type != w.typ || g.Weight != w.weight || g.Global != w.global || g.Implicit != w.implicit {
			t.Errorf("task %s grader %d = {%s %s %v global=%v implicit=%q}, want %+v", task, i, g.Name, g.Type, g.Weight, g.Global, g.Implicit, w)
		}
		if g.Pos != (Pos{File: file, Line: w.line, Col: w.col}) || g.File != file || g.Dir != filepath.Dir(file) {
			t.Errorf("task %s grader %s at %v (file %s, dir %s), want %s:%d:%d", task, g.Name, g.Pos, g.File, g.Dir, file, w.line, w.col)
		}
		if c := configOf(t, g); !reflect.DeepEqual(c, w.config) {
			t.Errorf("task %s grader %s config = %#v, want %#v", task, g.Name, c, w.config)
		}
	}
}

func TestFullSuite(t *testing.T) {
	dir, _ := filepath.Abs("testdata/full")
	s, diags := Load("testdata/full/eval.yaml", Options{})
	if len(diags) != 0 {
		t.Fatalf("unexpected diagnostics:\n%s", render(diags))
	}
	p := func(rel string) string { return filepath.Join(dir, rel) }

	if s.File != p("eval.yaml") || s.Dir != dir || s.Name != "full-suite" || s.Version != "1.2" ||
		s.Skill != "code-explainer" || !s.Baseline || s.Description != "Uses every feature of the format" {
		t.Errorf("suite header = %+v", s)
	}
	if s.ContextDir != p("fixtures") {
		t.Errorf("ContextDir = %s", s.ContextDir)
	}
	c := s.Config
	if c.TrialsPerTask != 2 || c.TimeoutSeconds != 120 || !c.Parallel || c.MaxWorkers != 3 || !c.FailFast ||
		c.MaxAttempts != 2 || c.Executor != "claude-code" || c.Model != "claude-sonnet" || c.JudgeModel != "gpt-4o-mini" ||
		c.GroupBy != "model" {
		t.Errorf("config = %+v", c)
	}
	if !reflect.DeepEqual(c.SkillDirectories, []string{p("skills")}) || !reflect.DeepEqual(c.RequiredSkills, []string{"code-explainer"}) {
		t.Errorf("skills = %v %v", c.SkillDirectories, c.RequiredSkills)
	}
	if len(c.Extra) != 2 || c.Extra["agent_args"] == nil || c.Extra["judge"].Key("base_url").Text() != "http://localhost:1234" {
		t.Errorf("Extra = %v", c.Extra)
	}
	if c.Pos["max_workers"] != (Pos{File: p("eval.yaml"), Line: 11, Col: 3}) || c.Pos["workers"] != c.Pos["max_workers"] {
		t.Errorf("Pos of the workers alias = %v / %v", c.Pos["max_workers"], c.Pos["workers"])
	}
	if !reflect.DeepEqual(s.Inputs, map[string]string{"language": "python", "audience": "beginners"}) {
		t.Errorf("Inputs = %v", s.Inputs)
	}
	h := s.Hooks
	if len(h.BeforeRun) != 1 || h.BeforeRun[0].Command != "echo start" || h.BeforeRun[0].WorkingDirectory != dir ||
		!reflect.DeepEqual(h.BeforeRun[0].ExitCodes, []int{0}) || h.BeforeRun[0].ErrorOnFail {
		t.Errorf("before_run = %+v", h.BeforeRun)
	}
	if len(h.AfterTask) != 1 || h.AfterTask[0].WorkingDirectory != p("scripts") ||
		!reflect.DeepEqual(h.AfterTask[0].ExitCodes, []int{0, 1}) || !h.AfterTask[0].ErrorOnFail || len(h.AfterRun)+len(h.BeforeTask) != 0 {
		t.Errorf("after_task = %+v", h.AfterTask)
	}
	if len(s.Metrics) != 2 ||
		*s.Metrics[0] != (Metric{Name: "trigger_accuracy", Threshold: 0.8, Weight: 1, Enabled: true, Pos: Pos{File: p("eval.yaml"), Line: 51, Col: 5}}) ||
		*s.Metrics[1] != (Metric{Name: "task_completion", Threshold: 0.5, Weight: 2, Enabled: false, Description: "most tasks pass", Pos: Pos{File: p("eval.yaml"), Line: 53, Col: 5}}) {
		t.Errorf("metrics = %+v %+v", s.Metrics[0], s.Metrics[1])
	}

	noErrors := wantGrader{"no_errors", "text", 1, "eval.yaml", 35, 5, true, "", map[string]any{"regex_not_match": []any{"(?i)traceback"}}}
	hasOutput := wantGrader{"has_output", "code", 2, "eval.yaml", 39, 5, true, "", map[string]any{"assertions": []any{"len(output) > 0"}}}
	judge := wantGrader{"judge", "llm", 1, "eval.yaml", 44, 5, true, "", map[string]any{"threshold": 0.5, "model": "gpt-4o", "rubric": "Score the explanation from 1 to 5."}}
	checkGraders(t, dir, "(global)", s.Graders, []wantGrader{noErrors, hasOutput, judge})

	wantIDs := []string{"alpha", "beta-custom", "gamma", "inline-one", "csv-b", "row-3"}
	var ids []string
	for _, tk := range s.Tasks {
		ids = append(ids, tk.ID)
	}
	if !reflect.DeepEqual(ids, wantIDs) {
		t.Fatalf("task ids = %v, want %v (off.yaml is disabled; alpha.yaml matched twice loads once)", ids, wantIDs)
	}
	byID := map[string]*Task{}
	for _, tk := range s.Tasks {
		byID[tk.ID] = tk
	}

	alpha := byID["alpha"]
	if alpha.Name != "Alpha" || alpha.Description != "Explains a fixture" || !reflect.DeepEqual(alpha.Tags, []string{"smoke", "python"}) ||
		alpha.TimeoutSeconds != 30 || alpha.ContextDir != p("fixtures") || alpha.File != p("tasks/alpha.yaml") ||
		alpha.Dir != p("tasks") || alpha.Pos != (Pos{File: p("tasks/alpha.yaml"), Line: 2, Col: 1}) {
		t.Errorf("alpha = %+v", alpha)
	}
	if want := "Explain this file:\ndef add(a, b):\n    return a + b\n\n"; alpha.Prompt != want {
		t.Errorf("alpha prompt = %q, want %q", alpha.Prompt, want)
	}
	if len(alpha.Files) != 2 ||
		*alpha.Files[0] != (InputFile{Path: "sample.py", Source: p("fixtures/sample.py"), Pos: Pos{File: p("tasks/alpha.yaml"), Line: 11, Col: 7}}) ||
		*alpha.Files[1] != (InputFile{Path: "notes.txt", Source: p("fixtures/notes.txt"), Pos: Pos{File: p("tasks/alpha.yaml"), Line: 12, Col: 7}}) {
		t.Errorf("alpha files = %+v %+v", alpha.Files[0], alpha.Files[1])
	}
	if alpha.Context != "repo: demo\nbranch: main" || !reflect.DeepEqual(alpha.Environment, map[string]string{"DEBUG": "1", "MODE": "fast"}) {
		t.Errorf("alpha context %q env %v", alpha.Context, alpha.Environment)
	}
	checkGraders(t, dir, "alpha", alpha.Graders, []wantGrader{
		{"no_errors", "text", 1, "tasks/alpha.yaml", 34, 5, false, "", map[string]any{"not_contains": []any{"error"}}},
		hasOutput, judge,
		{"local_assert", "code", 1, "tasks/alpha.yaml", 38, 5, false, "", map[string]any{"assertions": []any{"'x' in output"}}},
		{"expected_outcomes", "file", 1, "tasks/alpha.yaml", 21, 3, false, "expected.outcomes", map[string]any{"must_exist": []any{"out.txt"}}},
		{"expected_behavior", "behavior", 1, "tasks/alpha.yaml", 26, 3, false, "expected.behavior", map[string]any{"max_tool_calls": 5}},
		{"expected_turns", "tool_constraint", 1, "tasks/alpha.yaml", 28, 5, false, "expected.behavior.max_iterations", map[string]any{"max_turns": 3}},
		{"expected_tool_calls", "tool_calls", 1, "tasks/alpha.yaml", 29, 3, false, "expected.tool_calls",
			map[string]any{"forbidden": []any{map[string]any{"pattern": "rm -rf"}}}},
		{"expected_trigger", "trigger", 1, "tasks/alpha.yaml", 32, 3, false, "expected.should_trigger",
			map[string]any{"skill": "code-explainer", "should_trigger": true}},
	})
	// Top-level graders are shared, not copied, so they compile once.
	if alpha.Graders[1] != s.Graders[1] || alpha.Graders[0] == s.Graders[0] {
		t.Errorf("alpha must share has_output and replace no_errors")
	}

	beta := byID["beta-custom"]
	if beta.Name != "beta-custom" || beta.ContextDir != p("task-fixtures") || beta.Prompt != "Plain prompt, kept as written  " ||
		len(beta.Files) != 1 || beta.Files[0].Source != p("task-fixtures/custom.txt") || beta.TimeoutSeconds != 120 {
		t.Errorf("beta = %+v", beta)
	}
	checkGraders(t, dir, "beta", beta.Graders, []wantGrader{judge, hasOutput, noErrors})
	if beta.Graders[0] != s.Graders[2] || beta.Graders[2] != s.Graders[0] {
		t.Errorf("beta's references must be the top-level graders")
	}

	gamma := byID["gamma"]
	if gamma.Prompt != "Some notes.\n" || gamma.Name != "gamma" {
		t.Errorf("gamma = %+v", gamma)
	}
	checkGraders(t, dir, "gamma", gamma.Graders, []wantGrader{noErrors, hasOutput, judge})

	inline := byID["inline-one"]
	if inline.Name != "Inline task" || inline.Prompt != "Explain python to beginners (Inline task)" || inline.File != p("eval.yaml") ||
		inline.Dir != dir || inline.Pos != (Pos{File: p("eval.yaml"), Line: 61, Col: 5}) ||
		len(inline.Files) != 1 || !inline.Files[0].HasContent || inline.Files[0].Content != "print('hi')\n" || inline.Files[0].Source != "" {
		t.Errorf("inline = %+v", inline)
	}
	checkGraders(t, dir, "inline-one", inline.Graders, []wantGrader{
		hasOutput,
		{"mentions_print", "regex", 1, "eval.yaml", 72, 11, false, "", map[string]any{"must_match": []any{"print"}}},
		{"merged_text", "text", 1, "eval.yaml", 77, 11, false, "", map[string]any{"regex_not_match": []any{"(?i)traceback"}, "contains": []any{"hello"}}},
	})

	csvB, row3 := byID["csv-b"], byID["row-3"]
	if csvB.Name != "csv-b" || csvB.Prompt != "Explain recursion in python" || csvB.Pos != (Pos{File: p("data.csv"), Line: 3, Col: 1}) ||
		!reflect.DeepEqual(csvB.Vars, map[string]string{"id": "csv-b", "name": "", "prompt": "Explain {{topic}} in {{language}}", "topic": "recursion"}) {
		t.Errorf("csv-b = %+v", csvB)
	}
	if row3.Name != "row-3" || row3.Prompt != "Describe closures for row-3" || row3.Pos.Line != 4 || row3.ContextDir != p("fixtures") {
		t.Errorf("row-3 = %+v", row3)
	}
	checkGraders(t, dir, "csv-b", csvB.Graders, []wantGrader{noErrors, hasOutput, judge})

	tt := s.TriggerTests
	if tt == nil || tt.Skill != "code-explainer" || tt.File != p("trigger_tests.yaml") || len(tt.ShouldTrigger) != 2 || len(tt.ShouldNot) != 1 {
		t.Fatalf("trigger tests = %+v", tt)
	}
	if got := *tt.ShouldTrigger[0]; got != (TriggerPrompt{ID: "should-1", Prompt: "Explain this code", Reason: "direct request", Confidence: "high", ShouldTrigger: true, Pos: Pos{File: p("trigger_tests.yaml"), Line: 3, Col: 5}}) {
		t.Errorf("should[0] = %+v", got)
	}
	if got := tt.ShouldTrigger[1]; got.ID != "what-does" || got.Confidence != "medium" || got.Weight() != 0.5 {
		t.Errorf("should[1] = %+v", got)
	}
	if got := tt.ShouldNot[0]; got.ID != "should-not-1" || got.ShouldTrigger || got.Weight() != 1 {
		t.Errorf("should-not[0] = %+v", got)
	}

	wantFiles := []string{
		p("data.csv"), p("eval.yaml"), p("extra/gamma.yaml"), p("fixtures/notes.txt"), p("fixtures/sample.py"),
		p("task-fixtures/custom.txt"), p("tasks/alpha.yaml"), p("tasks/nested/deep/beta.yaml"), p("tasks/nested/off.yaml"),
		p("trigger_tests.yaml"),
	}
	if !reflect.DeepEqual(s.Files, wantFiles) {
		t.Errorf("Files = %v\nwant %v", s.Files, wantFiles)
	}
}

// --context-dir replaces the fixtures folder, resolved against the working directory.
func TestContextDirOption(t *testing.T) {
	alt := t.TempDir()
	for _, f := range []string{"sample.py", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(alt, f), []byte("alt "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, diags := Load("testdata/full/eval.yaml", Options{ContextDir: alt})
	if diags.HasErrors() {
		t.Fatalf("diagnostics:\n%s", render(diags))
	}
	if s.ContextDir != alt || s.Tasks[0].Files[0].Source != filepath.Join(alt, "sample.py") || s.Tasks[2].Prompt != "alt notes.txt" {
		t.Errorf("context dir not applied: %s %+v %q", s.ContextDir, s.Tasks[0].Files[0], s.Tasks[2].Prompt)
	}
	// The task with its own context_dir keeps it.
	if s.Tasks[1].ContextDir == alt {
		t.Errorf("task context_dir must win over --context-dir")
	}
	_, diags = Load("testdata/full/eval.yaml", Options{ContextDir: filepath.Join(alt, "missing")})
	if !diags.HasErrors() {
		t.Errorf("a missing --context-dir must be an error")
	}
}
