package main

import (
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/internal/glob"
	"github.com/skillgate/skillgate/internal/ioerr"
	"github.com/skillgate/skillgate/internal/runcache"
	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// runFlags are the flags of `skillgate run`.
type runFlags struct {
	output, executor, model, contextDir, from, agentPath, shard, suite string
	shardOf                                                            *pipeline.Shard
	trials, workers, confirmRuns                                       int
	parallel                                                           optionalBool
	taskGlobs, tagGlobs                                                stringList
	experiments                                                        argList
	agentArgs                                                          argList
	keepWorkspaces, uplift, quiet, skipTriggers                        bool
	timeout                                                            durationFlag
	reports                                                            reportFlags
	grading                                                            gradingFlags
	cache                                                              cacheFlags
	help                                                               bool // -h or --help: the usage was asked for
}

// argList is a repeatable flag whose values are kept whole (agent arguments may hold commas).
type argList []string

func (l *argList) String() string     { return strings.Join(*l, " ") }
func (l *argList) Set(v string) error { *l = append(*l, v); return nil }

func (a *app) cmdRun(args []string) int {
	spec.PrepareSchemas() // compiling overlaps reading the flags and the suite files
	f, paths, ok := a.parseRunFlags(args)
	if f.help {
		return exitOK
	}
	if !ok {
		return exitUsage
	}
	progress := pipeline.NewProgress(a.stdout, a.progressMode(f.quiet))
	plan, code, ok := a.loadPlan(paths, f, progress)
	if !ok {
		return code
	}
	publish := f.reports.publishOptions()
	out, err := pipeline.Evaluate(a.ctx, plan, &publish)
	progress.Done()
	return a.runExit(f, plan, out, err)
}

// parseRunFlags reads and checks the flags of `skillgate run`; false is a usage error (said).
func (a *app) parseRunFlags(args []string) (f runFlags, paths []string, ok bool) {
	fs := newFlagSet("run", "run [flags] [PATH...]   (PATH: a suite file, or a folder searched for suites of the three formats; default .)", a.stderr)
	fs.StringVar(&f.output, "o", "", "also write the results JSON to `FILE` (several suites: FILE_<suite>.json)")
	fs.StringVar(&f.executor, "executor", "", "executor `NAME`, overriding config.executor ("+strings.Join(pipeline.ExecutorNames(), ", ")+")")
	fs.StringVar(&f.model, "model", "", "model `ID` handed to the agent, overriding config.model")
	fs.IntVar(&f.trials, "trials", 0, "trials per task `N`, overriding config.trials_per_task")
	fs.Var(&f.parallel, "parallel", "run tasks concurrently (overrides config.parallel)")
	fs.IntVar(&f.workers, "workers", 0, "concurrent runs `N` when parallel (overrides config.max_workers)")
	fs.Var(&f.taskGlobs, "task", "run only tasks whose id or name, and trigger prompts whose id, matches `GLOB` (repeatable)")
	fs.Var(&f.tagGlobs, "tags", "run only tasks with a tag matching `GLOB` (repeatable; no trigger prompt runs)")
	fs.BoolVar(&f.skipTriggers, "skip-triggers", false, "run no trigger prompt (trigger_tests.yaml)")
	fs.StringVar(&f.contextDir, "context-dir", "", "fixtures `DIR` instead of each suite's fixtures/")
	fs.BoolVar(&f.keepWorkspaces, "keep-workspaces", false, "keep every run's workspace under <out>/workspaces")
	fs.StringVar(&f.from, "from", "", "replay recorded runs from a results `FILE` or a folder of run files (implies --executor replay)")
	fs.Var(&f.timeout, "timeout", "per-run time limit `DURATION` for every task (e.g. 90s, 5m), overriding timeout_seconds")
	fs.BoolVar(&f.uplift, "uplift", false, "also run every task without the skill and report the skill's impact")
	fs.StringVar(&f.agentPath, "agent-path", "", "agent CLI binary `PATH` (default: looked up in PATH)")
	fs.Var(&f.agentArgs, "agent-arg", "extra argument `ARG` for the agent CLI (repeatable)")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output")
	fs.IntVar(&f.confirmRuns, "confirm-runs", -1, "confirmation runs `N` at most for tasks that look worse than on the --baseline (0: none; default: a quarter of the planned runs, at least 32)")
	fs.StringVar(&f.suite, "suite", "", "run the Vally suite `NAME` of .vally.yaml: its spec files and the stimuli its tag filter selects")
	fs.Var(&f.experiments, "experiment", "run the Vally experiment `FILE`: its specs under each variant (repeatable; without PATH, only the experiments run)")
	fs.StringVar(&f.shard, "shard", "", "run shard `i/n` of the tasks (stable hash of suite and task id; longest first by the --baseline's durations when given); merge the shards with `skillgate merge`")
	f.reports.register(fs, "`DIR` where every output of the run goes")
	f.grading.register(fs)
	f.cache.register(fs)
	paths, err := parseInterspersed(fs, args)
	f.help = errors.Is(err, flag.ErrHelp)
	if err != nil || !f.reports.compileFailOn(a) {
		return f, nil, false
	}
	if m := f.grading.judgeMode; m != "" && m != graders.JudgeEndpoint && m != graders.JudgeAgent {
		fmt.Fprintf(a.stderr, "skillgate run: --judge %q: use endpoint or agent\n", m)
		return f, nil, false
	}
	if f.trials < 0 || f.workers < 0 {
		fmt.Fprintln(a.stderr, "skillgate run: --trials and --workers must be positive")
		return f, nil, false
	}
	if len(paths) == 0 && len(f.experiments) == 0 {
		paths = []string{"."}
	}
	if f.shard != "" {
		sh, err := pipeline.ParseShard(f.shard)
		if err != nil {
			fmt.Fprintf(a.stderr, "skillgate run: --shard %v\n", err)
			return f, nil, false
		}
		f.shardOf = &sh
	}
	if f.from != "" && f.executor == "" {
		f.executor = "replay"
	}
	return f, paths, true
}

// runSettings are the pipeline's settings of the flags.
// suites is the number of suites the run has, known once they load (-o names a file per suite
// when there are several).
func (a *app) runSettings(f runFlags, progress *pipeline.Progress, suites *int) pipeline.Settings {
	s := pipeline.Settings{
		ContextDir: f.contextDir, Executor: f.executor, Experiments: f.experiments, Skip: []string{f.reports.outDir},
		VallySuite: f.suite, Labels: f.grading.labels, Judge: f.grading.judge(a.getenv, f.reports.outDir),
		Shard: f.shardOf, Baselines: a.warnBaselines(pipeline.Locations(f.reports.baselines)),
		OutDir: f.reports.outDir, Pretty: f.reports.pretty,
		Trials: f.trials, Parallel: f.parallel.ptr(), Workers: f.workers, Timeout: time.Duration(f.timeout),
		Model: f.model, TaskGlobs: f.taskGlobs, TagGlobs: f.tagGlobs, Uplift: f.uplift, SkipTriggers: f.skipTriggers,
		KeepWorkspaces: f.keepWorkspaces, ReplayFrom: f.from, AgentPath: f.agentPath, AgentArgs: f.agentArgs,
		RunCache: func() (*runcache.Store, error) { return f.cache.open(f.reports.outDir) },
		Progress: progress, Log: a.stderr, Version: versionString(),
	}
	if f.keepWorkspaces {
		s.WorkspaceRoot = filepath.Join(f.reports.outDir, "workspaces")
	}
	s.Written = func(res *results.SuiteResult, file string) error { return a.copyResults(res, file, f, *suites) }
	if len(f.reports.baselines) > 0 {
		s.ConfirmRuns = f.confirmRuns // confirmation needs a baseline to look worse than
	}
	return s
}

// loadPlan loads the suites the flags name and says every problem; ok is false when nothing
// meaningful can run (code is the exit status then).
func (a *app) loadPlan(paths []string, f runFlags, progress *pipeline.Progress) (plan *pipeline.Plan, code int, ok bool) {
	suites := new(int)
	plan, err := pipeline.Load(paths, a.runSettings(f, progress, suites))
	var labelsErr *pipeline.LabelsError
	switch {
	case errors.As(err, &labelsErr):
		a.printDiagnostics(labelsErr.Diags)
		fmt.Fprintln(a.stderr, "skillgate: the labels file has errors; nothing was run")
		return nil, exitUsage, false
	case plan == nil:
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return nil, exitUsage, false
	}
	if code, done := a.nothingToRun(plan, paths); done {
		return nil, code, false
	}
	a.printDiagnostics(plan.Diags)
	if plan.Stopped() {
		fmt.Fprintf(a.stderr, "skillgate: %d error(s) in the suites; nothing was run\n", len(plan.Diags.Errors()))
		return nil, exitUsage, false
	}
	if plan.Broken() {
		// One broken suite never stops the others; the run cannot pass (exit 1).
		fmt.Fprintf(a.stderr, "skillgate: %s; the other %d suite(s) run\n", plan.BrokenLine(), len(plan.Suites))
	}
	var selErr *pipeline.SelectionError
	if errors.As(err, &selErr) {
		fmt.Fprintf(a.stderr, "skillgate: --suite: %v\n", selErr.Err)
		return nil, exitUsage, false
	}
	for _, g := range append(append([]string(nil), f.taskGlobs...), f.tagGlobs...) {
		if err := glob.Validate(g); err != nil {
			fmt.Fprintf(a.stderr, "skillgate: --task/--tags %q: %v\n", g, err)
			return nil, exitUsage, false
		}
	}
	if (len(f.taskGlobs) > 0 || len(f.tagGlobs) > 0) && plan.Selected() == 0 {
		fmt.Fprintf(a.stderr, "skillgate: no task or trigger prompt matches --task %q --tags %q\n", f.taskGlobs.String(), f.tagGlobs.String())
		return nil, exitUsage, false
	}
	if err != nil { // the shard's split could not read the --baseline
		fmt.Fprintf(a.stderr, "skillgate: --baseline: %v\n", err)
		return nil, exitUsage, false
	}
	*suites = len(plan.Suites)
	return plan, 0, true
}

// runExit says how the run ended and returns its exit status.
func (a *app) runExit(f runFlags, plan *pipeline.Plan, out *pipeline.Outcome, err error) int {
	var diskFullSetup error // a suite that could not start because the disk is full: not a usage error
	setupErrors := 0
	for _, e := range out.SetupErrors {
		if ioerr.DiskFull(e) {
			diskFullSetup = e
			continue
		}
		setupErrors++
		fmt.Fprintf(a.stderr, "skillgate: %v\n", e)
	}
	if out.ConfirmErr != nil {
		fmt.Fprintf(a.stderr, "skillgate: warning: confirmation: %v; its tasks stay unconfirmed\n", out.ConfirmErr)
	}
	if code, ok := a.diskFullFailure(err, f.reports.outDir); ok {
		return code
	}
	var runErr *pipeline.RunError
	switch {
	case errors.As(err, &runErr):
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	case err != nil:
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitCodeOf(err)
	}
	exit := exitOK
	switch {
	case len(out.Heads) == 0:
	case f.shardOf != nil:
		a.finishReports(f.reports, out.Evaluation, false)
		fmt.Fprintf(a.stderr, "skillgate: shard %s written to %s; combine every shard with `skillgate merge`\n", f.shardOf, f.reports.outDir)
	default:
		exit = a.finishReports(f.reports, out.Evaluation, true)
	}
	if f.shardOf == nil && a.ctx.Err() != nil {
		fmt.Fprintln(a.stderr, "skillgate: interrupted; results of finished work were written (marked incomplete)")
		exit = max(exit, exitFailed)
	}
	if diskFullSetup != nil {
		code, _ := a.diskFullFailure(diskFullSetup, f.reports.outDir)
		exit = max(exit, code)
	}
	if setupErrors > 0 {
		exit = exitUsage
	}
	if plan.Broken() {
		exit = max(exit, exitFailed)
	}
	return exit
}

// nothingToRun handles a search that found no suite: the skipped files are named in one line
// (always, when there are any), and a repository whose candidates are all another tool's files
// has nothing to run, which is no failure (exit 0); finding no candidate at all is a usage error.
// done is false when there are suites to load.
func (a *app) nothingToRun(plan *pipeline.Plan, paths []string) (code int, done bool) {
	// With no suite and no skipped file, the usage error below carries the line.
	if line := plan.SkippedLine(); line != "" && (plan.Loads() > 0 || plan.Skipped() > 0) {
		fmt.Fprintf(a.stderr, "skillgate: %s\n", line)
	}
	switch {
	case plan.Loads() > 0, plan.Diags.HasErrors():
		// An experiment with an error loads nothing: its errors are said, not "no suite found".
		return 0, false
	case plan.Skipped() > 0:
		fmt.Fprintf(a.stderr, "skillgate: nothing to run: no suite in %s\n", strings.Join(paths, ", "))
		return exitOK, true
	}
	fmt.Fprintf(a.stderr, "skillgate: %v\n", plan.NoSuiteError(paths))
	return exitUsage, true
}

func (a *app) progressMode(quiet bool) pipeline.ProgressMode {
	switch {
	case quiet:
		return pipeline.ProgressQuiet
	case a.inGitHubActions():
		return pipeline.ProgressGitHub
	case a.isTTY:
		return pipeline.ProgressTTY
	}
	return pipeline.ProgressPlain
}

// copyResults reports where a suite's results were written and, with -o, copies them to that
// file too (several suites: FILE_<suite>.json).
func (a *app) copyResults(res *results.SuiteResult, file string, f runFlags, suites int) error {
	paths := []string{file}
	if f.output != "" {
		out := f.output
		if suites > 1 {
			ext := filepath.Ext(out)
			out = strings.TrimSuffix(out, ext) + "_" + results.Slug(res.EvalName) + ext
		}
		if err := results.WriteFileAs(out, res, f.reports.pretty); err != nil {
			return err
		}
		paths = append(paths, out)
	}
	fmt.Fprintf(a.stderr, "results: %s\n", strings.Join(paths, ", "))
	return nil
}

func versionString() string {
	ver, rev, _ := buildInfo()
	if rev == "unknown" {
		return ver
	}
	return ver + "+" + rev
}
