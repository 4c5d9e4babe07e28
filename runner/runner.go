// Package runner runs a loaded suite: workspaces, trials, attempts, timeouts, parallelism and
// hooks. It calls the executor for every run and the graders on what the executor produced, and
// returns the results model.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// Options control one suite run. Zero values mean "as the suite says".
type Options struct {
	Executor agent.Executor
	Graders  *graders.Compiled

	Trials    int           // --trials
	Parallel  *bool         // --parallel
	Workers   int           // --workers
	Timeout   time.Duration // --timeout: per-run limit for every task
	Model     string        // --model
	TaskGlobs []string      // --task
	TagGlobs  []string      // --tags
	Uplift    bool          // --uplift (or the suite's `baseline: true`)
	// SkipTriggers runs no trigger prompt (--skip-triggers).
	SkipTriggers bool
	// KeepWorkspaces keeps every run's workspace under WorkspaceRoot instead of deleting it.
	KeepWorkspaces bool
	// WorkspaceRoot is where workspaces are created; default the system temp folder.
	WorkspaceRoot string
	ReplayFrom    string
	// Shard runs only this shard's part of the tasks and trigger prompts (`--shard i/n`); the
	// others are listed as skipped with results.ShardSkipReason. ShardDurations (task id →
	// milliseconds, from a baseline) switch the split from hashing to longest-first.
	Shard          *Shard
	ShardDurations map[string]int64
	// Skip lists tasks not to run, by id, with the reason reported (the report mode skips what
	// the run it regrades skipped).
	Skip map[string]string
	// SkipHooks runs no hook command, nor a Vally environment's commands: the fork-safe report
	// mode executes nothing from the suite it regrades.
	SkipHooks bool
	// RepoRoot is the folder results locations are relative to; default the folder holding
	// .git above the suite. When set, the git state is not read either (the caller knows the
	// commit).
	RepoRoot string

	Observer Observer  // progress; may be nil
	Log      io.Writer // warnings and hook output; may be nil
	Version  string    // skillgate version, for provenance
	Now      func() time.Time
	// Journal, when set, is the path of the journal each finished task is appended to
	// (results.CreateJournal); the caller removes it once the results file is written.
	Journal string
	// Cache, when set, reuses recorded runs whose inputs did not change (runner/cache.go).
	Cache *CacheOptions
}

// Observer follows a run's progress (the CLI draws its progress line from it). Calls may come
// from several goroutines at once.
type Observer interface {
	// SuiteStarted comes before the before_run hook and the first agent run.
	SuiteStarted(suite *spec.Suite, plan Plan)
	TaskStarted(suite *spec.Suite, task *spec.Task)
	// RunFinished comes after every finished trial of a task; withSkill is false for the runs
	// without the skill of --uplift (their tasks get no TaskStarted or TaskFinished).
	RunFinished(suite *spec.Suite, task *spec.Task, run *results.RunResult, withSkill bool)
	TaskFinished(suite *spec.Suite, task *results.TaskResult)
	// TriggerFinished comes after every finished run of a trigger prompt.
	TriggerFinished(suite *spec.Suite, trigger *results.TriggerResult)
	SuiteFinished(suite *spec.Suite, res *results.SuiteResult)
}

// SetupError means the suite could not start (a before_run hook failed, the executor is
// unusable): nothing was graded. The CLI exits 2.
type SetupError struct{ Err error }

func (e *SetupError) Error() string { return e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// Run runs the suite and returns its results. When ctx is cancelled (Ctrl-C) it stops
// scheduling, cancels runs in flight, and returns what finished, marked incomplete.
func Run(ctx context.Context, s *spec.Suite, opts Options) (*results.SuiteResult, error) {
	if opts.Executor == nil || opts.Graders == nil {
		return nil, &SetupError{errors.New("runner: an executor and compiled graders are required")}
	}
	r := newSuiteRun(s, opts)
	for _, t := range s.Tasks {
		if t.Unvalidated && (r.shards == nil || r.shards.Owner[t.ID] == opts.Shard.Index) {
			// Loaded for another shard's record (LoadOptions.Shard): the run's split differs.
			return nil, &SetupError{fmt.Errorf("task %s was loaded for another shard than this run gives it: load and run with the same --shard and baseline", t.ID)}
		}
	}
	return r.run(ctx)
}

// suiteRun is the state of one suite run.
type suiteRun struct {
	suite   *spec.Suite
	opts    Options
	trials  int
	workers int
	log     io.Writer
	locs    *locator
	shards  *Assignment // nil when the run is not sharded

	journal *results.Journal
	inputs  *inputStore // each distinct input file once; workspaces copy from it

	cacheState cacheState
}

func newSuiteRun(s *spec.Suite, opts Options) *suiteRun {
	r := &suiteRun{suite: s, opts: opts, log: opts.Log, locs: newLocator(s.Dir), inputs: newInputStore(opts.WorkspaceRoot)}
	if opts.RepoRoot != "" {
		r.locs.once.Do(func() { r.locs.root = opts.RepoRoot })
	}
	if opts.Shard != nil {
		ids := make([]string, len(s.Tasks))
		for i, t := range s.Tasks {
			ids[i] = t.ID
		}
		a := AssignTasks(s.Name, ids, opts.Shard.Count, opts.ShardDurations)
		r.shards = &a
	}
	if r.log == nil {
		r.log = io.Discard
	}
	if r.opts.Now == nil {
		r.opts.Now = time.Now
	}
	r.trials = s.Config.TrialsPerTask
	if opts.Trials > 0 {
		r.trials = opts.Trials
	}
	if r.trials < 1 {
		r.trials = 1
	}
	parallel := s.Config.Parallel
	if opts.Parallel != nil {
		parallel = *opts.Parallel
	}
	r.workers = 1
	if parallel {
		r.workers = s.Config.MaxWorkers
		if opts.Workers > 0 {
			r.workers = opts.Workers
		}
		if r.workers < 1 {
			r.workers = 4
		}
	}
	return r
}

func (r *suiteRun) run(ctx context.Context) (*results.SuiteResult, error) {
	start := r.opts.Now()
	res := r.newResult(start)
	if r.opts.Journal != "" {
		j, err := results.CreateJournal(r.opts.Journal, res)
		if err != nil {
			return nil, &SetupError{fmt.Errorf("journal: %w", err)}
		}
		defer j.Close()
		r.journal = j
	}
	defer r.inputs.remove()
	r.warnTurns()
	if note := agent.ModelNote(r.opts.Executor.Name(), r.model()); note != "" {
		fmt.Fprintf(r.log, "warning: suite %s: %s\n", r.suite.Name, note)
	}
	selected, filtered := r.selectTasks()
	if r.opts.Observer != nil {
		r.opts.Observer.SuiteStarted(r.suite, r.plan(selected))
	}
	if err := r.runHooks(ctx, r.suite.Hooks.BeforeRun, "before_run", nil); err != nil {
		return nil, &SetupError{err}
	}
	defer func() {
		// after_run always runs, even after an interruption, on a fresh context.
		hookCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if err := r.runHooks(hookCtx, r.suite.Hooks.AfterRun, "after_run", nil); err != nil {
			fmt.Fprintf(r.log, "warning: %v\n", err)
		}
	}()

	prompts := r.triggerPrompts()
	tasks, baseTasks, trig := r.schedule(ctx, selected, filtered, prompts, r.uplift())
	res.Tasks = tasks
	if len(prompts) > 0 {
		res.TriggerResults = trig
		res.TriggerMetrics = results.ComputeTriggerMetrics(res.TriggerResults)
		// The mock's trigger decisions are a keyword match, not an agent's: no query verdicts.
		if tt := r.suite.TriggerTests; tt.RateThreshold > 0 && r.opts.Executor.Name() != "mock" {
			res.Config.TriggerRateThreshold = tt.RateThreshold
			res.TriggerQueries = results.ComputeTriggerQueries(res.TriggerResults, tt.RateThreshold)
		}
		if w := noSkillWarning(r.suite, r.opts.Executor.Name(), res.TriggerResults); w != "" {
			fmt.Fprintf(r.log, "warning: %s\n", w)
		}
	}
	if r.uplift() {
		base := r.newResult(start)
		base.Tasks = baseTasks
		finishResult(base, r.opts.Now().Sub(start))
		res.IsBaseline = true
		res.BaselineOutcome = base
		res.Config.Uplift = true
	}
	if err := ctx.Err(); err != nil {
		res.Incomplete = true
		res.IncompleteReason = "interrupted: " + context.Cause(ctx).Error()
	}
	finishResult(res, r.opts.Now().Sub(start))
	if res.BaselineOutcome != nil {
		results.ComputeSkillImpact(res, res.BaselineOutcome)
	}
	r.evaluateMetrics(res)
	res.Gate = results.ComputeGate(res)
	res.Provenance = r.provenance(ctx)
	if r.opts.Observer != nil {
		r.opts.Observer.SuiteFinished(r.suite, res)
	}
	return res, nil
}

func (r *suiteRun) newResult(start time.Time) *results.SuiteResult {
	s, opts := r.suite, r.opts
	timeout := s.Config.TimeoutSeconds
	if r.opts.Timeout > 0 {
		timeout = int(r.opts.Timeout / time.Second)
	}
	return &results.SuiteResult{
		SchemaVersion: results.SchemaVersion,
		EvalID:        fmt.Sprintf("run-%d", start.Unix()),
		Skill:         s.Skill,
		EvalName:      s.Name,
		Timestamp:     start.UTC(),
		Config: results.RunConfig{
			RunsPerTest:       r.trials,
			ModelID:           r.recordedModel(),
			EngineType:        r.opts.Executor.Name(),
			TimeoutSec:        timeout,
			JudgeModel:        judgeModel(s, opts.Graders),
			Parallel:          r.workers > 1,
			Workers:           r.workers,
			MaxAttempts:       max(1, s.Config.MaxAttempts),
			TaskPassThreshold: passThreshold(s.Config.TaskPassThreshold),
			FailFast:          s.Config.FailFast,
			TaskFilters:       r.opts.TaskGlobs,
			TagFilters:        r.opts.TagGlobs,
			SkipTriggers:      r.opts.SkipTriggers,
			ReplayFrom:        r.opts.ReplayFrom,
			Shard:             r.shardInfo(),
			Pricing:           r.pricing(),
		},
		Metrics: map[string]*results.MetricResult{},
	}
}

// shardInfo records the shard in the results config (nil when not sharded).
func (r *suiteRun) shardInfo() *results.ShardInfo {
	if r.shards == nil {
		return nil
	}
	return &results.ShardInfo{Index: r.opts.Shard.Index, Count: r.opts.Shard.Count, Method: r.shards.Method, Plan: r.shards.Plan}
}

// judgeModel is the model the suite's LLM graders use (several joined with ", "), else
// config.judge_model as written.
func judgeModel(s *spec.Suite, compiled *graders.Compiled) string {
	if models, _ := compiled.JudgeProvenance(); models != "" {
		return models
	}
	return s.Config.JudgeModel
}

// passThreshold is the task pass threshold as results record it: 0 (omitted) for the default,
// every trial.
func passThreshold(t float64) float64 {
	if t >= 1 {
		return 0
	}
	return t
}

func (r *suiteRun) model() string {
	if r.opts.Model != "" {
		return r.opts.Model
	}
	return r.suite.Config.Model
}

// recordedModel is the model the results name: none when the executor runs its own default
// because it cannot name the suite's (agent.ModelNote).
func (r *suiteRun) recordedModel() string {
	if agent.ModelNote(r.opts.Executor.Name(), r.model()) != "" {
		return ""
	}
	return r.model()
}

// finishResult derives every computed field of a suite result.
func finishResult(res *results.SuiteResult, wall time.Duration) {
	for _, t := range res.Tasks {
		t.FinishAt(res.Config.TaskPassThreshold)
	}
	res.Summary.DurationMS = wall.Milliseconds()
	results.Summarize(res)
}

// evaluateMetrics computes every enabled metric of the suite (docs/format.md#metrics).
func (r *suiteRun) evaluateMetrics(res *results.SuiteResult) {
	for _, m := range r.suite.Metrics {
		if !m.Enabled {
			continue
		}
		value, ok := results.MetricValue(res, m.Name)
		if !ok {
			// An unknown name was warned about when the suite loaded; a trigger metric has no
			// data when the suite has no trigger prompts.
			if results.IsTriggerMetric(m.Name) {
				fmt.Fprintln(r.log, spec.Warnf(m.Pos, "metrics", "add trigger prompts (trigger_tests.yaml beside eval.yaml) or remove the metric",
					"metric %s has no data in this run (no trigger prompt ran) and does not gate", m.Name).Error())
			}
			continue
		}
		// The mock's trigger decisions are a keyword match (the prompt names the skill), not an
		// agent's: like skill-creator's trigger queries, they get no verdict, so a plumbing run
		// never fails on them (waza's mock records every prompt as correct instead).
		if r.opts.Executor.Name() == "mock" && results.IsTriggerMetric(m.Name) {
			if !results.MetricPassed(value, m.Threshold) {
				fmt.Fprintf(r.log, "note: %s: metric %s is %.2f, below its threshold %g, under the mock executor, whose trigger decisions are a keyword match, not an agent's; it does not gate\n", m.Pos, m.Name, value, m.Threshold)
			}
			continue
		}
		res.Metrics[m.Name] = &results.MetricResult{
			Name:      m.Name,
			Value:     value,
			Threshold: m.Threshold,
			Passed:    results.MetricPassed(value, m.Threshold),
			Weight:    m.Weight,
			Source:    r.locs.location(m.Pos),
		}
	}
}

func (r *suiteRun) skipped(t *spec.Task, reason string) *results.TaskResult {
	return &results.TaskResult{
		ID: t.ID, Name: t.Name, Status: results.StatusSkipped, Runs: []*results.RunResult{},
		Tags: t.Tags, SkipReason: reason, Source: r.locs.location(t.Pos),
		DefinitionHash: t.DefinitionHash(), GradersHash: t.GradersHash(),
	}
}
