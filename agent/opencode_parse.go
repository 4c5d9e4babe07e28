package agent

import (
	"cmp"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// opencodeParser reads `opencode run --format json` lines: {"type", "timestamp", "sessionID",
// "part"|"error"}, for the main session only (a subagent's parts are not printed).
//
//   - step_start / step_finish frame one model response; step_finish carries its tokens and
//     cost. The run is over once a step finishes for another reason than "tool-calls"; there is
//     no result line.
//   - text and reasoning parts are printed once complete; the final output is the text of the
//     last finished step.
//   - tool_use is printed once per call, when it completed or failed: state.input, state.output
//     or state.error, and for bash state.metadata.exit (a command that exited non-zero is a
//     failed call, though opencode marks the part completed). A completed call of the skill
//     tool is a skill invocation, with the folder its output names.
//   - error is a session error (an API error that outlasted opencode's retries…); it fails the
//     run.
//
// A step's parts are recorded when the step finishes, with its usage, so a run stopped early
// counts the tokens of the step that stopped it; token usage is summed over steps as they finish,
// so a killed run keeps what it spent. opencode counts input without cache reads and writes (AI SDK style) and output without
// reasoning; skillgate's input counts every prompt token and its output every generated one, so
// both are added back.
type opencodeParser struct {
	b *builder
	// finished is set by a step that ended the run, cleared by a step that starts after it.
	finished  bool
	sawStep   bool
	stepTexts []string
	firstTS   int64
	lastTS    int64
	usage     results.Usage
	// pending holds the parts of the step being printed, recorded when it finishes (see line).
	inStep  bool
	pending []opencodePending
}

type opencodePending struct {
	typ  string
	part *opencodePart
	raw  []byte
}

func newOpencodeParser() *opencodeParser { return &opencodeParser{b: newBuilder()} }

func (p *opencodeParser) builder() *builder { return p.b }

type opencodeLine struct {
	Type      string         `json:"type"`
	Timestamp int64          `json:"timestamp"`
	SessionID string         `json:"sessionID"`
	Part      *opencodePart  `json:"part"`
	Error     *opencodeError `json:"error"`
}

type opencodePart struct {
	ID     string         `json:"id"`
	Type   string         `json:"type"`
	Text   string         `json:"text"`
	Tool   string         `json:"tool"`
	CallID string         `json:"callID"`
	State  *opencodeState `json:"state"`
	Reason string         `json:"reason"`
	Cost   float64        `json:"cost"`
	Tokens *struct {
		Input     int64 `json:"input"`
		Output    int64 `json:"output"`
		Reasoning int64 `json:"reasoning"`
		Cache     struct {
			Read  int64 `json:"read"`
			Write int64 `json:"write"`
		} `json:"cache"`
	} `json:"tokens"`
}

type opencodeState struct {
	Status   string          `json:"status"`
	Input    json.RawMessage `json:"input"`
	Output   json.RawMessage `json:"output"`
	Error    json.RawMessage `json:"error"`
	Metadata struct {
		Exit json.RawMessage `json:"exit"`
	} `json:"metadata"`
	Time struct {
		Start int64 `json:"start"`
		End   int64 `json:"end"`
	} `json:"time"`
}

type opencodeError struct {
	Name string `json:"name"`
	Data struct {
		Message    string `json:"message"`
		StatusCode int    `json:"statusCode"`
	} `json:"data"`
}

const (
	opencodeSkillTool = "skill"
	// opencodeSkillBaseDir starts the line of the skill tool's output naming the skill's folder.
	opencodeSkillBaseDir = "Base directory for this skill: "
)

func (p *opencodeParser) line(raw []byte) {
	var l opencodeLine
	if !p.b.decodeLine(raw, &l) {
		return
	}
	if l.Timestamp > 0 {
		if p.firstTS == 0 {
			p.firstTS = l.Timestamp
		}
		p.lastTS = l.Timestamp
	}
	if p.b.sessionID == "" && l.SessionID != "" {
		p.b.sessionID = l.SessionID
	}
	switch {
	case l.Type == "error":
		p.flush()
		p.sessionError(l.Error)
	case l.Part == nil:
		p.b.raw(raw)
	case l.Type == "step_start":
		p.flush()
		p.inStep, p.sawStep, p.finished = true, true, false
		p.stepTexts = nil
	case l.Type == "step_finish":
		p.flush()
		p.inStep = false
		p.stepFinish(l.Part)
	case p.inStep:
		// A step's parts are recorded when it finishes, together with its usage: opencode
		// prints the usage after the tool calls, and a run stopped early on a call (which stops
		// reading the stream) would otherwise leave out the tokens of the step that made it.
		p.pending = append(p.pending, opencodePending{l.Type, l.Part, append([]byte(nil), raw...)})
	default:
		p.part(l.Type, l.Part, raw)
	}
}

// flush records the parts of the step being printed.
func (p *opencodeParser) flush() {
	for _, pp := range p.pending {
		p.part(pp.typ, pp.part, pp.raw)
	}
	p.pending = nil
}

func (p *opencodeParser) part(typ string, part *opencodePart, raw []byte) {
	switch typ {
	case "text":
		p.b.message(roleAssistant, part.Text)
		if part.Text != "" {
			p.stepTexts = append(p.stepTexts, part.Text)
		}
	case "reasoning":
		p.b.message(roleReasoning, part.Text)
	case "tool_use":
		p.toolUse(part, raw)
	default:
		p.b.raw(raw)
	}
}

func (p *opencodeParser) toolUse(part *opencodePart, raw []byte) {
	st := part.State
	if st == nil || st.Status != "completed" && st.Status != "error" { // printed only once done
		p.b.raw(raw)
		return
	}
	id := cmp.Or(part.CallID, part.ID)
	known := id != "" && p.b.call(id) != nil
	args := argumentsOf(st.Input)
	p.b.toolCall(id, part.Tool, args)
	var ev *results.Event
	var output any
	if st.Status == "completed" {
		output = valueOf(st.Output)
		ev = p.b.toolResult(id, output, opencodeExit(st.Metadata.Exit) == 0)
	} else {
		ev = p.b.toolResult(id, valueOf(st.Error), false)
	}
	if st.Time.End > st.Time.Start && st.Time.Start > 0 {
		ev.DurationMS = st.Time.End - st.Time.Start
	}
	// A skill counts as invoked once its content reached the agent: a skill call that failed
	// ("Skill … not found", ripgrep missing) stays a failed tool call.
	if name := stringOf(args["name"]); !known && st.Status == "completed" && part.Tool == opencodeSkillTool && name != "" {
		p.b.skill(name, opencodeSkillDir(output))
	}
}

// opencodeExit is a bash call's exit status (0 when the call reports none).
func opencodeExit(raw json.RawMessage) int64 {
	var n float64
	if json.Unmarshal(raw, &n) != nil {
		return 0
	}
	return int64(n)
}

// opencodeSkillDir is the folder the skill tool says it loaded the skill from.
func opencodeSkillDir(output any) string {
	text, _ := output.(string)
	_, rest, ok := strings.Cut(text, opencodeSkillBaseDir)
	if !ok {
		return ""
	}
	dir, _, _ := strings.Cut(rest, "\n")
	return strings.TrimSpace(dir)
}

func (p *opencodeParser) stepFinish(part *opencodePart) {
	if t := part.Tokens; t != nil {
		u := &p.usage
		u.InputTokens += t.Input + t.Cache.Read + t.Cache.Write
		u.OutputTokens += t.Output + t.Reasoning
		u.CacheReadTokens += t.Cache.Read
		u.CacheWriteTokens += t.Cache.Write
		u.ReasoningTokens += t.Reasoning
		u.CostUSD += part.Cost
		u.Turns++
		usage := *u
		p.b.usage = &usage
	}
	if part.Reason != "tool-calls" {
		p.finished = true
		if len(p.stepTexts) > 0 {
			p.b.setFinal(strings.Join(p.stepTexts, "\n"))
		}
	}
}

func (p *opencodeParser) sessionError(e *opencodeError) {
	msg := "opencode reported a session error"
	if e != nil {
		msg = cmp.Or(e.Data.Message, e.Name, msg)
		if e.Data.StatusCode != 0 && !strings.Contains(msg, fmt.Sprint(e.Data.StatusCode)) {
			msg += fmt.Sprintf(" (HTTP %d)", e.Data.StatusCode)
		}
	}
	p.b.errorEvent(msg)
	p.b.fail(msg)
}

func (p *opencodeParser) finish() (*results.AgentRun, error) {
	p.flush()
	if p.lastTS > p.firstTS {
		p.b.durationMS = p.lastTS - p.firstTS
	}
	switch {
	case len(p.b.failures) > 0 || p.finished:
	case !p.sawStep:
		p.b.fail("the stream ended before opencode's first step (no model response came)")
	default:
		p.b.fail("the stream ended before opencode finished its last step (the run did not finish)")
	}
	return p.b.run()
}
