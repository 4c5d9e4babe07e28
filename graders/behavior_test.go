package graders

import (
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

func TestBehavior(t *testing.T) {
	// waza-spec §2.8 worked example (grader-showcase efficient_behavior under mock): 6 checks,
	// the mock calls no tool and reports no usage.
	showcase := `
type: behavior
name: efficient_behavior
config:
  max_tool_calls: 10
  max_tokens: 5000
  max_duration_ms: 60000
  required_tools: [view]
  forbidden_tools: [rm, sudo]
`
	checkGradeCases(t, "behavior.yaml", []gradeCase{
		{"showcase under mock", showcase, "", runWith("Mock response for: x"), 5.0 / 6, false, "Required tool not used: view"},
		{"seed efficiency_check", "", "efficiency_check", runWith("", withTools("bash", "view", "bash"), withUsage(4000, 1000, 3), withDuration(9000)),
			1, true, "All behavior checks passed"},
		{"every limit exceeded", "", "efficiency_check",
			runWith("", withTools(append(strings.Fields(strings.Repeat("bash ", 20)), "sudo")...), withUsage(8000, 3000, 9), withDuration(300001)),
			2.0 / 7, false, // 7 checks, 5 failed
			"Tool call count 21 exceeds max allowed 20; Token usage 11000 exceeds max allowed 10000; Required tool not used: view; Forbidden tool was used: sudo; Duration 300001ms exceeds max allowed 300000ms"},
		{"exact tool names only", "", "efficiency_check_002", runWith("", withTools("Bash", "edit", "rm -rf"), withDuration(10)),
			6.0 / 7, false, "Required tool not used: bash"}, // "rm -rf" is not the tool "rm"
		{"no usage reported: max_tokens passes", "", "efficiency", runWith("", withTools("bash")), 1, true, "All behavior checks passed"},
	})
}

func TestBehaviorDetails(t *testing.T) {
	g := mustCompile(t, seedDef(t, "behavior.yaml", "efficiency"))
	r := grade(t, g, &Input{Run: runWith("", withTools("bash", "bash"))})
	if r.Details["tool_call_count"] != 2 || r.Details["max_tokens_note"] != noUsageNote || r.Details["tokens_total"] != nil {
		t.Errorf("details: %v", r.Details)
	}
	r = grade(t, g, &Input{Run: runWith("", withUsage(10, 5, 1))})
	if r.Details["tokens_total"] != int64(15) || r.Details["max_tokens_note"] != nil {
		t.Errorf("details: %v", r.Details)
	}
	// Tool names fall back to the transcript when the digest has none.
	ok := true
	r = grade(t, mustCompile(t, defFromYAML(t, "type: behavior\nname: b\nconfig:\n  required_tools: [view]\n  max_tool_calls: 1\n")),
		&Input{Run: runWith("", withEvents(results.Event{Type: "tool_call", Name: "view", Success: &ok}))})
	assertResult(t, r, 1, true, "All behavior checks passed")
}

func TestBehaviorCompileErrors(t *testing.T) {
	checkCompileErrors(t, []compileErrorCase{
		{"string for an int", "type: behavior\nname: b\nconfig:\n  max_tool_calls: ten\n", "4:19", `config.max_tool_calls must be an integer, not the string "ten"`},
		{"bool for an int", "type: behavior\nname: b\nconfig:\n  max_duration_ms: true\n", "4:20", "config.max_duration_ms must be an integer, not true"},
		{"map for a list", "type: behavior\nname: b\nconfig:\n  required_tools: {bash: 1}\n", "4:19", "config.required_tools must be a list of strings, not a mapping"},
	})
}
