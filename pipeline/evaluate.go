package pipeline

import (
	"context"

	"github.com/skillgate/skillgate/internal/runcache"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// Outcome is what Evaluate did.
type Outcome struct {
	// Heads are the suites' results, in order, with the baselines they were compared with.
	Heads []Head
	// SetupErrors are suites that could not start (the others ran); each names its suite.
	SetupErrors []error
	// Confirmed says what confirmation did; ConfirmErr is a confirmation that failed (its
	// tasks stay unconfirmed; the verdict stands on the trials made).
	Confirmed  ConfirmOutcome
	ConfirmErr error
	// Evaluation is what publishing produced; nil when nothing was published.
	*Evaluation
}

// Evaluate is the one evaluation of `skillgate run`, `report` and `merge` and of every Action
// mode: the plan's suites run, each results file written as its suite finishes (a plan of
// Results runs nothing); each suite gets its baseline from the settings' source; tasks that look
// worse are confirmed with more trials; prompt-only evals are compared pairwise with the base's
// answers; and every report is written with the gate's figures (Publish).
//
// A shard compares nothing (`merge` decides for the whole run): the baselines its split found
// serve its confirmation and pairwise verdicts only, and its confirmation budget is its share of
// the matrix's. opts nil runs and writes the results files only (a rerun at the base commit).
//
// The outcome is returned even when the evaluation fails, so an adapter can still say which
// suites ran; a failure of the run itself is a *RunError.
func Evaluate(ctx context.Context, plan *Plan, opts *Options) (*Outcome, error) {
	s := &plan.settings
	out := &Outcome{}
	confirm := 0
	if opts != nil && s.Baselines != nil {
		confirm = plan.confirmRuns()
	}
	if s.Progress != nil && confirm != 0 {
		s.Progress.SetConfirm(confirm)
	}
	var store *runcache.Store
	if s.RunCache != nil && plan.heads == nil {
		var err error
		if store, err = s.RunCache(); err != nil {
			return out, &RunError{Err: err}
		}
	}
	heads, err := plan.run(ctx, store, out)
	out.Heads = heads
	if err != nil {
		return out, &RunError{Err: err}
	}
	if opts == nil {
		return out, nil
	}
	o := *opts
	o.SetupFailed = o.SetupFailed || plan.Broken() || len(out.SetupErrors) > 0
	if len(heads) > 0 {
		if s.Shard != nil {
			for i := range heads {
				if su := plan.suite(heads[i].Result.EvalName); su != nil && su.split != nil && su.split.Result != nil {
					heads[i].Base = su.split
				}
			}
			o.NoCompare = true
		} else if err := FindBaselines(ctx, s.Baselines, heads, plan.Suites); err != nil {
			return out, &BaselineError{Err: err}
		}
		if confirm != 0 {
			c := Confirm{Runs: confirm, Executor: s.executor(), Run: s.run(store).Run, Log: s.Log}
			out.Confirmed, out.ConfirmErr = ConfirmHeads(ctx, plan.prepared(), heads, c, o)
		}
		if !s.DeferJudges { // no judge runs where judges are deferred (a fork's collecting run)
			ComparePairwise(ctx, heads, PairwiseOptions{Prepared: plan.prepared(), Executor: s.executor(), Pretty: s.Pretty, Log: s.Log})
		}
	}
	out.Evaluation, err = Publish(heads, o)
	return out, err
}

// confirmRuns is the confirmation budget of this job: the settings' (negative: the default for
// the planned runs), a shard's share of it.
func (p *Plan) confirmRuns() int {
	n := p.settings.ConfirmRuns
	if sh := p.settings.Shard; n > 0 && sh != nil && sh.Count > 1 {
		n = (n + sh.Count - 1) / sh.Count
	}
	return n
}

// suite is the plan's suite of that name; nil when none.
func (p *Plan) suite(name string) *Suite {
	for _, s := range p.Suites {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// run runs the plan's suites (each results file is written as its suite finishes) and returns
// their results; a plan of Results returns its results. Setup errors go into out.
func (p *Plan) run(ctx context.Context, store *runcache.Store, out *Outcome) ([]Head, error) {
	if p.heads != nil {
		return p.heads, nil
	}
	if len(p.Suites) == 0 {
		return nil, nil
	}
	s := &p.settings
	if p.Suites[0].recorded != nil {
		return p.regrade(ctx, store, out)
	}
	o := s.run(store)
	o.ShardDurations = p.durations()
	ran, err := runner.RunSuites(ctx, p.prepared(), o)
	out.SetupErrors = ran.SetupErrors
	return heads(ran), err
}

// heads pairs a run's results with their files, without baselines.
func heads(ran *runner.SuitesRun) []Head {
	out := make([]Head, len(ran.Results))
	for i, res := range ran.Results {
		out[i] = Head{Result: res, File: ran.Files[i]}
	}
	return out
}

// regrade grades each suite of a collected run again on its recorded runs (LoadRecorded): the
// replay executor serves the runs, with the collecting run's trials, filters and skipped tasks,
// and no hook runs. Each results file says which run it regrades.
func (p *Plan) regrade(ctx context.Context, store *runcache.Store, out *Outcome) ([]Head, error) {
	var all []Head
	for _, s := range p.Suites {
		rec := s.recorded
		o := p.settings.run(store)
		cfg := rec.Result.Config
		o.Executor = runner.ExecutorOptions{Name: "replay", ReplayFrom: rec.collected, Log: o.Executor.Log}
		o.Run.Trials, o.Run.Model = cfg.RunsPerTest, cfg.ModelID
		o.Run.TaskGlobs, o.Run.TagGlobs = cfg.TaskFilters, cfg.TagFilters
		o.Run.Uplift, o.Run.SkipTriggers = cfg.Uplift, cfg.SkipTriggers
		o.Run.Skip, o.Run.SkipHooks, o.Run.RepoRoot = recordedSkips(rec.Result), true, rec.tree
		ran, err := runner.RunSuites(ctx, []*runner.Prepared{s.prepared}, o)
		if err != nil {
			return all, err
		}
		out.SetupErrors = append(out.SetupErrors, ran.SetupErrors...)
		for i, res := range ran.Results {
			if res.Provenance == nil {
				res.Provenance = &results.Provenance{}
			}
			res.Provenance.GitCommit = rec.Commit
			res.Config.ReplayFrom = rec.Source
			if err := results.WriteFile(ran.Files[i], res); err != nil {
				return all, err
			}
		}
		all = append(all, heads(ran)...)
	}
	return all, nil
}

// recordedSkips are the tasks the collected run did not run, with its reasons.
func recordedSkips(recorded *results.SuiteResult) map[string]string {
	skip := map[string]string{}
	for _, t := range recorded.Tasks {
		if t.Status == results.StatusSkipped || (len(t.Runs) == 0 && t.Status == results.StatusError) {
			skip[t.ID] = orWord(t.SkipReason, orWord(t.ErrorMsg, "not run by the collected run"))
		}
	}
	return skip
}

func orWord(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}
