package agent

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// claudeParser reads Claude Code's `--output-format stream-json --verbose` lines (and the single
// result object, or array of messages, of `--output-format json`).
//
// One API response arrives as several assistant lines sharing message.id, one content block
// each; blocks are taken once each, tool calls deduplicated by id. Usage and cost come from the
// result line: the sum over modelUsage (result.usage can cover only the last API call), and
// total_cost_usd (cost_usd on old CLIs). Failure is decided by is_error and error subtypes, not
// by subtype "success" alone.
type claudeParser struct {
	b         *builder
	sawResult bool
	// snapshots keeps the last usage seen per message id, only used when no result line came.
	snapshots     map[string]claudeUsage
	snapshotOrder []string
	// Partial-message text (--include-partial-messages) of the message being streamed; it is
	// dropped when the complete assistant line arrives and kept if it never does.
	partialID string
	partial   strings.Builder
}

func newClaudeParser() *claudeParser {
	return &claudeParser{b: newBuilder(), snapshots: map[string]claudeUsage{}}
}

type claudeLine struct {
	Type        string         `json:"type"`
	Subtype     string         `json:"subtype"`
	SessionID   string         `json:"session_id"`
	Message     *claudeMessage `json:"message"`
	IsSynthetic bool           `json:"isSynthetic"`

	IsError        *bool                       `json:"is_error"`
	Result         json.RawMessage             `json:"result"`
	NumTurns       int                         `json:"num_turns"`
	DurationMS     int64                       `json:"duration_ms"`
	TotalCostUSD   *float64                    `json:"total_cost_usd"`
	CostUSD        *float64                    `json:"cost_usd"`
	Usage          *claudeUsage                `json:"usage"`
	ModelUsage     map[string]claudeModelUsage `json:"modelUsage"`
	TerminalReason string                      `json:"terminal_reason"`
	Errors         []string                    `json:"errors"`

	Event json.RawMessage `json:"event"`
}

type claudeMessage struct {
	ID      string          `json:"id"`
	Content json.RawMessage `json:"content"`
	Usage   *claudeUsage    `json:"usage"`
}

type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type claudeUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

type claudeModelUsage struct {
	InputTokens              int64   `json:"inputTokens"`
	OutputTokens             int64   `json:"outputTokens"`
	CacheReadInputTokens     int64   `json:"cacheReadInputTokens"`
	CacheCreationInputTokens int64   `json:"cacheCreationInputTokens"`
	CostUSD                  float64 `json:"costUSD"`
}

type claudeStreamEvent struct {
	Type    string `json:"type"`
	Message struct {
		ID string `json:"id"`
	} `json:"message"`
	Delta struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"delta"`
}

// claudeKnownSystem are system subtypes that carry nothing for the normalized run.
var claudeKnownSystem = map[string]bool{
	"init": true, "hook_started": true, "hook_response": true, "hook_progress": true,
	"thinking_tokens": true, "status": true, "api_retry": true, "task_started": true,
	"task_progress": true, "task_updated": true, "task_notification": true,
	"post_turn_summary": true, "compact_boundary": true, "commands_changed": true,
}

// claudeKnownIgnored are line types that carry nothing for the normalized run.
var claudeKnownIgnored = map[string]bool{
	"rate_limit_event": true, "control_request": true, "control_response": true,
	"control_cancel_request": true, "keep_alive": true,
}

const claudeSkillBaseDir = "Base directory for this skill: "

func (p *claudeParser) line(raw []byte) {
	if !isJSONObject(raw) {
		p.b.raw(raw)
		return
	}
	var l claudeLine
	if err := json.Unmarshal(raw, &l); err != nil || l.Type == "" {
		p.b.raw(raw)
		return
	}
	if l.SessionID != "" && p.b.sessionID == "" {
		p.b.sessionID = l.SessionID
	}
	switch l.Type {
	case "system":
		if !claudeKnownSystem[l.Subtype] {
			p.b.raw(raw)
		}
	case "assistant":
		p.assistant(&l)
	case "user":
		p.user(&l)
	case "result":
		p.result(&l)
	case "stream_event":
		p.streamEvent(l.Event)
	default:
		if !claudeKnownIgnored[l.Type] {
			p.b.raw(raw)
		}
	}
}

func (p *claudeParser) assistant(l *claudeLine) {
	if l.Message == nil {
		return
	}
	m := l.Message
	if m.Usage != nil && m.ID != "" {
		if _, seen := p.snapshots[m.ID]; !seen {
			p.snapshotOrder = append(p.snapshotOrder, m.ID)
		}
		p.snapshots[m.ID] = *m.Usage
	}
	blocks, ok := claudeBlocks(m.Content)
	if !ok {
		p.b.message(roleAssistant, textOf(m.Content))
		return
	}
	for i := range blocks {
		bl := &blocks[i]
		switch bl.Type {
		case "text":
			if m.ID != "" && m.ID == p.partialID {
				p.partial.Reset()
			}
			p.b.message(roleAssistant, bl.Text)
		case "thinking":
			p.b.message(roleReasoning, bl.Thinking)
		case "redacted_thinking":
		case "tool_use", "server_tool_use", "mcp_tool_use":
			known := bl.ID != "" && p.b.call(bl.ID) != nil
			args := argumentsOf(bl.Input)
			p.b.toolCall(bl.ID, bl.Name, args)
			if !known && bl.Name == "Skill" {
				p.b.skill(stringOf(args["skill"]), "")
			}
		default:
			if bl.ToolUseID != "" { // server tool results (web_search_tool_result…)
				p.b.toolResult(bl.ToolUseID, valueOf(bl.Content), !bl.IsError)
				continue
			}
			blockJSON, _ := json.Marshal(bl)
			p.b.raw(blockJSON)
		}
	}
}

func (p *claudeParser) user(l *claudeLine) {
	if l.Message == nil {
		return
	}
	blocks, ok := claudeBlocks(l.Message.Content)
	if !ok {
		p.userText(textOf(l.Message.Content), l.IsSynthetic)
		return
	}
	for i := range blocks {
		bl := &blocks[i]
		switch bl.Type {
		case "tool_result":
			p.b.toolResult(bl.ToolUseID, valueOf(bl.Content), !bl.IsError)
		case "text":
			p.userText(bl.Text, l.IsSynthetic)
		}
	}
}

// userText records text on a user line. Text the CLI injects itself (isSynthetic) is not user
// input: the body of a skill just launched only contributes the skill's folder to its invocation.
func (p *claudeParser) userText(text string, synthetic bool) {
	if !synthetic {
		p.b.message(roleUser, text)
		return
	}
	if dir, ok := strings.CutPrefix(text, claudeSkillBaseDir); ok {
		dir, _, _ = strings.Cut(dir, "\n")
		if sk := p.b.lastSkill(""); sk != nil && sk.Path == "" {
			sk.Path = strings.TrimSpace(dir)
		}
		return
	}
	p.b.message(roleSystem, text)
}

func (p *claudeParser) result(l *claudeLine) {
	p.sawResult = true
	if l.SessionID != "" {
		p.b.sessionID = l.SessionID
	}
	if l.DurationMS > 0 {
		p.b.durationMS = l.DurationMS
	}
	text := textOf(l.Result)
	failed := l.IsError != nil && *l.IsError
	if strings.HasPrefix(l.Subtype, "error") {
		failed = true
	}
	if failed {
		msg := text
		if msg == "" && len(l.Errors) > 0 {
			msg = strings.Join(l.Errors, "; ")
		}
		if msg == "" {
			msg = "run ended with " + l.Subtype
		}
		p.b.errorEvent(msg)
		reason := msg
		var detail []string
		if l.Subtype != "" && l.Subtype != "success" && !strings.Contains(msg, l.Subtype) {
			detail = append(detail, "subtype "+l.Subtype)
		}
		if l.TerminalReason != "" && l.TerminalReason != "completed" {
			detail = append(detail, "terminal_reason "+l.TerminalReason)
		}
		if len(detail) > 0 {
			reason += " (" + strings.Join(detail, ", ") + ")"
		}
		p.b.fail(reason)
	} else {
		if p.b.lastAssistantText() == "" {
			// `--output-format json` prints only the result: its text is the one message.
			p.b.message(roleAssistant, text)
		}
		p.b.setFinal(text)
	}
	p.b.usage = claudeResultUsage(l)
}

// claudeResultUsage reads the run's usage from a result line. input_tokens counts every prompt
// token, cached or not, so agents are comparable: Claude reports uncached input separately from
// cache reads and cache writes, and the three are added up.
func claudeResultUsage(l *claudeLine) *results.Usage {
	u := &results.Usage{Turns: l.NumTurns}
	if len(l.ModelUsage) > 0 {
		u.ModelMetrics = map[string]*results.ModelUsage{}
		for model, mu := range l.ModelUsage {
			in := mu.InputTokens + mu.CacheReadInputTokens + mu.CacheCreationInputTokens
			u.ModelMetrics[model] = &results.ModelUsage{
				InputTokens:      in,
				OutputTokens:     mu.OutputTokens,
				CacheReadTokens:  mu.CacheReadInputTokens,
				CacheWriteTokens: mu.CacheCreationInputTokens,
				CostUSD:          mu.CostUSD,
			}
			u.InputTokens += in
			u.OutputTokens += mu.OutputTokens
			u.CacheReadTokens += mu.CacheReadInputTokens
			u.CacheWriteTokens += mu.CacheCreationInputTokens
		}
	} else if l.Usage != nil {
		u.InputTokens = l.Usage.InputTokens + l.Usage.CacheReadInputTokens + l.Usage.CacheCreationInputTokens
		u.OutputTokens = l.Usage.OutputTokens
		u.CacheReadTokens = l.Usage.CacheReadInputTokens
		u.CacheWriteTokens = l.Usage.CacheCreationInputTokens
	} else if l.TotalCostUSD == nil && l.CostUSD == nil {
		return nil
	}
	switch {
	case l.TotalCostUSD != nil:
		u.CostUSD = *l.TotalCostUSD
	case l.CostUSD != nil:
		u.CostUSD = *l.CostUSD
	}
	return u
}

func (p *claudeParser) streamEvent(raw json.RawMessage) {
	var ev claudeStreamEvent
	if json.Unmarshal(raw, &ev) != nil {
		return
	}
	switch ev.Type {
	case "message_start":
		p.flushPartial()
		p.partialID = ev.Message.ID
	case "content_block_delta":
		if ev.Delta.Type == "text_delta" {
			p.partial.WriteString(ev.Delta.Text)
		}
	}
}

// flushPartial keeps streamed text whose complete assistant line never came (the process died
// mid-message), so graders still see what the agent was saying.
func (p *claudeParser) flushPartial() {
	if p.partial.Len() > 0 {
		p.b.message(roleAssistant, p.partial.String())
	}
	p.partial.Reset()
	p.partialID = ""
}

func (p *claudeParser) finish() (*results.AgentRun, error) {
	p.flushPartial()
	if !p.sawResult {
		p.b.fail("the stream ended before Claude Code's result line (the run did not finish)")
		if len(p.snapshotOrder) > 0 {
			// Per-message usage is a streaming snapshot (output tokens undercounted), but it is
			// all there is when the process died before its result.
			u := &results.Usage{}
			for _, id := range p.snapshotOrder {
				s := p.snapshots[id]
				u.InputTokens += s.InputTokens + s.CacheReadInputTokens + s.CacheCreationInputTokens
				u.OutputTokens += s.OutputTokens
				u.CacheReadTokens += s.CacheReadInputTokens
				u.CacheWriteTokens += s.CacheCreationInputTokens
			}
			p.b.usage = u
		}
	}
	return p.b.run()
}

// claudeBlocks decodes a content array; ok is false when the content is not an array.
func claudeBlocks(raw json.RawMessage) ([]claudeBlock, bool) {
	if trimmed := bytes.TrimSpace(raw); len(trimmed) == 0 || trimmed[0] != '[' {
		return nil, false
	}
	var blocks []claudeBlock
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, false
	}
	return blocks, true
}
