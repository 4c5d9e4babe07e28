package graders

import (
	"testing"

	"github.com/skillgate/skillgate/results"
)

// codexCall is a Codex 0.169 shell call as the agent package records it: the command wrapped in
// /bin/bash -lc in the arguments, unwrapped in Command, the tool named command_execution with
// the canonical kind shell.
func codexCall(cmd string) func(*results.AgentRun) {
	return func(r *results.AgentRun) {
		r.SessionDigest.ToolCalls = append(r.SessionDigest.ToolCalls, results.ToolCall{
			Name: "command_execution", Kind: "shell", Command: cmd,
			Arguments: map[string]any{"command": "/bin/bash -lc '" + cmd + "'"}, Success: true,
		})
		r.SessionDigest.ToolsUsed = append(r.SessionDigest.ToolsUsed, "command_execution")
		r.SessionDigest.ToolCallCount++
	}
}

// Anchored patterns and canonical tool names read the normalized call, so a suite means the
// same on every agent.
func TestGradersReadNormalizedCalls(t *testing.T) {
	cases := []struct {
		name, yaml string
		run        *results.AgentRun
		score      float64
		passed     bool
		feedback   string
	}{
		{"anchored required", "type: tool_calls\nname: t\nconfig:\n  required: ['^cat notes.txt']\n",
			runWith("", codexCall("cat notes.txt")), 1, true, "All tool call checks passed"},
		{"anchored forbidden", "type: tool_calls\nname: t\nconfig:\n  forbidden: ['^rm -rf']\n",
			runWith("", codexCall("rm -rf x")), 0, false,
			`Forbidden tool call found: ^rm -rf (call 1: command_execution {"command":"/bin/bash -lc 'rm -rf x'"})`},
		{"behavior canonical tool", "type: behavior\nname: b\nconfig:\n  required_tools: [shell]\n  forbidden_tools: [edit]\n",
			runWith("", codexCall("ls")), 1, true, "All behavior checks passed"},
		{"behavior agent name still works", "type: behavior\nname: b\nconfig:\n  required_tools: [command_execution]\n",
			runWith("", codexCall("ls")), 1, true, "All behavior checks passed"},
		{"constraint canonical name and command", "type: tool_constraint\nname: c\nconfig:\n  reject_tools:\n    - {tool: '^shell$', command_pattern: '^sudo'}\n",
			runWith("", codexCall("sudo reboot")), 0, false, "Rejected tool was used: ^shell$ (command_pattern: ^sudo)"},
		{"constraint plain canonical name", "type: tool_constraint\nname: c\nconfig:\n  expect_tools: [shell]\n",
			runWith("", codexCall("ls")), 1, true, "All tool constraint checks passed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assertResult(t, grade(t, mustCompile(t, defFromYAML(t, c.yaml)), &Input{Run: c.run}), c.score, c.passed, c.feedback)
		})
	}
}
