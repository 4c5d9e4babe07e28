package report

import (
	"sort"

	"github.com/skillgate/skillgate/results"
)

// pool is the earlier base runs a comparison may pool trials from
// (docs/statistics.md#remembering-the-base): a task's trials in an earlier run count with the
// baseline's when its PoolKey there equals the baseline's, that is when the task, its graders,
// the skills, the executor and the model were the same.
type pool struct {
	records []*results.BaseRecord
	counts  []int // tasks and prompts pooled from each record
}

// newPool keeps the records that are not the baseline itself, newest first.
func newPool(base *results.SuiteResult, history []*results.BaseRecord) *pool {
	p := &pool{}
	seen := map[string]bool{}
	for _, r := range history {
		if r == nil || r.Same(base) {
			continue
		}
		id := r.EvalID + "\x00" + r.Timestamp.String()
		if seen[id] {
			continue
		}
		seen[id] = true
		p.records = append(p.records, r)
	}
	sort.SliceStable(p.records, func(i, j int) bool { return p.records[i].Timestamp.After(p.records[j].Timestamp) })
	p.counts = make([]int, len(p.records))
	return p
}

// task returns the pooled trials of a task whose key is key, and from how many runs.
func (p *pool) task(id, key string) (results.TrialCounts, int) {
	return p.collect(key, func(r *results.BaseRecord) (results.TrialCounts, bool) {
		c, ok := r.Tasks[id]
		return c, ok
	})
}

// prompt returns the pooled trials of a trigger prompt.
func (p *pool) prompt(id, key string) (results.TrialCounts, int) {
	return p.collect(key, func(r *results.BaseRecord) (results.TrialCounts, bool) {
		c, ok := r.Prompts[id]
		return c, ok
	})
}

func (p *pool) collect(key string, get func(*results.BaseRecord) (results.TrialCounts, bool)) (results.TrialCounts, int) {
	var sum results.TrialCounts
	runs := 0
	if key == "" {
		return sum, 0
	}
	for i, r := range p.records {
		c, ok := get(r)
		if !ok || c.Key != key || c.Trials <= 0 || c.Passed < 0 || c.Passed > c.Trials {
			continue
		}
		sum.Trials += c.Trials
		sum.Passed += c.Passed
		sum.ScoreSum += c.ScoreSum
		runs++
		p.counts[i]++
	}
	sum.Key = key
	return sum, runs
}

// used lists the records something was pooled from.
func (p *pool) used() []PooledRun {
	var out []PooledRun
	for i, r := range p.records {
		if p.counts[i] > 0 {
			out = append(out, PooledRun{EvalID: r.EvalID, Commit: r.Commit, Timestamp: r.Timestamp, Tasks: p.counts[i]})
		}
	}
	return out
}

// comparePrompts compares each trigger prompt present on both sides like a task: a trial
// "passes" when the skill triggered as the prompt expects (an errored trial does not).
func comparePrompts(base, head *results.SuiteResult, p *pool, deterministic bool) []*TaskComparison {
	if base == nil || len(head.TriggerResults) == 0 || len(base.TriggerResults) == 0 {
		return nil
	}
	baseCounts := results.PromptCounts(base, base.TriggerResults)
	headCounts := results.PromptCounts(head, head.TriggerResults)
	var out []*TaskComparison
	for _, t := range sampleTriggers(head.TriggerResults) {
		h, ok := headCounts[t.id]
		b, inBase := baseCounts[t.id]
		if !ok || !inBase {
			continue
		}
		u := &TaskComparison{ID: t.id, Name: t.prompt, Source: t.source, Status: TaskPaired}
		u.Base = TaskSide{Trials: b.Trials, Passed: b.Passed, Status: pooledStatus(b)}
		u.Head = TaskSide{Trials: h.Trials, Passed: h.Passed, Status: pooledStatus(h)}
		br, hr := float64(b.Passed)/float64(b.Trials), float64(h.Passed)/float64(h.Trials)
		u.PassRateDelta = ptr(hr - br)
		e := &Evidence{BasePassed: b.Passed, BaseTrials: b.Trials, BaseRuns: 1, HeadPassed: h.Passed, HeadTrials: h.Trials, Deterministic: deterministic}
		if b.Key != "" {
			if extra, runs := p.prompt(t.id, b.Key); runs > 0 {
				e.BasePassed += extra.Passed
				e.BaseTrials += extra.Trials
				e.BaseRuns += runs
			}
		}
		for _, tr := range head.TriggerConfirmations {
			switch {
			case tr == nil || tr.ID != t.id:
			case tr.ErrorMsg != "":
				e.ConfirmErrors++
			default:
				e.ConfirmTrials++
				if tr.DidTrigger == tr.ShouldTrigger {
					e.ConfirmPassed++
				}
			}
		}
		e.HeadPassed += e.ConfirmPassed
		e.HeadTrials += e.ConfirmTrials
		u.Evidence = e
		out = append(out, u)
	}
	return out
}
