package results

import (
	"math"
	"testing"
	"time"
)

func TestRunCost(t *testing.T) {
	pricing := map[string]Price{
		"m":     {Input: 3, Output: 15, CacheRead: 0.3},
		"other": {Input: 1, Output: 1},
	}
	cases := []struct {
		name   string
		usage  *Usage
		model  string
		want   float64
		wantOK bool
	}{
		{"no usage", nil, "m", 0, false},
		{"the agent's own cost wins", &Usage{InputTokens: 1e6, CostUSD: 0.5}, "m", 0.5, true},
		// 1M input of which 400k cached reads: 600k at 3, 400k at 0.3, 100k output at 15.
		{"cached input priced at the cache rate", &Usage{InputTokens: 1e6, CacheReadTokens: 4e5, OutputTokens: 1e5}, "m", 1.8 + 0.12 + 1.5, true},
		{"cache writes default to the input price", &Usage{InputTokens: 1e6, CacheWriteTokens: 1e6}, "m", 3, true},
		{"per-model usage", &Usage{InputTokens: 2e6, ModelMetrics: map[string]*ModelUsage{"m": {InputTokens: 1e6}, "other": {InputTokens: 1e6}}}, "x", 4, true},
		{"unpriced model", &Usage{InputTokens: 1e6}, "unknown", 0, false},
	}
	for _, c := range cases {
		got, ok := RunCost(c.usage, c.model, pricing)
		if ok != c.wantOK || math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: cost %g %v, want %g %v", c.name, got, ok, c.want, c.wantOK)
		}
	}
}

func TestSummarizeSpend(t *testing.T) {
	when := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	run := func(key string, reused bool, stopped string, in int64) *RunResult {
		r := &RunResult{Status: StatusPassed, RunKey: key, AgentRun: AgentRun{DurationMS: 1000, StoppedEarly: stopped,
			SessionDigest: SessionDigest{Usage: &Usage{InputTokens: in, CacheReadTokens: in / 2, OutputTokens: 10}}}}
		if reused {
			r.Reused = &Reuse{Key: key, Commit: "base", RecordedAt: when}
		}
		return r
	}
	s := &SuiteResult{
		Config: RunConfig{ModelID: "m", Pricing: map[string]Price{"m": {Input: 1e6, Output: 1e6, CacheRead: 1e6}}},
		Tasks: []*TaskResult{
			{ID: "a", Runs: []*RunResult{run("k1", true, "", 100), run("k2", true, "", 100)}},
			{ID: "b", Runs: []*RunResult{run("k3", false, "", 200)}},
		},
		TriggerResults: []*TriggerResult{{ID: "t", DurationMS: 500, StoppedEarly: "skill_call", Usage: &Usage{InputTokens: 50}}},
	}
	for _, task := range s.Tasks {
		task.Finish()
	}
	Summarize(s)
	sp := s.Summary.Spend
	want := Spend{Runs: 4, Reused: 2, StoppedEarly: 1, InputTokens: 450, CachedTokens: 200, OutputTokens: 30,
		CostUSD: 480, SpentUSD: 260, Priced: 4, AgentMS: 1500, ReusedMS: 2000, ReusedFrom: []string{"base"}}
	if sp == nil || sp.Runs != want.Runs || sp.Reused != want.Reused || sp.StoppedEarly != want.StoppedEarly ||
		sp.InputTokens != want.InputTokens || sp.CachedTokens != want.CachedTokens || sp.OutputTokens != want.OutputTokens ||
		sp.CostUSD != want.CostUSD || sp.SpentUSD != want.SpentUSD || sp.Priced != want.Priced ||
		sp.AgentMS != want.AgentMS || sp.ReusedMS != want.ReusedMS || len(sp.ReusedFrom) != 1 {
		t.Errorf("spend %+v\nwant  %+v", sp, want)
	}
	if a := s.Tasks[0].Spend; a == nil || a.Runs != 2 || a.Reused != 2 || a.Executed() != 0 {
		t.Errorf("task a spend %+v", a)
	}
	base := &SuiteResult{Tasks: []*TaskResult{
		{ID: "a", Runs: []*RunResult{run("k2", false, "", 1), run("k1", false, "", 1)}},
		{ID: "b", Runs: []*RunResult{run("old", false, "", 1)}},
	}}
	if got := UnchangedTasks(base, s); len(got) != 1 || got[0] != "a" {
		t.Errorf("unchanged tasks %v, want [a]", got)
	}
	Summarize(base)
	if d, ok := CompareSpend(base.Summary.Spend, sp); !ok || d.Tokens != 480-33 {
		t.Errorf("delta %+v %v", d, ok)
	}
}

// Runs whose agent reported no token counts are counted as unknown, never as 0 tokens; a run that
// reported output but no input has its input unknown; the mock executor's runs spend nothing.
func TestSpendCountsUnknownTokens(t *testing.T) {
	run := func(u *Usage, stopped string) *RunResult {
		return &RunResult{Status: StatusPassed, AgentRun: AgentRun{StoppedEarly: stopped, SessionDigest: SessionDigest{Usage: u}}}
	}
	suite := func(executor string) *SuiteResult {
		s := &SuiteResult{Config: RunConfig{EngineType: executor}, Tasks: []*TaskResult{{ID: "a", Runs: []*RunResult{
			run(&Usage{InputTokens: 100, OutputTokens: 10}, ""),
			run(nil, ""),                     // Copilot CLI with a provider of its own
			run(nil, "skill_call"),           // an early-stopped Gemini CLI
			run(&Usage{OutputTokens: 7}, ""), // Copilot CLI signed in to GitHub
			run(&Usage{Turns: 1}, ""),        // a failed call that reported 0 tokens: known
		}}}, TriggerResults: []*TriggerResult{{ID: "t"}}}
		s.Tasks[0].Finish()
		Summarize(s)
		return s
	}
	sp := suite("gemini").Summary.Spend
	if sp.UnknownTokenRuns != 3 || sp.UnknownInputRuns != 1 || sp.InputTokens != 100 || sp.OutputTokens != 17 || sp.TokensComplete() {
		t.Errorf("spend %+v", sp)
	}
	if both := CombineSpend(sp, sp); both.UnknownTokenRuns != 6 || both.UnknownInputRuns != 2 {
		t.Errorf("combined %+v", both)
	}
	if mock := suite("mock").Summary.Spend; mock.UnknownTokenRuns != 0 || mock.UnknownInputRuns != 1 {
		t.Errorf("mock spend %+v", mock)
	}
}
