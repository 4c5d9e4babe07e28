package pipeline

import (
	"context"
	"fmt"
	"io"

	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// Confirm says how tasks that look worse than on their baseline are confirmed before the
// verdict (docs/statistics.md#confirming-before-blocking).
type Confirm struct {
	// Runs bounds the confirmation trials of the whole run (confirm_runs): 0 runs none, a
	// negative value takes report.DefaultConfirmBudget of the run's planned agent runs.
	Runs int
	// Executor and Run build each suite's executor and run options, as the run did.
	Executor runner.ExecutorOptions
	Run      runner.Options
	// Log gets one line per suite that confirms something.
	Log io.Writer
}

// ConfirmOutcome says what confirmation did.
type ConfirmOutcome struct {
	Runs, Budget int
}

// budget is the confirmation trials this run may spend.
func (c Confirm) budget(heads []Head) int {
	if c.Runs >= 0 {
		return c.Runs
	}
	planned := 0
	for _, h := range heads {
		for _, t := range h.Result.Tasks {
			planned += len(t.Runs)
		}
		planned += len(h.Result.TriggerResults)
	}
	return report.DefaultConfirmBudget(planned)
}

// ConfirmHeads runs confirmation trials for the heads compared with a baseline: each round asks
// report.NextConfirmations over every suite at once (one family for the whole run) and runs the
// open units of one suite through runner.Confirm, until nothing is open or the budget is spent.
// The results files of suites that got confirmation trials are written again. Mock runs never
// need it (a difference there is real); replayed runs cannot get new trials.
func ConfirmHeads(ctx context.Context, prepared []*runner.Prepared, heads []Head, c Confirm, opts Options) (ConfirmOutcome, error) {
	out := ConfirmOutcome{Budget: c.budget(heads)}
	if out.Budget <= 0 || c.Executor.ReplayFrom != "" {
		return out, nil
	}
	copts := report.CompareOptions{MinEffect: opts.MinEffect}
	var pairs []report.ConfirmPair
	var index []int // pairs[i] is heads[index[i]]
	for i, h := range heads {
		if h.Base == nil || h.Base.Result == nil || h.Result == nil {
			continue
		}
		pairs = append(pairs, report.ConfirmPair{Base: h.Base.Result, Head: h.Result, History: h.Base.History})
		index = append(index, i)
	}
	if len(pairs) == 0 {
		return out, nil
	}
	byName := map[string]*runner.Prepared{}
	for _, p := range prepared {
		byName[p.Suite.Name] = p
	}
	log := c.Log
	if log == nil {
		log = io.Discard
	}
	for pi := range pairs {
		h := heads[index[pi]]
		p := byName[h.Result.EvalName]
		if p == nil || ctx.Err() != nil {
			continue
		}
		round := 0
		next := func(*results.SuiteResult) []runner.ConfirmRequest {
			left := out.Budget - out.Runs
			if left <= 0 {
				return nil
			}
			var reqs []runner.ConfirmRequest
			for _, u := range report.NextConfirmations(pairs, copts) {
				if u.Pair == pi && len(reqs) < left {
					reqs = append(reqs, runner.ConfirmRequest{ID: u.ID, Prompt: u.Prompt})
				}
			}
			if len(reqs) > 0 {
				round++
				fmt.Fprintf(log, "skillgate: %s: confirming %s that look worse than on the baseline (round %d; %d of %d confirmation runs left)\n",
					p.Suite.Name, plural(len(reqs), "task"), round, left, out.Budget)
			}
			out.Runs += len(reqs)
			return reqs
		}
		ex, err := runner.NewExecutor(p.Suite, c.Executor)
		if err != nil {
			return out, fmt.Errorf("confirming %s: %w", p.Suite.Name, err)
		}
		run := c.Run
		run.Executor, run.Graders = ex, p.Graders
		n, err := runner.Confirm(ctx, p, run, h.Result, next)
		if err != nil {
			fmt.Fprintf(log, "warning: %v; its tasks stay unconfirmed\n", err)
			continue
		}
		if n > 0 && h.File != "" {
			if err := results.WriteFileAs(h.File, h.Result, opts.Pretty); err != nil {
				return out, fmt.Errorf("writing results: %w", err)
			}
		}
	}
	return out, nil
}
