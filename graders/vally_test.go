package graders

import (
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

// Vally's built-in graders, each result worked out by hand: pass/fail scored 1 or 0 (the
// constraints grader counts checks), JavaScript regexes, dotfile globs.
func TestVallyGraders(t *testing.T) {
	ws := writeFiles(t, map[string]string{
		"src/app.ts":     "export const port = 8080;\n",
		".github/ci.yml": "on: push\n",
		"README.md":      "# App\n",
	})
	output := "Deployed to https://app.example.com. Next: run azd up."
	run := runWith(output,
		withSkills("azure-deploy"),
		withCall("bash", map[string]any{"command": "azd up --no-prompt"}),
		withCall("view", map[string]any{"path": "src/app.ts"}),
		withUsage(1000, 200, 3),
	)
	run.ChangedFiles = []results.FileChange{{Path: "src/app.ts", Change: "modified", Content: "export const port = 8080;\n"}}
	cases := []struct {
		name, yaml string
		score      float64
		passed     bool
		feedback   string // prefix
	}{
		{"output-contains", "type: output-contains\nname: g\nconfig: {substring: azd up}\n", 1, true, `Output check passed for "azd up"`},
		{"output-contains is case-sensitive", "type: output-contains\nname: g\nconfig: {substring: AZD UP}\n", 0, false, `Output does not contain "AZD UP"`},
		{"output-not-contains", "type: output-not-contains\nname: g\nconfig: {substring: error}\n", 1, true, "Output check passed"},
		{"output-matches with (?i)", "type: output-matches\nname: g\nconfig: {pattern: '(?i)DEPLOYED TO https://'}\n", 1, true, "Pattern check passed"},
		{"output-matches lookahead", "type: output-matches\nname: g\nconfig: {pattern: 'azd(?= up)'}\n", 1, true, "Pattern check passed"},
		{"output-matches named group and backreference", "type: output-matches\nname: g\nconfig: {pattern: '(?<w>azd) up.*|(?<x>run) \\k<w>'}\n", 1, true, "Pattern check passed"},
		{"output-matches negative lookahead", "type: output-matches\nname: g\nconfig: {pattern: 'Deployed(?! nowhere)'}\n", 1, true, "Pattern check passed"},
		{"output-matches negate", "type: output-matches\nname: g\nconfig: {pattern: 'Deployed', negate: true}\n", 0, false, "Output matches Deployed"},
		{"output-not-matches", "type: output-not-matches\nname: g\nconfig: {pattern: '(?i)fatal error|stack trace'}\n", 1, true, "Pattern check passed"},
		{"output-not-matches, present", "type: output-not-matches\nname: g\nconfig: {pattern: 'Next'}\n", 0, false, "Output matches Next"},
		{"transcript-contains", "type: transcript-contains\nname: g\nconfig: {substring: example.com}\n", 1, true, "Transcript check passed"},
		{"file-exists glob", "type: file-exists\nname: g\nconfig: {path: 'src/**/*.ts'}\n", 1, true, "File check passed for src/**/*.ts"},
		{"file-exists dotfile", "type: file-exists\nname: g\nconfig: {path: '**/ci.yml'}\n", 1, true, "File check passed"},
		{"file-exists none", "type: file-exists\nname: g\nconfig: {path: '*.bicep'}\n", 0, false, "No file matches *.bicep"},
		{"file-not-exists", "type: file-not-exists\nname: g\nconfig: {path: '*.bicep'}\n", 1, true, "File check passed"},
		{"file-not-exists, present", "type: file-not-exists\nname: g\nconfig: {path: 'README.md'}\n", 0, false, "A file matches README.md: README.md"},
		{"file-contains", "type: file-contains\nname: g\nconfig: {path: 'src/*.ts', value: 'port = 8080'}\n", 1, true, `src/app.ts has "port = 8080"`},
		{"file-not-contains", "type: file-not-contains\nname: g\nconfig: {path: '**/*', value: 'password'}\n", 1, true, "No file matching"},
		{"file-matches", "type: file-matches\nname: g\nconfig: {path: 'src/*.ts', pattern: 'port = \\d+'}\n", 1, true, "src/app.ts has"},
		{"file-not-matches, present", "type: file-not-matches\nname: g\nconfig: {path: 'src/*.ts', pattern: '80\\d0'}\n", 0, false, `src/app.ts has "80\\d0"`},
		{"diff-contains", "type: diff-contains\nname: g\nconfig: {value: '8080'}\n", 1, true, "The changes contain"},
		{"diff-empty", "type: diff-empty\nname: g\n", 0, false, "The run changed 1 file(s)"},
		{"skill-invocation", "type: skill-invocation\nname: g\nconfig: {required: [azure-deploy], disallowed: [azure-prepare]}\n", 1, true, "Skill invocations as expected"},
		{"skill-invocation missing", "type: skill-invocation\nname: g\nconfig: {required: [azure-prepare]}\n", 0, false, "Required skill not invoked: azure-prepare"},
		{"skill-invocation disallowed", "type: skill-invocation\nname: g\nconfig: {disallowed: [azure-deploy]}\n", 0, false, "Disallowed skill invoked: azure-deploy"},
		{"tool-calls", "type: tool-calls\nname: g\nconfig:\n  required: [{name: bash, command: 'azd up'}]\n  disallowed: [{name: bash, command: 'rm -rf'}]\n", 1, true, "Tool calls as expected"},
		{"tool-calls string and sequence", "type: tool-calls\nname: g\nconfig:\n  sequence: [bash, view]\n", 1, true, "Tool calls as expected"},
		{"tool-calls sequence out of order", "type: tool-calls\nname: g\nconfig:\n  sequence: [view, bash]\n", 0, false, "Tool call sequence incomplete at: name=bash"},
		{"tool-calls path", "type: tool-calls\nname: g\nconfig:\n  disallowed: [{name: view, path: 'app\\.ts$'}]\n", 0, false, "Disallowed tool call made: name=view path="},
		{"tool-call-count", "type: tool-call-count\nname: g\nconfig: {max: 1}\n", 0, false, "2 tool calls exceed the maximum 1"},
		{"turn-count", "type: turn-count\nname: g\nconfig: {min: 1, max: 5}\n", 1, true, "3 turns within bounds"},
		{"token-budget", "type: token-budget\nname: g\nconfig: {max: 1000}\n", 0, false, "1200 tokens exceed the maximum 1000"},
		{"wall-time with a unit", "type: wall-time\nname: g\nconfig: {max: 120s}\n", 1, true, "0 milliseconds within bounds"},
		{"error-count defaults to none", "type: error-count\nname: g\n", 1, true, "0 errors within bounds"},
		{"completed", "type: completed\nname: g\n", 1, true, "The agent completed"},
		{"exit-success", "type: exit-success\nname: g\n", 1, true, "The agent completed"},
		// Constraints: 5 checks (max_turns, max_tokens, one tool, two skills), 2 fail: 3/5.
		{"constraints", "type: vally-constraints\nname: g\nconfig:\n  max_turns: 2\n  max_tokens: 5000\n  expect_tools: [{name: bash}]\n  expect_skills: [azure-prepare]\n  reject_skills: [x]\n", 0.6, false,
			"3 turns exceed max_turns 2; Expected skill not invoked: azure-prepare"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := mustCompile(t, defFromYAML(t, c.yaml))
			r := grade(t, g, &Input{Run: run, Workspace: ws})
			if r.Score != c.score || r.Passed != c.passed || !strings.HasPrefix(r.Feedback, c.feedback) {
				t.Errorf("got score %v passed %v %q, want %v %v %q…", r.Score, r.Passed, r.Feedback, c.score, c.passed, c.feedback)
			}
		})
	}
	// An empty output does not complete; an agent error fails `completed` but not `exit-success`.
	broken := runWith("partial answer")
	broken.AgentError = "timed out after 30s"
	assertResult(t, grade(t, mustCompile(t, defFromYAML(t, "type: completed\nname: g\n")), &Input{Run: broken}), 0, false, "The run had errors: timed out after 30s")
	assertResult(t, grade(t, mustCompile(t, defFromYAML(t, "type: exit-success\nname: g\n")), &Input{Run: broken}), 1, true, "The agent completed")
	assertResult(t, grade(t, mustCompile(t, defFromYAML(t, "type: exit-success\nname: g\n")), &Input{Run: runWith("  ")}), 0, false, "The agent's output is empty")
	// turn-count without a reported turn count is skipped, not passed.
	if r := grade(t, mustCompile(t, defFromYAML(t, "type: turn-count\nname: g\nconfig: {max: 1}\n")), &Input{Run: runWith("x")}); r.Status != results.StatusSkipped {
		t.Errorf("turn-count without turns: %+v", r)
	}
}

func TestVallyGraderErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"type: output-matches\nname: g\nconfig: {pattern: '(unclosed'}\n", "invalid regular expression"},
		{"type: wall-time\nname: g\nconfig: {max: soon}\n", "max soon is not a number"},
		{"type: file-exists\nname: g\nconfig: {path: 'a/[b'}\n", "invalid glob"},
		{"type: tool-calls\nname: g\nconfig: {required: [{command: '(x'}]}\n", "invalid regular expression"},
	} {
		if _, diags := CompileOne(defFromYAML(t, c.yaml), &Env{}); !diags.HasErrors() || !strings.Contains(diagText(diags), c.want) {
			t.Errorf("%s: %v, want %q", c.yaml, diags, c.want)
		}
	}
}

func TestVallyRunCommand(t *testing.T) {
	ws := writeFiles(t, map[string]string{"out.txt": "build ok\n"})
	for _, c := range []struct {
		yaml     string
		passed   bool
		feedback string
	}{
		{"type: run-command\nname: g\nconfig: {command: 'cat out.txt', stdout_contains: 'ok', timeout: 30s}\n", true, `"cat out.txt" exited with 0`},
		{"type: run-command\nname: g\nconfig: {command: 'cat out.txt', stdout_contains: 'fail'}\n", false, `the output of "cat out.txt" lacks "fail"`},
		{"type: run-command\nname: g\nconfig: {command: 'exit 3', expected_exit_code: 3}\n", true, `"exit 3" exited with 3`},
		{"type: run-command\nname: g\nconfig: {command: 'false'}\n", false, `"false" exited with 1, expected 0`},
	} {
		r := grade(t, mustCompile(t, defFromYAML(t, c.yaml)), &Input{Run: runWith("x"), Workspace: ws})
		if r.Passed != c.passed || r.Feedback != c.feedback {
			t.Errorf("%s: %v %q", c.yaml, r.Passed, r.Feedback)
		}
	}
}
