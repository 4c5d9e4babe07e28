package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/results"
)

// SuitesOptions control RunSuites.
type SuitesOptions struct {
	// Executor builds each suite's executor (flags or Action inputs override the config).
	Executor ExecutorOptions
	// Run applies to every suite; its Executor and Graders are filled in per suite.
	Run Options
	// OutDir receives each suite's results file, results.PathIn(OutDir, suite), written as soon
	// as the suite finishes so nothing is lost if a later step fails.
	OutDir string
	// ShardDurations are each suite's task durations (suite name → task id → milliseconds) for a
	// sharded run's longest-first split; a suite without an entry is split by hash.
	ShardDurations map[string]map[string]int64
	// Written, when set, is called after a suite's results file is written (the CLI copies it
	// to -o there). An error stops the remaining suites.
	Written func(res *results.SuiteResult, file string) error
}

// SuitesRun is what RunSuites did: the results of every suite that ran, in order, with the
// files they were written to, and the suites that could not start.
type SuitesRun struct {
	Results []*results.SuiteResult
	Files   []string
	// SetupErrors are suites that could not start (a before_run hook failed, the executor is
	// unusable); the other suites still ran. Each error names its suite.
	SetupErrors []error
}

// RunSuites runs prepared suites one after another. Every executor is built before anything
// runs, so a bad executor setting costs no agent time; that failure is returned as a
// *SetupError naming the suite file. A cancelled ctx stops before the next suite. The returned
// error is for failures that stop everything (executor, unexpected runner error, writing results);
// what ran until then is returned with it.
func RunSuites(ctx context.Context, prepared []*Prepared, o SuitesOptions) (*SuitesRun, error) {
	out := &SuitesRun{}
	executors := make([]agent.Executor, len(prepared))
	for i, p := range prepared {
		ex, err := NewExecutor(p.Suite, o.Executor)
		if err != nil {
			return out, &SetupError{fmt.Errorf("%s: %w", p.Suite.File, err)}
		}
		executors[i] = ex
	}
	for i, p := range prepared {
		if ctx.Err() != nil {
			break
		}
		opts := o.Run
		opts.Executor, opts.Graders = executors[i], p.Graders
		if d := o.ShardDurations[p.Suite.Name]; d != nil {
			opts.ShardDurations = d
		}
		res, err := Run(ctx, p.Suite, opts)
		var setup *SetupError
		if errors.As(err, &setup) {
			out.SetupErrors = append(out.SetupErrors, fmt.Errorf("%s: %w", p.Suite.Name, err))
			continue
		}
		if err != nil {
			return out, fmt.Errorf("%s: %w", p.Suite.Name, err)
		}
		file := results.PathIn(o.OutDir, res.EvalName)
		if err := results.WriteFile(file, res); err != nil {
			return out, fmt.Errorf("writing results: %w", err)
		}
		out.Results = append(out.Results, res)
		out.Files = append(out.Files, file)
		if o.Written != nil {
			if err := o.Written(res, file); err != nil {
				return out, fmt.Errorf("writing results: %w", err)
			}
		}
	}
	return out, nil
}
