package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/childenv"
	"github.com/skillgate/skillgate/internal/reap"
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
	// Pretty writes the results files indented (--pretty); compact otherwise.
	Pretty bool
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
	// What killed runs left behind (their workspaces, and processes that escaped their group) is
	// removed while this run starts (it touches nothing of this process's); children carry this
	// process's id (internal/childenv) for the next run to do so. What it did is said at the end, so
	// that it does not write to the log concurrently with the run.
	var swept bytes.Buffer
	sweeping := make(chan struct{})
	go func() {
		defer close(sweeping)
		reap.Sweep("", &swept)
	}()
	defer func() {
		<-sweeping
		if o.Run.Log != nil {
			o.Run.Log.Write(swept.Bytes())
		}
	}()
	executors := make([]agent.Executor, len(prepared))
	for i, p := range prepared {
		ex, err := NewExecutor(p.Suite, o.Executor)
		if err != nil {
			return out, &SetupError{fmt.Errorf("%s: %w", p.Suite.File, err)}
		}
		executors[i] = ex
	}
	if held := childenv.HeldBack(agent.HandedCredentials()...); len(held) > 0 && o.Run.Log != nil {
		fmt.Fprintf(o.Run.Log, "skillgate: held back from agents, hooks and graders: %s (credentials that are no agent's key; list those they need in %s, see docs/agents.md#the-agents-environment)\n",
			strings.Join(held, ", "), childenv.PassEnv)
	}
	for i, p := range prepared {
		if ctx.Err() != nil {
			break
		}
		opts := o.Run
		opts.Executor, opts.Graders = executors[i], p.Graders
		if o.OutDir != "" {
			opts.Journal = results.JournalPath(results.PathIn(o.OutDir, p.Suite.Name))
			if err := recoverStale(opts.Journal, o.Run.Log); err != nil {
				return out, err
			}
		}
		if d := o.ShardDurations[p.Suite.Name]; d != nil {
			opts.ShardDurations = d
		}
		res, err := Run(ctx, p.Suite, opts)
		var setup *SetupError
		if err != nil && opts.Journal != "" {
			os.Remove(opts.Journal) // nothing finished that a results file would not hold
		}
		if errors.As(err, &setup) {
			out.SetupErrors = append(out.SetupErrors, fmt.Errorf("%s: %w", p.Suite.Name, err))
			continue
		}
		if err != nil {
			return out, fmt.Errorf("%s: %w", p.Suite.Name, err)
		}
		file := results.PathIn(o.OutDir, res.EvalName)
		if err := results.WriteFileAs(file, res, o.Pretty); err != nil {
			return out, fmt.Errorf("writing results: %w", err)
		}
		if opts.Journal != "" {
			os.Remove(opts.Journal)
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

// recoverStale turns the journal of an earlier run into a results file beside it
// (<suite>.recovered.json) when that run stopped without finishing (killed, crashed), before
// this run replaces the journal. A journal held by a live run is an error: two runs must not
// share an output folder.
func recoverStale(journal string, log io.Writer) error {
	if _, err := os.Stat(journal); err != nil {
		return os.MkdirAll(filepath.Dir(journal), 0o755)
	}
	res, err := results.RecoverJournal(journal)
	if errors.Is(err, results.ErrJournalInUse) {
		return fmt.Errorf("%w: another skillgate run is writing to this output folder", err)
	}
	if log == nil {
		log = io.Discard
	}
	if err != nil {
		fmt.Fprintf(log, "warning: %v; the journal is replaced\n", err)
		return nil
	}
	file := RecoveredPath(journal)
	if err := results.WriteFile(file, res); err != nil {
		return fmt.Errorf("recovering %s: %w", journal, err)
	}
	os.Remove(journal)
	fmt.Fprintf(log, "skillgate: an earlier run stopped before it finished: its %d finished task(s) were recovered into %s (marked incomplete)\n", len(res.Tasks), file)
	return nil
}

// RecoveredPath is where a stale journal's results are written: <suite>.recovered.json.
func RecoveredPath(journal string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(journal, results.JournalSuffix), ".json")
	return base + ".recovered.json"
}

// ReadResults reads a results file or, when only its journal is there (the run that wrote it
// was killed), recovers the journal: the tasks that finished, marked incomplete. A path that
// names the journal itself is recovered too. recovered says which happened.
func ReadResults(path string) (res *results.SuiteResult, recovered bool, err error) {
	if strings.HasSuffix(path, results.JournalSuffix) {
		res, err = results.RecoverJournal(path)
		return res, err == nil, err
	}
	_, serr := os.Stat(path)
	if _, jerr := os.Stat(results.JournalPath(path)); !errors.Is(serr, os.ErrNotExist) || jerr != nil {
		res, err = results.ReadFile(path)
		return res, false, err
	}
	res, err = results.RecoverJournal(results.JournalPath(path))
	if err == nil {
		reap.Sweep("", nil) // the run was killed: stop what it left running
	}
	return res, err == nil, err
}
