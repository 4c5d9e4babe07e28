package agent

import (
	"cmp"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// geminiParser reads Gemini CLI's `--output-format stream-json` lines and the single object of
// `--output-format json`.
//
// Assistant text only arrives as deltas: consecutive deltas form one message, and the final
// output is all assistant text concatenated, as Gemini's own json output builds its `response`.
// A skill is invoked through the activate_skill tool. Usage comes from the result's stats
// (input tokens already include cached ones); Gemini reports no cost.
type geminiParser struct {
	b         *builder
	sawResult bool
	// text accumulates every assistant delta (the final output); current is the message being
	// streamed, closed by any other event.
	text    strings.Builder
	current strings.Builder
}

func newGeminiParser() *geminiParser { return &geminiParser{b: newBuilder()} }

type geminiLine struct {
	Type       string          `json:"type"`
	SessionID  string          `json:"session_id"`
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Delta      bool            `json:"delta"`
	ToolName   string          `json:"tool_name"`
	ToolID     string          `json:"tool_id"`
	Parameters json.RawMessage `json:"parameters"`
	Status     string          `json:"status"`
	Output     json.RawMessage `json:"output"`
	Error      *geminiError    `json:"error"`
	Severity   string          `json:"severity"`
	Message    string          `json:"message"`
	Stats      *geminiStats    `json:"stats"`

	// --output-format json
	Response *string `json:"response"`
}

type geminiError struct {
	Type    string          `json:"type"`
	Message string          `json:"message"`
	Code    json.RawMessage `json:"code"`
}

type geminiStats struct {
	TotalTokens  int64 `json:"total_tokens"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	Cached       int64 `json:"cached"`
	DurationMS   int64 `json:"duration_ms"`
	// Stream-json per-model totals (newer CLIs) and json-format per-model stats share the key.
	Models map[string]json.RawMessage `json:"models"`
}

type geminiStreamModel struct {
	TotalTokens  int64 `json:"total_tokens"`
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	Cached       int64 `json:"cached"`
}

type geminiJSONModel struct {
	API *struct {
		TotalRequests int `json:"totalRequests"`
	} `json:"api"`
	Tokens *struct {
		Prompt     int64 `json:"prompt"`
		Candidates int64 `json:"candidates"`
		Cached     int64 `json:"cached"`
		Thoughts   int64 `json:"thoughts"`
	} `json:"tokens"`
}

const geminiSkillTool = "activate_skill"

func (p *geminiParser) line(raw []byte) {
	var l geminiLine
	if !p.b.decodeLine(raw, &l) {
		return
	}
	if l.Type == "" && (l.Response != nil || l.Stats != nil) {
		p.jsonResult(&l)
		return
	}
	if !(l.Type == "message" && l.Role == roleAssistant) {
		p.closeMessage()
	}
	switch l.Type {
	case "init":
		p.b.sessionID = l.SessionID
	case "message":
		text := textOf(l.Content)
		if l.Role == roleAssistant {
			p.current.WriteString(text)
			p.text.WriteString(text)
			return
		}
		p.b.message(cmp.Or(l.Role, roleUser), text)
	case "tool_use":
		args := argumentsOf(l.Parameters)
		known := l.ToolID != "" && p.b.call(l.ToolID) != nil
		p.b.toolCall(l.ToolID, l.ToolName, args)
		if !known && l.ToolName == geminiSkillTool {
			p.b.skill(stringOf(args["name"]), "")
		}
	case "tool_result":
		result := valueOf(l.Output)
		if result == nil && l.Error != nil {
			result = l.Error.Message
		}
		p.b.toolResult(l.ToolID, result, l.Status == "success")
	case "error":
		if l.Severity == "warning" {
			p.b.message(roleWarning, l.Message)
			return
		}
		p.b.errorEvent(l.Message)
	case "retry":
	case "result":
		p.sawResult = true
		if l.Status == "error" || l.Error != nil {
			msg := "Gemini CLI reported an error"
			if l.Error != nil && l.Error.Message != "" {
				msg = l.Error.Message
			}
			if p.b.lastError() != msg {
				p.b.errorEvent(msg)
			}
			p.b.fail(msg)
		}
		if l.Stats != nil {
			p.b.durationMS = l.Stats.DurationMS
			p.b.usage = geminiStreamUsage(l.Stats)
		}
	default:
		p.b.raw(raw)
	}
}

// closeMessage ends the assistant message being streamed.
func (p *geminiParser) closeMessage() {
	if p.current.Len() > 0 {
		p.b.message(roleAssistant, p.current.String())
		p.current.Reset()
	}
}

// geminiStreamUsage reads the result's stats. Their output_tokens leave out the model's thought
// tokens, which Gemini bills as output, and stream-json has no field for them: they are the total
// minus input and output (with the rare tool-use prompt tokens), recorded as reasoning tokens and
// counted in the output, as Claude and Codex count theirs.
func geminiStreamUsage(s *geminiStats) *results.Usage {
	thoughts := geminiThoughts(s.TotalTokens, s.InputTokens, s.OutputTokens)
	u := &results.Usage{
		InputTokens:     s.InputTokens,
		OutputTokens:    s.OutputTokens + thoughts,
		CacheReadTokens: s.Cached,
		ReasoningTokens: thoughts,
	}
	for _, name := range sortedKeys(s.Models) {
		var m geminiStreamModel
		if json.Unmarshal(s.Models[name], &m) != nil {
			continue
		}
		if u.ModelMetrics == nil {
			u.ModelMetrics = map[string]*results.ModelUsage{}
		}
		u.ModelMetrics[name] = &results.ModelUsage{
			InputTokens: m.InputTokens, CacheReadTokens: m.Cached,
			OutputTokens: m.OutputTokens + geminiThoughts(m.TotalTokens, m.InputTokens, m.OutputTokens),
		}
	}
	return u
}

// geminiThoughts is the part of a total that is neither input nor output (0 when the total is
// absent or smaller).
func geminiThoughts(total, input, output int64) int64 {
	return max(total-input-output, 0)
}

// jsonResult reads the single object of `--output-format json`: the final text and per-model
// token stats. That format has no individual tool calls (only counts per tool name), so the
// transcript cannot list them; the executor uses stream-json.
func (p *geminiParser) jsonResult(l *geminiLine) {
	p.sawResult = true
	if l.SessionID != "" {
		p.b.sessionID = l.SessionID
	}
	if l.Response != nil {
		p.b.message(roleAssistant, *l.Response)
		p.b.setFinal(*l.Response)
	}
	if l.Error != nil {
		msg := cmp.Or(l.Error.Message, l.Error.Type, "Gemini CLI reported an error")
		p.b.errorEvent(msg)
		p.b.fail(msg)
	}
	if l.Stats == nil || len(l.Stats.Models) == 0 {
		return
	}
	u := &results.Usage{ModelMetrics: map[string]*results.ModelUsage{}}
	for _, name := range sortedKeys(l.Stats.Models) {
		var m geminiJSONModel
		if json.Unmarshal(l.Stats.Models[name], &m) != nil || m.Tokens == nil {
			continue
		}
		// Thought tokens are billed as output; candidates leave them out.
		mu := &results.ModelUsage{
			InputTokens:     m.Tokens.Prompt,
			OutputTokens:    m.Tokens.Candidates + m.Tokens.Thoughts,
			CacheReadTokens: m.Tokens.Cached,
		}
		if m.API != nil {
			mu.RequestCount = m.API.TotalRequests
		}
		u.ModelMetrics[name] = mu
		u.InputTokens += m.Tokens.Prompt
		u.OutputTokens += m.Tokens.Candidates + m.Tokens.Thoughts
		u.CacheReadTokens += m.Tokens.Cached
		u.ReasoningTokens += m.Tokens.Thoughts
	}
	p.b.usage = u
}

// geminiRetry is the line Gemini CLI prints on standard error when it retries a failed API call
// (and nowhere in its stream-json output): "Attempt 2 failed with status 429. Retrying with
// backoff... <error>", "Attempt 1 failed with 5xx error. Retrying with backoff...", or, for a
// quota error that says when to retry, "Attempt 1 failed: <message>. Retrying after 1200ms...".
var geminiRetry = regexp.MustCompile(`^Attempt (\d+) failed(?: with status (\d{3})| with (429|5xx) error[^.]*)?(?:: (.*?))?\. Retrying (?:with backoff|after \d+ms)`)

// stderrLine implements stderrReader: Gemini CLI's API retries, kept as warnings with their
// status.
func (p *geminiParser) stderrLine(line []byte) {
	m := geminiRetry.FindSubmatch(line)
	if m == nil {
		return
	}
	status := cmp.Or(string(m[2]), string(m[3]))
	if status == "" && len(m[4]) > 0 {
		status = "429" // a quota error that says when to retry
	}
	note := "API error"
	if status != "" {
		note += " " + status
	}
	if len(m[4]) > 0 {
		note += ": " + shorten(string(m[4]), 300)
	}
	p.b.apiRetried(status, note+", attempt "+string(m[1])+" failed; retrying")
}

func (p *geminiParser) finish() (*results.AgentRun, error) {
	p.closeMessage()
	if !p.b.hasFinal {
		p.b.setFinal(p.text.String())
	}
	if !p.sawResult {
		p.b.fail("the stream ended before Gemini CLI's result line (the run did not finish)")
	}
	return p.b.run()
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
