package graders

import (
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// A grader whose config checks nothing loads with a warning at the config, and then behaves as
// in waza: text and code graders pass every run; the other types cannot be created in waza, so
// every run they grade errors (docs/graders.md, "Graders that check nothing").
func TestGradersThatCheckNothing(t *testing.T) {
	cases := []struct {
		name, yaml, pos string
		passes          bool
	}{
		{"text, empty config", "type: text\nname: t\nconfig: {}\n", "3:9", true},
		{"text, only a key of another type", "type: text\nname: t\nconfig:\n  must_match: [x]\n", "4:3", true},
		{"regex, empty list", "type: regex\nname: r\nconfig:\n  must_match: []\n", "4:3", true},
		{"code, no assertions", "type: code\nname: c\nconfig:\n  assertions: []\n", "4:3", true},
		{"code, no config", "type: code\nname: c\n", "1:1", true},
		{"file, empty list", "type: file\nname: f\nconfig:\n  must_exist: []\n", "4:3", false},
		{"diff, no files", "type: diff\nname: d\nconfig:\n  expected_files: []\n", "4:3", false},
		{"behavior, zero limits", "type: behavior\nname: b\nconfig:\n  max_tool_calls: 0\n", "4:3", false},
		{"tool_calls, zero limit", "type: tool_calls\nname: t\nconfig:\n  max_calls: 0\n", "4:3", false},
		{"tool_constraint, empty config", "type: tool_constraint\nname: c\nconfig: {}\n", "3:9", false},
		{"action_sequence, no actions", "type: action_sequence\nname: a\nconfig:\n  matching_mode: exact_match\n  expected_actions: []\n", "4:3", false},
		{"skill_invocation, no skills", "type: skill_invocation\nname: s\nconfig:\n  mode: any_order\n", "4:3", false},
		{"json_schema, no schema", "type: json_schema\nname: j\nconfig: {}\n", "3:9", false},
		{"llm, no rubric", "type: llm\nname: q\nconfig: {}\n", "3:9", false},
		{"prompt, no prompt", "type: prompt\nname: q\nconfig: {}\n", "3:9", false},
		{"llm_comparison, no reference", "type: llm_comparison\nname: q\nconfig:\n  rubric: r\n", "4:3", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, diags := CompileOne(defFromYAML(t, c.yaml), &Env{})
			if diags.HasErrors() || g == nil {
				t.Fatalf("want a grader and a warning, got %v", diags)
			}
			want := "no checks configured; it passes every run"
			if !c.passes {
				want = "no checks configured; it errors in every run, as in waza"
			}
			text := diagText(diags)
			if !strings.HasPrefix(text, testFile+":"+c.pos+": warning: ") || !strings.Contains(text, want) {
				t.Errorf("want a warning at %s saying %q, got %s", c.pos, want, text)
			}
			r, err := g.Grade(t.Context(), &Input{Run: &results.AgentRun{FinalOutput: "anything"}, Task: &spec.Task{}})
			switch {
			case c.passes && (err != nil || r.Score != 1 || !r.Passed):
				t.Errorf("grade = %+v, %v; want a pass with score 1", r, err)
			case !c.passes && (err == nil || !strings.Contains(err.Error(), "no checks configured")):
				t.Errorf("grade = %+v, %v; want an error", r, err)
			}
		})
	}
}

func TestTaskCompleted(t *testing.T) {
	g := mustCompile(t, defFromYAML(t, "type: task_completed\nname: done\n"))
	assertResult(t, grade(t, g, &Input{Run: &results.AgentRun{FinalOutput: "ok"}}), 1, true, "The agent finished the task")
	assertResult(t, grade(t, g, &Input{Run: &results.AgentRun{AgentError: "timed out after 30s"}}), 0, false, "The agent did not finish the task: timed out after 30s")
}
