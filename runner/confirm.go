package runner

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// ConfirmRequest names one unit of a suite to run once more: a task, or a trigger prompt.
type ConfirmRequest struct {
	ID     string
	Prompt bool
}

// Confirm runs confirmation trials of a suite that already ran
// (docs/statistics.md#confirming-before-blocking): next says which tasks and trigger prompts need
// one more trial given the results so far; each round runs them, concurrently up to the suite's
// workers, appends them to res (TaskResult.Confirmations, SuiteResult.TriggerConfirmations) and
// asks again, until next returns nothing or ctx ends. It is a short second run of the suite: its
// before_run and after_run hooks run around the rounds, before_task and after_task around each
// task trial. Confirmation trials never use the run cache: a recorded run would repeat what is
// being questioned. It returns the number of trials run; an error means the rounds could not
// start (a before_run hook failed) and res is unchanged.
func Confirm(ctx context.Context, p *Prepared, opts Options, res *results.SuiteResult, next func(*results.SuiteResult) []ConfirmRequest) (int, error) {
	reqs := next(res)
	if len(reqs) == 0 {
		return 0, nil
	}
	if opts.Executor == nil || opts.Graders == nil {
		return 0, fmt.Errorf("runner: an executor and compiled graders are required")
	}
	opts.Cache, opts.Journal, opts.Shard, opts.Observer = nil, "", nil, nil
	r := newSuiteRun(p.Suite, opts)
	defer r.inputs.remove()
	if err := r.runHooks(ctx, r.suite.Hooks.BeforeRun, "before_run", nil); err != nil {
		return 0, fmt.Errorf("confirming %s: %w", p.Suite.Name, err)
	}
	defer func() {
		hookCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := r.runHooks(hookCtx, r.suite.Hooks.AfterRun, "after_run", nil); err != nil {
			fmt.Fprintf(r.log, "warning: %v\n", err)
		}
	}()
	tasks := map[string]*spec.Task{}
	for _, t := range p.Suite.Tasks {
		tasks[t.ID] = t
	}
	prompts := map[string]*spec.TriggerPrompt{}
	if tt := p.Suite.TriggerTests; tt != nil {
		for _, pr := range append(append([]*spec.TriggerPrompt{}, tt.ShouldTrigger...), tt.ShouldNot...) {
			prompts[pr.ID] = pr
		}
	}
	byID := map[string]*results.TaskResult{}
	for _, t := range res.Tasks {
		byID[t.ID] = t
	}
	var mu sync.Mutex
	ran := 0
	for ; len(reqs) > 0 && ctx.Err() == nil; reqs = next(res) {
		sem := make(chan struct{}, r.workers)
		var wg sync.WaitGroup
		for _, q := range reqs {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				if q.Prompt {
					pr := prompts[q.ID]
					if pr == nil {
						return
					}
					mu.Lock()
					trial := promptTrials(res, q.ID) + 1
					mu.Unlock()
					tr := r.runTrigger(ctx, p.Suite.TriggerTests, pr, trial)
					if tr == nil {
						return // interrupted
					}
					mu.Lock()
					res.TriggerConfirmations = append(res.TriggerConfirmations, tr)
					ran++
					mu.Unlock()
					return
				}
				t, tr := tasks[q.ID], byID[q.ID]
				if t == nil || tr == nil {
					return
				}
				mu.Lock()
				trial := len(tr.Runs) + len(tr.Confirmations) + 1
				mu.Unlock()
				run := r.confirmTrial(ctx, t, trial)
				if run == nil {
					return
				}
				mu.Lock()
				tr.Confirmations = append(tr.Confirmations, run)
				ran++
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	results.Summarize(res)
	return ran, nil
}

// confirmTrial runs one trial of a task as the schedule does (attempts up to max_attempts),
// between the task's before_task and after_task hooks; nil when interrupted.
func (r *suiteRun) confirmTrial(ctx context.Context, t *spec.Task, trial int) *results.RunResult {
	if err := r.runHooks(ctx, r.suite.Hooks.BeforeTask, "before_task", t); err != nil {
		run := &results.RunResult{RunNumber: trial, Attempts: 1, Status: results.StatusError, ErrorMsg: err.Error(), Validations: results.Validations{}}
		run.SessionDigest = results.Digest(nil, nil, "")
		return run
	}
	defer func() {
		if err := r.runHooks(context.WithoutCancel(ctx), r.suite.Hooks.AfterTask, "after_task", t); err != nil {
			fmt.Fprintf(r.log, "warning: %v\n", err)
		}
	}()
	var run *results.RunResult
	for attempt := 1; attempt <= max(1, r.suite.Config.MaxAttempts); attempt++ {
		d := r.runAgent(ctx, t, trial, true)
		if d == nil {
			return nil
		}
		if run = r.gradeRun(ctx, d); run == nil {
			return nil
		}
		run.Attempts = attempt
		if run.Status != results.StatusFailed {
			break
		}
	}
	return run
}

// promptTrials counts a trigger prompt's trials so far, confirmations included.
func promptTrials(res *results.SuiteResult, id string) int {
	n := 0
	for _, list := range [][]*results.TriggerResult{res.TriggerResults, res.TriggerConfirmations} {
		for _, tr := range list {
			if tr != nil && tr.ID == id {
				n++
			}
		}
	}
	return n
}
