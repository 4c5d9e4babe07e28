package spec

import (
	"path/filepath"

	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/internal/glob"
	"github.com/skillgate/skillgate/internal/regex"
)

// DefaultTriggerToolCalls is how many tool calls a trigger prompt may make without invoking the
// skill before it counts as not triggered (docs/format.md#early-stop).
const DefaultTriggerToolCalls = 3

// EarlyStop says when an agent may be stopped because the run's outcome is known
// (docs/format.md#early-stop). The zero value never stops.
type EarlyStop struct {
	// SkillCall stops once this skill is invoked ("*": any skill).
	SkillCall string
	// ToolCallCount stops after this many tool calls (0: no limit).
	ToolCallCount int
	// OutputMatches stops once an assistant message matches it.
	OutputMatches *regex.Regexp
	Pos           Pos
}

// Any reports whether any condition is set.
func (e *EarlyStop) Any() bool {
	return e != nil && (e.SkillCall != "" || e.ToolCallCount > 0 || e.OutputMatches != nil)
}

// Price is one model's price in US dollars per million tokens (config.pricing).
type Price struct {
	Input, Output, CacheRead, CacheWrite float64
}

// readSpendConfig reads the config keys about what runs cost and whether they run at all:
// cache, cache_inputs, trigger_early_stop, pricing, max_tokens, max_cost.
func (l *loader) readSpendConfig(ctx *fileCtx, cfg *yaml.Node, c *Config) {
	if v, ok := boolOf(get(cfg, "cache")); ok {
		c.Cache = &v
	}
	if n := get(cfg, "cache_inputs"); isSequence(n) {
		for i, item := range n.Content {
			p, ok := stringOf(item)
			if !ok || p == "" {
				continue // the schema reports it
			}
			if err := glob.Validate(filepath.ToSlash(p)); err != nil {
				// A pattern that cannot be read cannot say what the agent reads: no run may be
				// reused on its strength.
				l.add(Warnf(ctx.pos(item), ctx.key("cache_inputs", i), "fix the pattern (docs/format.md#the-run-cache)",
					"%q is not a valid glob (%v): the run cache is off for this suite", p, err))
				off := false
				c.Cache = &off
				continue
			}
			c.CacheInputs = append(c.CacheInputs, p)
		}
	}
	if n := get(cfg, "trigger_early_stop"); n != nil {
		if on, ok := boolOf(n); ok && !on {
			c.TriggerEarlyStop = nil
		} else if isMapping(n) && c.TriggerEarlyStop != nil {
			c.TriggerEarlyStop.Pos = ctx.pos(n)
			if v, ok := intOf(get(n, "tool_call_count")); ok && v >= 0 {
				c.TriggerEarlyStop.ToolCallCount = v
			}
		}
	}
	if p := get(cfg, "pricing"); isMapping(p) {
		c.Pricing = map[string]Price{}
		for i := 0; i+1 < len(p.Content); i += 2 {
			m := p.Content[i+1]
			var pr Price
			pr.Input, _ = floatOf(get(m, "input"))
			pr.Output, _ = floatOf(get(m, "output"))
			pr.CacheRead, _ = floatOf(get(m, "cache_read"))
			pr.CacheWrite, _ = floatOf(get(m, "cache_write"))
			c.Pricing[p.Content[i].Value] = pr
		}
	}
	if v, ok := intOf(get(cfg, "max_tokens")); ok && v > 0 {
		c.MaxTokens = int64(v)
	}
	if v, ok := floatOf(get(cfg, "max_cost")); ok && v > 0 {
		c.MaxCostUSD = v
	}
}

// readEarlyStop reads a task's early_stop mapping (nil when absent).
func readEarlyStop(ctx *fileCtx, m *yaml.Node, skill string) (*EarlyStop, []Diagnostic) {
	n := get(m, "early_stop")
	if !isMapping(n) {
		return nil, nil
	}
	e := &EarlyStop{Pos: ctx.pos(n)}
	if sc := get(n, "skill_call"); sc != nil {
		if on, ok := boolOf(sc); ok {
			if on {
				e.SkillCall = skill
				if skill == "" {
					e.SkillCall = "*"
				}
			}
		} else if name, ok := stringOf(sc); ok {
			e.SkillCall = name
		}
	}
	if v, ok := intOf(get(n, "tool_call_count")); ok && v > 0 {
		e.ToolCallCount = v
	}
	var diags []Diagnostic
	if om := get(n, "output_matches"); om != nil {
		if expr, ok := stringOf(om); ok && expr != "" {
			re, err := regex.Compile(expr, regex.RE2, 0)
			if err != nil {
				diags = append(diags, Errorf(ctx.pos(om), ctx.key("early_stop", "output_matches"), "write a Go (RE2) regular expression",
					"early_stop.output_matches is not a valid regular expression: %v", err))
			} else {
				e.OutputMatches = re
			}
		}
	}
	if !e.Any() {
		return nil, diags
	}
	return e, diags
}
