package agent

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/skillgate/skillgate/results"
)

// copilotParser reads the Copilot CLI's `--output-format json` lines: session events
// ({"type","data","id","timestamp"}) followed by one `result` line.
//
// Tool calls are announced in assistant.message toolRequests and again by
// tool.execution_start, and completed by tool.execution_complete (correlated by toolCallId). A
// skill is invoked by a call of the `skill` tool (or a skill.invoked event). The session id is
// only on the result line, whose exitCode stays 0 after a user abort, so an abort is detected
// from the abort / assistant.idle events. The stream has no input-token counts: usage holds the
// output tokens of each assistant message and the premium requests.
type copilotParser struct {
	b         *builder
	sawResult bool
	exitCode  int
	aborted   string
	turns     int
	// usageEvents is set when assistant.usage events give full per-call usage.
	usageEvents bool
	usage       results.Usage
	// ignored holds call ids of report_intent, a UI-only pseudo tool waza drops too.
	ignored map[string]bool
	started map[string]time.Time
	// pendingSkills counts skill-tool invocations not yet confirmed by a skill.invoked event.
	pendingSkills map[string]int
	// Streamed message text, dropped when the complete assistant.message arrives.
	partial      map[string]*strings.Builder
	partialOrder []string
	// failedCall is the last model call that failed (model.call_failure), which the next
	// assistant.turn_retry retries.
	failedCall struct {
		status int
		errMsg string
	}
}

func newCopilotParser() *copilotParser {
	return &copilotParser{
		b: newBuilder(), ignored: map[string]bool{}, started: map[string]time.Time{},
		pendingSkills: map[string]int{}, partial: map[string]*strings.Builder{},
	}
}

type copilotLine struct {
	Type      string          `json:"type"`
	Data      json.RawMessage `json:"data"`
	Timestamp string          `json:"timestamp"`
	SessionID string          `json:"sessionId"`
	ExitCode  *int            `json:"exitCode"`
	Usage     *struct {
		PremiumRequests   *float64 `json:"premiumRequests"`
		SessionDurationMs int64    `json:"sessionDurationMs"`
	} `json:"usage"`
}

type copilotData struct {
	Content      json.RawMessage `json:"content"`
	MessageID    string          `json:"messageId"`
	ToolRequests []struct {
		ToolCallID string          `json:"toolCallId"`
		Name       string          `json:"name"`
		Arguments  json.RawMessage `json:"arguments"`
	} `json:"toolRequests"`
	OutputTokens int64           `json:"outputTokens"`
	Model        string          `json:"model"`
	ToolCallID   string          `json:"toolCallId"`
	ToolName     string          `json:"toolName"`
	Arguments    json.RawMessage `json:"arguments"`
	Success      *bool           `json:"success"`
	Result       *struct {
		Content json.RawMessage `json:"content"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
	// ExitCode is a shell call's exit status (shellExecution.exitCode), when the event has one.
	ExitCode  *int64 `json:"-"`
	Reason    string `json:"reason"`
	Aborted   bool   `json:"aborted"`
	ErrorType string `json:"errorType"`
	Message   string `json:"message"`
	// model.call_failure
	StatusCode   int    `json:"statusCode"`
	ErrorMessage string `json:"errorMessage"`
	Name         string `json:"name"`
	Path         string `json:"path"`

	TotalPremiumRequests *float64 `json:"totalPremiumRequests"`
	InputTokens          int64    `json:"inputTokens"`
	CacheReadTokens      int64    `json:"cacheReadTokens"`
	CacheWriteTokens     int64    `json:"cacheWriteTokens"`
	Cost                 *float64 `json:"cost"`
}

// copilotIgnored are events that carry nothing for the normalized run.
var copilotIgnored = map[string]bool{
	"session.mcp_server_status_changed": true, "mcp.tools.list_changed": true,
	"session.skills_loaded": true, "session.auto_mode_resolved": true, "session.tools_updated": true,
	"assistant.turn_end": true, "model.call_start": true, "assistant.message_start": true,
	"assistant.reasoning_delta": true, "assistant.tool_call_delta": true,
	"tool.execution_partial_result": true, "tool.execution_progress": true,
	"tool.user_requested": true, "session.background_tasks_changed": true, "session.idle": true,
	"session.start": true, "session.resume": true, "session.model_change": true,
	"session.info": true, "session.shutdown": true, "session.usage_info": true,
	"assistant.intent": true, "subagent.started": true, "subagent.completed": true,
	"subagent.selected": true, "pending_messages.modified": true, "hook.start": true,
	"hook.end": true, "session.compaction_start": true, "session.compaction_complete": true,
	"session.truncation": true, "session.context_changed": true,
	// Copilot CLI 1.0.102: MCP setup, per-model-call bookkeeping, and shell output that
	// tool.execution_complete repeats in full.
	"session.mcp_servers_loaded": true, "model.call_finished": true, "model.call_final_result": true,
	"tool.shell_output": true,
}

var skillContextPattern = regexp.MustCompile(`^<skill-context name="([^"]*)">\s*(?:Base directory for this skill: ([^\n]*))?`)

func (p *copilotParser) line(raw []byte) {
	// Frame the envelope with the scanner: most lines are streaming deltas and status events
	// whose data is never needed, so their data is not decoded.
	var typ, data, rest []byte
	if !eachMember(raw, func(k, v []byte) {
		switch string(k) {
		case "type":
			typ = v
		case "data":
			data = v
		case "sessionId", "exitCode", "usage":
			rest = v
		}
	}) {
		p.b.raw(raw)
		return
	}
	l := copilotLine{Type: stringField(typ), Data: data}
	if l.Type == "" {
		p.b.raw(raw)
		return
	}
	if l.Type == "result" || (rest != nil && data == nil) {
		if err := json.Unmarshal(raw, &l); err != nil {
			p.b.raw(raw)
			return
		}
		if l.Type == "result" {
			p.result(&l)
			return
		}
	}
	if copilotIgnored[l.Type] {
		return
	}
	if l.Type == "assistant.message_delta" {
		var id, delta []byte
		eachMember(data, func(k, v []byte) {
			switch string(k) {
			case "messageId":
				id = v
			case "deltaContent":
				delta = v
			}
		})
		p.delta(stringField(id), stringField(delta))
		return
	}
	var d copilotData
	if l.Type == "tool.execution_complete" {
		// The largest events (full tool output in detailedContent): decode only what is kept.
		var ok bool
		if d, ok = scanCopilotComplete(data); !ok {
			p.b.raw(raw)
			return
		}
	} else if len(data) > 0 && json.Unmarshal(data, &d) != nil {
		p.b.raw(raw)
		return
	}
	if l.Type == "tool.execution_start" || l.Type == "tool.execution_complete" {
		// Timestamps give tool durations; only these events need them.
		var ts []byte
		eachMember(raw, func(k, v []byte) {
			if string(k) == "timestamp" {
				ts = v
			}
		})
		l.Timestamp = stringField(ts)
	}
	switch l.Type {
	case "user.message":
		p.userMessage(textOf(d.Content))
	case "assistant.turn_start":
		p.flushPartials()
		p.turns++
	case "assistant.message":
		p.assistantMessage(&d)
	case "assistant.reasoning":
		p.b.message(roleReasoning, textOf(d.Content))
	case "assistant.usage":
		p.usageEvents = true
		p.usage.InputTokens += d.InputTokens
		p.usage.OutputTokens += d.OutputTokens
		p.usage.CacheReadTokens += d.CacheReadTokens
		p.usage.CacheWriteTokens += d.CacheWriteTokens
		if d.Cost != nil {
			p.usage.PremiumRequests += *d.Cost
		}
	case "tool.execution_start":
		if d.ToolName == "report_intent" || p.ignored[d.ToolCallID] {
			p.ignored[d.ToolCallID] = true
			return
		}
		p.call(d.ToolCallID, d.ToolName, d.Arguments)
		if t, err := time.Parse(time.RFC3339Nano, l.Timestamp); err == nil {
			p.started[d.ToolCallID] = t
		}
	case "tool.execution_complete":
		if p.ignored[d.ToolCallID] {
			return
		}
		p.complete(&l, &d)
	case "skill.invoked":
		if p.pendingSkills[d.Name] > 0 {
			p.pendingSkills[d.Name]--
			if sk := p.b.lastSkill(d.Name); sk != nil && sk.Path == "" {
				sk.Path = d.Path
			}
			return
		}
		p.b.skill(d.Name, d.Path)
	case "abort":
		p.flushPartials()
		if p.aborted == "" {
			p.aborted = cmp.Or(d.Reason, "aborted")
			p.b.errorEvent("aborted: " + p.aborted)
		}
	case "assistant.idle":
		p.flushPartials()
		if d.Aborted && p.aborted == "" {
			p.aborted = "aborted"
			p.b.errorEvent("aborted")
		}
	case "session.error":
		p.flushPartials()
		msg := cmp.Or(d.Message, d.ErrorType, "session error")
		if d.ErrorType != "" && d.Message != "" {
			msg = d.ErrorType + ": " + d.Message
		}
		p.b.errorEvent(msg)
		p.b.fail(msg)
	case "session.warning":
		p.b.message(roleWarning, d.Message)
	case "session.usage_checkpoint":
		if d.TotalPremiumRequests != nil && !p.usageEvents {
			p.usage.PremiumRequests = *d.TotalPremiumRequests
		}
	case "model.call_failure":
		// A failed API call; assistant.turn_retry follows when the CLI retries it, else a
		// session.error ends the run.
		p.failedCall.status, p.failedCall.errMsg = d.StatusCode, d.ErrorMessage
	case "assistant.turn_retry":
		p.turnRetry(cmp.Or(d.Reason, d.Message))
	case "subagent.failed":
		p.b.errorEvent(cmp.Or(d.Message, "subagent failed"))
	default:
		p.b.raw(raw)
	}
}

// turnRetry keeps a retried API call (Copilot CLI 1.0.102: model.call_failure with the HTTP
// status, then assistant.turn_retry) as a warning: not a failure, but what a run that times out
// was waiting for.
func (p *copilotParser) turnRetry(reason string) {
	f := p.failedCall
	status := ""
	if f.status > 0 {
		status = strconv.Itoa(f.status)
	}
	note := "API error"
	if status != "" {
		note += " " + status
	}
	if reason != "" {
		note += " (" + reason + ")"
	}
	if msg := strings.TrimSpace(apiErrorText(f.errMsg)); msg != "" {
		note += ": " + shorten(msg, 300)
	}
	p.b.apiRetried(status, note+", retrying")
	p.failedCall.status, p.failedCall.errMsg = 0, ""
}

// delta accumulates streamed text of a message not complete yet.
func (p *copilotParser) delta(messageID, text string) {
	sb, ok := p.partial[messageID]
	if !ok {
		sb = &strings.Builder{}
		p.partial[messageID] = sb
		p.partialOrder = append(p.partialOrder, messageID)
	}
	sb.WriteString(text)
}

func (p *copilotParser) userMessage(content string) {
	m := skillContextPattern.FindStringSubmatch(content)
	if m == nil {
		p.b.message(roleUser, content)
		return
	}
	// The body of a skill the agent just loaded, injected by the CLI: it only tells where the
	// skill lives.
	name, dir := m[1], strings.TrimSpace(m[2])
	if sk := p.b.lastSkill(name); sk != nil {
		if sk.Path == "" {
			sk.Path = dir
		}
		return
	}
	p.b.skill(name, dir)
}

func (p *copilotParser) assistantMessage(d *copilotData) {
	if sb, ok := p.partial[d.MessageID]; ok {
		sb.Reset()
		delete(p.partial, d.MessageID)
	}
	p.b.message(roleAssistant, textOf(d.Content))
	for _, tr := range d.ToolRequests {
		if tr.Name == "report_intent" {
			p.ignored[tr.ToolCallID] = true
			continue
		}
		p.call(tr.ToolCallID, tr.Name, tr.Arguments)
	}
	if !p.usageEvents {
		p.usage.OutputTokens += d.OutputTokens
		if d.Model != "" && d.OutputTokens > 0 {
			if p.usage.ModelMetrics == nil {
				p.usage.ModelMetrics = map[string]*results.ModelUsage{}
			}
			mu := p.usage.ModelMetrics[d.Model]
			if mu == nil {
				mu = &results.ModelUsage{}
				p.usage.ModelMetrics[d.Model] = mu
			}
			mu.OutputTokens += d.OutputTokens
		}
	}
}

// call records a tool call once; a new call of the skill tool is a skill invocation.
func (p *copilotParser) call(id, name string, rawArgs json.RawMessage) {
	known := id != "" && p.b.call(id) != nil
	args := argumentsOf(rawArgs)
	p.b.toolCall(id, name, args)
	if !known && name == "skill" {
		skill := stringOf(args["skill"])
		p.b.skill(skill, "")
		p.pendingSkills[skill]++
	}
}

func scanCopilotComplete(data []byte) (copilotData, bool) {
	var d copilotData
	ok := eachMember(data, func(k, v []byte) {
		switch string(k) {
		case "toolCallId":
			d.ToolCallID = stringField(v)
		case "toolName":
			d.ToolName = stringField(v)
		case "success":
			if string(v) == "true" || string(v) == "false" {
				b := boolField(v)
				d.Success = &b
			}
		case "error":
			d.Error = append(json.RawMessage(nil), v...)
		case "shellExecution":
			// Copilot CLI 1.0.102 reports a shell command that exited non-zero with success
			// true; its exit status is here (and in toolTelemetry.metrics.exit_code).
			eachMember(v, func(sk, sv []byte) {
				if string(sk) == "exitCode" {
					if f, ok := floatField(sv); ok {
						n := int64(f)
						d.ExitCode = &n
					}
				}
			})
		case "toolTelemetry":
			if d.ExitCode != nil {
				return
			}
			eachMember(v, func(tk, tv []byte) {
				if string(tk) != "metrics" {
					return
				}
				eachMember(tv, func(mk, mv []byte) {
					if string(mk) == "exit_code" {
						if f, ok := floatField(mv); ok && d.ExitCode == nil {
							n := int64(f)
							d.ExitCode = &n
						}
					}
				})
			})
		case "result":
			eachMember(v, func(rk, rv []byte) {
				if string(rk) == "content" {
					d.Result = &struct {
						Content json.RawMessage `json:"content"`
					}{Content: append(json.RawMessage(nil), rv...)}
				}
			})
		}
	})
	return d, ok
}

func (p *copilotParser) complete(l *copilotLine, d *copilotData) {
	var result any
	if d.Result != nil {
		result = valueOf(d.Result.Content)
	}
	if result == nil && len(d.Error) > 0 {
		var e struct {
			Message string `json:"message"`
		}
		if json.Unmarshal(d.Error, &e) == nil && e.Message != "" {
			result = e.Message
		} else {
			result = textOf(d.Error)
		}
	}
	success := d.Success != nil && *d.Success
	if d.ExitCode != nil && *d.ExitCode != 0 {
		success = false // the command ran and failed: the CLI's success only says the tool worked
	}
	ev := p.b.toolResult(d.ToolCallID, result, success)
	if ev.Name == "unknown" && d.ToolName != "" {
		ev.Name = d.ToolName
	}
	if start, ok := p.started[d.ToolCallID]; ok {
		if end, err := time.Parse(time.RFC3339Nano, l.Timestamp); err == nil && !end.Before(start) {
			ev.DurationMS = end.Sub(start).Milliseconds()
		}
	}
}

func (p *copilotParser) result(l *copilotLine) {
	p.flushPartials()
	p.sawResult = true
	p.b.sessionID = l.SessionID
	if l.ExitCode != nil {
		p.exitCode = *l.ExitCode
	}
	if l.Usage != nil {
		if l.Usage.PremiumRequests != nil {
			p.usage.PremiumRequests = *l.Usage.PremiumRequests
		}
		p.b.durationMS = l.Usage.SessionDurationMs
	}
}

// flushPartials keeps streamed text whose complete message never came (abort, crash).
func (p *copilotParser) flushPartials() {
	for _, id := range p.partialOrder {
		if sb, ok := p.partial[id]; ok && sb.Len() > 0 {
			p.b.message(roleAssistant, sb.String())
		}
	}
	p.partial = map[string]*strings.Builder{}
	p.partialOrder = nil
}

func (p *copilotParser) finish() (*results.AgentRun, error) {
	p.flushPartials()
	switch {
	case !p.sawResult:
		p.b.fail("the stream ended before the Copilot CLI's result line (the run did not finish)")
	case p.exitCode != 0:
		p.b.fail(fmt.Sprintf("the Copilot CLI reported exit code %d", p.exitCode))
	}
	if p.aborted != "" {
		p.b.fail(fmt.Sprintf("the run was aborted (%s)", p.aborted))
	}
	// Without any token count (Copilot 1.0.102 with a BYOK provider reports none) the usage is
	// unknown, not zero: a zero would pass max_tokens as if it had been checked.
	if p.usageEvents || p.usage.OutputTokens > 0 {
		u := p.usage
		u.Turns = p.turns
		p.b.usage = &u
	}
	return p.b.run()
}
