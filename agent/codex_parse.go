package agent

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// codexParser reads `codex exec --json` in its three shapes, line by line, so even a mixed file
// parses: the current thread.* / turn.* / item.* events (0.44+), the transitional ones whose
// items use item_type and assistant_message (0.42–0.43), and the legacy {"id","msg":{…}} events
// preceded by a config summary and a {"prompt"} line (before 0.42).
//
// Codex has no skill event: a skill counts as invoked when a command reads a SKILL.md inside a
// folder named after the skill (once per skill per run, since agents read long files in chunks).
type codexParser struct {
	b *builder
	// turnOpen is set between a turn's start and its completion or failure.
	turnOpen bool
	sawTurn  bool
	turns    int
	// Legacy shape: the last error and whether the task completed.
	legacyErr      string
	legacyComplete bool
	skillsSeen     map[string]bool
}

func newCodexParser() *codexParser {
	return &codexParser{b: newBuilder(), skillsSeen: map[string]bool{}}
}

type codexLine struct {
	Type     string          `json:"type"`
	ThreadID string          `json:"thread_id"`
	Item     *codexItem      `json:"item"`
	Usage    *codexUsage     `json:"usage"`
	Error    *codexError     `json:"error"`
	Message  string          `json:"message"`
	Msg      json.RawMessage `json:"msg"`
	Prompt   *string         `json:"prompt"`
	Model    string          `json:"model"`
}

type codexError struct {
	Message string `json:"message"`
}

type codexUsage struct {
	InputTokens           int64 `json:"input_tokens"`
	CachedInputTokens     int64 `json:"cached_input_tokens"`
	CacheWriteInputTokens int64 `json:"cache_write_input_tokens"`
	OutputTokens          int64 `json:"output_tokens"`
	ReasoningOutputTokens int64 `json:"reasoning_output_tokens"`
}

type codexItem struct {
	ID               string          `json:"id"`
	Type             string          `json:"type"`
	ItemType         string          `json:"item_type"`
	Text             string          `json:"text"`
	Message          string          `json:"message"`
	Command          json.RawMessage `json:"command"`
	AggregatedOutput string          `json:"aggregated_output"`
	ExitCode         *int            `json:"exit_code"`
	Status           string          `json:"status"`
	Changes          []codexChange   `json:"changes"`
	Server           string          `json:"server"`
	Tool             string          `json:"tool"`
	Arguments        json.RawMessage `json:"arguments"`
	Result           *struct {
		Content           json.RawMessage `json:"content"`
		StructuredContent json.RawMessage `json:"structured_content"`
	} `json:"result"`
	Error *codexError     `json:"error"`
	Query string          `json:"query"`
	Items json.RawMessage `json:"items"`
}

type codexChange struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
}

func (p *codexParser) line(raw []byte) {
	var l codexLine
	if !p.b.decodeLine(raw, &l) {
		return
	}
	switch {
	case len(l.Msg) > 0 && l.Msg[0] == '{':
		p.legacy(raw, l.Msg)
	case l.Type != "":
		p.current(raw, &l)
	case l.Prompt != nil:
		p.b.message(roleUser, *l.Prompt)
	case l.Model != "" || bytes.Contains(raw, []byte(`"sandbox"`)):
		// The legacy config summary: nothing for the run.
	default:
		p.b.raw(raw)
	}
}

func (p *codexParser) current(raw []byte, l *codexLine) {
	switch l.Type {
	case "thread.started":
		p.b.sessionID = l.ThreadID
	case "turn.started":
		p.turnOpen, p.sawTurn = true, true
		// Item ids count from zero again in a new turn.
		p.b.calls = map[string]int{}
	case "turn.completed":
		p.turnOpen = false
		p.turns++
		if l.Usage != nil {
			// Codex restates the thread's totals at each turn's end: keep the last.
			p.b.usage = &results.Usage{
				Turns:            p.turns,
				InputTokens:      l.Usage.InputTokens,
				OutputTokens:     l.Usage.OutputTokens,
				CacheReadTokens:  l.Usage.CachedInputTokens,
				CacheWriteTokens: l.Usage.CacheWriteInputTokens,
				ReasoningTokens:  l.Usage.ReasoningOutputTokens,
			}
		} else if p.b.usage != nil {
			p.b.usage.Turns = p.turns
		}
	case "turn.failed":
		p.turnOpen = false
		msg := "turn failed"
		if l.Error != nil && l.Error.Message != "" {
			msg = codexErrorText(l.Error.Message)
		}
		if p.b.lastError() != msg {
			p.b.errorEvent(msg)
		}
		p.b.fail("turn failed: " + msg)
	case "error":
		msg := codexErrorText(l.Message)
		if strings.HasPrefix(msg, "Reconnecting") {
			p.b.message(roleWarning, msg)
			return
		}
		p.b.errorEvent(msg)
	case "item.started", "item.updated", "item.completed":
		if l.Item == nil {
			p.b.raw(raw)
			return
		}
		p.item(raw, l.Item, l.Type == "item.completed")
	case "item.plan.delta", "request_user_input":
	default:
		p.b.raw(raw)
	}
}

func (p *codexParser) item(raw []byte, it *codexItem, completed bool) {
	kind := it.Type
	if kind == "" {
		kind = it.ItemType
	}
	switch kind {
	case "agent_message", "assistant_message":
		if completed {
			p.b.message(roleAssistant, it.Text)
		}
	case "reasoning", "plan":
		if completed {
			p.b.message(roleReasoning, it.Text)
		}
	case "error":
		// An error item is a warning (model metadata missing, features enabled…); fatal errors
		// come as top-level error and turn.failed events.
		if completed {
			p.b.message(roleWarning, cmp.Or(it.Message, it.Text))
		}
	case "command_execution":
		command := codexCommand(it.Command)
		p.call(it.ID, "command_execution", map[string]any{"command": command})
		p.detectSkill(command)
		if completed {
			ok := it.Status == "completed" && (it.ExitCode == nil || *it.ExitCode == 0)
			result := any(it.AggregatedOutput)
			if it.AggregatedOutput == "" && it.Status == "declined" {
				result = "declined"
			}
			p.b.toolResult(it.ID, result, ok)
		}
	case "file_change":
		changes := make([]any, 0, len(it.Changes))
		for _, c := range it.Changes {
			changes = append(changes, map[string]any{"path": c.Path, "kind": c.Kind})
		}
		p.call(it.ID, "file_change", map[string]any{"changes": changes})
		if completed {
			p.b.toolResult(it.ID, nil, it.Status == "completed")
		}
	case "mcp_tool_call":
		p.call(it.ID, mcpToolName(it.Server, it.Tool), argumentsOf(it.Arguments))
		if completed {
			var result any
			if it.Result != nil {
				result = valueOf(it.Result.Content)
				if result == nil || result == "" {
					result = valueOf(it.Result.StructuredContent)
				}
			}
			if it.Error != nil && it.Error.Message != "" && result == nil {
				result = it.Error.Message
			}
			p.b.toolResult(it.ID, result, it.Status == "completed" && (it.Error == nil || it.Error.Message == ""))
		}
	case "web_search":
		p.call(it.ID, "web_search", map[string]any{"query": it.Query})
		if completed {
			p.b.toolResult(it.ID, nil, it.Status == "" || it.Status == "completed")
		}
	case "todo_list":
		ev := p.call(it.ID, "todo_list", nil)
		var items any
		if json.Unmarshal(it.Items, &items) == nil && items != nil {
			// The list changes as the agent works: the call keeps its latest state.
			ev.Arguments = map[string]any{"items": items}
		}
		if completed {
			p.b.toolResult(it.ID, nil, true)
		}
	case "collab_tool_call":
		var fields map[string]any
		_ = json.Unmarshal(mustItemJSON(raw), &fields)
		for _, k := range []string{"id", "type", "tool", "status"} {
			delete(fields, k)
		}
		p.call(it.ID, cmp.Or(it.Tool, "collab_tool_call"), fields)
		if completed {
			p.b.toolResult(it.ID, nil, it.Status == "completed")
		}
	default:
		p.b.raw(raw)
	}
}

// call records a tool call once per item id (item.started, then item.completed).
func (p *codexParser) call(id, name string, args map[string]any) *results.Event {
	return p.b.toolCall(id, name, args)
}

func (p *codexParser) legacy(raw, msgJSON []byte) {
	var m struct {
		Type       string                                `json:"type"`
		Text       string                                `json:"text"`
		Message    string                                `json:"message"`
		CallID     string                                `json:"call_id"`
		Command    json.RawMessage                       `json:"command"`
		Cwd        string                                `json:"cwd"`
		Stdout     string                                `json:"stdout"`
		Stderr     string                                `json:"stderr"`
		ExitCode   *int                                  `json:"exit_code"`
		Success    *bool                                 `json:"success"`
		Changes    map[string]map[string]json.RawMessage `json:"changes"`
		Invocation *struct {
			Server    string          `json:"server"`
			Tool      string          `json:"tool"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"invocation"`
		Result *struct {
			Ok  json.RawMessage `json:"Ok"`
			Err json.RawMessage `json:"Err"`
		} `json:"result"`
		LastAgentMessage      *string `json:"last_agent_message"`
		SessionID             string  `json:"session_id"`
		InputTokens           int64   `json:"input_tokens"`
		CachedInputTokens     int64   `json:"cached_input_tokens"`
		OutputTokens          int64   `json:"output_tokens"`
		ReasoningOutputTokens int64   `json:"reasoning_output_tokens"`
	}
	if err := json.Unmarshal(msgJSON, &m); err != nil {
		p.b.raw(raw)
		return
	}
	switch m.Type {
	case "session_configured":
		p.b.sessionID = m.SessionID
	case "task_started":
		p.turnOpen, p.sawTurn = true, true
	case "agent_reasoning":
		p.b.message(roleReasoning, m.Text)
	case "agent_message":
		p.b.message(roleAssistant, m.Message)
	case "exec_command_begin":
		command := codexCommand(m.Command)
		args := map[string]any{"command": command}
		if m.Cwd != "" {
			args["cwd"] = m.Cwd
		}
		p.b.toolCall(m.CallID, "command_execution", args)
		p.detectSkill(command)
	case "exec_command_end":
		p.b.toolResult(m.CallID, m.Stdout+m.Stderr, m.ExitCode != nil && *m.ExitCode == 0)
	case "patch_apply_begin":
		paths := make([]string, 0, len(m.Changes))
		for path := range m.Changes {
			paths = append(paths, path)
		}
		sort.Strings(paths)
		changes := make([]any, 0, len(paths))
		for _, path := range paths {
			kind := ""
			for k := range m.Changes[path] {
				kind = k
			}
			changes = append(changes, map[string]any{"path": path, "kind": kind})
		}
		p.b.toolCall(m.CallID, "file_change", map[string]any{"changes": changes})
	case "patch_apply_end":
		p.b.toolResult(m.CallID, m.Stdout+m.Stderr, m.Success != nil && *m.Success)
	case "mcp_tool_call_begin":
		if m.Invocation != nil {
			p.b.toolCall(m.CallID, mcpToolName(m.Invocation.Server, m.Invocation.Tool), argumentsOf(m.Invocation.Arguments))
		}
	case "mcp_tool_call_end":
		var result any
		ok := false
		if m.Result != nil {
			if len(m.Result.Ok) > 0 {
				var okBody struct {
					Content json.RawMessage `json:"content"`
					IsError bool            `json:"isError"`
				}
				_ = json.Unmarshal(m.Result.Ok, &okBody)
				result, ok = valueOf(okBody.Content), !okBody.IsError
			} else {
				result = valueOf(m.Result.Err)
			}
		}
		p.b.toolResult(m.CallID, result, ok)
	case "token_count":
		p.b.usage = &results.Usage{
			InputTokens:     m.InputTokens,
			OutputTokens:    m.OutputTokens,
			CacheReadTokens: m.CachedInputTokens,
			ReasoningTokens: m.ReasoningOutputTokens,
		}
	case "error", "stream_error":
		p.b.errorEvent(m.Message)
		p.legacyErr = m.Message
	case "turn_aborted":
		p.b.errorEvent("turn aborted")
		p.legacyErr = "turn aborted"
	case "task_complete":
		p.turnOpen = false
		p.legacyComplete = true
		if m.LastAgentMessage != nil && *m.LastAgentMessage != "" {
			if *m.LastAgentMessage != p.b.lastAssistantText() {
				p.b.message(roleAssistant, *m.LastAgentMessage)
			}
			p.b.setFinal(*m.LastAgentMessage)
		}
	case "agent_reasoning_section_break", "agent_message_delta", "agent_reasoning_delta",
		"agent_reasoning_raw_content", "exec_command_output_delta", "background_event",
		"turn_diff", "plan_update", "get_history_entry_response", "exec_approval_request",
		"apply_patch_approval_request", "shutdown_complete":
	default:
		p.b.raw(raw)
	}
}

func (p *codexParser) finish() (*results.AgentRun, error) {
	switch {
	case p.legacyErr != "" && !p.legacyComplete:
		p.b.fail(p.legacyErr)
	case p.turnOpen:
		p.b.fail("the stream ended mid-turn (no turn.completed or task_complete)")
	case !p.sawTurn && len(p.b.failures) == 0:
		p.b.fail("the stream ended before any turn started")
	}
	return p.b.run()
}

// skillReadPattern finds `<dir>/<skill>/SKILL.md` in a command line (either separator).
var skillReadPattern = regexp.MustCompile(`((?:[^\s'"=]*[/\\])?([A-Za-z0-9][A-Za-z0-9._:-]*))[/\\]SKILL\.md\b`)

func (p *codexParser) detectSkill(command string) {
	for _, m := range skillReadPattern.FindAllStringSubmatch(command, -1) {
		name := m[2]
		if p.skillsSeen[name] {
			continue
		}
		p.skillsSeen[name] = true
		p.b.skill(name, m[1])
	}
}

// codexCommand returns a command as one string: current Codex sends the shell line, legacy
// Codex an argv array, joined here with shell quoting.
func codexCommand(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '[' {
		var argv []string
		if json.Unmarshal(raw, &argv) == nil {
			return shellJoin(argv)
		}
	}
	return textOf(raw)
}

// codexErrorText makes an error message readable: Codex passes API errors through as a JSON
// document inside the message string.
func codexErrorText(msg string) string {
	trimmed := strings.TrimSpace(msg)
	if !strings.HasPrefix(trimmed, "{") {
		return msg
	}
	var doc struct {
		Status int `json:"status"`
		Error  struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal([]byte(trimmed), &doc) != nil || doc.Error.Message == "" {
		return msg
	}
	var detail []string
	if doc.Status != 0 {
		detail = append(detail, fmt.Sprintf("HTTP %d", doc.Status))
	}
	if doc.Error.Type != "" {
		detail = append(detail, doc.Error.Type)
	}
	if len(detail) == 0 {
		return doc.Error.Message
	}
	return doc.Error.Message + " (" + strings.Join(detail, ", ") + ")"
}

func mcpToolName(server, tool string) string {
	if server == "" {
		return tool
	}
	return "mcp__" + server + "__" + tool
}

// mustItemJSON extracts the raw item object of an item.* line.
func mustItemJSON(raw []byte) []byte {
	var l struct {
		Item json.RawMessage `json:"item"`
	}
	_ = json.Unmarshal(raw, &l)
	return l.Item
}

// shellJoin quotes argv for display the way a POSIX shell would read it back.
func shellJoin(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		parts[i] = shellQuote(a)
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,+@%", r)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
