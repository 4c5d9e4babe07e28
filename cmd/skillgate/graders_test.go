package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/skillgate/skillgate/results"
)

func TestBadGraderInput(t *testing.T) {
	tests := []struct {
		suite string
		env   map[string]string
		path  bool // run with an empty PATH (interpreter missing)
		want  string
	}{
		{"script_missing", nil, false, `script_missing/eval\.yaml:8:15: error: config\.script: grader "custom": script graders/nope\.py not found`},
		{"not_executable", nil, false, `not_executable/eval\.yaml:8:15: error: config\.script: grader "custom": script graders/check\.sh is not executable \(fix: run .chmod \+x check\.sh.`},
		{"rubric_missing", map[string]string{"GITHUB_TOKEN": "x"}, false, `rubric_missing/eval\.yaml:7:13: error: config\.rubric: grader "quality": rubric file rubrics/missing\.md not found`},
		{"threshold", map[string]string{"GITHUB_TOKEN": "x"}, false, `threshold/eval\.yaml:9:18: error: .*threshold`},
		{"calibration_missing", map[string]string{"GITHUB_TOKEN": "x"}, false, `calibration_missing/eval\.yaml:11:25: error: config\.calibrate_grader: grader "cal": calibrate_grader "qualty" names no grader of task "t" \(fix: did you mean "quality"\?`},
		{"calibration_not_llm", nil, false, `calibration_not_llm/eval\.yaml:12:25: error: config\.calibrate_grader: grader "cal": calibrate_grader "mentions" is a text grader, not an LLM grader`},
	}
	for _, tc := range tests {
		t.Run(tc.suite, func(t *testing.T) {
			if tc.path {
				t.Setenv("PATH", t.TempDir())
			}
			code, _, stderr := run(t, tc.env, "run", "testdata/badgraders/"+tc.suite, "--out", t.TempDir(), "--quiet")
			if code != exitUsage || !regexp.MustCompile(tc.want).MatchString(stderr) || !strings.Contains(stderr, "nothing was run") {
				t.Errorf("exit %d, stderr:\n%s\nwant %s", code, stderr, tc.want)
			}
			if code, _, stderr := run(t, tc.env, "validate", "testdata/badgraders/"+tc.suite); code != exitUsage || !regexp.MustCompile(tc.want).MatchString(stderr) {
				t.Errorf("validate: exit %d\n%s", code, stderr)
			}
		})
	}
}

// What depends on the machine (an interpreter, a judge endpoint) does not refuse the suite: it
// loads with a warning, the other graders run, and each run the grader grades errors (exit 1).
func TestDeferredGraderProblems(t *testing.T) {
	tests := []struct {
		suite string
		path  bool // run with an empty PATH (interpreter missing)
		want  string
	}{
		{"interpreter_missing", true, `interpreter_missing/eval\.yaml:8:15: warning: config\.script: grader "custom": script graders/grade\.py needs python3, which is not installed`},
		{"no_endpoint", false, `no_endpoint/eval\.yaml:5:5: warning: type: grader "quality" \(prompt\) needs an LLM judge, and no judge endpoint is configured; it errors in every run \(fix: set GITHUB_TOKEN`},
	}
	for _, tc := range tests {
		t.Run(tc.suite, func(t *testing.T) {
			if tc.path {
				t.Setenv("PATH", t.TempDir())
			}
			out := t.TempDir()
			code, _, stderr := run(t, nil, "run", "testdata/badgraders/"+tc.suite, "--out", out, "--quiet")
			if code != exitFailed || !regexp.MustCompile(tc.want).MatchString(stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant %s", code, stderr, tc.want)
			}
			files, _ := filepath.Glob(filepath.Join(out, "results", "*.json"))
			if len(files) != 1 {
				t.Fatalf("results: %v", files)
			}
			data, _ := os.ReadFile(files[0])
			if !strings.Contains(string(data), `"status":"error"`) {
				t.Errorf("the runs the grader grades must be errors:\n%s", data)
			}
			if code, _, stderr := run(t, nil, "validate", "testdata/badgraders/"+tc.suite); code != exitOK || !regexp.MustCompile(tc.want).MatchString(stderr) {
				t.Errorf("validate: exit %d\n%s", code, stderr)
			}
			// --strict fails the suite's own warnings, not what this machine lacks: a suite with
			// an LLM grader validates offline, without a token, in a pre-commit hook.
			if code, _, stderr := run(t, nil, "validate", "--strict", "testdata/badgraders/"+tc.suite); code != exitOK || !regexp.MustCompile(tc.want).MatchString(stderr) {
				t.Errorf("validate --strict: exit %d\n%s", code, stderr)
			}
		})
	}
}

func TestLabelsFileProblems(t *testing.T) {
	code, _, stderr := run(t, nil, "run", hello, "--out", t.TempDir(), "--quiet", "--labels", "testdata/labels/bad.yaml")
	if code != exitUsage || !strings.Contains(stderr, "testdata/labels/bad.yaml:2:14: error: greet[1].score: score must be a number from 0 to 1, not the integer 7") {
		t.Errorf("malformed score: exit %d\n%s", code, stderr)
	}
	code, _, stderr = run(t, nil, "run", hello, "--out", t.TempDir(), "--quiet", "--labels", "testdata/labels/unknown.yaml")
	if code != exitOK || !strings.Contains(stderr, "testdata/labels/unknown.yaml:3:1: warning: labels for unknown task ids are ignored: grete (fix: did you mean \"greet\"?") {
		t.Errorf("unknown ids: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := run(t, nil, "run", hello, "--out", t.TempDir(), "--quiet", "--labels", "testdata/labels/none.yaml"); code != exitUsage || !strings.Contains(stderr, "cannot read the labels file") {
		t.Errorf("missing file: exit %d\n%s", code, stderr)
	}
}

// judgeServer answers like GitHub Models: the prompt grader's tool call passes an answer that
// greets ("hello"), the rubric grader gets {"score": 4}.
func judgeServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var calls atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		if r.URL.Path != "/chat/completions" || r.Header.Get("Authorization") != "Bearer test-key" {
			http.Error(w, `{"error":{"message":"Bad credentials"}}`, http.StatusUnauthorized)
			return
		}
		data, _ := io.ReadAll(r.Body)
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
			Tools []any `json:"tools"`
		}
		json.Unmarshal(data, &req)
		user := req.Messages[len(req.Messages)-1].Content
		msg := map[string]any{"role": "assistant", "content": `{"score": 4, "reasoning": "direct"}`}
		if len(req.Tools) > 0 {
			name, reason := "set_waza_grade_fail", "no greeting"
			if strings.Contains(user, "Mock response for: Say hello") {
				name, reason = "set_waza_grade_pass", "greets"
			}
			args, _ := json.Marshal(map[string]string{"description": "greets the user", "reason": reason})
			msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{
				"id": "call_1", "type": "function", "function": map[string]any{"name": name, "arguments": string(args)}}}}
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}})
	}))
	t.Cleanup(ts.Close)
	return ts, &calls
}

func TestJudgesHumanLabelsAndCalibration(t *testing.T) {
	ts, calls := judgeServer(t)
	env := map[string]string{"SKILLGATE_JUDGE_BASE_URL": ts.URL, "SKILLGATE_JUDGE_API_KEY": "test-key"}
	first := t.TempDir()
	code, stdout, stderr := run(t, env, "run", "testdata/judged", "--out", first, "--quiet")
	if code != exitFailed {
		t.Fatalf("bye fails its judge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	// 2 judges × 2 tasks; the second trial of a task is the same mock run, so the same request:
	// its verdict comes from the cache.
	if n := calls.Load(); n != 4 {
		t.Errorf("%d judge requests, want 4", n)
	}
	res := readResults(t, results.PathIn(first, "judged"))
	if res.Summary.Pending != 8 || res.Provenance.JudgeModel != "openai/gpt-4.1-mini" || !strings.HasPrefix(res.Provenance.JudgePromptHash, "sha256:") || res.Config.JudgeModel != "openai/gpt-4.1-mini" {
		t.Errorf("summary %+v provenance %+v", res.Summary, res.Provenance)
	}
	greet := res.Tasks[0].Runs[0]
	if q := res.Tasks[0].Runs[1].Validations.Get("quality"); q.Details["cached"] != true {
		t.Errorf("trial 2 repeats trial 1's request: %+v", q.Details)
	}
	if q := greet.Validations.Get("quality"); !q.Passed || q.Score != 1 || q.Details["judge_model"] != "openai/gpt-4.1-mini" {
		t.Errorf("quality %+v", q)
	}
	if rj := greet.Validations.Get("rubric_judge"); !rj.Passed || rj.Score != 0.75 {
		t.Errorf("rubric %+v", rj)
	}
	if rv := greet.Validations.Get("review"); rv.Status != results.StatusPending || greet.Status != results.StatusPassed {
		t.Errorf("pending human review must not change the run: %+v / %s", rv, greet.Status)
	}
	if len(res.Calibration) != 1 || res.Calibration[0].Labeled != 0 || res.Calibration[0].Pending != 4 {
		t.Errorf("calibration before labels %+v", res.Calibration)
	}
	if entries, _ := filepath.Glob(filepath.Join(first, "cache", "judge", "*", "*.json")); len(entries) != 4 {
		t.Errorf("%d cache entries", len(entries))
	}
	if strings.Contains(stdout+stderr, "test-key") {
		t.Error("the API key was printed")
	}
	raw, _ := os.ReadFile(results.PathIn(first, "judged"))
	if strings.Contains(string(raw), "test-key") {
		t.Error("the API key was written to the results")
	}

	// The review sheet of the first run.
	sheet := filepath.Join(t.TempDir(), "cal.md")
	code, stdout, stderr = run(t, nil, "calibrate", first, "-o", sheet, "--sample", "4", "--grader", "quality")
	if code != exitOK || !strings.Contains(stdout, "4 runs sampled from 2 passes and 2 failures (grader quality, seed 1)") {
		t.Fatalf("calibrate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	skeleton, err := os.ReadFile(strings.TrimSuffix(sheet, ".md") + "-labels.yaml")
	if err != nil || !strings.Contains(string(skeleton), "greet:\n  1:  # quality says pass") {
		t.Errorf("skeleton: %v\n%s", err, skeleton)
	}

	// Regrade with labels, replaying the runs: every verdict comes from the cache.
	second := t.TempDir()
	code, stdout, stderr = run(t, env, "run", "testdata/judged", "--from", first, "--out", second, "--quiet",
		"--cache-dir", filepath.Join(first, "cache", "judge"), "--labels", "testdata/labels/judged.yaml")
	if code != exitFailed {
		t.Fatalf("regrade: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if n := calls.Load(); n != 4 {
		t.Errorf("the regrade asked the judge again: %d requests", n)
	}
	res = readResults(t, results.PathIn(second, "judged"))
	if res.Summary.Pending != 0 {
		t.Errorf("labels left %d grades pending", res.Summary.Pending)
	}
	if q := res.Tasks[0].Runs[0].Validations.Get("quality"); q.Details["cached"] != true {
		t.Errorf("quality not from the cache: %+v", q.Details)
	}
	if rv := res.Tasks[0].Runs[1].Validations.Get("review"); rv.Passed || rv.Feedback != "Human label: fail (score 0.00): too curt" {
		t.Errorf("labelled review %+v", rv)
	}
	c := res.Calibration[0]
	// greet: judge pass / human pass, fail; bye: judge fail / human fail, pass.
	if c.Labeled != 4 || c.Agreement != 0.5 || c.Kappa == nil || *c.Kappa != 0 || c.FalsePasses != 1 || c.FalseFailures != 1 {
		t.Errorf("calibration %+v", c)
	}
	code, stdout, _ = run(t, env, "report", results.PathIn(second, "judged"), "--out", t.TempDir())
	if !strings.Contains(stdout, "judge quality vs human labels: agreement 50%, Cohen's kappa 0.00, false passes 50%, false failures 50% over 4 labelled runs") {
		t.Errorf("terminal lacks the calibration line (exit %d):\n%s", code, stdout)
	}
}

// examples/graders runs its Python, TypeScript and shell graders under the mock executor.
func TestExampleGradersSuite(t *testing.T) {
	const suite = "../../examples/graders"
	code, _, stderr := run(t, nil, "validate", suite)
	if code != exitOK {
		t.Fatalf("validate: exit %d\n%s", code, stderr)
	}
	if strings.Contains(stderr, "is not installed") || strings.Contains(stderr, "none is installed") {
		// .ci/run installs Node.js 22 for the TypeScript grader and sets this.
		if os.Getenv("SKILLGATE_TYPESCRIPT_REQUIRED") != "" {
			t.Fatal("an interpreter is missing, and SKILLGATE_TYPESCRIPT_REQUIRED is set:\n" + stderr)
		}
		t.Skip("an interpreter is missing:\n" + stderr)
	}
	out := t.TempDir()
	code, stdout, stderr := run(t, nil, "run", suite, "--out", out, "--quiet")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	res := readResults(t, results.PathIn(out, "graders"))
	want := map[string]string{
		"mentions_hint":   "Output mentions 'closure'",
		"criteria":        "mentions the hint; no tool errors; efficient (0 tool calls)",
		"clean_workspace": "No scratch files left behind",
		"short_answer":    "10 words (at most 60)",
	}
	run := res.Tasks[0].Runs[0]
	for name, feedback := range want {
		v := run.Validations.Get(name)
		if v == nil || !v.Passed || v.Score != 1 || v.Feedback != feedback {
			t.Errorf("%s: %+v", name, v)
		}
	}
	if v := run.Validations.Get("clean_workspace"); v.Details["leftovers"] != 0.0 {
		t.Errorf("details from the script: %+v", v.Details)
	}
}

// A missing input file is left out and its task runs and is graded, as in waza (which warns
// and drops it); a missing skill folder changes nothing under the mock executor (as in waza)
// and fails every run of a real agent.
func TestMissingInputsDeferToRuns(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, nil, "run", "testdata/deferred/missing_input", "--out", out, "--quiet")
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	for _, want := range []string{
		`missing_input/eval.yaml:9:17: warning: tasks[0].inputs.files[0].path: input file "main.py" not found in the context dir`,
		`the task runs without it, as in waza (fix: create it there, give it inline ` + "`content:`" + `, or set context_dir / --context-dir)`,
		`missing_input/eval.yaml:3:23: warning: config.skill_directories[0]: skill directory`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	res := readResults(t, results.PathIn(out, "missing-input"))
	status := map[string]results.Status{}
	for _, task := range res.Tasks {
		status[task.ID] = task.Status
	}
	if status["broken"] != results.StatusPassed || status["healthy"] != results.StatusPassed {
		t.Errorf("statuses %v", status)
	}
	// waza's mock counts the files it actually put in the workspace: none.
	if got := res.Tasks[0].Runs[0].FinalOutput; got != "Mock response for: Explain main.py" {
		t.Errorf("final output %q", got)
	}
}
