package agent

import (
	"cmp"

	"github.com/skillgate/skillgate/results"
)

// Digest derives a run's SessionDigest from its normalized transcript, so every executor (and the
// replay executor reading recorded transcripts) summarises runs the same way:
//   - tool_call events become tool calls in transcript order, repeated calls kept, each with
//     its canonical kind and, for shell calls, the command unwrapped (toolnames.go);
//   - tools_used lists their names in call order, duplicates kept (waza's semantics);
//   - skill_invocation events become skill invocations;
//   - error events contribute their message (or content) to errors.
//
// A tool call whose outcome was never recorded (Success nil: the stream ended before its result)
// counts as not successful. waza's Copilot-native field names (tool_call_id, tool_name,
// tool_result) are used when the normalized ones are empty. The returned slices tools_used and
// errors are never nil, so they encode as [] rather than null.
func Digest(events []results.Event, usage *results.Usage, sessionID string) results.SessionDigest {
	d := results.SessionDigest{
		ToolsUsed: []string{},
		Errors:    []string{},
		Usage:     usage,
		SessionID: sessionID,
	}
	for i := range events {
		ev := &events[i]
		switch ev.Type {
		case results.EventToolCall:
			call := results.ToolCall{
				ID:         cmp.Or(ev.ID, ev.ToolCallID),
				Name:       cmp.Or(ev.Name, ev.ToolName),
				Arguments:  ev.Arguments,
				Result:     ev.Result,
				Success:    ev.Success != nil && *ev.Success,
				DurationMS: ev.DurationMS,
			}
			if call.Result == nil {
				call.Result = ev.ToolResult
			}
			normalizeCall(&call)
			d.ToolCalls = append(d.ToolCalls, call)
			d.ToolsUsed = append(d.ToolsUsed, call.Name)
		case results.EventSkillInvocation:
			d.SkillInvocations = append(d.SkillInvocations, results.SkillInvocation{
				Name: ev.Name,
				Path: ev.Path,
			})
		case results.EventError:
			d.Errors = append(d.Errors, cmp.Or(ev.Message, ev.Content))
		}
	}
	d.ToolCallCount = len(d.ToolCalls)
	return d
}
