package graders

import (
	"context"
	"fmt"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:    "behavior",
		Summary: "Bounds the run's behaviour: tool calls, tokens, duration, required and forbidden tools.",
		Config:  newConfig[behaviorConfig],
		Compile: compileBehavior,
	})
}

type behaviorConfig struct {
	MaxToolCalls   int      `yaml:"max_tool_calls"`
	MaxTokens      int64    `yaml:"max_tokens"`
	MaxDurationMS  int64    `yaml:"max_duration_ms"`
	RequiredTools  []string `yaml:"required_tools"`
	ForbiddenTools []string `yaml:"forbidden_tools"`
	// SkipIfNoDigest skips the grader (it counts in no score) on runs that recorded no session
	// digest — no transcript, tool calls, usage or session id, as with the mock executor — where
	// every limit would pass vacuously.
	SkipIfNoDigest bool `yaml:"skip_if_no_digest"`
}

type behaviorGrader struct {
	def    *spec.Grader
	cfg    behaviorConfig
	checks int
}

// noUsageNote explains a max_tokens check that passed because the agent reported no usage.
const noUsageNote = "the agent reported no token usage, so the max_tokens check passed"

func compileBehavior(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[behaviorConfig](def)
	g := &behaviorGrader{def: def, cfg: cfg}
	for _, set := range []bool{cfg.MaxToolCalls > 0, cfg.MaxTokens > 0, cfg.MaxDurationMS > 0} {
		if set {
			g.checks++
		}
	}
	g.checks += len(cfg.RequiredTools) + len(cfg.ForbiddenTools)
	if g.checks == 0 {
		return nothingToCheck(def, "max_tool_calls (> 0)", "max_tokens (> 0)", "max_duration_ms (> 0)", "required_tools", "forbidden_tools")
	}
	return g, nil
}

func (g *behaviorGrader) Grade(_ context.Context, in *Input) (*results.GraderResult, error) {
	run := runOf(in)
	if g.cfg.SkipIfNoDigest && !hasDigest(run) {
		return skipped(g.def, "Skipped: the run recorded no session digest (skip_if_no_digest)"), nil
	}
	count := toolCallCount(run)
	used := toolsUsed(run)
	set := make(map[string]bool, len(used))
	for _, t := range used {
		set[t] = true
	}
	// A tool is named as the agent names it or by its canonical kind (required_tools: [shell]).
	for _, c := range toolCalls(run) {
		if c.Kind != "" {
			set[c.Kind] = true
		}
	}
	tokens, haveUsage := totalTokens(run)

	var failures []string
	if g.cfg.MaxToolCalls > 0 && count > g.cfg.MaxToolCalls {
		failures = append(failures, fmt.Sprintf("Tool call count %d exceeds max allowed %d", count, g.cfg.MaxToolCalls))
	}
	if g.cfg.MaxTokens > 0 && haveUsage && tokens > g.cfg.MaxTokens {
		failures = append(failures, fmt.Sprintf("Token usage %d exceeds max allowed %d", tokens, g.cfg.MaxTokens))
	}
	for _, t := range g.cfg.RequiredTools {
		if !set[t] {
			failures = append(failures, "Required tool not used: "+t)
		}
	}
	for _, t := range g.cfg.ForbiddenTools {
		if set[t] {
			failures = append(failures, "Forbidden tool was used: "+t)
		}
	}
	if g.cfg.MaxDurationMS > 0 && run.DurationMS > g.cfg.MaxDurationMS {
		failures = append(failures, fmt.Sprintf("Duration %dms exceeds max allowed %dms", run.DurationMS, g.cfg.MaxDurationMS))
	}

	details := map[string]any{
		"max_tool_calls":  g.cfg.MaxToolCalls,
		"max_tokens":      g.cfg.MaxTokens,
		"required_tools":  g.cfg.RequiredTools,
		"forbidden_tools": g.cfg.ForbiddenTools,
		"max_duration_ms": g.cfg.MaxDurationMS,
		"tool_call_count": count,
		"tools_used":      orEmpty(used),
		"actual_duration": run.DurationMS,
	}
	if haveUsage {
		details["tokens_total"] = tokens
	} else if g.cfg.MaxTokens > 0 {
		details["max_tokens_note"] = noUsageNote
	}
	return checkResult(g.def, g.checks, failures, "All behavior checks passed", details), nil
}
