package results

import (
	"encoding/json"
	"reflect"
	"testing"
)

func boolPtr(b bool) *bool { return &b }

func TestDigest(t *testing.T) {
	usage := &Usage{InputTokens: 10, OutputTokens: 2}
	tests := []struct {
		name      string
		events    []Event
		usage     *Usage
		sessionID string
		want      SessionDigest
	}{
		{
			name: "empty transcript encodes empty lists",
			want: SessionDigest{ToolsUsed: []string{}, Errors: []string{}},
		},
		{
			name: "repeated calls kept in order with outcome",
			events: []Event{
				{Type: EventMessage, Role: "assistant", Content: "hi"},
				{Type: EventToolCall, ID: "a", Name: "bash", Arguments: map[string]any{"command": "ls"}, Result: "x", Success: boolPtr(true), DurationMS: 5},
				{Type: EventSkillInvocation, Name: "pdf", Path: ".claude/skills/pdf"},
				{Type: EventToolCall, ID: "b", Name: "read", Success: boolPtr(false)},
				{Type: EventToolCall, ID: "c", Name: "bash"},
				{Type: EventError, Message: "boom"},
				{Type: EventError, Content: "from content"},
				{Type: EventRaw, Raw: json.RawMessage(`{}`)},
			},
			usage:     usage,
			sessionID: "s1",
			want: SessionDigest{
				ToolCallCount: 3,
				ToolsUsed:     []string{"bash", "read", "bash"},
				ToolCalls: []ToolCall{
					{ID: "a", Name: "bash", Kind: "shell", Command: "ls", Arguments: map[string]any{"command": "ls"}, Result: "x", Success: true, Outcome: ToolSucceeded, DurationMS: 5},
					{ID: "b", Name: "read", Kind: "read", Outcome: ToolFailed},
					{ID: "c", Name: "bash", Kind: "shell", Outcome: ToolUnknown},
				},
				SkillInvocations: []SkillInvocation{{Name: "pdf", Path: ".claude/skills/pdf"}},
				Usage:            usage,
				SessionID:        "s1",
				Errors:           []string{"boom", "from content"},
			},
		},
		{
			name: "waza copilot-native field names",
			events: []Event{
				{Type: EventToolCall, ToolCallID: "t1", ToolName: "skill", ToolResult: "ok", Success: boolPtr(true)},
			},
			want: SessionDigest{
				ToolCallCount: 1,
				ToolsUsed:     []string{"skill"},
				ToolCalls:     []ToolCall{{ID: "t1", Name: "skill", Kind: "skill", Result: "ok", Success: true, Outcome: ToolSucceeded}},
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

func TestNormalizeToolCall(t *testing.T) {
	tests := []struct {
		name string
		in   ToolCall
		want ToolCall
	}{
		{"recorded success without outcome", ToolCall{Name: "Read", Success: true},
			ToolCall{Name: "Read", Kind: "read", Success: true, Outcome: ToolSucceeded}},
		{"recorded failure without outcome", ToolCall{Name: "Read"},
			ToolCall{Name: "Read", Kind: "read", Outcome: ToolFailed}},
		{"outcome wins over a contradicting success", ToolCall{Name: "x", Success: true, Outcome: ToolUnknown},
			ToolCall{Name: "x", Outcome: ToolUnknown}},
		{"kind and command kept when given", ToolCall{Name: "Bash", Kind: "custom", Command: "c", Arguments: map[string]any{"command": "bash -lc ls"}, Outcome: ToolSucceeded},
			ToolCall{Name: "Bash", Kind: "custom", Command: "c", Arguments: map[string]any{"command": "bash -lc ls"}, Success: true, Outcome: ToolSucceeded}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.in
			NormalizeToolCall(&got)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("NormalizeToolCall() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestAgentRunDigest(t *testing.T) {
	transcript := []Event{
		{Type: EventToolCall, ID: "a", Name: "Bash", Arguments: map[string]any{"command": "bash -lc ls"}, Success: boolPtr(true)},
		{Type: EventToolCall, ID: "b", Name: "Read"},
		{Type: EventSkillInvocation, Name: "pdf"},
		{Type: EventError, Message: "boom"},
	}
	tests := []struct {
		name string
		run  AgentRun
		want SessionDigest
	}{
		{
			name: "empty digest derived from the transcript",
			run:  AgentRun{Transcript: transcript},
			want: Digest(transcript, nil, ""),
		},
		{
			name: "recorded fields kept, recorded calls normalized",
			run: AgentRun{Transcript: transcript, SessionDigest: SessionDigest{
				ToolCallCount: 7,
				ToolCalls:     []ToolCall{{Name: "view", Success: true}},
				Errors:        []string{"recorded"},
			}},
			want: SessionDigest{
				ToolCallCount:    7,
				ToolsUsed:        []string{"view"},
				ToolCalls:        []ToolCall{{Name: "view", Kind: "read", Success: true, Outcome: ToolSucceeded}},
				SkillInvocations: []SkillInvocation{{Name: "pdf"}},
				Errors:           []string{"recorded"},
			},
		},
		{
			name: "nothing recorded",
			want: SessionDigest{ToolsUsed: []string{}, Errors: []string{}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before, _ := json.Marshal(tt.run)
			got := tt.run.Digest()
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("Digest() =\n%+v\nwant\n%+v", got, tt.want)
			}
			if after, _ := json.Marshal(tt.run); string(after) != string(before) {
				t.Errorf("Digest() changed the run:\n%s\n%s", before, after)
			}
		})
	}
}
