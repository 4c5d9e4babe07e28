package graders

import (
	"context"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

func TestProgramGrader(t *testing.T) {
	needs(t, "sh")
	tests := []struct {
		name, args string
		score      float64
		passed     bool
		feedback   string
	}{
		{"exit 0, stdout is feedback", `["-c", "cat > /dev/null; echo '  all fine  '"]`, 1, true, "all fine"},
		{"exit 0, no stdout", `["-c", "cat > /dev/null"]`, 1, true, "Program exited successfully"},
		{"exit 1", `["-c", "cat > /dev/null; echo missing result.json; echo oops >&2; exit 1"]`, 0, false, "Program exited with status 1: missing result.json; stderr: oops"},
		{"reads the output on stdin", `["-c", "grep -q 'hello world'"]`, 1, true, "Program exited successfully"},
		{"runs in the suite folder, sees the workspace", `["-c", "test -f eval.yaml && test -f \"$WAZA_WORKSPACE_DIR/src/app.py\" && test \"$SKILLGATE_WORKSPACE_DIR\" = \"$WAZA_WORKSPACE_DIR\""]`, 1, true, "Program exited successfully"},
		{"a JSON result wins over the exit code", `["-c", "echo '{\"pass\": true, \"score\": 0.7, \"reasoning\": \"partial\"}'; exit 3"]`, 0.7, true, "partial"},
		{"JSON that is not a result is plain text", `["-c", "echo '{\"files\": 3}'"]`, 1, true, `{"files": 3}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env, file := scriptEnv(t)
			g, diags := compileScriptDef(t, file, "type: program\nname: p\nconfig:\n  command: sh\n  args: "+tc.args+"\n", env)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			r := grade(t, g, scriptInput(t, "hello world"))
			assertResult(t, r, tc.score, tc.passed, tc.feedback)
			if r.Details["command"] != "sh" {
				t.Errorf("details %v", r.Details)
			}
		})
	}
}

func TestProgramErrors(t *testing.T) {
	t.Parallel() // waits out a timeout
	needs(t, "sh", "sleep")
	env, file := scriptEnv(t)
	g, diags := compileScriptDef(t, file, "type: program\nname: p\nconfig:\n  command: sh\n  args: [\"-c\", \"echo started >&2; sleep 30\"]\n  timeout: 0.3\n", env)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	r, err := g.Grade(context.Background(), scriptInput(t, "x"))
	if err == nil || !strings.Contains(err.Error(), "program sh timed out after 300ms") || !strings.Contains(err.Error(), "stderr: started") || r.Status != results.StatusError {
		t.Errorf("timeout: %v %+v", err, r)
	}
	g, _ = compileScriptDef(t, file, "type: program\nname: p\nconfig:\n  command: sh\n  args: [\"-c\", \"echo '{\\\"score\\\": 3}'\"]\n", env)
	if _, err := g.Grade(context.Background(), scriptInput(t, "x")); err == nil || !strings.Contains(err.Error(), "invalid result: score must be from 0 to 1, got 3") {
		t.Errorf("invalid JSON result: %v", err)
	}
	// A program this machine lacks: a warning now, an error in every run it grades.
	g, diags = compileScriptDef(t, file, "type: program\nname: p\nconfig:\n  command: skillgate-no-such-program\n", env)
	if diags.HasErrors() || !strings.Contains(diagText(diags), `eval.yaml:4:12: warning: config.command: grader "p": program skillgate-no-such-program is not installed (not found on PATH)`) {
		t.Errorf("missing program: %v", diags)
	} else if _, err := g.Grade(context.Background(), scriptInput(t, "x")); err == nil || !strings.Contains(err.Error(), "not installed") {
		t.Errorf("missing program must error when it grades: %v", err)
	}
	for _, tc := range []struct{ src, want string }{
		{"type: program\nname: p\nconfig:\n  command: ./missing.sh\n", `program ./missing.sh not found (fix: a relative command path is relative to the suite folder`},
		{"type: program\nname: p\nconfig:\n  command: \"\"\n", "set at least one of: command"},
	} {
		if _, diags := compileScriptDef(t, file, tc.src, env); !diags.HasErrors() || !strings.Contains(diagText(diags), tc.want) {
			t.Errorf("%s: %v\nwant %q", tc.src, diags, tc.want)
		}
	}
}
