package runner

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// The schedule: every agent run of a suite — each trial of each task, each trigger prompt
// trial, each no-skill (uplift) trial — is one job in a single queue, taken in that order by
// `workers` agent slots. A slot is held only while the workspace is prepared and the agent
// runs; the run is then graded in a separate bounded pool (LLM judges are further limited per
// endpoint by the graders package) while the slot takes the next job. So a slow judge does not
// keep an agent idle, and trigger prompts and no-skill runs fill the tail of the task phase
// instead of waiting for it to end.
//
// A sequential suite (one worker) grades in the slot: one run at a time, start to finish, as
// `parallel: false` promises.

// job is one agent run to make: a trial of a task, or a trial of a trigger prompt.
type job struct {
	task    *taskRun // nil for a trigger prompt
	trial   int
	attempt int // 1 on the first execution, more for max_attempts retries

	prompt *spec.TriggerPrompt
	slot   int // the trigger result's index
}

// taskRun is one task's runs (with or without the skill) while they are in the queue.
type taskRun struct {
	t         *spec.Task
	withSkill bool
	index     int // in the suite's task list
	phase     *phase

	startOnce sync.Once
	skipped   string // why the task never started ("" when it did)
	hookOnce  sync.Once
	hookErr   error

	mu      sync.Mutex
	runs    []*results.RunResult
	pending int // trials not finished yet
}

// phase is one list of task results being filled: the tasks with the skill, or without.
type phase struct {
	out     []*results.TaskResult
	mu      sync.Mutex
	stopped bool // fail_fast tripped
}

// queue is the jobs not yet taken, and how many jobs are not finished (queued, running or
// being graded: a graded run that failed may come back as a retry).
type queue struct {
	mu        sync.Mutex
	cond      *sync.Cond
	jobs      []*job
	next      int
	retries   []*job // taken before the rest: a retry finishes a trial already under way
	remaining int
}

func newQueue(jobs []*job) *queue {
	q := &queue{jobs: jobs, remaining: len(jobs)}
	q.cond = sync.NewCond(&q.mu)
	return q
}

// take returns the next job, waiting while jobs in flight may still come back; nil when all
// are finished.
func (q *queue) take() *job {
	q.mu.Lock()
	defer q.mu.Unlock()
	for {
		if n := len(q.retries); n > 0 {
			j := q.retries[n-1]
			q.retries = q.retries[:n-1]
			return j
		}
		if q.next < len(q.jobs) {
			j := q.jobs[q.next]
			q.jobs[q.next] = nil
			q.next++
			return j
		}
		if q.remaining == 0 {
			return nil
		}
		q.cond.Wait()
	}
}

func (q *queue) retry(j *job) {
	q.mu.Lock()
	q.retries = append(q.retries, j)
	q.mu.Unlock()
	q.cond.Signal()
}

func (q *queue) done() {
	q.mu.Lock()
	q.remaining--
	last := q.remaining == 0
	q.mu.Unlock()
	if last {
		q.cond.Broadcast()
	}
}

// schedule runs the selected tasks with the skill, then (in the same queue) the trigger prompts
// and, when withoutSkill, the tasks without the skill. It returns one result per suite task for
// each phase, in load order, and the trigger results in prompt order.
func (r *suiteRun) schedule(ctx context.Context, selected []*spec.Task, filtered map[*spec.Task]string, prompts []*spec.TriggerPrompt, withoutSkill bool) (tasks, base []*results.TaskResult, trig []*results.TriggerResult) {
	index := make(map[*spec.Task]int, len(r.suite.Tasks))
	for i, t := range r.suite.Tasks {
		index[t] = i
	}
	var jobs []*job
	newPhase := func(withSkill bool) *phase {
		p := &phase{out: make([]*results.TaskResult, len(r.suite.Tasks))}
		for i, t := range r.suite.Tasks {
			if reason, ok := filtered[t]; ok {
				p.out[i] = r.skipped(t, reason)
			}
		}
		for _, t := range selected {
			n := r.trialsOf(t)
			tk := &taskRun{t: t, withSkill: withSkill, index: index[t], phase: p, runs: make([]*results.RunResult, n), pending: n}
			for trial := 1; trial <= n; trial++ {
				jobs = append(jobs, &job{task: tk, trial: trial, attempt: 1})
			}
		}
		return p
	}
	with := newPhase(true)
	// Each trigger prompt runs once, as in waza, whatever trials_per_task says.
	for i, p := range prompts {
		jobs = append(jobs, &job{prompt: p, trial: 1, slot: i})
	}
	var without *phase
	if withoutSkill {
		without = newPhase(false)
	}
	trigOut := make([]*results.TriggerResult, len(prompts))

	q := newQueue(jobs)
	grading := make(chan struct{}, max(r.workers, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for range min(r.workers, max(1, len(jobs))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := q.take(); j != nil; j = q.take() {
				if j.task == nil {
					if ctx.Err() == nil {
						tr := r.runTrigger(ctx, r.suite.TriggerTests, j.prompt, j.trial)
						trigOut[j.slot] = tr
						if tr != nil && r.opts.Observer != nil {
							r.opts.Observer.TriggerFinished(r.suite, tr)
						}
					}
					q.done()
					continue
				}
				r.runJob(ctx, q, j, grading)
			}
		}()
	}
	wg.Wait()

	tasks = with.collect(r)
	if without != nil {
		base = without.collect(r)
	}
	for _, tr := range trigOut {
		if tr != nil {
			trig = append(trig, tr)
		}
	}
	return tasks, base, trig
}

// collect fills in the tasks that never started (an interruption) and returns the phase's results.
func (p *phase) collect(r *suiteRun) []*results.TaskResult {
	for i, t := range r.suite.Tasks {
		if p.out[i] == nil {
			p.out[i] = r.skipped(t, "not run: interrupted")
		}
	}
	return p.out
}

// runJob executes one trial attempt of a task in the calling agent slot and hands the run to
// grading.
func (r *suiteRun) runJob(ctx context.Context, q *queue, j *job, grading chan struct{}) {
	tk := j.task
	if !r.startTask(ctx, tk) || ctx.Err() != nil {
		r.trialDone(ctx, tk, j.trial, nil)
		q.done()
		return
	}
	if tk.hookOnce.Do(func() { tk.hookErr = r.runHooks(ctx, r.suite.Hooks.BeforeTask, "before_task", tk.t) }); tk.hookErr != nil {
		r.trialDone(ctx, tk, j.trial, nil)
		q.done()
		return
	}
	// runAgent asks the run cache first (executeOrReuse): a recorded run is put back in the
	// workspace and graded like a fresh one, without calling the agent.
	p := r.runAgent(ctx, tk.t, j.trial, tk.withSkill)
	if p == nil { // interrupted: not a result
		r.trialDone(ctx, tk, j.trial, nil)
		q.done()
		return
	}
	finish := func() {
		run := r.gradeRun(ctx, p)
		if run == nil {
			r.trialDone(ctx, tk, j.trial, nil)
			q.done()
			return
		}
		run.Attempts = j.attempt
		if run.Status == results.StatusFailed && j.attempt < max(1, r.suite.Config.MaxAttempts) {
			q.retry(&job{task: tk, trial: j.trial, attempt: j.attempt + 1})
			return
		}
		if r.opts.Observer != nil {
			r.opts.Observer.RunFinished(r.suite, tk.t, run, tk.withSkill)
		}
		r.trialDone(ctx, tk, j.trial, run)
		q.done()
	}
	if r.workers == 1 {
		finish()
		return
	}
	grading <- struct{}{}
	go func() {
		defer func() { <-grading }()
		finish()
	}()
}

// startTask decides, when the first of a task's jobs is taken, whether the task runs: not after
// fail_fast tripped in its phase or an interruption. It reports whether the task runs.
func (r *suiteRun) startTask(ctx context.Context, tk *taskRun) bool {
	tk.startOnce.Do(func() {
		tk.phase.mu.Lock()
		stopped := tk.phase.stopped
		tk.phase.mu.Unlock()
		switch {
		case stopped:
			tk.skipped = "not run: fail_fast stopped the suite after a task did not pass"
		case ctx.Err() != nil:
			tk.skipped = "not run: interrupted"
		default:
			if r.opts.Observer != nil && tk.withSkill {
				r.opts.Observer.TaskStarted(r.suite, tk.t)
			}
		}
	})
	return tk.skipped == ""
}

// trialDone records a finished trial (nil when it did not run); the last one finishes the task.
func (r *suiteRun) trialDone(ctx context.Context, tk *taskRun, trial int, run *results.RunResult) {
	tk.mu.Lock()
	tk.runs[trial-1] = run
	tk.pending--
	last := tk.pending == 0
	tk.mu.Unlock()
	if !last {
		return
	}
	var tr *results.TaskResult
	if tk.skipped != "" {
		tr = r.skipped(tk.t, tk.skipped)
	} else {
		tr = r.finishTaskRuns(ctx, tk)
	}
	if tr.Status != results.StatusPassed && r.suite.Config.FailFast && tk.skipped == "" {
		tk.phase.mu.Lock()
		tk.phase.stopped = true
		tk.phase.mu.Unlock()
	}
	tk.phase.out[tk.index] = tr
}

// finishTaskRuns builds the result of a task that started: its finished runs, the after_task
// hooks, the journal and the observer.
func (r *suiteRun) finishTaskRuns(ctx context.Context, tk *taskRun) *results.TaskResult {
	t := tk.t
	tr := &results.TaskResult{ID: t.ID, Name: t.Name, Tags: t.Tags, Source: r.locs.location(t.Pos), Prompt: buildPrompt(t),
		DefinitionHash: t.DefinitionHash(), GradersHash: t.GradersHash()}
	if r.suite.Config.GroupBy == "model" {
		tr.Group = r.model()
	}
	if tk.hookErr != nil {
		tr.Status = results.StatusError
		tr.ErrorMsg = tk.hookErr.Error()
		if ctx.Err() != nil {
			// The hook was killed by an interruption, not failed.
			tr.Status, tr.ErrorMsg, tr.SkipReason = results.StatusSkipped, "", "not run: interrupted"
		}
		tr.Runs = []*results.RunResult{}
		r.finishTask(tr, tk.withSkill)
		return tr
	}
	for _, run := range tk.runs {
		// Runs cut short by an interruption are not results; only finished runs are kept.
		if run != nil {
			tr.Runs = append(tr.Runs, run)
		}
	}
	if len(tr.Runs) == 0 {
		tr.Status = results.StatusSkipped
		tr.SkipReason = "not run: interrupted"
		tr.Runs = []*results.RunResult{}
	}
	if err := r.runHooks(context.WithoutCancel(ctx), r.suite.Hooks.AfterTask, "after_task", t); err != nil {
		fmt.Fprintf(r.log, "warning: %v\n", err)
	}
	r.finishTask(tr, tk.withSkill)
	return tr
}
