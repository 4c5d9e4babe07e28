package results

import "cmp"

// ToolOutcome is what became of a tool call, as far as the run recorded it.
type ToolOutcome string

const (
	ToolSucceeded ToolOutcome = "succeeded"
	ToolFailed    ToolOutcome = "failed"
	// ToolUnknown is a call whose outcome was never recorded: its tool_call event has no success,
	// because the stream ended before the result came (the run was cut, timed out or crashed).
	// It is not a success (success is false, so a check that every call succeeded fails) and
	// not a failure either: renderings say it had no result (docs/agents.md).
	ToolUnknown ToolOutcome = "unknown"
)

// Digest derives a session digest from a normalized transcript. It is the one derivation of tool
// calls and their outcomes: executors build their runs' digests with it, the replay executor and
// graders complete recorded digests with it (AgentRun.Digest).
//   - tool_call events become tool calls in transcript order, repeated calls kept (ToolCallOf);
//   - tools_used lists their names in call order, duplicates kept (waza's semantics);
//   - skill_invocation events become skill invocations;
//   - error events contribute their message (or content) to errors.
//
// The returned slices tools_used and errors are never nil, so they encode as [] rather than null.
func Digest(events []Event, usage *Usage, sessionID string) SessionDigest {
	d := SessionDigest{
		ToolsUsed: []string{},
		Errors:    []string{},
		Usage:     usage,
		SessionID: sessionID,
	}
	for i := range events {
		ev := &events[i]
		switch ev.Type {
		case EventToolCall:
			call := ToolCallOf(ev)
			d.ToolCalls = append(d.ToolCalls, call)
			d.ToolsUsed = append(d.ToolsUsed, call.Name)
		case EventSkillInvocation:
			d.SkillInvocations = append(d.SkillInvocations, SkillInvocation{Name: ev.Name, Path: ev.Path})
		case EventError:
			d.Errors = append(d.Errors, cmp.Or(ev.Message, ev.Content))
		}
	}
	d.ToolCallCount = len(d.ToolCalls)
	return d
}

// ToolCallOf is the tool call a tool_call event records, normalized (NormalizeToolCall). The
// outcome is the event's success: true succeeded, false failed, absent unknown. waza's
// Copilot-native field names (tool_call_id, tool_name, tool_result) are read when the normalized
// ones are empty.
func ToolCallOf(ev *Event) ToolCall {
	call := ToolCall{
		ID:         cmp.Or(ev.ID, ev.ToolCallID),
		Name:       cmp.Or(ev.Name, ev.ToolName),
		Arguments:  ev.Arguments,
		Result:     ev.Result,
		DurationMS: ev.DurationMS,
		Outcome:    ToolUnknown,
	}
	if call.Result == nil {
		call.Result = ev.ToolResult
	}
	if ev.Success != nil {
		call.Outcome = ToolFailed
		if *ev.Success {
			call.Outcome = ToolSucceeded
		}
	}
	NormalizeToolCall(&call)
	return call
}

// NormalizeToolCall fills what a recorded call may lack: its canonical kind, its unwrapped shell
// command and its outcome. A call recorded without an outcome (by waza, or by skillgate before
// outcomes existed) has only success, read as succeeded or failed. Success is then set from the
// outcome, so the two never disagree.
func NormalizeToolCall(c *ToolCall) {
	if c.Kind == "" {
		c.Kind = ToolKind(c.Name)
	}
	if c.Command == "" {
		c.Command = ShellCommand(c.Arguments)
	}
	if c.Outcome == "" {
		c.Outcome = ToolFailed
		if c.Success {
			c.Outcome = ToolSucceeded
		}
	}
	c.Success = c.Outcome == ToolSucceeded
}

// Digest is the run's session digest as recorded, with every field the recording left empty
// derived from the transcript (docs/agents.md#the-recorded-run) and every tool call normalized. Graders, reports
// and the replay executor read runs through it; the run itself is not changed.
func (r *AgentRun) Digest() SessionDigest {
	d := r.SessionDigest
	var derived *SessionDigest
	derive := func() *SessionDigest {
		if derived == nil {
			dd := Digest(r.Transcript, d.Usage, d.SessionID)
			derived = &dd
		}
		return derived
	}
	if len(d.ToolCalls) == 0 {
		d.ToolCalls = derive().ToolCalls
	} else {
		d.ToolCalls = append([]ToolCall(nil), d.ToolCalls...)
		for i := range d.ToolCalls {
			NormalizeToolCall(&d.ToolCalls[i])
		}
	}
	if len(d.ToolsUsed) == 0 {
		d.ToolsUsed = make([]string, 0, len(d.ToolCalls))
		for _, c := range d.ToolCalls {
			d.ToolsUsed = append(d.ToolsUsed, c.Name)
		}
	}
	if d.ToolCallCount == 0 {
		d.ToolCallCount = len(d.ToolCalls)
	}
	if len(d.SkillInvocations) == 0 {
		d.SkillInvocations = derive().SkillInvocations
	}
	if len(d.Errors) == 0 {
		d.Errors = derive().Errors
	}
	return d
}
