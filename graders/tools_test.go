package graders

import (
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func bash(cmd string) func(*results.AgentRun) {
	return withCall("bash", map[string]any{"command": cmd})
}

func TestToolCalls(t *testing.T) {
	g := mustCompile(t, seedDef(t, "tool_calls.yaml", "tool_validator"))
	many := make([]func(*results.AgentRun), 0, 21)
	for i := 0; i < 19; i++ {
		many = append(many, withCall("view", map[string]any{"path": "a.go"}))
	}
	cases := []struct {
		name     string
		run      *results.AgentRun
		score    float64
		passed   bool
		feedback string
	}{
		{"seed passes", runWith("", bash("azd up --no-prompt"), bash("git commit -m 'deploy'")), 1, true, "All tool call checks passed"},
		{"missing and forbidden", runWith("", bash("sudo rm -rf /tmp/x")), 1.0 / 5, false,
			"Required tool call not found: azd up; Required tool call not found: git commit; " +
				`Forbidden tool call found: rm -rf (call 1: bash {"command":"sudo rm -rf /tmp/x"}); ` +
				`Forbidden tool call found: sudo (call 1: bash {"command":"sudo rm -rf /tmp/x"})`},
		{"too many calls", runWith("", append(many, bash("azd up"), bash("git commit"))...), 4.0 / 5, false, "Tool call count 21 exceeds max allowed 20"},
		// Codex runs commands as an argv list.
		{"argv command", runWith("", withCall("shell", map[string]any{"command": []any{"bash", "-lc", "azd up && git commit -m x"}})), 1, true, "All tool call checks passed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertResult(t, grade(t, g, &Input{Run: c.run}), c.score, c.passed, c.feedback)
		})
	}
	// Patterns see the call's name with its arguments, and the bare command line of shell tools.
	def := defFromYAML(t, `
type: tool_calls
name: t
config:
  required:
    - pattern: '^git commit'          # the command line itself
    - pattern: '^edit .*"path":"a\.go"' # name + arguments as JSON
    - pattern: '<b>'                    # no HTML escaping in the JSON
`)
	r := grade(t, mustCompile(t, def), &Input{Run: runWith("", bash("git commit -m x"),
		withCall("edit", map[string]any{"path": "a.go", "new": "<b>"}))})
	assertResult(t, r, 1, true, "All tool call checks passed")
	// A plain string is short for {pattern: …}.
	plain := mustCompile(t, defFromYAML(t, "type: tool_calls\nname: t\nconfig:\n  required: [git commit, {pattern: azd up}]\n  forbidden: [sudo]\n"))
	assertResult(t, grade(t, plain, &Input{Run: runWith("", bash("git commit -m x"), bash("sudo azd up"))}), 2.0/3, false,
		`Forbidden tool call found: sudo (call 2: bash {"command":"sudo azd up"})`)
	// Calls come from the transcript when the digest has none.
	ok := true
	r = grade(t, mustCompile(t, def), &Input{Run: runWith("", withEvents(
		results.Event{Type: "tool_call", Name: "bash", Arguments: map[string]any{"command": "git commit"}, Success: &ok},
		results.Event{Type: "tool_call", Name: "edit", Arguments: map[string]any{"path": "a.go", "x": "<b>"}}))})
	assertResult(t, r, 1, true, "All tool call checks passed")
}

func TestToolConstraint(t *testing.T) {
	checkGradeCases(t, "tool_constraint.yaml", []gradeCase{
		{"seed guardrails", "", "guardrails", runWith("", withTools("bash", "edit"), withUsage(3000, 1000, 5)), 1, true, "All tool constraint checks passed"},
		{"seed guardrails exceeded", "", "guardrails", runWith("", withTools("bash", "rm"), withUsage(40000, 20000, 12)), 2.0 / 6, false,
			"Expected tool not used: edit; Rejected tool was used: rm; Turn count 12 exceeds max allowed 10; Token usage 60000 exceeds max allowed 50000"},
		{"no usage: turn and token limits pass", "", "safety_check", runWith("", withTools("bash")), 1, true, "All tool constraint checks passed"},
		// A plain name is exact: the skill tool is not the rejected "kill".
		{"plain names are exact", "", "safety_check", runWith("", withTools("skill", "confirm")), 1, true, "All tool constraint checks passed"},
		{"seed workflow_tools", "", "workflow_tools", runWith("", withTools("bash", "edit")), 2.0 / 3, false, "Expected tool not used: grep"},
		// Mappings are waza's case-insensitive, unanchored regexes.
		{"mapping tool is an unanchored regex", "type: tool_constraint\nname: c\nconfig:\n  reject_tools:\n    - tool: kill\n", "",
			runWith("", withTools("skill")), 0, false, "Rejected tool was used: kill"},
		{"command pattern", "type: tool_constraint\nname: c\nconfig:\n  reject_tools:\n    - {tool: '^bash$', command_pattern: 'git\\s+push'}\n", "",
			runWith("", bash("GIT  PUSH origin")), 0, false, "Rejected tool was used: ^bash$ (command_pattern: git\\s+push)"},
		{"path pattern reads path or file_path", "type: tool_constraint\nname: c\nconfig:\n  expect_tools:\n    - {tool: edit, path_pattern: '\\.go$'}\n    - {tool: Write, path_pattern: 'README'}\n", "",
			runWith("", withCall("edit", map[string]any{"path": "main.go"}), withCall("Write", map[string]any{"file_path": "/w/README.md"})), 1, true, "All tool constraint checks passed"},
		{"skill pattern", "type: tool_constraint\nname: c\nconfig:\n  expect_tools:\n    - {tool: skill, skill_pattern: '^code-explainer$'}\n", "",
			runWith("", withCall("skill", map[string]any{"skill": "other"})), 0, false, "Expected tool not used: skill (skill_pattern: ^code-explainer$)"},
	})
	r := grade(t, mustCompile(t, seedDef(t, "tool_constraint.yaml", "guardrails")), &Input{Run: runWith("", withTools("bash", "edit"))})
	if r.Details["max_turns_note"] == nil || r.Details["max_tokens_note"] == nil || r.Details["total_turns"] != nil {
		t.Errorf("details: %v", r.Details)
	}
}

func TestToolCompileErrors(t *testing.T) {
	checkCompileErrors(t, []compileErrorCase{
		{"tool_calls invalid regex", "type: tool_calls\nname: t\nconfig:\n  forbidden:\n    - pattern: 'rm -rf'\n    - pattern: '(('\n", "6:16", `invalid regular expression "(("`},
		{"tool_calls empty pattern", "type: tool_calls\nname: t\nconfig:\n  required:\n    - {}\n", "5:7", "required[0] has no pattern"},
		{"tool_calls list item", "type: tool_calls\nname: t\nconfig:\n  required: [[git commit]]\n", "4:14", "required[0] must be a pattern or a mapping, not a list"},
		{"tool_calls bad plain pattern", "type: tool_calls\nname: t\nconfig:\n  forbidden: ['rm', 'x)']\n", "4:21", `invalid regular expression "x)"`},
		{"tool_constraint no tool", "type: tool_constraint\nname: c\nconfig:\n  expect_tools:\n    - command_pattern: x\n", "5:7", "expect_tools[0] has no tool"},
		{"tool_constraint bad regex", "type: tool_constraint\nname: c\nconfig:\n  reject_tools:\n    - tool: bash\n      path_pattern: '['\n", "6:21", "invalid regular expression"},
		{"tool_constraint list item", "type: tool_constraint\nname: c\nconfig:\n  reject_tools:\n    - [rm]\n", "5:7", "must be a tool name or a mapping, not a list"},
		{"tool_constraint wrong field type", "type: tool_constraint\nname: c\nconfig:\n  reject_tools:\n    - tool: [rm]\n", "5:13", "config.reject_tools[0].tool must be a string"},
	})
}

func TestTrigger(t *testing.T) {
	env := &Env{Suite: &spec.Suite{Skill: "code-explainer"}}
	should := mustCompile(t, defFromYAML(t, "type: trigger\nname: should_trigger\nconfig:\n  should_trigger: true\n"), env)
	shouldNot := mustCompile(t, defFromYAML(t, "type: trigger\nname: should_trigger\nconfig:\n  should_trigger: false\n"), env)
	invoked := runWith("", withSkills("other", "code-explainer"))
	silent := runWith("", withSkills("other"))
	assertResult(t, grade(t, should, &Input{Run: invoked}), 1, true, "Skill code-explainer was invoked, as expected")
	assertResult(t, grade(t, should, &Input{Run: silent}), 0, false, "Skill code-explainer should have been invoked but was not")
	assertResult(t, grade(t, shouldNot, &Input{Run: silent}), 1, true, "Skill code-explainer was not invoked, as expected")
	assertResult(t, grade(t, shouldNot, &Input{Run: invoked}), 0, false, "Skill code-explainer was invoked but should not have been")
	// config.skill wins over the suite's.
	own := mustCompile(t, defFromYAML(t, "type: trigger\nname: t\nconfig:\n  skill: other\n  should_trigger: true\n"), env)
	assertResult(t, grade(t, own, &Input{Run: silent}), 1, true, "Skill other was invoked, as expected")

	// No skill name anywhere: a warning, and each run the grader grades errors.
	g, diags := CompileOne(defFromYAML(t, "type: trigger\nname: t\nconfig:\n  should_trigger: true\n"), &Env{})
	if diags.HasErrors() || !strings.Contains(diagText(diags), "no skill to look for") {
		t.Errorf("got %s", diagText(diags))
	} else if _, err := g.Grade(t.Context(), &Input{Run: silent}); err == nil {
		t.Errorf("a trigger grader without a skill must error when it grades")
	}
	text := diagText(compileDiags(t, defFromYAML(t, "type: trigger\nname: t\nconfig:\n  skill: x\n"), env))
	if !strings.Contains(text, "should_trigger is not set") {
		t.Errorf("got %s", text)
	}
}
