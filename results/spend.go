package results

import (
	"sort"
	"time"
)

// Price is what a model costs, in US dollars per million tokens (config.pricing,
// docs/results.md#spend).
type Price struct {
	Input      float64 `json:"input" yaml:"input"`
	Output     float64 `json:"output" yaml:"output"`
	CacheRead  float64 `json:"cache_read,omitempty" yaml:"cache_read"`
	CacheWrite float64 `json:"cache_write,omitempty" yaml:"cache_write"`
}

// Reuse says where a run that was not executed came from (the run cache).
type Reuse struct {
	Key string `json:"key"`
	// Commit is the commit whose run recorded it, when known (a seeded baseline artifact).
	Commit string `json:"commit,omitempty"`
	// RecordedAt is when the agent actually ran; reuse never makes a run younger.
	RecordedAt time.Time `json:"recorded_at"`
}

// Spend is what a set of agent runs cost and how many of them were executed.
type Spend struct {
	// Runs counts every agent run (task trials and trigger prompts); Reused of them came from
	// the run cache, StoppedEarly were stopped once their outcome was known.
	Runs         int `json:"runs"`
	Reused       int `json:"reused"`
	StoppedEarly int `json:"stopped_early,omitempty"`
	// Confirmations counts the runs of Runs that confirmed a task or trigger prompt looking worse
	// than on its baseline (TaskResult.Confirmations).
	Confirmations int `json:"confirmations,omitempty"`
	// Tokens of every run, reused or not: what the results represent, comparable with a base.
	// InputTokens counts every prompt token; CachedTokens is the part of them read from or
	// written to the prompt cache (docs/agents.md#the-recorded-run).
	InputTokens  int64 `json:"input_tokens"`
	CachedTokens int64 `json:"cached_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	// UnknownTokenRuns counts the runs whose agent reported no token counts (Copilot CLI with a
	// provider of your own; Codex and Gemini CLI stopped early): their tokens are
	// unknown, not 0, and are in none of the token figures. UnknownInputRuns counts the runs that
	// reported output tokens but no input (Copilot CLI signed in to GitHub): InputTokens leaves
	// their input out.
	UnknownTokenRuns int `json:"unknown_token_runs,omitempty"`
	UnknownInputRuns int `json:"unknown_input_runs,omitempty"`
	// CostUSD is the agents' own cost figure where they report one, else the estimate from the
	// price table; Priced runs had either. SpentUSD is the part of CostUSD that executed runs
	// cost now (reused runs cost nothing again).
	CostUSD  float64 `json:"cost_usd,omitempty"`
	SpentUSD float64 `json:"spent_usd,omitempty"`
	Priced   int     `json:"priced,omitempty"`
	// AgentMS is the agent time of executed runs; ReusedMS what the reused runs took when
	// they were recorded (time saved).
	AgentMS  int64 `json:"agent_duration_ms"`
	ReusedMS int64 `json:"reused_duration_ms,omitempty"`
	// ReusedFrom lists the commits reused runs were recorded at, sorted.
	ReusedFrom []string `json:"reused_from,omitempty"`
}

// Executed is the number of runs that ran an agent.
func (s *Spend) Executed() int { return s.Runs - s.Reused }

// Tokens is input and output tokens together (cached tokens are part of the input).
func (s *Spend) Tokens() int64 { return s.InputTokens + s.OutputTokens }

// TokensComplete reports whether every run reported its token counts, so the token figures are
// the runs' whole usage rather than a lower bound.
func (s *Spend) TokensComplete() bool { return s.UnknownTokenRuns == 0 && s.UnknownInputRuns == 0 }

// noAgentExecutor runs no agent, so its runs spend nothing: a run without usage is a known 0.
const noAgentExecutor = "mock"

// InputUnknown reports whether a usage has output tokens but no input tokens: every model call
// reads a prompt, so the agent did not report its input (Copilot CLI's stream has output counts
// only).
func (u *Usage) InputUnknown() bool { return u != nil && u.InputTokens == 0 && u.OutputTokens > 0 }

// RunCost is a run's cost in dollars: the agent's own figure when it reports one, else the
// estimate from the price table for the models it used (model when the usage names none). ok is
// false when neither is known.
func RunCost(u *Usage, model string, pricing map[string]Price) (cost float64, ok bool) {
	if u == nil {
		return 0, false
	}
	if u.CostUSD > 0 {
		return u.CostUSD, true
	}
	if len(u.ModelMetrics) > 0 {
		priced := false
		for name, m := range u.ModelMetrics {
			if m.CostUSD > 0 {
				cost += m.CostUSD
				priced = true
				continue
			}
			if p, found := pricing[name]; found {
				cost += price(p, m.InputTokens, m.CacheReadTokens, m.CacheWriteTokens, m.OutputTokens)
				priced = true
			}
		}
		if priced {
			return cost, true
		}
	}
	p, found := pricing[model]
	if !found {
		return 0, false
	}
	return price(p, u.InputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.OutputTokens), true
}

// price is the cost of a usage; input counts cached tokens too (docs/agents.md#the-recorded-run),
// which are priced at the cache's rates instead.
func price(p Price, input, cacheRead, cacheWrite, output int64) float64 {
	cw := p.CacheWrite
	if cw == 0 {
		cw = p.Input
	}
	uncached := max(input-cacheRead-cacheWrite, 0)
	return (float64(uncached)*p.Input + float64(cacheRead)*p.CacheRead + float64(cacheWrite)*cw + float64(output)*p.Output) / 1e6
}

// spendAcc accumulates a Spend.
type spendAcc struct {
	Spend
	commits map[string]bool
}

func (a *spendAcc) add(u *Usage, durationMS int64, reused *Reuse, stopped string, model string, pricing map[string]Price, agent bool) {
	a.Runs++
	if stopped != "" {
		a.StoppedEarly++
	}
	switch {
	case u == nil:
		if agent {
			a.UnknownTokenRuns++
		}
	default:
		if u.InputUnknown() {
			a.UnknownInputRuns++
		}
		a.InputTokens += u.InputTokens
		a.CachedTokens += u.CacheReadTokens + u.CacheWriteTokens
		a.OutputTokens += u.OutputTokens
	}
	cost, ok := RunCost(u, model, pricing)
	if ok {
		a.Priced++
		a.CostUSD += cost
	}
	if reused != nil {
		a.Reused++
		a.ReusedMS += durationMS
		if reused.Commit != "" {
			if a.commits == nil {
				a.commits = map[string]bool{}
			}
			a.commits[reused.Commit] = true
		}
		return
	}
	a.SpentUSD += cost
	a.AgentMS += durationMS
}

func (a *spendAcc) result() *Spend {
	s := a.Spend
	for c := range a.commits {
		s.ReusedFrom = append(s.ReusedFrom, c)
	}
	sort.Strings(s.ReusedFrom)
	return &s
}

// addTaskSpend sets a task's spend (its trials and confirmations) and adds its runs to suite,
// the suite's (nil: the task's spend alone).
func addTaskSpend(s *SuiteResult, t *TaskResult, suite *spendAcc) {
	model, agent := s.Config.ModelID, s.Config.EngineType != noAgentExecutor
	var task spendAcc
	accs := []*spendAcc{&task, suite}
	if suite == nil {
		accs = accs[:1]
	}
	for _, r := range t.Runs {
		for _, acc := range accs {
			acc.add(r.SessionDigest.Usage, r.DurationMS, r.Reused, r.StoppedEarly, model, s.Config.Pricing, agent)
		}
	}
	for _, r := range t.Confirmations {
		for _, acc := range accs {
			acc.add(r.SessionDigest.Usage, r.DurationMS, r.Reused, r.StoppedEarly, model, s.Config.Pricing, agent)
			acc.Confirmations++
		}
	}
	t.Spend = nil
	if task.Runs > 0 {
		t.Spend = task.result()
	}
}

// suiteSpend is the suite's spend: its tasks' runs (added by addTaskSpend) and its trigger
// prompts'.
func suiteSpend(s *SuiteResult, a *spendAcc) *Spend {
	model, agent := s.Config.ModelID, s.Config.EngineType != noAgentExecutor
	for _, tr := range s.TriggerResults {
		a.add(tr.Usage, tr.DurationMS, tr.Reused, tr.StoppedEarly, model, s.Config.Pricing, agent)
	}
	for _, tr := range s.TriggerConfirmations {
		a.add(tr.Usage, tr.DurationMS, tr.Reused, tr.StoppedEarly, model, s.Config.Pricing, agent)
		a.Confirmations++
	}
	if a.Runs == 0 {
		return nil
	}
	return a.result()
}

// CombineSpend adds up spends (nil ones are skipped); nil when all are nil.
func CombineSpend(spends ...*Spend) *Spend {
	var out *Spend
	seen := map[string]bool{}
	for _, s := range spends {
		if s == nil {
			continue
		}
		if out == nil {
			out = &Spend{}
		}
		out.Runs += s.Runs
		out.Reused += s.Reused
		out.StoppedEarly += s.StoppedEarly
		out.Confirmations += s.Confirmations
		out.InputTokens += s.InputTokens
		out.CachedTokens += s.CachedTokens
		out.OutputTokens += s.OutputTokens
		out.UnknownTokenRuns += s.UnknownTokenRuns
		out.UnknownInputRuns += s.UnknownInputRuns
		out.CostUSD += s.CostUSD
		out.SpentUSD += s.SpentUSD
		out.Priced += s.Priced
		out.AgentMS += s.AgentMS
		out.ReusedMS += s.ReusedMS
		for _, c := range s.ReusedFrom {
			if !seen[c] {
				seen[c] = true
				out.ReusedFrom = append(out.ReusedFrom, c)
			}
		}
	}
	if out != nil {
		sort.Strings(out.ReusedFrom)
	}
	return out
}

// SpendDelta is head's spend against base's: the change in tokens and cost.
type SpendDelta struct {
	Tokens int64 `json:"tokens"`
	// Counted is set when every run of both sides reported its tokens, so Tokens means
	// something (a sum that leaves unknown runs out is no figure to compare).
	Counted bool    `json:"counted"`
	CostUSD float64 `json:"cost_usd"`
	// Costed is set when both sides have a cost for some runs, so CostUSD means something.
	Costed bool `json:"costed"`
}

// CompareSpend is head's tokens and cost against base's; ok is false when either side has no
// spend recorded.
func CompareSpend(base, head *Spend) (d SpendDelta, ok bool) {
	if base == nil || head == nil {
		return d, false
	}
	d.Tokens = head.Tokens() - base.Tokens()
	d.Counted = base.TokensComplete() && head.TokensComplete()
	d.CostUSD = head.CostUSD - base.CostUSD
	d.Costed = base.Priced > 0 && head.Priced > 0
	return d, true
}

// InputsUnchanged reports whether a task ran exactly the runs its base ran: every run of both
// has a run key and the keys are the same. Such a task's agent runs are the base's (reused or
// identical inputs), so any difference in its grade comes from the graders, not from noise.
func InputsUnchanged(base, head *TaskResult) bool {
	if base == nil || head == nil || len(base.Runs) == 0 || len(base.Runs) != len(head.Runs) {
		return false
	}
	keys := map[string]int{}
	for _, r := range base.Runs {
		if r.RunKey == "" {
			return false
		}
		keys[r.RunKey]++
	}
	for _, r := range head.Runs {
		if keys[r.RunKey] == 0 {
			return false
		}
		keys[r.RunKey]--
	}
	return true
}

// UnchangedTasks lists the ids of head's tasks whose inputs did not change against base
// (InputsUnchanged), in head's order.
func UnchangedTasks(base, head *SuiteResult) []string {
	if base == nil || head == nil {
		return nil
	}
	return UnchangedDigests(base.TaskDigests(), head.TaskDigests())
}

// UnchangedDigests is UnchangedTasks over the suites' digests.
func UnchangedDigests(base, head []TaskDigest) []string {
	byID := make(map[string]*TaskDigest, len(base))
	for i := range base {
		if base[i].flags&digestKeyed != 0 {
			byID[base[i].ID()] = &base[i]
		} else {
			delete(byID, base[i].ID()) // the last task of an id is the one compared
		}
	}
	var out []string
	for i := range head {
		d := &head[i]
		if d.InputsUnchanged(byID[d.ID()]) {
			out = append(out, d.ID())
		}
	}
	return out
}
