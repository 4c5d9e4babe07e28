package report

import (
	"context"
	"sort"
	"sync"

	"github.com/skillgate/skillgate/results"
)

// Confirming before blocking (docs/statistics.md#confirming-before-blocking). A task that looks
// worse on the head than on its base after one or a few trials may be unlucky. Before the
// verdict, such a task runs again on the head, one trial at a time, until its test decides:
// confirmed worse (significant for the pull request's family), or within the noise (even if
// every trial it may still get failed, it could not be significant). A trial that passes usually
// ends it. Confirmation trials are kept apart from the task's trials (TaskResult.Confirmations):
// they are drawn because the task failed, so they inform the test but no summary figure.

// ConfirmPair is one suite to confirm: its head results (confirmation trials are appended to
// them), its baseline and the earlier base runs pooled with it.
type ConfirmPair struct {
	Base    *results.SuiteResult
	Head    *results.SuiteResult
	History []*results.BaseRecord
}

// ConfirmUnit names one unit to run again: a task, or a trigger prompt.
type ConfirmUnit struct {
	// Pair is the index of the suite in the pairs given to Confirm.
	Pair   int
	ID     string
	Prompt bool
}

// Rerunner runs one more trial of a unit on the head and appends it to the head results: a
// task's to TaskResult.Confirmations, a prompt's to SuiteResult.TriggerConfirmations. It is
// called from several goroutines at once, never twice at once for the same suite and unit.
type Rerunner func(ctx context.Context, u ConfirmUnit) error

// ConfirmOutcome says what confirmation did.
type ConfirmOutcome struct {
	// Runs is the number of confirmation trials run; Rounds how many rounds of one trial per
	// open unit it took.
	Runs, Rounds int
	// Exhausted: the budget ran out while some unit was still open (it stays "unconfirmed").
	Exhausted bool
}

// Confirm runs confirmation trials until no unit of the pairs is open or budget trials have run.
// Each round gives every open unit one more trial (concurrently, at most workers at a time),
// most promising first when the budget cannot cover them all. A rerun error stops it; what ran
// is kept.
func Confirm(ctx context.Context, pairs []ConfirmPair, opts CompareOptions, budget, workers int, rerun Rerunner) (ConfirmOutcome, error) {
	var out ConfirmOutcome
	workers = max(1, workers)
	for budget > out.Runs {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		open := NextConfirmations(pairs, opts)
		if len(open) == 0 {
			return out, nil
		}
		if left := budget - out.Runs; len(open) > left {
			open = open[:left]
			out.Exhausted = true
		}
		out.Rounds++
		errs := make(chan error, len(open))
		sem := make(chan struct{}, workers)
		var wg sync.WaitGroup
		for _, u := range open {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				if err := rerun(ctx, u); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		out.Runs += len(open)
		close(errs)
		if err := <-errs; err != nil {
			return out, err
		}
	}
	out.Exhausted = out.Exhausted || len(NextConfirmations(pairs, opts)) > 0
	return out, nil
}

// NextConfirmations lists the units of the pairs open to confirmation, each due one more trial,
// most promising first: the next round. The family is the pairs' together, as Decide makes it.
func NextConfirmations(pairs []ConfirmPair, opts CompareOptions) []ConfirmUnit {
	open := openUnits(pairs, opts)
	out := make([]ConfirmUnit, len(open))
	for i, u := range open {
		out[i] = u.ConfirmUnit
	}
	return out
}

// openUnit is a unit that more head trials could decide, with how close it is.
type openUnit struct {
	ConfirmUnit
	best float64 // pBest with every allowed trial failing, relative to its threshold
}

// openUnits lists the units open to confirmation across the pairs, most promising first.
func openUnits(pairs []ConfirmPair, opts CompareOptions) []openUnit {
	opts.Resamples = 1
	var comps []*Comparison
	for _, p := range pairs {
		o := opts
		o.History = p.History
		c, err := Compare(p.Base, p.Head, o) // one resample: only the units' tables matter here
		if err != nil || c.NoBaseline {
			comps = append(comps, nil)
			continue
		}
		comps = append(comps, c)
	}
	f := newFamily(units(comps), opts.withDefaults())
	var out []openUnit
	add := func(i int, id string, prompt bool, e *Evidence) {
		if e == nil || f.state(*e) != stateOpen {
			return
		}
		best := e.pBest(max(0, f.maxConfirm-e.ConfirmTrials)) / f.threshold(*e)
		out = append(out, openUnit{ConfirmUnit{Pair: i, ID: id, Prompt: prompt}, best})
	}
	for i, c := range comps {
		if c == nil {
			continue
		}
		for _, t := range c.Tasks {
			switch {
			case t.Status == TaskPaired:
				add(i, t.ID, false, t.Evidence)
			case t.Status == TaskYardstick && t.Base.Status == results.StatusPassed && t.Head.Status != results.StatusPassed:
				add(i, t.ID, false, t.Evidence) // it blocks only if it fails clearly
			}
		}
		for _, t := range c.NewTasks {
			add(i, t.ID, false, t.Evidence)
		}
		for _, t := range c.Prompts {
			add(i, t.ID, true, t.Evidence)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].best < out[b].best })
	return out
}

// DefaultConfirmBudget is the confirmation trials a pull request may spend on suites of
// plannedRuns head trials when none is configured (confirm_runs): a quarter of the planned runs,
// and at least enough to confirm two tasks in full. Under noise the decision spends far less
// (docs/statistics.md#measured-verdicts); the bound matters when a change breaks many tasks, and
// then confirming the first ones already blocks.
func DefaultConfirmBudget(plannedRuns int) int {
	return max(2*DefaultMaxConfirm, plannedRuns/4)
}
