package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/skillgate/skillgate/results"
)

// Bounds on what one event keeps, so a run that prints gigabytes cannot exhaust memory: a text
// longer than maxTextBytes (message, tool result) keeps its first maxTextBytes and says how much
// was cut; a raw event keeps at most maxRawBytes of the agent's JSON.
const (
	maxTextBytes = 1 << 20
	maxRawBytes  = 64 << 10
)

// Roles used in message events besides the agent's own "assistant" and "user".
const (
	roleAssistant = "assistant"
	roleUser      = "user"
	// roleReasoning holds thinking / reasoning summaries the agent chose to show.
	roleReasoning = "reasoning"
	// roleWarning holds non-fatal notices the agent reported as errors (Codex error items,
	// Gemini warnings), kept out of the run's errors so they do not fail error checks.
	roleWarning = "warning"
	// roleSystem holds text the agent CLI injected into the conversation on its own.
	roleSystem = "system"
)

// builder accumulates the normalized run while a parser reads an agent's stream.
type builder struct {
	events []results.Event
	// calls maps a tool call id to its event index, so results, repeated announcements of the
	// same call (started / completed) and skill paths land on the right event.
	calls map[string]int
	// open lists tool calls still waiting for a result, oldest first, for id-less correlation.
	open []int

	unknown     int
	sessionID   string
	finalOutput string
	hasFinal    bool
	durationMS  int64
	usage       *results.Usage
	// failures are the reasons, read from the stream itself, that the run failed.
	failures []string
	// retry is the API errors the agent has been retrying since the model last answered.
	retry apiRetry
}

// apiRetry is a streak of failed API calls the agent retried by itself (an HTTP 429 or 500):
// a run that times out in one timed out waiting for the API, which its error says.
type apiRetry struct {
	status string // HTTP status of the last failed call ("429", "5xx"); "" when the agent does not say
	count  int    // retries since the model last answered
}

// apiRetried records one retry of a failed API call as a warning in the transcript and counts
// it in the current streak; note says what the agent reported.
func (b *builder) apiRetried(status, note string) {
	b.events = append(b.events, results.Event{Type: results.EventMessage, Role: roleWarning, Content: clip(note)})
	b.retry.count++
	if status != "" {
		b.retry.status = status
	}
}

// retrying describes the streak of API retries the run was in, for a timeout's error: " while
// the API answered 429 (3 retries)"; "" when the model's last call succeeded.
func (b *builder) retrying() string {
	r := b.retry
	if r.count == 0 {
		return ""
	}
	retries := "1 retry"
	if r.count > 1 {
		retries = fmt.Sprintf("%d retries", r.count)
	}
	if r.status == "" {
		return fmt.Sprintf(" while the agent was retrying failed API calls (%s)", retries)
	}
	return fmt.Sprintf(" while the API answered %s (%s)", r.status, retries)
}

func newBuilder() *builder {
	return &builder{calls: map[string]int{}}
}

func (b *builder) message(role, content string) {
	if content == "" {
		return
	}
	if role == roleAssistant || role == roleReasoning {
		b.retry = apiRetry{} // the model answered
	}
	b.events = append(b.events, results.Event{Type: results.EventMessage, Role: role, Content: clip(content)})
}

// lastAssistantText is the content of the last assistant message, the final output of an agent
// that reports none explicitly.
func (b *builder) lastAssistantText() string {
	for i := len(b.events) - 1; i >= 0; i-- {
		if e := b.events[i]; e.Type == results.EventMessage && e.Role == roleAssistant {
			return e.Content
		}
	}
	return ""
}

// toolCall records a call, or returns the existing event when the agent announces the same id
// again; a later announcement fills in what an earlier one lacked.
func (b *builder) toolCall(id, name string, args map[string]any) *results.Event {
	if id != "" {
		if i, ok := b.calls[id]; ok {
			ev := &b.events[i]
			if ev.Name == "" {
				ev.Name = name
			}
			if len(ev.Arguments) == 0 && len(args) > 0 {
				ev.Arguments = args
			}
			return ev
		}
	}
	b.retry = apiRetry{} // the model answered
	b.events = append(b.events, results.Event{Type: results.EventToolCall, ID: id, Name: name, Arguments: args})
	i := len(b.events) - 1
	if id != "" {
		b.calls[id] = i
	}
	b.open = append(b.open, i)
	return &b.events[i]
}

// call returns the tool call with that id, or nil.
func (b *builder) call(id string) *results.Event {
	if i, ok := b.calls[id]; ok {
		return &b.events[i]
	}
	return nil
}

// toolResult completes a call. With an empty id it completes the oldest call still open; a
// result for a call never announced becomes a call of unknown name, so it is not lost.
func (b *builder) toolResult(id string, result any, success bool) *results.Event {
	idx := -1
	if id != "" {
		if i, ok := b.calls[id]; ok {
			idx = i
		}
	} else if len(b.open) > 0 {
		idx = b.open[0]
	}
	if idx < 0 {
		b.toolCall(id, "unknown", nil)
		idx = len(b.events) - 1
	}
	for k, i := range b.open {
		if i == idx {
			b.open = append(b.open[:k], b.open[k+1:]...)
			break
		}
	}
	ev := &b.events[idx]
	ev.Result = clipValue(result)
	ev.Success = &success
	return ev
}

func (b *builder) skill(name, path string) {
	if name == "" {
		return
	}
	b.events = append(b.events, results.Event{Type: results.EventSkillInvocation, Name: name, Path: path})
}

// lastSkill returns the most recent skill invocation named name (any name when empty), or nil.
func (b *builder) lastSkill(name string) *results.Event {
	for i := len(b.events) - 1; i >= 0; i-- {
		if e := &b.events[i]; e.Type == results.EventSkillInvocation && (name == "" || e.Name == name) {
			return e
		}
	}
	return nil
}

func (b *builder) errorEvent(msg string) {
	if msg == "" {
		return
	}
	b.events = append(b.events, results.Event{Type: results.EventError, Message: clip(msg)})
}

// lastError returns the message of the last error event, to avoid recording one failure twice
// when an agent reports it in two events.
func (b *builder) lastError() string {
	for i := len(b.events) - 1; i >= 0; i-- {
		if b.events[i].Type == results.EventError {
			return b.events[i].Message
		}
	}
	return ""
}

// decodeLine decodes a stream line holding one JSON object into v. A line that is anything else,
// or does not decode into v, is kept as a raw event and decodeLine returns false.
func (b *builder) decodeLine(line []byte, v any) bool {
	if !isJSONObject(line) || json.Unmarshal(line, v) != nil {
		b.raw(line)
		return false
	}
	return true
}

// raw keeps an event the parser does not understand, verbatim (bounded), and counts it.
func (b *builder) raw(line []byte) {
	b.unknown++
	b.events = append(b.events, rawEvent(line))
}

func rawEvent(line []byte) results.Event {
	if !json.Valid(line) {
		return results.Event{Type: results.EventRaw, Content: clipBytes(line, maxRawBytes)}
	}
	if len(line) > maxRawBytes {
		summary, _ := json.Marshal(map[string]any{
			"truncated": true,
			"bytes":     len(line),
			"head":      clipBytes(line, 4096),
		})
		return results.Event{Type: results.EventRaw, Raw: summary}
	}
	return results.Event{Type: results.EventRaw, Raw: json.RawMessage(append([]byte(nil), line...))}
}

func (b *builder) fail(reason string) {
	for _, f := range b.failures {
		if f == reason {
			return
		}
	}
	b.failures = append(b.failures, reason)
}

func (b *builder) setFinal(s string) {
	b.finalOutput = clip(s)
	b.hasFinal = true
}

// run builds the normalized run. The error lists what the stream itself says went wrong.
func (b *builder) run() (*results.AgentRun, error) {
	final := b.finalOutput
	if !b.hasFinal {
		final = b.lastAssistantText()
	}
	run := &results.AgentRun{
		FinalOutput:   final,
		Transcript:    b.events,
		DurationMS:    b.durationMS,
		UnknownEvents: b.unknown,
	}
	run.SessionDigest = results.Digest(b.events, b.usage, b.sessionID)
	if len(b.failures) > 0 {
		return run, errors.New(strings.Join(b.failures, "; "))
	}
	return run, nil
}

// clip bounds a text kept in the transcript.
func clip(s string) string {
	if len(s) <= maxTextBytes {
		return s
	}
	cut := maxTextBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n… [skillgate: truncated %d bytes]", len(s)-cut)
}

// apiErrorText makes an API error readable when an agent passes the provider's JSON error
// document on as its message ({"error": {"message", "type"}} or a flat {"message", "type"}): the
// message, then the type.
func apiErrorText(msg string) string {
	trimmed := strings.TrimSpace(msg)
	if !strings.HasPrefix(trimmed, "{") {
		return msg
	}
	type apiError struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	var doc struct {
		apiError
		Error *apiError `json:"error"`
	}
	if json.Unmarshal([]byte(trimmed), &doc) != nil {
		return msg
	}
	e := doc.apiError
	if doc.Error != nil && doc.Error.Message != "" {
		e = *doc.Error
	}
	if e.Message == "" {
		return msg
	}
	var detail []string
	if e.Type != "" && e.Type != "error" {
		detail = append(detail, e.Type)
	}
	if len(detail) == 0 {
		return e.Message
	}
	return e.Message + " (" + strings.Join(detail, ", ") + ")"
}

// shorten cuts a one-line text to at most limit bytes (at a rune boundary), marking the cut.
func shorten(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func clipBytes(b []byte, limit int) string {
	if len(b) <= limit {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return strings.ToValidUTF8(string(b[:cut]), "\uFFFD") + fmt.Sprintf("… [skillgate: truncated %d bytes]", len(b)-cut)
}

func clipValue(v any) any {
	if s, ok := v.(string); ok {
		return clip(s)
	}
	return v
}
