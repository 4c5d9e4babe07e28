package runner

import (
	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// stopRule is the early-stop rule and budget of a task's runs (nil: run to the end).
func (r *suiteRun) stopRule(es *spec.EarlyStop) *agent.StopRule {
	rule := r.budget()
	if es.Any() {
		if rule == nil {
			rule = &agent.StopRule{}
		}
		rule.SkillCall, rule.ToolCallCount, rule.OutputMatches = es.SkillCall, es.ToolCallCount, es.OutputMatches
	}
	return rule
}

// triggerStopRule stops a trigger prompt once it is decided: the skill under test was invoked
// (triggered), or the tool call limit passed without it (not triggered); a final answer ends
// the run anyway.
func (r *suiteRun) triggerStopRule(skill string) *agent.StopRule {
	es := r.suite.Config.TriggerEarlyStop
	if !es.Any() {
		return r.budget()
	}
	return r.stopRule(&spec.EarlyStop{SkillCall: skill, ToolCallCount: es.ToolCallCount})
}

// budget is the per-run budget (config.max_tokens, config.max_cost), nil without one.
func (r *suiteRun) budget() *agent.StopRule {
	c := r.suite.Config
	if c.MaxTokens <= 0 && c.MaxCostUSD <= 0 {
		return nil
	}
	pricing, model := r.pricing(), r.model()
	return &agent.StopRule{
		MaxTokens: c.MaxTokens, MaxCostUSD: c.MaxCostUSD,
		Cost: func(u *results.Usage) (float64, bool) { return results.RunCost(u, model, pricing) },
	}
}

// pricing is config.pricing as the results record it.
func (r *suiteRun) pricing() map[string]results.Price {
	if len(r.suite.Config.Pricing) == 0 {
		return nil
	}
	out := make(map[string]results.Price, len(r.suite.Config.Pricing))
	for model, p := range r.suite.Config.Pricing {
		out[model] = results.Price{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite}
	}
	return out
}

// judgesInvocations are the grader types that look only at which skills and tools the agent
// used, which a run stopped early shows as well as a full one.
var judgesInvocations = map[string]bool{
	"skill_invocation": true, "trigger": true, "tool_calls": true, "tool_constraint": true,
	"action_sequence": true,
}

// noteStoppedEarly tells, in a grader's feedback, that it judged a run stopped before the agent
// finished, when the grader needs the full run to mean what it says.
func noteStoppedEarly(def *spec.Grader, run *results.RunResult, res *results.GraderResult) {
	if run.StoppedEarly == "" || judgesInvocations[def.Type] {
		return
	}
	note := "the run was stopped early (" + run.StoppedEarly + "): this grader judged the partial run"
	if res.Feedback == "" {
		res.Feedback = note
	} else {
		res.Feedback += " (" + note + ")"
	}
}
