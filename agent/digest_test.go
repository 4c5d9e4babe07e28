package agent

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/skillgate/skillgate/results"
)

func TestDigest(t *testing.T) {
	usage := &results.Usage{InputTokens: 10, OutputTokens: 2}
	tests := []struct {
		name      string
		events    []results.Event
		usage     *results.Usage
		sessionID string
		want      results.SessionDigest
	}{
		{
			name: "empty transcript encodes empty lists",
			want: results.SessionDigest{ToolsUsed: []string{}, Errors: []string{}},
		},
		{
			name: "repeated calls kept in order with outcome",
			events: []results.Event{
				{Type: results.EventMessage, Role: "assistant", Content: "hi"},
				{Type: results.EventToolCall, ID: "a", Name: "bash", Arguments: map[string]any{"command": "ls"}, Result: "x", Success: boolPtr(true), DurationMS: 5},
				{Type: results.EventSkillInvocation, Name: "pdf", Path: ".claude/skills/pdf"},
				{Type: results.EventToolCall, ID: "b", Name: "read", Success: boolPtr(false)},
				{Type: results.EventToolCall, ID: "c", Name: "bash"},
				{Type: results.EventError, Message: "boom"},
				{Type: results.EventError, Content: "from content"},
				{Type: results.EventRaw, Raw: json.RawMessage(`{}`)},
			},
			usage:     usage,
			sessionID: "s1",
			want: results.SessionDigest{
				ToolCallCount: 3,
				ToolsUsed:     []string{"bash", "read", "bash"},
				ToolCalls: []results.ToolCall{
					{ID: "a", Name: "bash", Kind: "shell", Command: "ls", Arguments: map[string]any{"command": "ls"}, Result: "x", Success: true, DurationMS: 5},
					{ID: "b", Name: "read", Kind: "read"},
					{ID: "c", Name: "bash", Kind: "shell"},
				},
				SkillInvocations: []results.SkillInvocation{{Name: "pdf", Path: ".claude/skills/pdf"}},
				Usage:            usage,
				SessionID:        "s1",
				Errors:           []string{"boom", "from content"},
			},
		},
		{
			name: "waza copilot-native field names",
			events: []results.Event{
				{Type: results.EventToolCall, ToolCallID: "t1", ToolName: "skill", ToolResult: "ok", Success: boolPtr(true)},
			},
			want: results.SessionDigest{
				ToolCallCount: 1,
				ToolsUsed:     []string{"skill"},
				ToolCalls:     []results.ToolCall{{ID: "t1", Name: "skill", Kind: "skill", Result: "ok", Success: true}},
				Errors:        []string{},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Digest(tt.events, tt.usage, tt.sessionID)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Digest() =\n%+v\nwant\n%+v", got, tt.want)
			}
		})
	}
}
