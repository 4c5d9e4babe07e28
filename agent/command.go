package agent

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillgate/skillgate/results"
)

// The command executor runs any agent CLI described in eval.yaml (config.command) and maps its
// JSON events to the normalized run with declarative rules (docs/agents.md).
func init() {
	Register(commandExecutorName, newCommandExecutor)
}

type commandExecutor struct {
	cs    *commandSettings
	path  string
	extra []string

	versionMu   sync.Mutex
	versionDone bool
	version     string
	versionErr  error
}

func newCommandExecutor(opts Options) (Executor, error) {
	cs, err := parseCommandSettings(opts.Settings)
	if err != nil {
		return nil, err
	}
	path, extra, err := binaryAndArgs(commandExecutorName, cs.Argv[0], opts)
	if err != nil {
		return nil, err
	}
	return &commandExecutor{cs: cs, path: path, extra: extra}, nil
}

func (e *commandExecutor) Name() string { return commandExecutorName }

// Preflight implements Preflighter: the command's program must exist.
func (e *commandExecutor) Preflight() error {
	_, err := resolveBinary(commandExecutorName, e.path)
	return err
}

func (e *commandExecutor) Run(ctx context.Context, req *Request) (*results.AgentRun, error) {
	start := time.Now()
	if req.Workspace == "" {
		return nil, fmt.Errorf("command: no workspace")
	}
	bin, err := resolveBinary(commandExecutorName, e.path)
	if err != nil {
		return nil, err
	}
	installed, err := installSkills(req.Workspace, cmp.Or(e.cs.SkillsDir, ".agents/skills"), req.SkillDirs)
	if err != nil {
		return nil, fmt.Errorf("command: %w", err)
	}
	args, stdin := e.cs.commandLine(req.Prompt, e.extra)
	c := command{Path: bin, Args: args, Dir: req.Workspace, Env: agentEnv(req.Workspace, nil, req.Environment), Stdin: stdin}
	parser := newCommandParser(e.cs)
	return finishRun(ctx, commandExecutorName, c, req, start, installed, parser, parser.consumeWith)
}

// commandLine builds the arguments after argv[0]: argv with {prompt} replaced, the extra
// arguments, then the prompt itself when prompt_via is arg and argv has no placeholder.
func (cs *commandSettings) commandLine(prompt string, extra []string) ([]string, io.Reader) {
	var args []string
	placed := false
	for _, a := range cs.Argv[1:] {
		if strings.Contains(a, "{prompt}") {
			placed = true
			a = strings.ReplaceAll(a, "{prompt}", prompt)
		}
		args = append(args, a)
	}
	args = append(args, extra...)
	if cs.PromptVia == "stdin" {
		return args, strings.NewReader(prompt)
	}
	if !placed {
		args = append(args, prompt)
	}
	return args, nil
}

func (e *commandExecutor) Version(ctx context.Context) (string, error) {
	if len(e.cs.VersionArgv) == 0 {
		return "", nil // nothing configured: the version is unknown, not an error
	}
	e.versionMu.Lock()
	defer e.versionMu.Unlock()
	if !e.versionDone {
		bin := e.cs.VersionArgv[0]
		if bin == e.cs.Argv[0] {
			bin = e.path // the configured path replaces the program everywhere
		}
		e.version, e.versionErr = cliVersion(ctx, commandExecutorName, bin, e.cs.VersionArgv[1:])
		e.versionDone = ctx.Err() == nil
	}
	return e.version, e.versionErr
}

// commandParser applies the mapping rules to each event of the agent's output.
type commandParser struct {
	cs       *commandSettings
	b        *builder
	sawFinal bool
	text     strings.Builder
	textCut  int64
	// uncached is the input left out of the cache the agent reported (usage
	// uncached_input_tokens), when it did: the input is then uncached + cache reads + writes.
	uncached    int64
	hasUncached bool
}

func newCommandParser(cs *commandSettings) *commandParser {
	return &commandParser{cs: cs, b: newBuilder()}
}

func (p *commandParser) consume(r io.Reader) error { return p.consumeWith(r, p) }

// consumeWith reads the output, handing JSON lines to sink (the parser, or a stopWatch in
// front of it).
func (p *commandParser) consumeWith(r io.Reader, sink lineSink) error {
	if p.cs.Output == "text" {
		return p.readText(r)
	}
	return feedLines(r, sink)
}

// readText keeps plain output as the final answer, streaming and bounded.
func (p *commandParser) readText(r io.Reader) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			room := maxTextBytes - p.text.Len()
			if room >= n {
				p.text.Write(buf[:n])
			} else {
				if room > 0 {
					p.text.Write(buf[:room])
				}
				p.textCut += int64(n - max(room, 0))
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (p *commandParser) line(raw []byte) {
	if !isJSONObject(raw) && !bytes.HasPrefix(bytes.TrimSpace(raw), []byte("[")) {
		p.b.raw(raw)
		return
	}
	var ev any
	if err := json.Unmarshal(raw, &ev); err != nil {
		p.b.raw(raw)
		return
	}
	for _, r := range p.cs.Rules {
		if r.matches(ev) {
			p.apply(r, ev)
			return
		}
	}
	p.b.raw(raw)
}

func (r *mapRule) matches(ev any) bool {
	for _, c := range r.when {
		v := normalizeScalar(c.path.lookup(ev))
		found := false
		for _, want := range c.values {
			if scalarEqual(v, want) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func scalarEqual(got, want any) bool {
	switch w := want.(type) {
	case nil:
		return got == nil
	case string:
		g, ok := got.(string)
		return ok && g == w
	case bool:
		g, ok := got.(bool)
		return ok && g == w
	case float64:
		g, ok := got.(float64)
		return ok && g == w
	}
	return false
}

func (p *commandParser) apply(r *mapRule, ev any) {
	if r.each != nil {
		p.applyEach(r, ev)
	}
	text := func(field string) string { return r.text(field, ev) }
	switch r.emit {
	case emitMessage:
		p.b.message(cmp.Or(text("role"), roleAssistant), text("content"))
	case emitToolCall:
		id := text("id")
		known := id != "" && p.b.call(id) != nil
		var args map[string]any
		if f := r.fields["arguments"]; f != nil {
			args = argumentsValue(f.value(ev))
		}
		p.b.toolCall(id, text("name"), args)
		if !known {
			if skill := text("skill"); skill != "" {
				p.b.skill(skill, "")
			}
		}
		if r.fields["result"] != nil || r.fields["success"] != nil {
			p.b.toolResult(id, r.result(ev), r.success(ev))
		}
	case emitToolResult:
		ev := p.b.toolResult(text("id"), r.result(ev), r.success(ev))
		if name := text("name"); name != "" && (ev.Name == "" || ev.Name == "unknown") {
			ev.Name = name
		}
	case emitSkill:
		p.b.skill(text("name"), text("path"))
	case emitError:
		msg := cmp.Or(text("message"), "error")
		p.b.errorEvent(msg)
		if r.fatal {
			p.b.fail(msg)
		}
	case emitFinal:
		p.sawFinal = true
		content := text("content")
		if content != p.b.lastAssistantText() {
			p.b.message(roleAssistant, content)
		}
		p.b.setFinal(content)
	}
	if r.sessionID != nil {
		if id := textValue(r.sessionID.value(ev)); id != "" {
			p.b.sessionID = id
		}
	}
	if r.usage != nil {
		p.applyUsage(r, ev)
	}
}

// applyEach maps every element of the list at r.each with the first of r.rules it matches (one
// event holding several blocks: text and tool calls, parallel tool calls, several results); an
// element no rule matches is kept as a raw event.
func (p *commandParser) applyEach(r *mapRule, ev any) {
	list, _ := r.each.lookup(ev).([]any)
	for _, el := range list {
		matched := false
		for _, sub := range r.rules {
			if sub.matches(el) {
				p.apply(sub, el)
				matched = true
				break
			}
		}
		if !matched {
			raw, _ := json.Marshal(el)
			p.b.raw(raw)
		}
	}
}

func (p *commandParser) applyUsage(r *mapRule, ev any) {
	// Each mapped field is set (usage_mode replace: the event restates a total) or added to
	// (usage_mode add: the event reports one call); fields the rule does not map are kept.
	if p.b.usage == nil {
		p.b.usage = &results.Usage{}
	}
	u := p.b.usage
	for k, f := range r.usage {
		v := f.value(ev)
		switch k {
		case "cost_usd":
			u.CostUSD = addOrSet(r.usageAdd, u.CostUSD, floatValue(v))
		case "turns":
			u.Turns = int(addOrSet(r.usageAdd, float64(u.Turns), floatValue(v)))
		default:
			n := int64(floatValue(v))
			switch k {
			case "input_tokens":
				u.InputTokens = addInt(r.usageAdd, u.InputTokens, n)
			case "uncached_input_tokens":
				p.uncached = addInt(r.usageAdd, p.uncached, n)
				p.hasUncached = true
			case "output_tokens":
				u.OutputTokens = addInt(r.usageAdd, u.OutputTokens, n)
			case "cache_read_tokens":
				u.CacheReadTokens = addInt(r.usageAdd, u.CacheReadTokens, n)
			case "cache_write_tokens":
				u.CacheWriteTokens = addInt(r.usageAdd, u.CacheWriteTokens, n)
			case "reasoning_tokens":
				u.ReasoningTokens = addInt(r.usageAdd, u.ReasoningTokens, n)
			}
		}
	}
	if p.hasUncached {
		// The agent's input figure leaves cached tokens out; skillgate's counts them.
		u.InputTokens = p.uncached + u.CacheReadTokens + u.CacheWriteTokens
	}
}

func addOrSet(add bool, cur, v float64) float64 {
	if add {
		return cur + v
	}
	return v
}

func addInt(add bool, cur, v int64) int64 {
	if add {
		return cur + v
	}
	return v
}

// value returns the field's value in an event.
func (f *fieldSpec) value(ev any) any {
	if f.isConst {
		return f.constant
	}
	v := f.path.lookup(ev)
	if f.equals != nil {
		v = normalizeScalar(v)
		for _, want := range f.equals {
			if scalarEqual(v, want) {
				return true
			}
		}
		return false
	}
	return v
}

func (r *mapRule) text(field string, ev any) string {
	f := r.fields[field]
	if f == nil {
		return ""
	}
	return textValue(f.value(ev))
}

func (r *mapRule) result(ev any) any {
	f := r.fields["result"]
	if f == nil {
		return nil
	}
	v := f.value(ev)
	if list, ok := v.([]any); ok {
		if s, ok := textBlocks(list); ok {
			return s
		}
	}
	return v
}

// success is true when the rule maps none (the result arrived), else the mapped value read as
// a boolean.
func (r *mapRule) success(ev any) bool {
	f := r.fields["success"]
	if f == nil {
		return true
	}
	switch v := f.value(ev).(type) {
	case bool:
		return v
	case string:
		b, err := strconv.ParseBool(v)
		return err == nil && b
	case float64:
		return v != 0
	}
	return false
}

// textValue renders a value as text: strings as they are, arrays of text blocks joined, other
// values as JSON.
func textValue(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case []any:
		if s, ok := textBlocks(t); ok {
			return s
		}
	}
	return stringOf(v)
}

func textBlocks(list []any) (string, bool) {
	if len(list) == 0 {
		return "", false
	}
	parts := make([]string, 0, len(list))
	for _, item := range list {
		obj, ok := item.(map[string]any)
		if !ok {
			return "", false
		}
		s, ok := obj["text"].(string)
		if !ok {
			return "", false
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "\n"), true
}

func floatValue(v any) float64 {
	switch t := v.(type) {
	case float64:
		return t
	case string:
		f, _ := strconv.ParseFloat(t, 64)
		return f
	case bool:
		if t {
			return 1
		}
	}
	return 0
}

func (p *commandParser) finish() (*results.AgentRun, error) {
	if p.cs.Output == "text" {
		out := p.text.String()
		if p.textCut > 0 {
			out += fmt.Sprintf("\n… [skillgate: truncated %d bytes]", p.textCut)
		}
		p.b.message(roleAssistant, out)
		p.b.setFinal(out)
	} else if p.cs.RequireFinal && !p.sawFinal {
		p.b.fail("the output ended before its final event (require_final)")
	}
	return p.b.run()
}
