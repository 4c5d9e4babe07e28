package results

import (
	"cmp"
	"encoding/json"
	"strings"
)

// NormalizeTranscript converts waza's Copilot-native events (assistant.message,
// tool.execution_start / tool.execution_complete, skill.invoked, session.error) into normalized
// events (FORMAT.md §7.1). Normalized events pass through unchanged; other native events are kept
// as raw events so nothing is lost.
func NormalizeTranscript(events []Event) []Event {
	native := false
	for _, e := range events {
		if strings.Contains(e.Type, ".") {
			native = true
			break
		}
	}
	if !native {
		return events
	}
	out := make([]Event, 0, len(events))
	open := map[string]int{} // tool call id → index in out
	for _, e := range events {
		switch e.Type {
		case "assistant.message", "user.message", "system.message":
			text := e.Content
			if text == "" {
				text = e.Message
			}
			if text == "" {
				continue // tool-request-only assistant messages carry no text
			}
			out = append(out, Event{Type: EventMessage, Role: strings.TrimSuffix(e.Type, ".message"), Content: text})
		case "tool.execution_start":
			id := e.ToolCallID
			if id == "" {
				id = e.ID
			}
			name := e.ToolName
			if name == "" {
				name = e.Name
			}
			out = append(out, Event{Type: EventToolCall, ID: id, Name: name, Arguments: e.Arguments})
			if id != "" {
				open[id] = len(out) - 1
			}
		case "tool.execution_complete", "tool.execution_partial_result":
			idx, ok := open[e.ToolCallID]
			if !ok {
				continue
			}
			call := &out[idx]
			if e.Success != nil {
				ok := *e.Success
				call.Success = &ok
			}
			if e.ToolResult != nil {
				call.Result = e.ToolResult
			}
		case "skill.invoked":
			name := cmp.Or(e.Name, e.ToolName, argString(e.Arguments, "name"), argString(e.Arguments, "skill"), e.Content)
			out = append(out, Event{Type: EventSkillInvocation, Name: name, Path: cmp.Or(e.Path, argString(e.Arguments, "path"))})
		case "session.error":
			out = append(out, Event{Type: EventError, Message: cmp.Or(e.Message, e.Content)})
		case EventMessage, EventToolCall, EventSkillInvocation, EventError, EventRaw:
			out = append(out, e)
		default:
			raw := e.Raw
			if raw == nil {
				raw, _ = json.Marshal(e)
			}
			out = append(out, Event{Type: EventRaw, Name: e.Type, Content: e.Content, Raw: raw})
		}
	}
	return out
}

func argString(args map[string]any, key string) string {
	s, _ := args[key].(string)
	return s
}
