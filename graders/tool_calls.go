package graders

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:    "tool_calls",
		Summary: "Checks the agent's tool calls against regular expressions that must or must not match, and limits their number.",
		Config:  newConfig[toolCallsConfig],
		Compile: compileToolCalls,
	})
}

type toolCallsConfig struct {
	Required  []*spec.Value `yaml:"required"` // each {pattern: …} or a plain pattern string
	Forbidden []*spec.Value `yaml:"forbidden"`
	MaxCalls  int           `yaml:"max_calls"`
}

type toolCallPattern struct {
	Pattern string `yaml:"pattern"`
}

type toolCallsGrader struct {
	def          *spec.Grader
	maxCalls     int
	required     []*pattern
	forbidden    []*pattern
	requiredSrc  []string
	forbiddenSrc []string
	checks       int
}

func compileToolCalls(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[toolCallsConfig](def)
	g := &toolCallsGrader{def: def, maxCalls: cfg.MaxCalls}
	g.checks = len(cfg.Required) + len(cfg.Forbidden)
	if cfg.MaxCalls > 0 {
		g.checks++
	}
	if g.checks == 0 {
		return nothingToCheck(def, "required", "forbidden", "max_calls (> 0)")
	}
	var diags spec.Diagnostics
	compile := func(items []*spec.Value, key string) ([]*pattern, []string) {
		out := make([]*pattern, 0, len(items))
		srcs := make([]string, 0, len(items))
		for i, item := range items {
			var p toolCallPattern
			switch {
			case item.IsScalar():
				if !item.IsNull() {
					p.Pattern = item.Text()
				}
			case item.IsMapping():
				if ds := def.DecodeValue(item, &p, key, i); len(ds) > 0 {
					diags = append(diags, ds...)
					continue
				}
			default:
				diags = append(diags, spec.Errorf(item.Pos(), spec.KeyPath("config", key, i), "write a pattern string or {pattern: …}",
					"grader %q: %s[%d] must be a pattern or a mapping, not %s", def.Name, key, i, item.Describe()))
				continue
			}
			if p.Pattern == "" {
				diags = append(diags, spec.Errorf(item.Pos(), spec.KeyPath("config", key, i, "pattern"),
					"add `pattern: <regular expression>`", "grader %q: %s[%d] has no pattern", def.Name, key, i))
				continue
			}
			path := []any{key, i}
			if item.IsMapping() {
				path = append(path, "pattern")
			}
			re, d := compilePattern(def, 0, p.Pattern, path...)
			if d != nil {
				diags = append(diags, *d)
				continue
			}
			out = append(out, re)
			srcs = append(srcs, p.Pattern)
		}
		return out, srcs
	}
	g.required, g.requiredSrc = compile(cfg.Required, "required")
	g.forbidden, g.forbiddenSrc = compile(cfg.Forbidden, "forbidden")
	if diags.HasErrors() {
		return nil, diags
	}
	return g, nil
}

// callTexts returns the texts a tool_calls pattern is matched against for one call: the call
// rendered as `name {arguments as JSON}` and, for shell-like tools, the command line as recorded
// and as the agent meant it (the run's normalized command: `bash -lc 'rm -rf x'` is `rm -rf x`),
// so an anchored pattern matches on every agent.
func callTexts(c results.ToolCall) []string {
	texts := []string{renderCall(c)}
	if cmd := commandArgument(c.Arguments); cmd != "" {
		texts = append(texts, cmd)
	}
	if c.Command != "" {
		texts = append(texts, c.Command)
	}
	return texts
}

func renderCall(c results.ToolCall) string {
	var buf bytes.Buffer
	buf.WriteString(c.Name)
	buf.WriteByte(' ')
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	args := c.Arguments
	if args == nil {
		args = map[string]any{}
	}
	if err := enc.Encode(args); err != nil {
		fmt.Fprintf(&buf, "%v", args)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// commandArgument is the command line of a shell-like call as the agent wrote it (no shell
// wrapper unwrapped, unlike the digest's Command): an argv list is joined with spaces.
func commandArgument(args map[string]any) string {
	line, argv := results.CommandArgument(args)
	if argv != nil {
		return strings.Join(argv, " ")
	}
	return line
}

func (g *toolCallsGrader) Grade(_ context.Context, in *Input) (*results.GraderResult, error) {
	run := runOf(in)
	calls := toolCalls(run)
	texts := make([][]string, len(calls))
	for i, c := range calls {
		texts[i] = callTexts(c)
	}
	firstMatch := func(re *pattern) int {
		for i, ts := range texts {
			for _, t := range ts {
				if re.MatchString(t) {
					return i
				}
			}
		}
		return -1
	}
	var failures []string
	for i, re := range g.required {
		if firstMatch(re) < 0 {
			failures = append(failures, "Required tool call not found: "+g.requiredSrc[i])
		}
	}
	for i, re := range g.forbidden {
		if at := firstMatch(re); at >= 0 {
			failures = append(failures, fmt.Sprintf("Forbidden tool call found: %s (call %d: %s)", g.forbiddenSrc[i], at+1, truncate(texts[at][0], 200)))
		}
	}
	count := toolCallCount(run)
	if g.maxCalls > 0 && count > g.maxCalls {
		failures = append(failures, fmt.Sprintf("Tool call count %d exceeds max allowed %d", count, g.maxCalls))
	}
	details := map[string]any{
		"required":        g.requiredSrc,
		"forbidden":       g.forbiddenSrc,
		"max_calls":       g.maxCalls,
		"tool_call_count": count,
		"tools_used":      orEmpty(toolsUsed(run)),
	}
	return checkResult(g.def, g.checks, failures, "All tool call checks passed", details), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
