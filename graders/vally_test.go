package graders

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
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
		{"output-contains is case-insensitive by default", "type: output-contains\nname: g\nconfig: {substring: AZD UP}\n", 1, true, `Output check passed for "AZD UP"`},
		{"output-contains case_sensitive", "type: output-contains\nname: g\nconfig: {substring: AZD UP, case_sensitive: true}\n", 0, false, `Output does not contain "AZD UP"`},
		{"output-not-contains is case-insensitive", "type: output-not-contains\nname: g\nconfig: {substring: NEXT}\n", 0, false, `Output contains "NEXT"`},
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
		{"file-exists negate", "type: file-exists\nname: g\nconfig: {path: 'README.md', negate: true}\n", 0, false, "A file matches README.md: README.md"},
		{"file-contains negate", "type: file-contains\nname: g\nconfig: {path: 'src/*.ts', value: 'port = 8080', negate: true}\n", 0, false, `src/app.ts has "port = 8080"`},
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
		{"tool-calls with an ES2025 modifier group", "type: tool-calls\nname: g\nconfig:\n  disallowed: [{name: '^(bash|pwsh)$', command: '(?i:\\bAZD\\s+(UP|PROVISION)\\b)'}]\n", 0, false, "Disallowed tool call made: name=^(bash|pwsh)$"},
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
	ws := writeFiles(t, map[string]string{"out.txt": "build ok\n", "sub/keep": ""})
	for _, c := range []struct {
		yaml     string
		passed   bool
		feedback string
	}{
		{"type: run-command\nname: g\nconfig: {command: 'cat out.txt', stdout_contains: 'ok', timeout: 30s}\n", true, `"cat out.txt" exited with 0`},
		{"type: run-command\nname: g\nconfig: {command: 'cat out.txt', stdout_contains: 'fail'}\n", false, `stdout lacks "fail"`},
		{"type: run-command\nname: g\nconfig: {command: cat, args: [out.txt], stdout_matches: '(?i)BUILD OK', stdout_not_matches: error}\n", true, `"cat out.txt" exited with 0`},
		{"type: run-command\nname: g\nconfig: {command: cat, args: [out.txt], stdout_matches: '^ok'}\n", false, `stdout does not match ^ok`},
		{"type: run-command\nname: g\nconfig: {command: 'echo oops >&2', stderr_contains: oops}\n", true, `"echo oops >&2" exited with 0`},
		{"type: run-command\nname: g\nconfig: {command: 'pwd', sub_path: sub, stdout_contains: sub}\n", true, `"pwd" exited with 0`},
		{"type: run-command\nname: g\nconfig: {command: 'echo $GREETING', env: {GREETING: hi}, stdout_contains: hi}\n", true, `"echo $GREETING" exited with 0`},
		{"type: run-command\nname: g\nconfig: {command: 'exit 3', expected_exit_code: 3}\n", true, `"exit 3" exited with 3`},
		{"type: run-command\nname: g\nconfig: {command: 'false'}\n", false, `"false" exited with 1, expected 0`},
	} {
		r := grade(t, mustCompile(t, defFromYAML(t, c.yaml)), &Input{Run: runWith("x"), Workspace: ws})
		if r.Passed != c.passed || r.Feedback != c.feedback {
			t.Errorf("%s: %v %q", c.yaml, r.Passed, r.Feedback)
		}
	}
}

// vallyGrader loads a real Vally spec and returns the declaration of its grader named name.
func vallyGrader(t *testing.T, file, name string) *spec.Grader {
	t.Helper()
	s, diags := spec.Load(file, spec.Options{})
	if diags.HasErrors() {
		t.Fatalf("%s: %v", file, diags.Errors())
	}
	for _, task := range s.Tasks {
		for _, g := range task.Graders {
			if g.Name == name {
				return g
			}
		}
	}
	t.Fatalf("%s has no grader %q", file, name)
	return nil
}

// Azure/azure-functions-skills' `go_scaffold_compiles` runs `go` with `args: [build, ./...]`:
// the arguments reach the binary (no shell), so a module that does not compile fails the check
// and one that does passes it. Running the bare command, as skillgate did, fails both.
func TestVallyRunCommandArgs(t *testing.T) {
	t.Parallel() // waits on go build
	def := vallyGrader(t, "testdata/vally/Azure__azure-functions-skills/evals/azure-functions-create/eval.yaml", "go_scaffold_compiles")
	g := mustCompile(t, def)
	mod := "module example.com/scaffold\n\ngo 1.21\n"
	good := writeFiles(t, map[string]string{"go.mod": mod, "main.go": "package main\n\nfunc main() {}\n"})
	bad := writeFiles(t, map[string]string{"go.mod": mod, "main.go": "package main\n\nfunc main() { undefined() }\n"})
	if r := grade(t, g, &Input{Run: runWith("x"), Workspace: good}); !r.Passed || r.Feedback != `"go build ./..." exited with 0` {
		t.Errorf("compiling module: %v %q %v", r.Passed, r.Feedback, r.Details)
	}
	if r := grade(t, g, &Input{Run: runWith("x"), Workspace: bad}); r.Passed || !strings.HasPrefix(r.Feedback, `"go build ./..." exited with 1, expected 0`) {
		t.Errorf("broken module: %v %q", r.Passed, r.Feedback)
	}
	// A binary that is not installed errors the grader's run; the grader still compiles.
	missing := defFromYAML(t, "type: run-command\nname: g\nconfig: {command: no-such-tool-xyz, args: [--version]}\n")
	if _, err := mustCompile(t, missing).Grade(context.Background(), &Input{Run: runWith("x"), Workspace: good}); err == nil ||
		!strings.Contains(err.Error(), "no-such-tool-xyz is not installed on this machine") {
		t.Errorf("missing binary: %v", err)
	}
}

// Azure/azure-dev's `program` grader gets Vally's protocol: it runs in the workspace with
// EVALUATE_WORKSPACE and EVALUATE_GRADER_INPUT (the GraderInput JSON: trajectory with its
// metrics, stimulus, config), and the GraderResult it prints decides.
func TestVallyProgramProtocol(t *testing.T) {
	t.Parallel() // waits on node
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed")
	}
	const file = "testdata/vally/Azure__azure-dev/cli/azd/test/evals/eval.yaml"
	def := vallyGrader(t, file, "workspace check: notes-summary.md is well-formed")
	if def.Type != "vally-program" {
		t.Fatalf("type %q", def.Type)
	}
	s, _ := spec.Load(file, spec.Options{})
	task := s.Tasks[0]
	script, err := os.ReadFile("testdata/vally/scripts/vally-check-summary.js")
	if err != nil {
		t.Fatal(err)
	}
	g := mustCompile(t, def)
	run := runWith("Total notes: 3", withCall("bash", map[string]any{"command": "cat team-notes.txt"}))
	for _, c := range []struct {
		summary  string
		score    float64
		passed   bool
		feedback string
	}{
		{"Total notes: 3\n- a\n- b\n- c\n", 1, true, "4 of 4 checks passed"},
		{"Total notes: 3\n- a\n", 0.75, false, "3 of 4 checks passed"},
	} {
		ws := writeFiles(t, map[string]string{"check-summary.ts": string(script), "notes-summary.md": c.summary})
		r := grade(t, g, &Input{Task: task, Run: run, Workspace: ws})
		if r.Score != c.score || r.Passed != c.passed || r.Feedback != c.feedback {
			t.Errorf("%q: score %v passed %v %q (%v)", c.summary, r.Score, r.Passed, r.Feedback, r.Details)
		}
	}
	// The program is looked up when a run is graded: one missing on this machine errors that
	// run's grader, never the suite; a script missing from the workspace makes node fail (exit 1,
	// no result printed), a failed check.
	ws := writeFiles(t, map[string]string{"notes-summary.md": "x"})
	if r, err := g.Grade(context.Background(), &Input{Task: task, Run: run, Workspace: ws}); err != nil || r.Passed || !strings.HasPrefix(r.Feedback, "Program node check-summary.ts exited with status 1") {
		t.Errorf("script missing: %v %+v", err, r)
	}
	missing := defFromYAML(t, "type: vally-program\nname: g\nconfig: {program: no-such-grader-xyz}\n")
	if _, err := mustCompile(t, missing).Grade(context.Background(), &Input{Run: run, Workspace: ws}); err == nil ||
		!strings.Contains(err.Error(), "no-such-grader-xyz is not installed on this machine") {
		t.Errorf("missing program: %v", err)
	}
	// Without JSON on stdout the exit code decides.
	exit := defFromYAML(t, "type: vally-program\nname: g\nconfig: {program: sh, args: [-c, 'test -f \"$EVALUATE_GRADER_INPUT\" && test \"$EVALUATE_WORKSPACE\" = \"$PWD\"']}\n")
	if r := grade(t, mustCompile(t, exit), &Input{Run: run, Workspace: ws}); !r.Passed {
		t.Errorf("exit 0 with the variables set: %v %q", r.Passed, r.Feedback)
	}
	reserved := defFromYAML(t, "type: vally-program\nname: g\nconfig: {program: sh, env: {evaluate_workspace: x}}\n")
	if _, diags := CompileOne(reserved, &Env{}); !strings.Contains(diagText(diags), "is set by the grader") {
		t.Errorf("reserved variable: %v", diags)
	}
}

// Vally runs pairwise judges only when it compares two runs: a run on its own skips them.
func TestVallyPairwiseSkipped(t *testing.T) {
	r := grade(t, mustCompile(t, defFromYAML(t, "type: pairwise\nname: g\n")), &Input{Run: runWith("x")})
	if r.Status != results.StatusSkipped || !strings.Contains(r.Feedback, "runs only when runs are compared") {
		t.Errorf("%+v", r)
	}
}

// output-contains compares case-insensitively unless case_sensitive is true, as Vally's reference
// says: Azure/azure-functions-skills' go_lowercase_module_path (no case_sensitive) passes on the
// module path written with a capital A, and Azure/azure-dev's note-count check (case_sensitive:
// true) fails on a lower-case "total notes".
func TestVallyOutputContainsCase(t *testing.T) {
	g := mustCompile(t, vallyGrader(t, "testdata/vally/Azure__azure-functions-skills/evals/azure-functions-create/eval.yaml", "go_lowercase_module_path"))
	if r := grade(t, g, &Input{Run: runWith("import \"github.com/Azure/azure-functions-golang-worker/sdk\"")}); !r.Passed {
		t.Errorf("default: %q", r.Feedback)
	}
	g = mustCompile(t, vallyGrader(t, "testdata/vally/Azure__azure-dev/cli/azd/test/evals/eval.yaml", "final response states the note count"))
	for out, want := range map[string]bool{"Total notes: 3": true, "total notes: 3": false} {
		if r := grade(t, g, &Input{Run: runWith(out)}); r.Passed != want {
			t.Errorf("case_sensitive: %q passed %v", out, r.Passed)
		}
	}
}

// FuzzVallyVerdict: whatever a Vally program prints, reading its GraderResult never panics and
// a verdict it accepts has a score from 0 to 1 that agrees with a lone verdict.
func FuzzVallyVerdict(f *testing.F) {
	for _, seed := range []string{
		`{"name":"x","kind":"code","passed":true,"score":0.75,"evidence":"3 of 4","details":[{"name":"a","passed":true}]}`,
		`{"passed":false}`, `{"score":0.4}`, "log line\n{\"score\": 1e400}", `{"passed":"yes"}`, `{}`, "not json",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stdout []byte) {
		obj, ok := findResultJSON(stdout)
		if !ok {
			return
		}
		v, err := vallyVerdict(obj)
		if err != nil {
			return
		}
		if v.score < 0 || v.score > 1 {
			t.Fatalf("score %v", v.score)
		}
		if _, hasScore := obj["score"]; !hasScore && v.score != map[bool]float64{true: 1, false: 0}[v.passed] {
			t.Fatalf("a lone verdict %v scored %v", v.passed, v.score)
		}
	})
}

// A shell command whose program this machine lacks (exit 127) errors the grader instead of
// failing the agent's run.
func TestVallyRunCommandMissingShellProgram(t *testing.T) {
	g := mustCompile(t, defFromYAML(t, "type: run-command\nname: g\nconfig: {command: 'no-such-tool-xyz test', stdout_contains: Passed!}\n"))
	if _, err := g.Grade(context.Background(), &Input{Run: runWith("x"), Workspace: t.TempDir()}); err == nil ||
		!strings.Contains(err.Error(), "is not installed on this machine (exit 127: ") {
		t.Errorf("got %v", err)
	}
}
