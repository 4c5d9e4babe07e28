package graders

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// Vally's graders that run a program in the workspace (docs/vally.md): run-command, and
// Vally's `program` (registered as vally-program, since its protocol is not waza's).

func init() {
	Register(&Type{Name: "run-command", Summary: "Vally: runs `command` (with `args`: that binary, no shell; without: through sh) in the workspace; passes on `expected_exit_code` (default 0) and the stdout/stderr checks.",
		ReadsWorkspace: true, Executes: true, Config: newConfig[runCommandConfig], Compile: compileRunCommand})
	Register(&Type{Name: "vally-program", Summary: "Vally's program grader: runs `program` with `args` in the workspace with EVALUATE_WORKSPACE and EVALUATE_GRADER_INPUT set; a printed GraderResult JSON decides, else exit 0 passes.",
		ReadsWorkspace: true, Executes: true, Config: newConfig[vallyProgramConfig], Compile: compileVallyProgram})
}

type runCommandConfig struct {
	Command          string            `yaml:"command"`
	Args             []string          `yaml:"args"`
	ExpectedExitCode *int              `yaml:"expected_exit_code"`
	StdoutContains   string            `yaml:"stdout_contains"`
	StderrContains   string            `yaml:"stderr_contains"`
	StdoutMatches    string            `yaml:"stdout_matches"`
	StdoutNotMatches string            `yaml:"stdout_not_matches"`
	SubPath          string            `yaml:"sub_path"`
	Env              map[string]string `yaml:"env"`
	Timeout          any               `yaml:"timeout"` // a duration with its unit, or seconds
}

// vallyTimeout reads a Vally grader timeout: a duration with its unit ("30s", "5m") or a number
// of seconds; dflt when none is written.
func vallyTimeout(def *spec.Grader, v any, dflt time.Duration) (time.Duration, spec.Diagnostics) {
	var secs *float64
	switch x := v.(type) {
	case nil:
		return dflt, nil
	case int:
		f := float64(x)
		secs = &f
	case float64:
		secs = &x
	case string:
		d, err := time.ParseDuration(strings.TrimSpace(x))
		if err != nil {
			return 0, spec.Diagnostics{spec.Errorf(def.ConfigAt("timeout"), "config.timeout", "write a duration with its unit, e.g. 30s or 5m",
				"grader %q: timeout %q is not a duration", def.Name, x)}
		}
		f := d.Seconds()
		secs = &f
	}
	t, d := gradeTimeout(def, secs)
	if d != nil {
		return 0, spec.Diagnostics{*d}
	}
	return t, nil
}

// workDir is the folder a Vally program runs in: the workspace, or sub_path below it (which
// must stay inside, as Vally requires).
func workDir(workspace, sub string) (string, error) {
	if sub == "" {
		return workspace, nil
	}
	dir, err := inside(workspace, sub)
	if err != nil {
		return "", fmt.Errorf("sub_path %q: %w", sub, err)
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("sub_path %q is not a folder of the workspace", sub)
	}
	return dir, nil
}

// inside resolves a workspace-relative path, refusing one that leaves the workspace.
func inside(dir, rel string) (string, error) {
	if filepath.IsAbs(rel) {
		return "", errors.New("must be relative to the workspace")
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if r, err := filepath.Rel(dir, p); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", errors.New("leaves the workspace")
	}
	return p, nil
}

// lookProgram finds a program the way a shell does: a name with a slash relative to dir, any
// other name on PATH. A program that is not there is an error of the run it grades: the suite's
// other graders and stimuli are unaffected, as in Vally.
func lookProgram(name, dir string) (string, error) {
	if strings.ContainsRune(name, '/') || strings.ContainsRune(name, filepath.Separator) {
		p := filepath.FromSlash(name)
		if filepath.IsAbs(p) {
			// An absolute path names this machine's program (huanluu/evalVally's /bin/zsh).
			if _, err := os.Stat(p); err != nil {
				return "", fmt.Errorf("program %s is not installed on this machine (no such file)", name)
			}
			return p, nil
		}
		p = filepath.Join(dir, p)
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("program %s not found in the workspace", name)
		}
		return p, nil
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("program %s is not installed on this machine (not found on PATH)", name)
	}
	return p, nil
}

// withEnv adds a grader's `env` to a program environment (later entries win).
func withEnv(env []string, extra map[string]string) []string {
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}

// compileRunCommand: Vally's run-command grader. With `args`, `command` is the binary, run
// without a shell; without, `command` is a shell command line (sh -c), as Vally's reference says.
func compileRunCommand(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[runCommandConfig](def)
	if strings.TrimSpace(cfg.Command) == "" {
		return nothingToCheck(def, "command")
	}
	timeout, diags := vallyTimeout(def, cfg.Timeout, defaultGradeLimit)
	if diags != nil {
		return nil, diags
	}
	var stdoutRE, stdoutNotRE *jsRegexp
	for _, p := range []struct {
		key, pattern string
		dst          **jsRegexp
	}{{"stdout_matches", cfg.StdoutMatches, &stdoutRE}, {"stdout_not_matches", cfg.StdoutNotMatches, &stdoutNotRE}} {
		if p.pattern == "" {
			continue
		}
		re, d := compileJSRegex(def, p.key, p.pattern)
		if d != nil {
			return nil, spec.Diagnostics{*d}
		}
		*p.dst = re
	}
	for k := range cfg.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return nil, spec.Diagnostics{spec.Errorf(def.ConfigAt("env", k), "config.env", "name each variable with letters, digits and _", "grader %q: invalid variable name %q", def.Name, k)}
		}
	}
	want := 0
	if cfg.ExpectedExitCode != nil {
		want = *cfg.ExpectedExitCode
	}
	display := cfg.Command
	if len(cfg.Args) > 0 {
		display = strings.Join(append([]string{cfg.Command}, cfg.Args...), " ")
	}
	return GraderFunc(func(ctx context.Context, in *Input) (*results.GraderResult, error) {
		if in == nil || in.Workspace == "" {
			return result(def, 0, false, "No workspace directory available", nil), nil
		}
		dir, err := workDir(in.Workspace, cfg.SubPath)
		if err != nil {
			return nil, fmt.Errorf("run-command: %w", err)
		}
		path, args := "sh", []string{"-c", cfg.Command}
		if len(cfg.Args) > 0 {
			if path, err = lookProgram(cfg.Command, dir); err != nil {
				return nil, fmt.Errorf("run-command: %w", err)
			}
			args = cfg.Args
		}
		res, err := runProgram(ctx, path, args, dir, withEnv(programEnv(in, dir), cfg.Env), nil, timeout)
		if err != nil {
			return nil, fmt.Errorf("run-command %q could not be started: %w", display, err)
		}
		if res.timedOut {
			return nil, fmt.Errorf("run-command %q timed out after %s", display, timeout)
		}
		if len(cfg.Args) == 0 && res.exitCode == 127 && want != 127 {
			// The shell did not find the command: this machine lacks it, which says nothing of the
			// agent's work (with args the lookup fails the same way).
			return nil, fmt.Errorf("run-command %q: a program it runs is not installed on this machine (exit 127: %s)", display, stderrTail(res.stderr))
		}
		out := string(res.stdout)
		details := map[string]any{"command": cfg.Command, "args": orEmpty(cfg.Args), "exit_code": res.exitCode,
			"stdout": truncateMiddle(strings.TrimSpace(out), maxFeedbackStdout), "stderr": strings.TrimSpace(res.stderr)}
		var failures []string
		if res.exitCode != want {
			failures = append(failures, fmt.Sprintf("%q exited with %d, expected %d", display, res.exitCode, want))
		}
		if cfg.StdoutContains != "" && !strings.Contains(out, cfg.StdoutContains) {
			failures = append(failures, fmt.Sprintf("stdout lacks %q", cfg.StdoutContains))
		}
		if cfg.StderrContains != "" && !strings.Contains(res.stderr, cfg.StderrContains) {
			failures = append(failures, fmt.Sprintf("stderr lacks %q", cfg.StderrContains))
		}
		for _, c := range []struct {
			re      *jsRegexp
			pattern string
			want    bool
		}{{stdoutRE, cfg.StdoutMatches, true}, {stdoutNotRE, cfg.StdoutNotMatches, false}} {
			if c.re == nil {
				continue
			}
			matched, err := jsMatch(c.re, out)
			if err != nil {
				return nil, err
			}
			if matched != c.want {
				failures = append(failures, fmt.Sprintf("stdout %s %s", map[bool]string{true: "does not match", false: "matches"}[c.want], c.pattern))
			}
		}
		if len(failures) > 0 {
			return result(def, 0, false, strings.Join(failures, "; "), details), nil
		}
		return result(def, 1, true, fmt.Sprintf("%q exited with %d", display, res.exitCode), details), nil
	}), nil
}

type vallyProgramConfig struct {
	Program string            `yaml:"program"`
	Args    []string          `yaml:"args"`
	Shell   bool              `yaml:"shell"`
	SubPath string            `yaml:"sub_path"`
	Timeout any               `yaml:"timeout"`
	Env     map[string]string `yaml:"env"`
}

// vallyProgramLimit is Vally's default program timeout.
const vallyProgramLimit = 60 * time.Second

// compileVallyProgram: Vally's `program` grader. The program runs in the workspace (sub_path
// below it) with EVALUATE_WORKSPACE (the workspace root) and EVALUATE_GRADER_INPUT (a JSON file
// holding Vally's GraderInput: trajectory, stimulus, config). A GraderResult printed on stdout
// ({passed, score, evidence, details}) decides; with nothing usable printed, exit 0 passes.
// The program is looked up when a run is graded, so one missing on this machine (or a file the
// stimulus copies into the workspace) errors that grader's runs, never the suite.
func compileVallyProgram(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[vallyProgramConfig](def)
	if strings.TrimSpace(cfg.Program) == "" {
		return nothingToCheck(def, "program")
	}
	timeout, diags := vallyTimeout(def, cfg.Timeout, vallyProgramLimit)
	if diags != nil {
		return nil, diags
	}
	for k := range cfg.Env {
		if up := strings.ToUpper(k); up == "EVALUATE_WORKSPACE" || up == "EVALUATE_GRADER_INPUT" {
			return nil, spec.Diagnostics{spec.Errorf(def.ConfigAt("env", k), "config.env", "remove it: the grader sets it",
				"grader %q: %s is set by the grader and cannot be given in env", def.Name, k)}
		}
	}
	display := strings.Join(append([]string{cfg.Program}, cfg.Args...), " ")
	return GraderFunc(func(ctx context.Context, in *Input) (*results.GraderResult, error) {
		if in == nil || in.Workspace == "" {
			return result(def, 0, false, "No workspace directory available", nil), nil
		}
		dir, err := workDir(in.Workspace, cfg.SubPath)
		if err != nil {
			return nil, fmt.Errorf("program: %w", err)
		}
		path, args := "sh", []string{"-c", strings.Join(append([]string{cfg.Program}, cfg.Args...), " ")}
		if !cfg.Shell {
			if path, err = lookProgram(cfg.Program, dir); err != nil {
				return nil, fmt.Errorf("program: %w", err)
			}
			args = cfg.Args
		}
		inputFile, err := writeGraderInput(in, def)
		if err != nil {
			return nil, fmt.Errorf("program %s: writing EVALUATE_GRADER_INPUT: %w", display, err)
		}
		defer os.Remove(inputFile)
		env := append(withEnv(programEnv(in, dir), cfg.Env), "EVALUATE_WORKSPACE="+in.Workspace, "EVALUATE_GRADER_INPUT="+inputFile)
		res, err := runProgram(ctx, path, args, dir, env, nil, timeout)
		if err != nil {
			return nil, fmt.Errorf("program %s could not be started: %w", display, err)
		}
		stdout := strings.TrimSpace(string(res.stdout))
		details := map[string]any{"program": cfg.Program, "args": orEmpty(cfg.Args), "exit_code": res.exitCode,
			"stdout": truncateMiddle(stdout, maxFeedbackStdout), "stderr": strings.TrimSpace(res.stderr)}
		if res.timedOut {
			return nil, fmt.Errorf("program %s timed out after %s", display, timeout)
		}
		if obj, ok := findResultJSON(res.stdout); ok {
			v, err := vallyVerdict(obj)
			if err != nil {
				return nil, fmt.Errorf("program %s printed an invalid GraderResult: %w", display, err)
			}
			if v.details != nil {
				details["details"] = v.details
			}
			feedback := cmp.Or(v.evidence, fmt.Sprintf("Program %s: %s", display, map[bool]string{true: "passed", false: "failed"}[v.passed]))
			return result(def, v.score, v.passed, feedback, details), nil
		}
		// Nothing (or no JSON) on stdout: the exit code decides, score 1 or 0.
		if res.exitCode == 0 {
			return result(def, 1, true, cmp.Or(truncateMiddle(stdout, maxFeedbackStdout), "Program exited successfully"), details), nil
		}
		feedback := fmt.Sprintf("Program %s exited with status %d", display, res.exitCode)
		if tail := stderrTail(res.stderr); tail != "" {
			feedback += "; stderr: " + tail
		}
		return result(def, 0, false, feedback, details), nil
	}), nil
}

type vallyResult struct {
	passed   bool
	score    float64
	evidence string
	details  any
}

// vallyVerdict reads a Vally GraderResult: `passed` and/or `score` (0–1; a score alone passes at
// 0.5, a verdict alone scores 1 or 0), `evidence` as feedback, `details` kept as written.
func vallyVerdict(obj map[string]any) (*vallyResult, error) {
	v := &vallyResult{}
	hasScore, hasVerdict := false, false
	if raw, ok := obj["score"]; ok && raw != nil {
		n, isNum := raw.(json.Number)
		f, err := n.Float64()
		if !isNum || err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return nil, fmt.Errorf("score must be a number from 0 to 1, not %s", jsonText(raw))
		}
		v.score, hasScore = f, true
	}
	if raw, ok := obj["passed"]; ok && raw != nil {
		b, isBool := raw.(bool)
		if !isBool {
			return nil, fmt.Errorf("passed must be true or false, not %s", jsonText(raw))
		}
		v.passed, hasVerdict = b, true
	}
	if !hasScore && !hasVerdict {
		return nil, errors.New("it has neither passed nor score")
	}
	switch {
	case !hasScore:
		v.score = map[bool]float64{true: 1, false: 0}[v.passed]
	case !hasVerdict:
		v.passed = v.score >= 0.5
	}
	if s, ok := obj["evidence"].(string); ok {
		v.evidence = s
	}
	if d, ok := obj["details"]; ok && d != nil {
		v.details = plainValue(d)
	}
	return v, nil
}

// writeGraderInput writes Vally's GraderInput for a run to a temporary file.
func writeGraderInput(in *Input, def *spec.Grader) (string, error) {
	data, err := json.Marshal(vallyGraderInput(in, def))
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp("", "skillgate-grader-input-*.json")
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), f.Close()
}

// vallyGraderInput is the run as Vally's GraderInput: {trajectory, stimulus, config}, the
// trajectory in Vally's format (events of typed data, metrics, output, workDir, metadata).
func vallyGraderInput(in *Input, def *spec.Grader) map[string]any {
	run := runOf(in)
	stimulus := map[string]any{}
	if in.Task != nil {
		stimulus = map[string]any{"name": in.Task.ID, "prompt": in.Task.Prompt}
		if len(in.Task.Turns) > 1 {
			stimulus["turns"] = in.Task.Turns
		}
		tags := map[string]any{}
		for _, t := range in.Task.Tags {
			k, v, _ := strings.Cut(t, "=")
			tags[k] = v
		}
		stimulus["tags"] = tags
	}
	config := map[string]any{}
	if def.Config != nil {
		if b, err := json.Marshal(def.Config); err == nil {
			json.Unmarshal(b, &config)
		}
	}
	events := []any{}
	event := func(typ string, data map[string]any) {
		events = append(events, map[string]any{"type": typ, "data": data})
	}
	errorsSeen := 0
	for _, e := range run.Transcript {
		switch e.Type {
		case results.EventMessage:
			typ := "assistant_message"
			if e.Role == "user" {
				typ = "user_message"
			}
			event(typ, map[string]any{"content": e.Content})
		case results.EventToolCall:
			c := results.ToolCallOf(&e)
			event("tool_call", map[string]any{"toolName": c.Name, "toolCallId": c.ID, "arguments": plainValue(c.Arguments)})
			if c.Result != nil || c.Outcome != "" {
				event("tool_result", map[string]any{"toolName": c.Name, "toolCallId": c.ID, "success": c.Success, "result": plainValue(c.Result)})
			}
		case results.EventSkillInvocation:
			event("skill_activation", map[string]any{"name": e.Name, "path": e.Path})
		case results.EventError:
			errorsSeen++
			event("error", map[string]any{"message": cmp.Or(e.Message, e.Content)})
		}
	}
	metrics := map[string]any{"toolCallCount": toolCallCount(run), "errorCount": errorsSeen, "wallTimeMs": run.DurationMS}
	if u := run.SessionDigest.Usage; u != nil {
		metrics["inputTokens"], metrics["outputTokens"], metrics["totalTokens"] = u.InputTokens, u.OutputTokens, u.InputTokens+u.OutputTokens
		metrics["turnCount"] = u.Turns
	}
	trajectory := map[string]any{
		"id": run.SessionDigest.SessionID, "stimulus": stimulus, "events": events, "metrics": metrics,
		"output": run.FinalOutput, "workDir": in.Workspace,
		"metadata": map[string]any{"sessionID": run.SessionDigest.SessionID, "skillsLoaded": orEmpty(skillsInvoked(run))},
	}
	return map[string]any{"trajectory": trajectory, "stimulus": stimulus, "config": config}
}
