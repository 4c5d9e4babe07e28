package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/internal/glob"
	"github.com/skillgate/skillgate/internal/ioerr"
	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
	"github.com/skillgate/skillgate/spec"
)

// runFlags are the flags of `skillgate run`.
type runFlags struct {
	output, executor, model, contextDir, from, agentPath, shard, suite string
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
}

// argList is a repeatable flag whose values are kept whole (agent arguments may hold commas).
type argList []string

func (l *argList) String() string     { return strings.Join(*l, " ") }
func (l *argList) Set(v string) error { *l = append(*l, v); return nil }

func (a *app) cmdRun(args []string) int {
	spec.PrepareSchemas() // compiling overlaps reading the flags and the suite files
	var f runFlags
	fs := newFlagSet("run", "run [flags] [PATH...]   (PATH: an eval.yaml or a folder searched for eval.yaml; default .)", a.stderr)
	fs.StringVar(&f.output, "o", "", "also write the results JSON to `FILE` (several suites: FILE_<suite>.json)")
	fs.StringVar(&f.executor, "executor", "", "executor `NAME`, overriding config.executor ("+strings.Join(agent.Names(), ", ")+")")
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
	if err != nil || !f.reports.compileFailOn(a) {
		return exitUsage
	}
	if m := f.grading.judgeMode; m != "" && m != graders.JudgeEndpoint && m != graders.JudgeAgent {
		fmt.Fprintf(a.stderr, "skillgate run: --judge %q: use endpoint or agent\n", m)
		return exitUsage
	}
	if f.trials < 0 || f.workers < 0 {
		fmt.Fprintln(a.stderr, "skillgate run: --trials and --workers must be positive")
		return exitUsage
	}
	if len(paths) == 0 && len(f.experiments) == 0 {
		paths = []string{"."}
	}
	var shard *runner.Shard
	if f.shard != "" {
		sh, err := runner.ParseShard(f.shard)
		if err != nil {
			fmt.Fprintf(a.stderr, "skillgate run: --shard %v\n", err)
			return exitUsage
		}
		shard = &sh
	}
	if f.from != "" && f.executor == "" {
		f.executor = "replay"
	}

	loadOpts, labelDiags := a.loadOptions(f.grading, f.contextDir, f.reports.outDir)
	if labelDiags.HasErrors() {
		a.printDiagnostics(labelDiags)
		fmt.Fprintln(a.stderr, "skillgate: the labels file has errors; nothing was run")
		return exitUsage
	}
	loadOpts.Executor = f.executor
	loadOpts.Skip = []string{f.reports.outDir}
	loadOpts.Experiments = f.experiments
	// A shard loads in full only its own tasks; the split it loads with is the one it runs.
	// --suite picks tasks after loading, which changes the split: such a shard loads everything.
	var baseErr error
	durations := map[string]map[string]int64{}
	asked := map[string]bool{}
	if shard != nil && f.suite == "" {
		loadOpts.Shard = shard
		loadOpts.ShardDurations = func(suite, _ string, suites int) map[string]int64 {
			asked[suite] = true
			d, err := suiteDurations(f.reports.baseline(), suite, suites)
			if baseErr == nil {
				baseErr = err
			}
			if len(d) > 0 {
				durations[suite] = d
			}
			return d
		}
	}
	loaded, err := runner.Load(paths, loadOpts)
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	}
	if code, done := a.nothingToRun(loaded, paths); done {
		return code
	}
	prepared := loaded.Suites
	labelUse := checkLabels(loadOpts, prepared)
	diags := append(append(labelDiags, loaded.Diags...), labelUse...)
	a.printDiagnostics(diags)
	broken := false
	if diags.HasErrors() {
		if len(prepared) == 0 || labelUse.HasErrors() {
			fmt.Fprintf(a.stderr, "skillgate: %d error(s) in the suites; nothing was run\n", len(diags.Errors()))
			return exitUsage
		}
		// One broken suite never stops the others; the run cannot pass (exit 1).
		fmt.Fprintf(a.stderr, "skillgate: %s; the other %d suite(s) run\n", loaded.BrokenLine(), len(prepared))
		broken = true
	}
	if f.suite != "" {
		if prepared, err = selectVallySuite(prepared, f.suite, paths); err != nil {
			fmt.Fprintf(a.stderr, "skillgate: --suite: %v\n", err)
			return exitUsage
		}
	}
	for _, g := range append(append([]string(nil), f.taskGlobs...), f.tagGlobs...) {
		if err := glob.Validate(g); err != nil {
			fmt.Fprintf(a.stderr, "skillgate: --task/--tags %q: %v\n", g, err)
			return exitUsage
		}
	}
	if len(f.taskGlobs) > 0 || len(f.tagGlobs) > 0 {
		selected := 0
		for _, p := range prepared {
			selected += runner.Selected(p.Suite, f.taskGlobs, f.tagGlobs)
		}
		if selected == 0 {
			fmt.Fprintf(a.stderr, "skillgate: no task or trigger prompt matches --task %q --tags %q\n", f.taskGlobs.String(), f.tagGlobs.String())
			return exitUsage
		}
	}
	if loadOpts.Shard == nil {
		durations, err = shardDurations(shard, f.reports.baseline(), prepared)
	} else {
		err = baseErr
		for _, p := range prepared { // suites without task files (Vally's) were not asked
			if asked[p.Suite.Name] || err != nil {
				continue
			}
			var d map[string]int64
			if d, err = suiteDurations(f.reports.baseline(), p.Suite.Name, len(prepared)); len(d) > 0 {
				durations[p.Suite.Name] = d
			}
		}
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: --baseline: %v\n", err)
		return exitUsage
	}
	progress := pipeline.NewProgress(a.stdout, a.progressMode(f.quiet))
	opts := runner.Options{
		Shard:  shard,
		Trials: f.trials, Parallel: f.parallel.ptr(), Workers: f.workers, Timeout: time.Duration(f.timeout),
		Model: f.model, TaskGlobs: f.taskGlobs, TagGlobs: f.tagGlobs, Uplift: f.uplift, SkipTriggers: f.skipTriggers,
		KeepWorkspaces: f.keepWorkspaces, ReplayFrom: f.from,
		Observer: progress, Log: a.stderr, Version: versionString(),
	}
	if f.keepWorkspaces {
		opts.WorkspaceRoot = filepath.Join(f.reports.outDir, "workspaces")
	}
	if opts.Cache, err = f.cache.open(f.reports.outDir, f.agentArgs); err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	}
	run := runner.SuitesOptions{
		Executor:       runner.ExecutorOptions{Name: f.executor, Path: f.agentPath, Args: f.agentArgs, ReplayFrom: f.from, Log: a.stderr},
		Run:            opts,
		OutDir:         f.reports.outDir,
		Pretty:         f.reports.pretty,
		ShardDurations: durations,
		Written:        func(res *results.SuiteResult, file string) error { return a.copyResults(res, file, f, len(prepared)) },
	}
	publish := f.reports.publishOptions()
	// A shard's gate and comparison are partial (`skillgate merge` decides for the whole run);
	// its baselines only serve to confirm its own tasks.
	publish.NoCompare = shard != nil
	if f.confirmRuns != 0 && len(f.reports.baselines) > 0 {
		publish.Confirm = &pipeline.Confirm{Runs: f.confirmRuns, Log: a.stderr}
	}
	publish.SetupFailed = broken
	ran, ev, err := pipeline.Evaluate(a.ctx, prepared, run, a.warnBaselines(pipeline.BaselinesAt(f.reports.baselines...)), publish)
	progress.Done()
	var diskFullSetup error // a suite that could not start because the disk is full: not a usage error
	setupErrors := 0
	for _, e := range ran.SetupErrors {
		if ioerr.DiskFull(e) {
			diskFullSetup = e
			continue
		}
		setupErrors++
		fmt.Fprintf(a.stderr, "skillgate: %v\n", e)
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
	case len(ran.Results) == 0:
	case shard != nil:
		a.finishReports(f.reports, ev, false)
		fmt.Fprintf(a.stderr, "skillgate: shard %s written to %s; combine every shard with `skillgate merge`\n", shard, f.reports.outDir)
	default:
		exit = a.finishReports(f.reports, ev, true)
	}
	if shard == nil && a.ctx.Err() != nil {
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
	if broken {
		exit = max(exit, exitFailed)
	}
	return exit
}

// nothingToRun handles a search that found no suite: the skipped files are named in one line
// (always, when there are any), and a repository whose candidates are all another tool's files
// has nothing to run, which is no failure (exit 0); finding no candidate at all is a usage error.
// done is false when there are suites to load.
func (a *app) nothingToRun(loaded *runner.Loaded, paths []string) (code int, done bool) {
	if line := loaded.Found.SkippedLine(); line != "" {
		fmt.Fprintf(a.stderr, "skillgate: %s\n", line)
	}
	switch {
	case loaded.Loads > 0:
		return 0, false
	case len(loaded.Found.Skipped) > 0:
		fmt.Fprintf(a.stderr, "skillgate: nothing to run: no suite in %s\n", strings.Join(paths, ", "))
		return exitOK, true
	}
	fmt.Fprintf(a.stderr, "skillgate: %v\n", loaded.NoSuiteError(paths))
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

// shardDurations reads each suite's task durations from the --baseline results for a sharded
// run's longest-first split; without a baseline (or a suite it lacks) the split is by hash.
func shardDurations(shard *runner.Shard, baseline string, prepared []*runner.Prepared) (map[string]map[string]int64, error) {
	if shard == nil || baseline == "" {
		return nil, nil
	}
	out := map[string]map[string]int64{}
	for _, p := range prepared {
		d, err := suiteDurations(baseline, p.Suite.Name, len(prepared))
		if err != nil {
			return nil, err
		}
		if len(d) > 0 {
			out[p.Suite.Name] = d
		}
	}
	return out, nil
}

// suiteDurations are the task durations of one suite's --baseline results (nil without).
func suiteDurations(baseline, suite string, suites int) (map[string]int64, error) {
	if baseline == "" {
		return nil, nil
	}
	base, _, err := pipeline.FindBaseline(baseline, &results.SuiteResult{EvalName: suite}, suites)
	if err != nil {
		return nil, err
	}
	return runner.TaskDurations(base), nil
}
