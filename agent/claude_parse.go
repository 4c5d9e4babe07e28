package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

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
	snapshots     map[string][]byte
	snapshotOrder []string
	// Partial-message text (--include-partial-messages) of the message being streamed; it is
	// dropped when the complete assistant line arrives and kept if it never does.
	partialID string
	partial   strings.Builder
}

func newClaudeParser() *claudeParser {
	return &claudeParser{b: newBuilder(), snapshots: map[string][]byte{}}
}

// claudeLine holds the members of one line the parser reads, as raw JSON spans of the line
// (valid until the next line): the line is framed by the scanner and only these are decoded.
type claudeLine struct {
	Type, Subtype, SessionID, Message, IsSynthetic []byte

	IsError, Result, NumTurns, DurationMS, TotalCostUSD, CostUSD []byte
	Usage, ModelUsage, TerminalReason, Errors                    []byte

	// system/api_retry
	Attempt, MaxRetries, RetryDelayMS, ErrorStatus, Error []byte

	Event []byte
}

func (l *claudeLine) set(key, value []byte) {
	switch string(key) {
	case "type":
		l.Type = value
	case "subtype":
		l.Subtype = value
	case "session_id":
		l.SessionID = value
	case "message":
		l.Message = value
	case "isSynthetic":
		l.IsSynthetic = value
	case "is_error":
		l.IsError = value
	case "result":
		l.Result = value
	case "num_turns":
		l.NumTurns = value
	case "duration_ms":
		l.DurationMS = value
	case "total_cost_usd":
		l.TotalCostUSD = value
	case "cost_usd":
		l.CostUSD = value
	case "usage":
		l.Usage = value
	case "modelUsage":
		l.ModelUsage = value
	case "terminal_reason":
		l.TerminalReason = value
	case "errors":
		l.Errors = value
	case "attempt":
		l.Attempt = value
	case "max_retries":
		l.MaxRetries = value
	case "retry_delay_ms":
		l.RetryDelayMS = value
	case "error_status":
		l.ErrorStatus = value
	case "error":
		l.Error = value
	case "event":
		l.Event = value
	}
}

// claudeMessage is the `message` of an assistant or user line.
type claudeMessage struct {
	ID      string
	Content []byte // raw
	Usage   []byte // raw
}

func scanClaudeMessage(raw []byte) (claudeMessage, bool) {
	var m claudeMessage
	ok := eachMember(raw, func(k, v []byte) {
		switch string(k) {
		case "id":
			m.ID = stringField(v)
		case "content":
			m.Content = v
		case "usage":
			m.Usage = v
		}
	})
	return m, ok
}

// claudeBlock is one content block; strings are decoded only for the block's type.
type claudeBlock struct {
	raw                                        []byte
	Type                                       string
	text, thinking, id, name, toolUseID, isErr []byte
	Input, Content                             []byte
}

func (b *claudeBlock) Text() string      { return stringField(b.text) }
func (b *claudeBlock) Thinking() string  { return stringField(b.thinking) }
func (b *claudeBlock) ID() string        { return stringField(b.id) }
func (b *claudeBlock) Name() string      { return stringField(b.name) }
func (b *claudeBlock) ToolUseID() string { return stringField(b.toolUseID) }
func (b *claudeBlock) IsError() bool     { return boolField(b.isErr) }

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

// claudeKnownSystem are system subtypes that carry nothing for the normalized run.
var claudeKnownSystem = map[string]bool{
	"init": true, "hook_started": true, "hook_response": true, "hook_progress": true,
	"thinking_tokens": true, "status": true, "task_started": true,
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
	var l claudeLine
	if !eachMember(raw, l.set) || l.Type == nil {
		p.b.raw(raw)
		return
	}
	typ, ok := decodeString(l.Type)
	if !ok || typ == "" {
		p.b.raw(raw)
		return
	}
	if p.b.sessionID == "" && l.SessionID != nil {
		p.b.sessionID = stringField(l.SessionID)
	}
	switch typ {
	case "system":
		switch subtype := stringField(l.Subtype); {
		case subtype == "api_retry":
			p.apiRetry(&l)
		case !claudeKnownSystem[subtype]:
			p.b.raw(raw)
		}
	case "assistant":
		p.assistant(&l, raw)
	case "user":
		p.user(&l, raw)
	case "result":
		p.result(&l)
	case "stream_event":
		p.streamEvent(l.Event)
	default:
		if !claudeKnownIgnored[typ] {
			p.b.raw(raw)
		}
	}
}

func (p *claudeParser) assistant(l *claudeLine, raw []byte) {
	m, ok := scanClaudeMessage(l.Message)
	if !ok {
		p.b.raw(raw) // no message to read: keep the line
		return
	}
	if len(m.Usage) > 0 && m.ID != "" {
		if _, seen := p.snapshots[m.ID]; !seen {
			p.snapshotOrder = append(p.snapshotOrder, m.ID)
		}
		p.snapshots[m.ID] = append([]byte(nil), m.Usage...)
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
			p.b.message(roleAssistant, bl.Text())
		case "thinking":
			p.b.message(roleReasoning, bl.Thinking())
		case "redacted_thinking":
		case "tool_use", "server_tool_use", "mcp_tool_use":
			id, name := bl.ID(), bl.Name()
			known := id != "" && p.b.call(id) != nil
			args := argumentsOf(bl.Input)
			p.b.toolCall(id, name, args)
			if !known && name == "Skill" {
				p.b.skill(stringOf(args["skill"]), "")
			}
		default:
			if id := bl.ToolUseID(); id != "" { // server tool results (web_search_tool_result…)
				p.b.toolResult(id, valueOf(bl.Content), !bl.IsError())
				continue
			}
			p.b.raw(bl.raw)
		}
	}
}

// apiRetry keeps a failed API call Claude Code retries by itself (system/api_retry: HTTP 429,
// 500, 529…) as a warning, with its status: not a failure, but what a run that times out was
// waiting for.
func (p *claudeParser) apiRetry(l *claudeLine) {
	status := ""
	if n := intField(l.ErrorStatus); n > 0 {
		status = strconv.FormatInt(n, 10)
	}
	note := "API error"
	if status != "" {
		note += " " + status
	}
	if e := textOf(l.Error); e != "" {
		note += " (" + e + ")"
	}
	note += fmt.Sprintf(", retry %d", intField(l.Attempt))
	if limit := intField(l.MaxRetries); limit > 0 {
		note += fmt.Sprintf(" of %d", limit)
	}
	if d := intField(l.RetryDelayMS); d > 0 {
		note += " in " + (time.Duration(d) * time.Millisecond).Round(100*time.Millisecond).String()
	}
	p.b.apiRetried(status, note)
}

func (p *claudeParser) user(l *claudeLine, raw []byte) {
	m, ok := scanClaudeMessage(l.Message)
	if !ok {
		p.b.raw(raw)
		return
	}
	synthetic := boolField(l.IsSynthetic)
	blocks, ok := claudeBlocks(m.Content)
	if !ok {
		p.userText(textOf(m.Content), synthetic)
		return
	}
	for i := range blocks {
		bl := &blocks[i]
		switch bl.Type {
		case "tool_result":
			p.b.toolResult(bl.ToolUseID(), valueOf(bl.Content), !bl.IsError())
		case "text":
			p.userText(bl.Text(), synthetic)
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
	if id := stringField(l.SessionID); id != "" {
		p.b.sessionID = id
	}
	if d := intField(l.DurationMS); d > 0 {
		p.b.durationMS = d
	}
	text := textOf(l.Result)
	subtype := stringField(l.Subtype)
	failed := boolField(l.IsError) || strings.HasPrefix(subtype, "error")
	if failed {
		var errs []string
		_ = json.Unmarshal(l.Errors, &errs)
		msg := text
		if msg == "" && len(errs) > 0 {
			msg = strings.Join(errs, "; ")
		}
		if msg == "" {
			msg = "run ended with " + subtype
		}
		p.b.errorEvent(msg)
		reason := msg
		var detail []string
		if subtype != "" && subtype != "success" && !strings.Contains(msg, subtype) {
			detail = append(detail, "subtype "+subtype)
		}
		if tr := stringField(l.TerminalReason); tr != "" && tr != "completed" {
			detail = append(detail, "terminal_reason "+tr)
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
	u := &results.Usage{Turns: int(intField(l.NumTurns))}
	var models map[string]claudeModelUsage
	var usage *claudeUsage
	_ = json.Unmarshal(l.ModelUsage, &models)
	_ = json.Unmarshal(l.Usage, &usage)
	totalCost, hasTotal := floatField(l.TotalCostUSD)
	cost, hasCost := floatField(l.CostUSD)
	switch {
	case len(models) > 0:
		u.ModelMetrics = map[string]*results.ModelUsage{}
		for model, mu := range models {
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
	case usage != nil:
		u.InputTokens = usage.InputTokens + usage.CacheReadInputTokens + usage.CacheCreationInputTokens
		u.OutputTokens = usage.OutputTokens
		u.CacheReadTokens = usage.CacheReadInputTokens
		u.CacheWriteTokens = usage.CacheCreationInputTokens
	case !hasTotal && !hasCost:
		return nil
	}
	switch {
	case hasTotal:
		u.CostUSD = totalCost
	case hasCost:
		u.CostUSD = cost
	}
	return u
}

func (p *claudeParser) streamEvent(raw []byte) {
	var typ, message, delta []byte
	if !eachMember(raw, func(k, v []byte) {
		switch string(k) {
		case "type":
			typ = v
		case "message":
			message = v
		case "delta":
			delta = v
		}
	}) {
		return
	}
	switch stringField(typ) {
	case "message_start":
		p.flushPartial()
		m, _ := scanClaudeMessage(message)
		p.partialID = m.ID
	case "content_block_delta":
		var dtype, text []byte
		eachMember(delta, func(k, v []byte) {
			switch string(k) {
			case "type":
				dtype = v
			case "text":
				text = v
			}
		})
		if stringField(dtype) == "text_delta" {
			p.partial.WriteString(stringField(text))
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

// afterStop implements interruptible: Claude Code, interrupted, prints a result line with the
// whole session's usage.
func (p *claudeParser) afterStop() usageReporter { return newClaudeParser() }

// reportedUsage is the usage of the result line, nil without one.
func (p *claudeParser) reportedUsage() *results.Usage {
	if !p.sawResult {
		return nil
	}
	return p.b.usage
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
				var s claudeUsage
				_ = json.Unmarshal(p.snapshots[id], &s)
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

// claudeBlocks frames a content array; ok is false when the content is not an array.
func claudeBlocks(raw []byte) ([]claudeBlock, bool) {
	if trimmed := bytes.TrimSpace(raw); len(trimmed) == 0 || trimmed[0] != '[' {
		return nil, false
	}
	var blocks []claudeBlock
	ok := eachElement(raw, func(elem []byte) {
		b := claudeBlock{raw: elem}
		var typ []byte
		if !eachMember(elem, func(k, v []byte) {
			switch string(k) {
			case "type":
				typ = v
			case "text":
				b.text = v
			case "thinking":
				b.thinking = v
			case "id":
				b.id = v
			case "name":
				b.name = v
			case "input":
				b.Input = v
			case "tool_use_id":
				b.toolUseID = v
			case "content":
				b.Content = v
			case "is_error":
				b.isErr = v
			}
		}) {
			return
		}
		b.Type = stringField(typ)
		blocks = append(blocks, b)
	})
	return blocks, ok
}
