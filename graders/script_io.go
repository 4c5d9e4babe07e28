package graders

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// gradingContext is the JSON a script grader reads on stdin
// (docs/graders.md#script--custom-grading-scripts). It carries both vocabularies: waza's (output,
// outcome, transcript, tool_calls, errors, duration_ms, workspace_dir, task) and the inline grader
// protocol's (input, hint, trajectory, metadata, cwd).
func gradingContext(in *Input) map[string]any {
	run := runOf(in)
	ec := newEvalContext(run, contextNeeds{transcript: true, toolCalls: true, errors: true})
	workspace := ""
	if in != nil {
		workspace = in.Workspace
	}
	task := map[string]any{}
	metadata := map[string]any{}
	prompt := ""
	var hint any
	if in != nil && in.Task != nil {
		t := in.Task
		prompt = t.Prompt
		task = map[string]any{"id": t.ID, "name": t.Name, "description": t.Description, "prompt": t.Prompt, "tags": orEmpty(t.Tags)}
		for k, v := range t.Vars {
			metadata[k] = v
		}
		if h, ok := t.Vars["hint"]; ok {
			hint = h
		}
		metadata["task_id"] = t.ID
		if len(t.Tags) > 0 {
			metadata["tags"] = t.Tags
		}
	}
	trial := 0
	if in != nil {
		trial = in.Trial
		metadata["trial"] = in.Trial
	}
	changed := make([]any, 0, len(run.ChangedFiles))
	for _, c := range run.ChangedFiles {
		changed = append(changed, map[string]any{"path": c.Path, "change": c.Change, "size": c.Size})
	}
	ctx := map[string]any{
		"output":         run.FinalOutput,
		"outcome":        map[string]any{},
		"transcript":     ec.transcript,
		"tool_calls":     ec.toolCalls,
		"errors":         ec.errors,
		"duration_ms":    run.DurationMS,
		"workspace_dir":  workspace,
		"task":           task,
		"input":          prompt,
		"trajectory":     trajectory(run),
		"metadata":       metadata,
		"cwd":            workspace,
		"trial":          trial,
		"changed_files":  changed,
		"session_digest": plainValue(run.SessionDigest),
	}
	if hint != nil {
		ctx["hint"] = hint
	}
	return ctx
}

// trajectory is the run as the inline protocol's steps: {type: message, content},
// {type: tool_call, name, status: completed|error, input, output, duration}, plus
// skill_invocation and error steps; a call whose outcome was never recorded is an error, as its
// success is false. Seed 003's graders test `status === 'error'`.
func trajectory(run *results.AgentRun) []any {
	steps := []any{}
	step := func(c results.ToolCall) map[string]any {
		s := map[string]any{"type": "tool_call", "name": c.Name, "status": "completed"}
		if !c.Success {
			s["status"] = "error"
		}
		if c.ID != "" {
			s["stepId"] = c.ID
		}
		if c.Arguments != nil {
			s["input"] = plainValue(c.Arguments)
		}
		if c.Result != nil {
			s["output"] = plainValue(c.Result)
		}
		if c.DurationMS > 0 {
			s["duration"] = c.DurationMS
		}
		return s
	}
	sawCalls := false
	for _, e := range run.Transcript {
		switch e.Type {
		case results.EventMessage:
			steps = append(steps, map[string]any{"type": "message", "role": e.Role, "content": e.Content})
		case results.EventToolCall:
			sawCalls = true
			steps = append(steps, step(results.ToolCallOf(&e)))
		case results.EventSkillInvocation:
			steps = append(steps, map[string]any{"type": "skill_invocation", "name": e.Name, "path": e.Path})
		case results.EventError:
			steps = append(steps, map[string]any{"type": "error", "content": cmp.Or(e.Message, e.Content)})
		}
	}
	if !sawCalls {
		for _, c := range toolCalls(run) {
			steps = append(steps, step(c))
		}
	}
	return steps
}

// graderVerdict is a grader program's result, in either accepted shape.
type graderVerdict struct {
	score    float64
	passed   bool
	feedback string
	details  map[string]any
}

// resultKeys mark a JSON object as a grader result.
var resultKeys = []string{"score", "passed", "pass"}

// findResultJSON finds the grader result a program printed: the whole stdout when it is one
// JSON object, else the last line that is one (so log lines before it do no harm). ok is false
// when there is none.
func findResultJSON(stdout []byte) (map[string]any, bool) {
	text := bytes.TrimSpace(stdout)
	if obj, ok := decodeObject(text); ok {
		return obj, true
	}
	lines := bytes.Split(text, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if obj, ok := decodeObject(bytes.TrimSpace(lines[i])); ok {
			return obj, true
		}
	}
	return nil, false
}

func decodeObject(b []byte) (map[string]any, bool) {
	if len(b) == 0 || b[0] != '{' {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var obj map[string]any
	if dec.Decode(&obj) != nil || obj == nil || dec.More() {
		return nil, false
	}
	return obj, true
}

// isGraderResult reports whether an object has any key of a grader result.
func isGraderResult(obj map[string]any) bool {
	for _, k := range resultKeys {
		if _, ok := obj[k]; ok {
			return true
		}
	}
	return false
}

// parseVerdict validates a grader result: waza's {score, passed, message|feedback, details} or
// the inline protocol's {pass, score, reasoning, outcome}. A score must be a number from 0 to 1;
// a verdict alone scores 1 or 0; a score alone passes at 0.5 or more.
func parseVerdict(obj map[string]any) (*graderVerdict, error) {
	v := &graderVerdict{details: map[string]any{}}
	var errs []string
	hasScore := false
	if raw, ok := obj["score"]; ok {
		n, isNum := raw.(json.Number)
		f, err := n.Float64()
		switch {
		case !isNum || err != nil:
			errs = append(errs, fmt.Sprintf("score must be a number from 0 to 1, not %s", jsonText(raw)))
		case math.IsNaN(f) || f < 0 || f > 1:
			errs = append(errs, fmt.Sprintf("score must be from 0 to 1, got %s", n))
		default:
			v.score, hasScore = f, true
		}
	}
	hasVerdict := false
	for _, key := range []string{"passed", "pass"} {
		raw, ok := obj[key]
		if !ok {
			continue
		}
		b, isBool := raw.(bool)
		if !isBool {
			errs = append(errs, fmt.Sprintf("%s must be true or false, not %s", key, jsonText(raw)))
			continue
		}
		if hasVerdict && b != v.passed {
			errs = append(errs, "passed and pass disagree")
			continue
		}
		v.passed, hasVerdict = b, true
	}
	for _, key := range []string{"message", "feedback", "reasoning"} {
		raw, ok := obj[key]
		if !ok || raw == nil {
			continue
		}
		s, isStr := raw.(string)
		if !isStr {
			errs = append(errs, fmt.Sprintf("%s must be a string, not %s", key, jsonText(raw)))
			continue
		}
		if v.feedback == "" {
			v.feedback = s
		}
	}
	if raw, ok := obj["details"]; ok && raw != nil {
		m, isMap := raw.(map[string]any)
		if !isMap {
			errs = append(errs, fmt.Sprintf("details must be an object, not %s", jsonText(raw)))
		} else {
			for k, x := range m {
				v.details[k] = plainValue(x)
			}
		}
	}
	if raw, ok := obj["outcome"]; ok && raw != nil {
		v.details["outcome"] = plainValue(raw)
	}
	if len(errs) == 0 && !hasScore && !hasVerdict {
		errs = append(errs, "it has neither score nor passed/pass")
	}
	if len(errs) > 0 {
		return nil, errors.New(strings.Join(errs, "; "))
	}
	switch {
	case !hasScore:
		v.score = 0
		if v.passed {
			v.score = 1
		}
	case !hasVerdict:
		v.passed = v.score >= 0.5
	}
	return v, nil
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}
