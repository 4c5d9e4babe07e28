// Package action is skillgate's GitHub Action (`skillgate action`): on a pull request it runs the
// suites the change affects, compares them with the base branch, and reports through a sticky
// comment, the job summary, annotations, an optional check run and step outputs; the exit status
// comes from the fail-on expression, so a required check blocks the merge.
//
// Everything the outside world provides (output streams, environment, HTTP, clock, git) is
// injected through Deps, so tests run the whole flow against an httptest fake of the GitHub API.
package action

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	gha "github.com/sethvargo/go-githubactions"

	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/graders/judge"
	"github.com/skillgate/skillgate/internal/ioerr"
	"github.com/skillgate/skillgate/internal/redact"
	"github.com/skillgate/skillgate/internal/retry"
	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
	"github.com/skillgate/skillgate/spec"
)

// Exit statuses (docs/action.md#fail-on).
const (
	ExitOK     = 0 // fail-on is false
	ExitFailed = 1 // fail-on is true
	ExitUsage  = 2 // bad inputs or suites, or the run could not start
)

// Deps are the action's connections to the outside world.
type Deps struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// HTTPClient is the base client for GitHub (no credentials; the token is added per client).
	HTTPClient *http.Client
	Now        func() time.Time
	// Sleep waits between retries of GitHub calls.
	Sleep func(context.Context, time.Duration) error
	// LookPath finds git; nil uses exec.LookPath. Returning an error makes the action use the
	// API only.
	LookPath func(string) (string, error)
	// Version is skillgate's version for provenance and reports.
	Version string
}

func (d Deps) withDefaults() Deps {
	if d.Stdout == nil {
		d.Stdout = os.Stdout
	}
	if d.Stderr == nil {
		d.Stderr = os.Stderr
	}
	if d.Getenv == nil {
		d.Getenv = os.Getenv
	}
	if d.HTTPClient == nil {
		d.HTTPClient = &http.Client{Timeout: 2 * time.Minute}
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Sleep == nil {
		d.Sleep = retry.Sleep
	}
	if d.LookPath == nil {
		d.LookPath = exec.LookPath
	}
	return d
}

// Main runs the action and returns the exit status. It never panics: an internal error is
// reported as an error annotation and exit status 2.
func Main(ctx context.Context, d Deps) (code int) {
	d = d.withDefaults()
	// Every secret value known (the agents' keys, the runner's tokens; the inputs are added as
	// they are masked) is replaced in what the action prints and writes (internal/redact).
	redact.AddEnviron(os.Environ())
	rawStdout := d.Stdout
	stdout := redact.NewWriter(d.Stdout)
	defer stdout.Flush()
	d.Stdout = stdout
	redactedStderr := redact.NewWriter(d.Stderr)
	defer redactedStderr.Flush()
	stderr := newNeutralWriter(redactedStderr)
	defer stderr.Flush()
	d.Stderr = stderr
	defer func() {
		if p := recover(); p != nil {
			crash := gha.Command{Name: "error", Properties: gha.CommandProperties{"title": "skillgate crashed"},
				Message: fmt.Sprintf("internal error: %v (results written so far are in the results folder; please report this with the log)", p)}
			fmt.Fprintln(d.Stdout, crash.String())
			fmt.Fprintf(d.Stderr, "skillgate action: panic: %v\n%s", p, debug.Stack())
			code = ExitUsage
		}
	}()
	r := &run{ctx: ctx, d: d, cmd: newCommands(d.Stdout, d.Stderr, d.Getenv)}
	r.cmd.masker = gha.New(gha.WithWriter(rawStdout), gha.WithGetenv(d.Getenv))
	return r.main()
}

// run is one execution of the action.
type run struct {
	ctx context.Context
	d   Deps
	cmd *commands
	cfg *Config
	ev  *Event

	workspace string // GITHUB_WORKSPACE (absolute)
	workDir   string // working-directory (absolute)
	repoRoot  string // the checkout's root, which repository paths are relative to
	outDir    string // results-dir (absolute)

	gh    *github.Client // nil without a token or repository
	plain *http.Client   // downloads of signed URLs (no credentials)

	changes *changeSet // pull requests with changed-only: what the change touched

	judgePool *judge.Pool // LLM judge clients, shared by every suite the action loads

	// mode is the effective mode (auto resolved to run or collect).
	mode mode
	// writes is what GitHub has let this run write.
	writes writeState
	// reported is the collected run report mode publishes; nil in other modes.
	reported *reportedRun
	// login is the identity the token acts as, once looked up (owner.go); "" when unknown.
	login      string
	loginKnown bool

	runCache runCacheState // runcache.go
	// artifact is the baseline artifact's search, done once per job (artifact.go).
	artifact *artifactFetch
	// broken: a suite had errors and did not run (the others did), so the run cannot pass.
	broken bool
}

// main is the action's flow in three phases: set up (inputs, event, clients), evaluate (the
// affected suites run, results written), publish (baselines, comparisons, reports and every
// GitHub surface, then the gate). Later modes reuse the phases: a report-only mode publishes
// results it did not evaluate.
func (r *run) main() int {
	if code, ok := r.setup(); !ok {
		return code
	}
	return r.mode.execute(r)
}

// evaluateAndPublish runs the affected suites, writing each results file as its suite finishes,
// then publishes them (a shard leaves its results for the merge job instead).
func (r *run) evaluateAndPublish() int {
	opts := r.loadOptions()
	var split *shardSplit
	if r.cfg.Shard != nil {
		// A shard loads in full only its own tasks, so the split is decided while the suites
		// load; the run splits by the same durations.
		split = r.newShardSplit()
		opts.Shard = r.cfg.Shard
		opts.ShardDurations = split.durations
	}
	prepared, code, ok := r.loadSuites(opts)
	if !ok {
		return code
	}
	affected, unaffected := r.selectSuites(prepared)
	if err := os.MkdirAll(r.outDir, 0o755); err != nil {
		r.cmd.errorf("skillgate: results-dir", "cannot create %s: %v", r.outDir, err)
		return ExitUsage
	}
	defer chownToWorkspace(r.outDir, r.workspace)
	var durations map[string]map[string]int64
	if split != nil {
		durations = split.forRun(affected)
	}
	r.seedRunCache(affected)
	ran, setupFailed, err := r.evaluate(affected, durations)
	if err != nil {
		return r.failureCode(err)
	}
	if r.cfg.Shard != nil {
		return r.publishShard(affected, ran, split, unaffected, setupFailed)
	}
	return r.publish(prepared, ran, unaffected, setupFailed)
}

// setup validates the inputs, masks secrets, reads the event and builds the GitHub clients.
func (r *run) setup() (int, bool) {
	// Secrets are masked before anything else is printed.
	r.cmd.mask(r.cmd.input(InGitHubToken))
	r.cmd.mask(r.cmd.input(InJudgeAPIKey))
	cfg, err := ParseInputs(r.cmd.input)
	if err != nil {
		for _, e := range unjoin(err) {
			r.cmd.errorf("skillgate: bad input", "%v", e)
			fmt.Fprintf(r.d.Stderr, "skillgate: %v\n", e)
		}
		return ExitUsage, false
	}
	r.cfg = cfg
	if code, ok := r.locate(); !ok {
		return code, false
	}
	r.ev, err = ReadEvent(r.d.Getenv)
	switch {
	case errors.Is(err, ErrNoEvent):
		r.cmd.warnf("skillgate: %v; running every suite without pull-request features (comment, changed-only, baseline lookup)", err)
	case err != nil:
		r.cmd.warnf("skillgate: %v; running every suite without pull-request features", err)
		r.ev.PR = nil
	}
	r.plain = retryingClient(r.d.HTTPClient, r.d.Sleep, r.d.Now)
	if cfg.Token != "" && r.ev.Owner != "" && r.ev.Repo != "" {
		apiURL := r.d.Getenv("GITHUB_API_URL")
		if apiURL == "" {
			apiURL = "https://api.github.com"
		}
		if r.gh, err = newGitHubClient(r.d.HTTPClient, apiURL, cfg.Token, r.d.Sleep, r.d.Now); err != nil {
			r.cmd.warnf("skillgate: %v; GitHub features are off", err)
		}
	}
	r.mode = r.resolveMode()
	return 0, true
}

// failureCode is the exit status of a failure that stopped the run: 2 (nothing meaningful could
// run), except for a full disk, an I/O failure (1) whose results written so far are kept.
func (r *run) failureCode(err error) int {
	if ioerr.DiskFull(err) {
		r.cmd.errorf("skillgate: I/O failure", "no space left on the device holding %s: the results files and journals written so far are kept there", r.outDir)
		return ExitFailed
	}
	return ExitUsage
}

// evaluate runs the suites; each results file is written as soon as its suite finishes.
// setupFailed says a suite could not start; err is a failure that stopped the run (reported).
func (r *run) evaluate(suites []*runner.Prepared, durations map[string]map[string]int64) (ran *runner.SuitesRun, setupFailed bool, err error) {
	ran, err = r.runSuites(suites, r.outDir, "", func(o *runner.SuitesOptions) {
		o.Run.Shard = r.cfg.Shard
		o.ShardDurations = durations
	})
	for _, e := range ran.SetupErrors {
		r.cmd.errorf("skillgate: suite could not start", "%v", e)
		setupFailed = true
	}
	if err != nil {
		r.cmd.errorf("skillgate: run failed", "%v", err)
		fmt.Fprintf(r.d.Stderr, "skillgate: %v\n", err)
	}
	return ran, setupFailed, err
}

// publish compares the results with their baselines, writes every report file, then reports
// on GitHub (outputs, summary, annotations, comment, check run) and returns the gate's exit
// status. Files come first: a GitHub call that fails loses nothing.
func (r *run) publish(prepared []*runner.Prepared, ran *runner.SuitesRun, unaffected []report.Unaffected, setupFailed bool) int {
	var bases map[string]*baseline
	policy := r.mode.policy()
	if policy.collect {
		// With LLM grades pending the scores are incomplete: the report workflow compares.
		bases = map[string]*baseline{}
		for _, res := range ran.Results {
			bases[results.Slug(res.EvalName)] = &baseline{Source: &results.BaselineSource{Method: BaselineNone, Detail: "compared by the report workflow"}}
		}
	} else {
		bases = r.baselines(prepared, ran)
	}
	heads := pipeline.Heads(ran)
	for i := range heads {
		res := heads[i].Result
		b := bases[results.Slug(res.EvalName)]
		if b.Source.Method != BaselineNone && !b.Source.CreatedAt.IsZero() && res.Timestamp.Sub(b.Source.CreatedAt) > staleBaseline {
			r.cmd.warnf("skillgate: the baseline of %s is %s old (%s); results may differ for reasons other than this change", res.EvalName, age(res.Timestamp.Sub(b.Source.CreatedAt)), b.Source.Detail)
		}
		heads[i].Base = &pipeline.Baseline{Result: b.Result, File: b.File, Source: b.Source, History: b.History}
		heads[i].Shown = r.rel(heads[i].File)
	}
	if !policy.collect {
		pipeline.ComparePairwise(r.ctx, heads, pipeline.PairwiseOptions{Prepared: prepared,
			Executor: runner.ExecutorOptions{Name: r.cfg.Executor}, Log: r.d.Stderr})
	}
	if !policy.collect && !policy.reporting {
		r.confirm(prepared, heads, 1)
	}
	ev, err := pipeline.Publish(heads, pipeline.Options{
		OutDir: r.outDir, Key: r.commentKey(), ToolVersion: r.d.Version, RepoRoot: r.repoRoot,
		MinEffect: r.cfg.MinEffect, Unaffected: unaffected, SetupFailed: setupFailed || r.broken, Event: r.ev.Name,
		// Baselines are matched by name, so this is a suite renamed on one side.
		OnMismatch: func(suite string, err error) { r.cmd.warnf("skillgate: %s: %v", suite, err) },
	})
	if err != nil {
		r.cmd.errorf("skillgate: writing reports", "%v", err)
		return r.failureCode(err)
	}
	in, vars := ev.Input, ev.Vars
	r.writeOutputs(vars, in)
	if policy.collect {
		return r.finishCollect(prepared, in, setupFailed)
	}
	fail, evalErr := pipeline.EvalFailOn(r.cfg.failOn, vars)
	if evalErr != nil {
		r.cmd.errorf("skillgate: fail-on", "evaluating %q: %v", r.cfg.FailOn, evalErr)
		fail = true
	}
	if err := r.cmd.addSummary(report.Summary(in)); err != nil && !errors.Is(err, errNoFileCommand) {
		r.cmd.warnf("skillgate: job summary not written: %v", err)
	}
	anns := collectAnnotations(in, r.repoRoot)
	if r.cfg.Annotations {
		emitAnnotations(r.cmd, anns)
	}
	if url := r.comment(in, len(ran.Results) > 0); url != "" {
		r.output(OutCommentURL, url)
	}
	if r.cfg.CheckRun || policy.reporting {
		// The check run is how the report workflow gates: its job is not on the pull request.
		r.checkRun(in, anns, fail, vars)
	}
	if r.writes.refused && r.cfg.Mode == ModeAuto && r.ev.PR != nil && !policy.reporting {
		// The token turned out read-only (a Dependabot pull request, say): leave a bundle so the
		// report workflow can publish what this run could not.
		if err := r.writeBundle(prepared, in, true, "GitHub refused this run's writes (read-only token)"); err != nil {
			r.cmd.warnf("skillgate: no bundle for the report workflow: %v", err)
		} else {
			r.cmd.noticef("skillgate: GitHub refused this run's writes (read-only token): the results folder holds a bundle (%s) the report workflow (mode: report) can publish", PRFile)
		}
	}

	switch {
	case evalErr != nil, setupFailed:
		return ExitUsage
	case r.broken:
		r.cmd.infof("skillgate: a suite had errors and did not run: failing the step; verdict %s", vars.Verdict)
		return ExitFailed
	case fail:
		r.cmd.infof("skillgate: fail-on is true (%s): failing the step; verdict %s", r.cfg.FailOn, vars.Verdict)
		return ExitFailed
	}
	r.cmd.infof("skillgate: fail-on is false (%s): verdict %s", r.cfg.FailOn, vars.Verdict)
	return ExitOK
}

// locate resolves the workspace, working directory, repository root and results folder.
func (r *run) locate() (int, bool) {
	ws := r.d.Getenv("GITHUB_WORKSPACE")
	if ws == "" {
		var err error
		if ws, err = os.Getwd(); err != nil {
			r.cmd.errorf("skillgate: workspace", "%v", err)
			return ExitUsage, false
		}
	}
	ws, _ = filepath.Abs(ws)
	r.workspace = ws
	r.workDir = filepath.Join(ws, filepath.FromSlash(r.cfg.WorkingDirectory))
	if info, err := os.Stat(r.workDir); err != nil || !info.IsDir() {
		r.cmd.errorf("skillgate: bad input", "input %q = %q: no such folder in the workspace %s (check out the repository with actions/checkout first)", InWorkingDirectory, r.cfg.WorkingDirectory, ws)
		return ExitUsage, false
	}
	r.repoRoot = findRepoRoot(r.workDir, ws)
	r.outDir = filepath.Join(r.workDir, filepath.FromSlash(r.cfg.ResultsDir))
	return 0, true
}

// findRepoRoot is the nearest folder holding .git at or above dir, within the workspace; the
// workspace itself when there is none.
func findRepoRoot(dir, workspace string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == workspace || d == filepath.Dir(d) || !within(workspace, d) {
			return workspace
		}
	}
}

func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// rel shows a path relative to the working directory when it is inside it.
func (r *run) rel(path string) string {
	if rel, err := filepath.Rel(r.workDir, path); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return path
}

// loadOptions are the suites' load settings. The judge gets the judge inputs as options (the
// environment, SKILLGATE_JUDGE_* included, fills in what they leave empty), shares one client
// pool (one concurrency limit per endpoint) between the PR's suites and a rerun baseline, and
// caches verdicts under the results folder, which a workflow can restore with actions/cache.
func (r *run) loadOptions() runner.LoadOptions {
	cache := filepath.Join(r.outDir, "cache", "judge")
	if r.judgePool == nil {
		r.judgePool = &judge.Pool{CacheDir: cache}
	}
	opts := runner.LoadOptions{Judge: r.judgeOptions(cache)}
	if r.mode.policy().collect {
		opts.Override = deferJudges
	}
	return opts
}

// judgeOptions are the judge inputs. The workflow token is the key for GitHub Models only: the
// graders never send it to another endpoint.
func (r *run) judgeOptions(cache string) *graders.JudgeOptions {
	return &graders.JudgeOptions{
		BaseURL: r.cfg.JudgeBaseURL, Model: r.cfg.JudgeModel, APIKey: r.cfg.JudgeAPIKey, GitHubToken: r.cfg.Token,
		CacheDir: cache, Getenv: r.d.Getenv, Pool: r.judgePool,
	}
}

// loadSuites discovers the suites of the suites input and loads them with opts; problems are
// annotated at their file and line.
func (r *run) loadSuites(opts runner.LoadOptions) ([]*runner.Prepared, int, bool) {
	paths, err := resolveSuites(r.workDir, r.cfg.Suites)
	if err != nil {
		r.cmd.errorf("skillgate: bad input", "input %q: %v", InSuites, err)
		return nil, ExitUsage, false
	}
	loaded, err := runner.Load(paths, opts)
	if err != nil {
		r.cmd.errorf("skillgate: no suites", "%v", err)
		return nil, ExitUsage, false
	}
	// Files that are not suites (a workflow named eval.yml, another tool's eval.yaml) are named
	// and skipped; a repository of only such files has nothing to run, which is no failure.
	if line := loaded.Found.SkippedLine(); line != "" {
		r.cmd.infof("skillgate: %s", line)
	}
	if loaded.Loads == 0 {
		if len(loaded.Found.Skipped) > 0 {
			r.cmd.noticef("skillgate: nothing to run: no suite in %s", strings.Join(paths, ", "))
			return nil, ExitOK, false
		}
		r.cmd.errorf("skillgate: no suites", "%v", loaded.NoSuiteError(paths))
		return nil, ExitUsage, false
	}
	prepared, diags := loaded.Suites, loaded.Diags
	for _, d := range diags {
		level := LevelError
		if d.Severity == spec.SevWarning {
			level = LevelWarning
		}
		fmt.Fprintln(r.d.Stderr, d.Error())
		r.cmd.annotate(Annotation{Level: level, File: repoPath(r.repoRoot, d.Pos.File), Line: max(d.Pos.Line, 1), Col: d.Pos.Col, Title: "skillgate: " + d.Key, Message: diagText(d)})
	}
	if diags.HasErrors() {
		if len(prepared) == 0 {
			r.cmd.errorf("skillgate: invalid suites", "%d error(s) in the suites; nothing was run", len(diags.Errors()))
			return nil, ExitUsage, false
		}
		// One broken suite never stops the others; the run cannot pass.
		r.cmd.errorf("skillgate: invalid suites", "%s; the other %d suite(s) run", loaded.BrokenLine(), len(prepared))
		r.broken = true
	}
	return prepared, 0, true
}

func diagText(d spec.Diagnostic) string {
	s := d.Message
	if d.Fix != "" {
		s += " (fix: " + d.Fix + ")"
	}
	return s
}

// confirm runs confirmation trials for the heads compared with a baseline, before the verdict
// (docs/statistics.md#confirming-before-blocking); shards is how many jobs share the budget.
func (r *run) confirm(prepared []*runner.Prepared, heads []pipeline.Head, shards int) {
	if r.cfg.ConfirmRuns == 0 {
		return
	}
	stdout, stderr := newNeutralWriter(r.d.Stdout), newNeutralWriter(r.d.Stderr)
	defer stdout.Flush()
	defer stderr.Flush()
	o := r.suitesOptions(stdout, stderr)
	c := pipeline.Confirm{Runs: r.cfg.ConfirmRuns, Executor: o.Executor, Run: o.Run, Log: stderr}
	if c.Runs > 0 && shards > 1 {
		c.Runs = (c.Runs + shards - 1) / shards
	}
	out, err := pipeline.ConfirmHeads(r.ctx, prepared, heads, c, pipeline.Options{MinEffect: r.cfg.MinEffect})
	if err != nil {
		r.cmd.warnf("skillgate: confirmation: %v", err)
	}
	if out.Runs > 0 {
		r.cmd.infof("skillgate: %d confirmation run(s) of %d allowed", out.Runs, out.Budget)
	}
}

// suitesOptions are the run options of the inputs, writing progress and logs to stdout and stderr.
func (r *run) suitesOptions(stdout, stderr io.Writer) runner.SuitesOptions {
	return runner.SuitesOptions{
		Executor: runner.ExecutorOptions{Name: r.cfg.Executor, Log: stderr},
		Run: runner.Options{
			Trials: r.cfg.Trials, Model: r.cfg.Model, SkipTriggers: r.cfg.SkipTriggers, Cache: r.openRunCache(),
			Observer: pipeline.NewProgress(stdout, pipeline.ProgressGitHub), Log: stderr, Version: r.d.Version,
		},
	}
}

// runSuites runs suites with the inputs' overrides, writing results under outDir. label names
// the run in the log ("" for the head, "baseline" for the rerun at the base commit).
func (r *run) runSuites(prepared []*runner.Prepared, outDir, label string, adjust ...func(*runner.SuitesOptions)) (*runner.SuitesRun, error) {
	if len(prepared) == 0 {
		return &runner.SuitesRun{}, nil
	}
	stdout, stderr := newNeutralWriter(r.d.Stdout), newNeutralWriter(r.d.Stderr)
	defer stdout.Flush()
	defer stderr.Flush()
	if label != "" {
		r.cmd.infof("skillgate: running %d suite(s) for the %s", len(prepared), label)
	}
	o := r.suitesOptions(stdout, stderr)
	o.OutDir = outDir
	for _, f := range adjust {
		f(&o)
	}
	return runner.RunSuites(r.ctx, prepared, o)
}

// commentKey identifies this workflow's comment (and check run) among others on the pull
// request: the workflow file, plus the suite selection when the suites input narrows it, so two
// jobs running different suites keep separate comments.
func (r *run) commentKey() string {
	if r.reported != nil && r.reported.key != "" {
		return r.reported.key
	}
	wf := r.ev.Workflow
	if wf == "" {
		wf = r.ev.WorkflowName
	}
	return Key(wf, r.cfg.WorkingDirectory, r.cfg.Suites)
}

// Key is the comment marker and check-run key of a workflow file's skillgate step: the file
// name without its extension, plus a hash of the suites and working-directory inputs when they
// narrow the selection. CheckRunName(Key(…)) is the check to require.
func Key(workflowFile, workingDirectory string, suites []string) string {
	key := strings.TrimSuffix(strings.TrimSuffix(workflowFile, ".yml"), ".yaml")
	if key == "" {
		key = "default"
	}
	if workingDirectory == "" {
		workingDirectory = "."
	}
	if len(suites) > 0 || workingDirectory != "." {
		key += "/" + shortHash(workingDirectory+"\x00"+strings.Join(suites, "\x00"))
	}
	return key
}

// shortHash is 8 hex digits of SHA-256.
func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
