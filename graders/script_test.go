package graders

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// scriptEnv compiles graders declared in testdata/scripts/eval.yaml (so scripts resolve there)
// for a suite whose folder is a temporary one holding an eval.yaml.
func scriptEnv(t *testing.T) (*Env, string) {
	t.Helper()
	suiteDir := writeFiles(t, map[string]string{"eval.yaml": "name: s\n"})
	return &Env{Suite: &spec.Suite{Dir: suiteDir}}, mustAbs(t, "testdata/scripts/eval.yaml")
}

func mustAbs(t testing.TB, p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

func compileScriptDef(t *testing.T, file, src string, env *Env) (Grader, spec.Diagnostics) {
	t.Helper()
	def, err := parseDef(src, file)
	if err != nil {
		t.Fatal(err)
	}
	return CompileOne(def, env)
}

func scriptInput(t *testing.T, output string) *Input {
	ws := writeFiles(t, map[string]string{"src/app.py": "print('hello')\n"})
	failed := false
	run := runWith(output, withEvents(
		results.Event{Type: results.EventMessage, Role: "assistant", Content: "working"},
		results.Event{Type: results.EventToolCall, ID: "c1", Name: "bash", Arguments: map[string]any{"command": "ls"}, Result: "src", Success: &failed},
	))
	run.SessionDigest.ToolCalls = []results.ToolCall{{ID: "c1", Name: "bash", Arguments: map[string]any{"command": "ls"}, Result: "src"}}
	return &Input{
		Task:      &spec.Task{ID: "greet", Name: "Greet", Prompt: "Say hello", Vars: map[string]string{"hint": "hello", "category": "code"}},
		Run:       run,
		Workspace: ws,
		Trial:     2,
	}
}

func TestScriptGraders(t *testing.T) {
	t.Parallel() // each case waits on an interpreter
	tests := []struct {
		name, script string
		needs        []string
		output       string
		score        float64
		passed       bool
		feedback     string
		details      map[string]any
	}{
		{"python, waza shape", "waza_shape.py", []string{"python3"}, "Hello there", 1, true, "greets",
			map[string]any{"task": "greet", "workspace": true, "tools": []any{"bash"}, "stderr": "debug line before the result", "exit_code": 0}},
		{"python, waza shape failing", "waza_shape.py", []string{"python3"}, "Bye", 0.25, false, "no greeting", nil},
		// The trajectory's failed tool call (status "error") halves the score, as seed 003's example does.
		{"python, inline shape", "inline_shape.py", []string{"python3"}, "well, hello", 0.5, false, "Contains hint",
			map[string]any{"outcome": map[string]any{"cwd_is_suite": true, "env": true}}},
		{"shell", "check.sh", []string{"sh"}, "x", 1, true, "app.py exists", nil},
		{"ES module exporting grade", "module.mjs", []string{"node"}, "hello", 1, true, "says hello", nil},
		{"CommonJS module", "module.cjs", []string{"node"}, "hello", 1, true, "length 5", nil},
		{"plain JavaScript program", "plain.js", []string{"node"}, "hello", 0.5, true, "plain greet", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			needs(t, tc.needs...)
			env, file := scriptEnv(t)
			g, diags := compileScriptDef(t, file, "type: script\nname: s\nconfig:\n  script: "+tc.script+"\n", env)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			r := grade(t, g, scriptInput(t, tc.output))
			assertResult(t, r, tc.score, tc.passed, tc.feedback)
			for k, want := range tc.details {
				got, _ := json.Marshal(r.Details[k])
				w, _ := json.Marshal(want)
				if string(got) != string(w) {
					t.Errorf("details[%s] = %s, want %s", k, got, w)
				}
			}
		})
	}
}

func TestScriptTypeScript(t *testing.T) {
	t.Parallel() // waits on node
	needsTypeScript(t)
	env, file := scriptEnv(t)
	g, diags := compileScriptDef(t, file, "type: script\nname: s\nconfig:\n  script: module.ts\n", env)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	assertResult(t, grade(t, g, scriptInput(t, "hello")), 1, true, "typescript")
}

func TestScriptErrors(t *testing.T) {
	t.Parallel() // each case waits on a script (one on its timeout)
	tests := []struct {
		name, script string
		needs        []string
		timeout      string
		want         []string
	}{
		{"non-zero exit", "exit_1.sh", []string{"sh"}, "", []string{"script exit_1.sh exited with status 1", "stderr: Traceback: something broke"}},
		{"no JSON", "no_json.sh", []string{"sh"}, "", []string{"printed no JSON result", `"all good, I think"`}},
		{"invalid result", "bad_score.sh", []string{"sh"}, "", []string{"invalid result", "score must be from 0 to 1, got 2", `passed must be true or false, not "yes"`}},
		{"grade throws", "throws.mjs", []string{"node"}, "", []string{"exited with status 1", "grader bug: cannot read property x"}},
		{"timeout", "slow.sh", []string{"sh", "sleep"}, "0.5", []string{"timed out after 500ms", "stderr: starting"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			needs(t, tc.needs...)
			env, file := scriptEnv(t)
			src := "type: script\nname: s\nconfig:\n  script: " + tc.script + "\n"
			if tc.timeout != "" {
				src += "  timeout: " + tc.timeout + "\n"
			}
			g, diags := compileScriptDef(t, file, src, env)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			in := scriptInput(t, "x")
			r, err := g.Grade(context.Background(), in)
			if err == nil {
				t.Fatalf("no error; result %+v", r)
			}
			for _, want := range tc.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q: %v", want, err)
				}
			}
			if r == nil || r.Status != results.StatusError || r.Details["script"] != tc.script {
				t.Errorf("result kept with the error: %+v", r)
			}
			if tc.name == "timeout" {
				assertGroupKilled(t, filepath.Join(in.Workspace, "child.pid"))
			}
		})
	}
}

func TestScriptValidation(t *testing.T) {
	env, file := scriptEnv(t)
	tests := []struct{ src, want string }{
		{"type: script\nname: s\nconfig:\n  script: missing.py\n", "eval.yaml:4:11: error: config.script: grader \"s\": script missing.py not found"},
		{"type: script\nname: s\nconfig:\n  script: not_executable.sh\n", "script not_executable.sh is not executable (fix: run `chmod +x not_executable.sh`"},
		{"type: script\nname: s\nconfig:\n  script: check.sh\n  timeout: 0\n", "config.timeout: grader \"s\": timeout must be a number of seconds > 0"},
		{"type: script\nname: s\nconfig: {}\n", "set at least one of: script"},
	}
	for _, tc := range tests {
		if _, diags := compileScriptDef(t, file, tc.src, env); !diags.HasErrors() || !strings.Contains(diagText(diags), tc.want) {
			t.Errorf("%s\ngot %v\nwant %q", tc.src, diags, tc.want)
		}
	}
}

// An interpreter this machine lacks is the machine's problem, not the suite's: a warning, and the
// runs the grader grades error.
func TestScriptInterpreterMissing(t *testing.T) {
	env, file := scriptEnv(t)
	_, diags := compileScriptDef(t, file, "type: script\nname: s\nconfig:\n  script: missing_interpreter.sh\n", env)
	if diags.HasErrors() || !strings.Contains(diagText(diags), "names the interpreter skillgate-no-such-interpreter in its shebang line, which is not installed") {
		t.Errorf("shebang interpreter: %v", diags)
	}
	t.Setenv("PATH", t.TempDir())
	for _, tc := range []struct{ script, want string }{
		{"waza_shape.py", "needs python3, which is not installed (not found on PATH); it errors in every run (fix: install Python 3"},
		{"module.mjs", "needs Node.js, which is not installed"},
		{"module.ts", "is TypeScript, which needs Node.js ≥ 22.6 (type stripping), tsx or bun, and none is installed"},
	} {
		g, diags := compileScriptDef(t, file, "type: script\nname: s\nconfig:\n  script: "+tc.script+"\n", env)
		if diags.HasErrors() || !strings.Contains(diagText(diags), tc.want) {
			t.Errorf("%s: got %v, want the warning %q", tc.script, diags, tc.want)
			continue
		}
		if _, err := g.Grade(context.Background(), scriptInput(t, "x")); err == nil || !strings.Contains(err.Error(), tc.want[:20]) {
			t.Errorf("%s: grading must error: %v", tc.script, err)
		}
	}
}

func TestGradingContext(t *testing.T) {
	in := scriptInput(t, "out")
	in.Run.DurationMS = 1200
	in.Run.ChangedFiles = []results.FileChange{{Path: "src/app.py", Change: "added", Size: 15}}
	ctx := gradingContext(in)
	data, err := json.Marshal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	json.Unmarshal(data, &back)
	for _, key := range []string{"output", "outcome", "transcript", "tool_calls", "errors", "duration_ms", "workspace_dir", "task",
		"input", "hint", "trajectory", "metadata", "cwd"} {
		if _, ok := back[key]; !ok {
			t.Errorf("context lacks %q", key)
		}
	}
	if back["input"] != "Say hello" || back["hint"] != "hello" || back["workspace_dir"] != in.Workspace {
		t.Errorf("context %v", back)
	}
	md := back["metadata"].(map[string]any)
	if md["category"] != "code" || md["task_id"] != "greet" || md["trial"] != 2.0 {
		t.Errorf("metadata %v", md)
	}
	traj := back["trajectory"].([]any)
	call := traj[1].(map[string]any)
	if len(traj) != 2 || call["type"] != "tool_call" || call["status"] != "error" || call["output"] != "src" {
		t.Errorf("trajectory %v", traj)
	}
	delete(in.Task.Vars, "hint")
	if _, ok := gradingContext(in)["hint"]; ok {
		t.Error("hint is absent when the task has none (seed 003: hint may be undefined)")
	}
}

func TestParseVerdict(t *testing.T) {
	tests := []struct {
		out      string
		score    float64
		passed   bool
		feedback string
		err      string
	}{
		{`{"score": 0.8, "passed": true, "message": "m", "details": {"k": 1}}`, 0.8, true, "m", ""},
		{`{"pass": false, "score": 0.2, "reasoning": "r"}`, 0.2, false, "r", ""},
		{`{"passed": true}`, 1, true, "", ""},
		{`{"score": 0.5}`, 0.5, true, "", ""},
		{"log line\n{\"pass\": true, \"score\": 1}\n", 1, true, "", ""},
		{`{"score": 1.5}`, 0, false, "", "score must be from 0 to 1, got 1.5"},
		{`{"score": "1"}`, 0, false, "", `score must be a number from 0 to 1, not "1"`},
		{`{"pass": 1}`, 0, false, "", "pass must be true or false, not 1"},
		{`{"pass": true, "passed": false}`, 0, false, "", "passed and pass disagree"},
		{`{"score": 1, "details": [1]}`, 0, false, "", "details must be an object"},
		{`{"feedback": 3, "pass": true}`, 0, false, "", "feedback must be a string"},
		{`{"ok": true}`, 0, false, "", "neither score nor passed/pass"},
	}
	for _, tc := range tests {
		obj, ok := findResultJSON([]byte(tc.out))
		if !ok {
			t.Fatalf("%s: no JSON found", tc.out)
		}
		v, err := parseVerdict(obj)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: err %v, want %q", tc.out, err, tc.err)
			}
			continue
		}
		if err != nil || !near(v.score, tc.score) || v.passed != tc.passed || v.feedback != tc.feedback {
			t.Errorf("%s: %+v %v", tc.out, v, err)
		}
	}
	if _, ok := findResultJSON([]byte("no json here\n[1,2]")); ok {
		t.Error("found JSON where there is none")
	}
}

func FuzzScriptResult(f *testing.F) {
	for _, s := range []string{`{"score": 0.5, "passed": true}`, `{"pass": true, "score": 1, "reasoning": "r"}`, "x\n{\"score\": 2}", `{"details": {"a": [1, {"b": null}]}, "score": 0}`, "{", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		obj, ok := findResultJSON([]byte(out))
		if !ok {
			return
		}
		v, err := parseVerdict(obj)
		if err != nil {
			return
		}
		if v.score < 0 || v.score > 1 || v.details == nil {
			t.Fatalf("accepted %+v from %q", v, out)
		}
	})
}
