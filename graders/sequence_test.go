package graders

import (
	"context"
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/results"
)

func actionDef(t *testing.T, mode string, expected ...string) string {
	return "type: action_sequence\nname: a\nconfig:\n  matching_mode: " + mode + "\n  expected_actions: [" + strings.Join(expected, ", ") + "]\n"
}

// sequenceCase is a declaration, the tools or skills a run used, and the verdict it must give.
type sequenceCase struct {
	name     string
	def      string
	actual   []string
	score    float64
	passed   bool
	feedback string
}

func TestActionSequence(t *testing.T) {
	cases := []sequenceCase{
		// waza-spec §2.9 worked example: TP=2, P=1, R=2/3, F1=0.8; only the mode decides the verdict.
		{"worked example, in order", actionDef(t, "in_order_match", "view", "edit", "view"), []string{"view", "edit"}, 0.8, false,
			"In-order match failed: not all expected actions [view edit view] appeared in order within actual [view edit]"},
		{"worked example, any order", actionDef(t, "any_order_match", "view", "edit", "view"), []string{"view", "edit"}, 0.8, false,
			"Any-order match failed: missing or insufficient actions: view (need 2, got 1)"},
		{"worked example, exact", actionDef(t, "exact_match", "view", "edit", "view"), []string{"view", "edit"}, 0.8, false,
			"Exact match failed: expected 3 actions [view edit view], got 2 actions [view edit]"},
		{"exact match", actionDef(t, "exact_match", "bash", "edit"), []string{"bash", "edit"}, 1, true, "Action sequence matched"},
		{"in order with extras passes, F1 below 1", actionDef(t, "in_order_match", "bash", "edit"), []string{"bash", "view", "edit", "report_progress"}, 2.0 / 3, true, "Action sequence matched"},
		{"any order passes", actionDef(t, "any_order_match", "edit", "bash"), []string{"bash", "view", "edit"}, 0.8, true, "Action sequence matched"},
		{"wrong order", actionDef(t, "in_order_match", "edit", "bash"), []string{"bash", "edit"}, 1, false,
			"In-order match failed: not all expected actions [edit bash] appeared in order within actual [bash edit]"},
		{"no tool calls", actionDef(t, "any_order_match", "b", "a", "b"), nil, 0, false,
			"Any-order match failed: missing or insufficient actions: b (need 2, got 0), a (need 1, got 0)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := grade(t, mustCompile(t, defFromYAML(t, c.def)), &Input{Run: runWith("", withTools(c.actual...))})
			assertResult(t, r, c.score, c.passed, c.feedback)
		})
	}
	// The seeds' examples.
	run := runWith("", withTools("bash", "view", "edit", "bash", "report_progress"))
	for name, want := range map[string][2]float64{
		"deployment_workflow": {8.0 / 9, 1}, // TP 4 of 5 actual, 4 expected: P .8, R 1
		"demo_script":         {1, 1},
		"deployment_flow":     {0.75, 1}, // P 3/5, R 1
		"required_tools":      {0.75, 1},
		"deploy_workflow":     {2 * 0.6 * 0.75 / 1.35, 0}, // TP 3 (no git): P .6, R .75
		"tool_usage":          {2 * 0.6 * 0.75 / 1.35, 0},
	} {
		r := grade(t, mustCompile(t, seedDef(t, "action_sequence.yaml", name)), &Input{Run: run})
		if !near(r.Score, want[0]) || r.Passed != (want[1] == 1) {
			t.Errorf("%s: got %.4f %v %q", name, r.Score, r.Passed, r.Feedback)
		}
		if r.Details["f1"] != r.Score || r.Details["matching_mode"] == nil || r.Details["actual_actions"] == nil {
			t.Errorf("%s: details %v", name, r.Details)
		}
	}
}

func skillDef(mode, allowExtra string, required ...string) string {
	s := "type: skill_invocation\nname: s\nconfig:\n  mode: " + mode + "\n  required_skills: [" + strings.Join(required, ", ") + "]\n"
	if allowExtra != "" {
		s += "  allow_extra: " + allowExtra + "\n"
	}
	return s
}

func TestSkillInvocation(t *testing.T) {
	cases := []sequenceCase{
		// waza-spec §2.10 worked example: [a] vs [a, a]: F1 = 0.667, penalty 0.5 → 0.667 × 0.7.
		{"worked example", skillDef("any_order", "false", "a"), []string{"a", "a"}, 2.0 / 3 * 0.7, true,
			"Skill invocation sequence matched but had extra invocations (got 2, expected 1)"},
		{"allow_extra defaults to true", skillDef("any_order", "", "a"), []string{"a", "a"}, 2.0 / 3, true, "Skill invocation sequence matched"},
		{"exact fails on extras, with the penalty", skillDef("exact_match", "false", "a"), []string{"a", "a"}, 2.0 / 3 * 0.7, false,
			"Exact match failed: expected 1 skills [a], got 2 skills [a a]; Extra invocations not allowed (got 2, expected 1)"},
		{"in order", skillDef("in_order", "true", "azure-prepare", "azure-deploy"), []string{"azure-prepare", "azure-validate", "azure-deploy"}, 0.8, true,
			"Skill invocation sequence matched"},
		{"in order fails", skillDef("in_order", "", "a", "b"), []string{"b", "a"}, 1, false,
			"In-order match failed: not all required skills [a b] appeared in order within actual [b a]"},
		{"none invoked", skillDef("any_order", "", "x", "y"), nil, 0, false,
			"Any-order match failed: missing or insufficient skills: x (need 1, got 0), y (need 1, got 0)"},
		// forbidden_skills: one invoked makes the score 0 whatever else matched; waza's feedback
		// names the sequence's failures first, then the forbidden skills.
		{"forbidden skill invoked", skillDef("any_order", "true", "bump") + "  forbidden_skills: [impl]\n", []string{"impl", "bump"}, 0, false,
			"Forbidden skills invoked: impl"},
		{"forbidden skill invoked, sequence failed", skillDef("exact_match", "true", "bump") + "  forbidden_skills: [impl]\n", []string{"impl", "bump"}, 0, false,
			"Exact match failed: expected 1 skills [bump], got 2 skills [impl bump]; Forbidden skills invoked: impl"},
		{"forbidden skill not invoked", skillDef("any_order", "true", "bump") + "  forbidden_skills: [impl]\n", []string{"bump"}, 1, true,
			"Skill invocation sequence matched"},
		{"only forbidden skills, none invoked", "type: skill_invocation\nname: s\nconfig:\n  forbidden_skills: [impl]\n", []string{"other"}, 1, true,
			"Forbidden skills were not invoked"},
		{"only forbidden skills, invoked", "type: skill_invocation\nname: s\nconfig:\n  forbidden_skills: [impl, x]\n", []string{"impl", "impl"}, 0, false,
			"Forbidden skills invoked: impl"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := grade(t, mustCompile(t, defFromYAML(t, c.def)), &Input{Run: runWith("", withSkills(c.actual...))})
			assertResult(t, r, c.score, c.passed, c.feedback)
		})
	}
	// Seed correct_workflow: in order with one extra: F1 6/7, penalty 1/4 → 6/7 × 0.85.
	r := grade(t, mustCompile(t, seedDef(t, "skill_invocation.yaml", "correct_workflow")),
		&Input{Run: runWith("", withSkills("brainstorming", "azure-prepare", "azure-validate", "azure-deploy"))})
	assertResult(t, r, 6.0/7*0.85, true, "Skill invocation sequence matched but had extra invocations (got 4, expected 3)")
	// Seed deployment_sequence, from transcript events (the digest has none).
	r = grade(t, mustCompile(t, seedDef(t, "skill_invocation.yaml", "deployment_sequence")), &Input{Run: runWith("", withEvents(
		results.Event{Type: "skill_invocation", Name: "azure-prepare"}, results.Event{Type: "message", Content: "x"},
		results.Event{Type: "skill_invocation", Name: "azure-deploy"}, results.Event{Type: "skill_invocation", Name: "azure-monitor"}))})
	assertResult(t, r, 1, true, "Skill invocation sequence matched")
	if r.Details["allow_extra"] != false || r.Details["mode"] != "exact_match" {
		t.Errorf("details: %v", r.Details)
	}
}

func TestSequenceCompileErrors(t *testing.T) {
	checkCompileErrors(t, []compileErrorCase{
		{"bad matching mode", actionDef(t, "in_order", "a"), "4:18", `invalid matching_mode "in_order" (fix: use one of: exact_match, in_order_match, any_order_match)`},
		{"missing matching mode", "type: action_sequence\nname: a\nconfig:\n  expected_actions: [a]\n", "4:3", "matching_mode is not set"},
		{"bad skill mode", skillDef("in_order_match", "", "a"), "4:9", `invalid mode "in_order_match" (fix: use one of: exact_match, in_order, any_order)`},
		{"allow_extra not a bool", skillDef("any_order", "sometimes", "a"), "6:16", "config.allow_extra must be true or false"},
	})
}

// expected_actions items written as mappings: {type: tool_called, tool: x} (or the tool under
// name, tool_name, action) is a call of x, {type: skill_invoked, skill: x} the skill x invoked,
// in transcript order; waza errors on them, so the first is a warning.
func TestActionSequenceMappingItems(t *testing.T) {
	compile := func(t *testing.T, items string) (Grader, string) {
		t.Helper()
		g, diags := CompileOne(defFromYAML(t, "type: action_sequence\nname: a\nconfig:\n  matching_mode: in_order_match\n  expected_actions:\n"+items), &Env{})
		if diags.HasErrors() || g == nil {
			t.Fatalf("diagnostics: %v", diags)
		}
		return g, diagText(diags)
	}
	g, warn := compile(t, "    - {tool: view}\n    - name: edit\n    - {type: tool_called, tool_name: view}\n    - action: bash\n    - bash\n")
	if !strings.Contains(warn, "6:7") || !strings.Contains(warn, "waza reads expected_actions as tool names and errors on a mapping item") {
		t.Errorf("warning %q", warn)
	}
	assertResult(t, grade(t, g, &Input{Run: runWith("", withTools("view", "edit", "view", "bash", "bash"))}), 1, true, "Action sequence matched")

	// A skill invocation takes its place among the tool calls of the transcript.
	skill := func(name string) results.Event { return results.Event{Type: results.EventSkillInvocation, Name: name} }
	call := func(name string) results.Event { return results.Event{Type: results.EventToolCall, Name: name} }
	g, _ = compile(t, "    - {type: skill_invoked, skill: deploy}\n    - {type: tool_called, tool: bash}\n")
	assertResult(t, grade(t, g, &Input{Run: runWith("", withEvents(call("view"), skill("deploy"), call("bash")))}), 0.8, true, "Action sequence matched")
	r := grade(t, g, &Input{Run: runWith("", withEvents(call("bash"), skill("deploy")))})
	assertResult(t, r, 1, false, "In-order match failed: not all expected actions [skill:deploy bash] appeared in order within actual [bash skill:deploy]")

	// An item waza cannot read either errors every run, with a warning; the suite still loads.
	for _, items := range []string{"    - {args: x}\n", "    - {type: file_written, path: x}\n", "    - {type: skill_invoked}\n"} {
		g, warn := compile(t, items)
		if !strings.Contains(warn, "the grader errors in every run") {
			t.Errorf("%q: warning %q", items, warn)
		}
		if _, err := g.Grade(context.Background(), &Input{Run: runWith("")}); err == nil {
			t.Errorf("%q: graded", items)
		}
	}
}

func TestBehaviorSkipIfNoDigest(t *testing.T) {
	g := mustCompile(t, defFromYAML(t, "type: behavior\nname: b\nconfig:\n  max_tool_calls: 3\n  skip_if_no_digest: true\n"))
	r := grade(t, g, &Input{Run: runWith("mock output")})
	if r.Status != results.StatusSkipped || !strings.Contains(r.Feedback, "no session digest") {
		t.Errorf("no digest: %+v", r)
	}
	assertResult(t, grade(t, g, &Input{Run: runWith("", withTools("a", "b", "c", "d"))}), 0, false, "Tool call count 4 exceeds max allowed 3")
}

// On waza's own action_sequence example (testdata/waza), expected_actions written as
// {type: tool_called, tool: x} mappings grade every run exactly as the tool names do.
func TestActionSequenceMappingFormOfWazasExample(t *testing.T) {
	src, err := os.ReadFile("testdata/waza/action-sequence-task.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var task struct {
		Graders []yaml.Node `yaml:"graders"`
	}
	if err := yaml.Unmarshal(src, &task); err != nil || len(task.Graders) == 0 {
		t.Fatalf("%v", err)
	}
	plain, err := yaml.Marshal(&task.Graders[0])
	if err != nil {
		t.Fatal(err)
	}
	// Each item of config.expected_actions becomes {type: tool_called, tool: <item>}.
	var cfg *yaml.Node
	for i := 0; i+1 < len(task.Graders[0].Content); i += 2 {
		if task.Graders[0].Content[i].Value == "config" {
			cfg = task.Graders[0].Content[i+1]
		}
	}
	for i := 0; cfg != nil && i+1 < len(cfg.Content); i += 2 {
		if cfg.Content[i].Value != "expected_actions" {
			continue
		}
		for j, item := range cfg.Content[i+1].Content {
			str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
			cfg.Content[i+1].Content[j] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{str("type"), str("tool_called"), str("tool"), str(item.Value)}}
		}
	}
	out, err := yaml.Marshal(&task.Graders[0])
	if err != nil {
		t.Fatal(err)
	}
	var mapped strings.Builder
	mapped.Write(out)
	if !strings.Contains(mapped.String(), "tool: view") {
		t.Fatalf("rewrite failed:\n%s", mapped.String())
	}
	gPlain := mustCompile(t, defFromYAML(t, string(plain)))
	gMapped, _ := CompileOne(defFromYAML(t, mapped.String()), &Env{})
	for _, tools := range [][]string{{"view", "edit", "view"}, {"view", "bash", "edit", "view"}, {"edit", "view"}, nil} {
		in := &Input{Run: runWith("", withTools(tools...))}
		a, b := grade(t, gPlain, in), grade(t, gMapped, in)
		if a.Score != b.Score || a.Passed != b.Passed || a.Feedback != b.Feedback {
			t.Errorf("%v: names %.3f %v %q; mappings %.3f %v %q", tools, a.Score, a.Passed, a.Feedback, b.Score, b.Passed, b.Feedback)
		}
	}
}
