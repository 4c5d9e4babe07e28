package agent

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// qwenParser reads Qwen Code's `--output-format stream-json` lines (and the array of messages of
// `--output-format json`). The shape is Claude Code's — system, assistant and user lines holding
// content blocks, then a result line — with Qwen's own meanings:
//
//   - usage counts cached tokens inside input_tokens (Gemini-style), so input is taken as it is,
//     not added to cache_read_input_tokens as Claude's is;
//   - every assistant line is one model response with its own usage, summed while the run streams
//     so a run stopped or killed before its result line still has the tokens it spent; the
//     result's totals replace the sum;
//   - retries are `system` lines (subtype retry), kept as warnings;
//   - `stream_event` lines (goal state, partial messages) repeat what complete lines say.
//
// A skill is invoked through the `skill` tool with input.skill.
type qwenParser struct {
	b         *builder
	sawResult bool
	// messageUsage is the usage of each assistant response by message id, in stream order.
	messageUsage map[string]qwenUsage
	messageOrder []string
}

func newQwenParser() *qwenParser {
	return &qwenParser{b: newBuilder(), messageUsage: map[string]qwenUsage{}}
}

func (p *qwenParser) builder() *builder { return p.b }

type qwenLine struct {
	Type       string          `json:"type"`
	Subtype    string          `json:"subtype"`
	SessionID  string          `json:"session_id"`
	Message    json.RawMessage `json:"message"`
	IsError    bool            `json:"is_error"`
	Result     json.RawMessage `json:"result"`
	NumTurns   int             `json:"num_turns"`
	DurationMS int64           `json:"duration_ms"`
	Usage      *qwenUsage      `json:"usage"`
	Error      *struct {
		Message string `json:"message"`
	} `json:"error"`
	Data  *qwenRetry      `json:"data"`
	Event json.RawMessage `json:"event"`
}

type qwenMessage struct {
	ID      string          `json:"id"`
	Content json.RawMessage `json:"content"`
	Usage   *qwenUsage      `json:"usage"`
}

type qwenBlock struct {
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

type qwenUsage struct {
	InputTokens          int64 `json:"input_tokens"`
	OutputTokens         int64 `json:"output_tokens"`
	CacheReadInputTokens int64 `json:"cache_read_input_tokens"`
}

type qwenRetry struct {
	Attempt    int   `json:"attempt"`
	MaxRetries int   `json:"maxRetries"`
	DelayMS    int64 `json:"delayMs"`
}

// qwenKnownSystem are system subtypes that carry nothing for the normalized run.
var qwenKnownSystem = map[string]bool{"init": true, "session_start": true}

// qwenKnownStreamEvents are the stream_event types Qwen Code 0.24 prints: the goal state, and
// with --include-partial-messages the partial message events, which the complete lines repeat.
var qwenKnownStreamEvents = map[string]bool{
	"goal_state": true, "message_start": true, "content_block_start": true, "content_block_delta": true,
	"content_block_stop": true, "message_delta": true, "message_stop": true,
}

const qwenSkillTool = "skill"

func (p *qwenParser) line(raw []byte) {
	var l qwenLine
	if !p.b.decodeLine(raw, &l) {
		return
	}
	if p.b.sessionID == "" && l.SessionID != "" {
		p.b.sessionID = l.SessionID
	}
	switch l.Type {
	case "system":
		switch {
		case qwenKnownSystem[l.Subtype]:
		case l.Subtype == "retry":
			p.b.message(roleWarning, qwenRetryNotice(l.Data))
		default:
			p.b.raw(raw)
		}
	case "assistant":
		p.assistant(l.Message, raw)
	case "user":
		p.user(l.Message, raw)
	case "result":
		p.result(&l)
	case "stream_event":
		var ev struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(l.Event, &ev) != nil || !qwenKnownStreamEvents[ev.Type] {
			p.b.raw(raw)
		}
	default:
		p.b.raw(raw)
	}
}

// qwenRetryNotice says what a retry line tells: Qwen Code prints the error itself on stderr
// only, so the notice says which attempt is coming and when.
func qwenRetryNotice(r *qwenRetry) string {
	if r == nil || r.Attempt == 0 {
		return "Qwen Code is retrying the model request"
	}
	msg := fmt.Sprintf("Qwen Code is retrying the model request (attempt %d", r.Attempt)
	if r.MaxRetries > 0 {
		msg += fmt.Sprintf(" of %d", r.MaxRetries)
	}
	if r.DelayMS > 0 {
		msg += fmt.Sprintf(", in %.3gs", float64(r.DelayMS)/1000)
	}
	return msg + ")"
}

func qwenBlocks(content json.RawMessage) ([]qwenBlock, bool) {
	var blocks []qwenBlock
	if json.Unmarshal(content, &blocks) != nil {
		return nil, false
	}
	return blocks, true
}

func (p *qwenParser) assistant(rawMsg json.RawMessage, raw []byte) {
	var m qwenMessage
	if json.Unmarshal(rawMsg, &m) != nil {
		p.b.raw(raw)
		return
	}
	if m.Usage != nil && !p.sawResult {
		id := cmp.Or(m.ID, fmt.Sprintf("#%d", len(p.messageOrder)))
		if _, seen := p.messageUsage[id]; !seen {
			p.messageOrder = append(p.messageOrder, id)
		}
		p.messageUsage[id] = *m.Usage
		p.b.usage = p.streamedUsage()
	}
	blocks, ok := qwenBlocks(m.Content)
	if !ok {
		p.b.message(roleAssistant, textOf(m.Content))
		return
	}
	for _, bl := range blocks {
		switch bl.Type {
		case "text":
			p.b.message(roleAssistant, bl.Text)
		case "thinking":
			p.b.message(roleReasoning, bl.Thinking)
		case "tool_use":
			known := bl.ID != "" && p.b.call(bl.ID) != nil
			args := argumentsOf(bl.Input)
			p.b.toolCall(bl.ID, bl.Name, args)
			if !known && bl.Name == qwenSkillTool {
				p.b.skill(stringOf(args["skill"]), "")
			}
		default:
			blockRaw, _ := json.Marshal(bl)
			p.b.raw(blockRaw)
		}
	}
}

func (p *qwenParser) user(rawMsg json.RawMessage, raw []byte) {
	var m qwenMessage
	if json.Unmarshal(rawMsg, &m) != nil {
		p.b.raw(raw)
		return
	}
	blocks, ok := qwenBlocks(m.Content)
	if !ok {
		p.b.message(roleUser, textOf(m.Content))
		return
	}
	for _, bl := range blocks {
		switch bl.Type {
		case "tool_result":
			p.b.toolResult(bl.ToolUseID, valueOf(bl.Content), !bl.IsError)
		case "text":
			p.b.message(roleUser, bl.Text)
		}
	}
}

func (p *qwenParser) result(l *qwenLine) {
	p.sawResult = true
	if l.SessionID != "" {
		p.b.sessionID = l.SessionID
	}
	if l.DurationMS > 0 {
		p.b.durationMS = l.DurationMS
	}
	text := textOf(l.Result)
	if l.IsError || strings.HasPrefix(l.Subtype, "error") {
		msg := text
		if l.Error != nil && l.Error.Message != "" {
			msg = l.Error.Message
		}
		if msg == "" {
			msg = "run ended with " + cmp.Or(l.Subtype, "an error")
		}
		// Qwen Code also prints the error as the last assistant text ("[API Error: 500 …]"):
		// that message is the error, not something the agent said.
		if n := len(p.b.events); n > 0 && p.b.events[n-1].Type == results.EventMessage &&
			p.b.events[n-1].Role == roleAssistant && p.b.events[n-1].Content == msg {
			p.b.events = p.b.events[:n-1]
		}
		if p.b.lastError() != msg {
			p.b.errorEvent(msg)
		}
		reason := msg
		if l.Subtype != "" && l.Subtype != "success" && !strings.Contains(msg, l.Subtype) {
			reason += " (subtype " + l.Subtype + ")"
		}
		p.b.fail(reason)
	} else {
		if p.b.lastAssistantText() == "" {
			p.b.message(roleAssistant, text)
		}
		p.b.setFinal(text)
	}
	if l.Usage != nil {
		p.b.usage = qwenNormalized(*l.Usage, l.NumTurns)
	}
}

// streamedUsage sums the usage of the responses seen so far.
func (p *qwenParser) streamedUsage() *results.Usage {
	var sum qwenUsage
	for _, id := range p.messageOrder {
		u := p.messageUsage[id]
		sum.InputTokens += u.InputTokens
		sum.OutputTokens += u.OutputTokens
		sum.CacheReadInputTokens += u.CacheReadInputTokens
	}
	return qwenNormalized(sum, len(p.messageOrder))
}

// qwenNormalized is Qwen Code's usage in skillgate's terms. Its input_tokens is the whole prompt
// (Qwen Code 0.24 reports every provider's usage Gemini-style: Anthropic's uncached input, cache
// reads and cache writes are added up), so it is taken as it is; cache writes are not reported.
func qwenNormalized(u qwenUsage, turns int) *results.Usage {
	return &results.Usage{
		Turns:           turns,
		InputTokens:     u.InputTokens,
		OutputTokens:    u.OutputTokens,
		CacheReadTokens: u.CacheReadInputTokens,
	}
}

func (p *qwenParser) finish() (*results.AgentRun, error) {
	if !p.sawResult {
		p.b.fail("the stream ended before Qwen Code's result line (the run did not finish)")
	}
	return p.b.run()
}
