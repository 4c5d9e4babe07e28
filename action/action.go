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

	"github.com/skillgate/skillgate/internal/ghlog"
	"github.com/skillgate/skillgate/internal/ioerr"
	"github.com/skillgate/skillgate/internal/redact"
	"github.com/skillgate/skillgate/internal/retry"
	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
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
	r.agentOut, r.agentErr = newNeutralWriter(d.Stdout), newNeutralWriter(d.Stderr)
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

	// judge is the judge inputs, one pool of endpoint clients for every suite the action loads
	// (the pull request's and a rerun baseline's).
	judge *pipeline.JudgeSettings
	// agentOut and agentErr carry what agents, hooks and the evaluation print to the log, with
	// workflow commands defused.
	agentOut, agentErr *ghlog.Writer

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
	// artifact is the baseline artifact's source, which searches once per job (artifact.go).
	artifact *artifactSource
	// fileWarned: the file: baseline's absence was warned about (once per job).
	fileWarned bool
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
	plan, code, ok := r.load()
	if !ok {
		return code
	}
	plan, unaffected := r.selectSuites(plan)
	if err := os.MkdirAll(r.outDir, 0o755); err != nil {
		r.cmd.errorf("skillgate: results-dir", "cannot create %s: %v", r.outDir, err)
		return ExitUsage
	}
	defer chownToWorkspace(r.outDir, r.workspace)
	r.keepSplit(plan)
	r.seedRunCache(plan)
	out, err := r.evaluate(plan, unaffected)
	return r.finish(plan, out, err)
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

// evaluate is the pipeline's evaluation of the plan, published into the results folder; what
// agents and hooks print goes to the log with workflow commands defused.
func (r *run) evaluate(plan *pipeline.Plan, unaffected []report.Unaffected) (*pipeline.Outcome, error) {
	defer r.agentOut.Flush()
	defer r.agentErr.Flush()
	return pipeline.Evaluate(r.ctx, plan, &pipeline.Options{
		OutDir: r.outDir, Key: r.commentKey(), ToolVersion: r.d.Version, RepoRoot: r.repoRoot,
		MinEffect: r.cfg.MinEffect, Unaffected: unaffected, Event: r.ev.Name, Show: r.rel,
		// Baselines are matched by name, so this is a suite renamed on one side.
		OnMismatch: func(suite string, err error) { r.cmd.warnf("skillgate: %s: %v", suite, err) },
	})
}

// finish reports how the evaluation went and ends the mode: a shard leaves its results for the
// merge job, a collecting run a bundle for the report workflow, and a run publishes on GitHub
// and gates.
func (r *run) finish(plan *pipeline.Plan, out *pipeline.Outcome, err error) int {
	setupFailed := false
	for _, e := range out.SetupErrors {
		r.cmd.errorf("skillgate: suite could not start", "%v", e)
		setupFailed = true
	}
	var runErr *pipeline.RunError
	if errors.As(err, &runErr) {
		r.cmd.errorf("skillgate: run failed", "%v", runErr.Err)
		fmt.Fprintf(r.d.Stderr, "skillgate: %v\n", runErr.Err)
		return r.failureCode(err)
	}
	if out.ConfirmErr != nil {
		r.cmd.warnf("skillgate: confirmation: %v", out.ConfirmErr)
	}
	if out.Confirmed.Runs > 0 {
		r.cmd.infof("skillgate: %d confirmation run(s) of %d allowed", out.Confirmed.Runs, out.Confirmed.Budget)
	}
	if err != nil {
		r.cmd.errorf("skillgate: writing reports", "%v", err)
		if r.cfg.Shard != nil {
			return ExitUsage
		}
		return r.failureCode(err)
	}
	switch {
	case r.cfg.Shard != nil:
		return r.finishShard(plan, out, setupFailed)
	case r.mode.policy().collect:
		r.writeOutputs(out.Vars, out.Input)
		return r.finishCollect(plan, out.Input, setupFailed)
	}
	return r.publish(plan, out, setupFailed)
}

// publish reports a run on GitHub (outputs, summary, annotations, comment, check run) and
// returns the gate's exit status. The reports are written already: a GitHub call that fails
// loses nothing.
func (r *run) publish(plan *pipeline.Plan, out *pipeline.Outcome, setupFailed bool) int {
	policy := r.mode.policy()
	in, vars := out.Input, out.Vars
	r.writeOutputs(vars, in)
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
	if url := r.comment(in, len(out.Heads) > 0); url != "" {
		r.output(OutCommentURL, url)
	}
	if r.cfg.CheckRun || policy.reporting {
		// The check run is how the report workflow gates: its job is not on the pull request.
		r.checkRun(in, anns, fail, vars)
	}
	if r.writes.refused && r.cfg.Mode == ModeAuto && r.ev.PR != nil && !policy.reporting {
		// The token turned out read-only (a Dependabot pull request, say): leave a bundle so the
		// report workflow can publish what this run could not.
		if err := r.writeBundle(plan, in, true, "GitHub refused this run's writes (read-only token)"); err != nil {
			r.cmd.warnf("skillgate: no bundle for the report workflow: %v", err)
		} else {
			r.cmd.noticef("skillgate: GitHub refused this run's writes (read-only token): the results folder holds a bundle (%s) the report workflow (mode: report) can publish", PRFile)
		}
	}

	switch {
	case evalErr != nil, setupFailed:
		return ExitUsage
	case plan.Broken():
		r.cmd.infof("skillgate: a suite had errors and did not run: failing the step; verdict %s", vars.Verdict)
		return ExitFailed
	case fail:
		r.cmd.infof("skillgate: fail-on is true (%s): failing the step; %s", r.cfg.FailOn, vars.Facts())
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

// settings are the pipeline's settings of the inputs for the mode. The judge gets the judge
// inputs (the environment, SKILLGATE_JUDGE_* included, fills in what they leave empty), shares
// one client pool (one concurrency limit per endpoint) between the pull request's suites and a
// rerun baseline, and caches verdicts under the results folder, which a workflow can restore
// with actions/cache. The workflow token is the key for GitHub Models only: the graders never
// send it to another endpoint.
func (r *run) settings() pipeline.Settings {
	if r.judge == nil {
		r.judge = &pipeline.JudgeSettings{
			BaseURL: r.cfg.JudgeBaseURL, Model: r.cfg.JudgeModel, APIKey: r.cfg.JudgeAPIKey, GitHubToken: r.cfg.Token,
			CacheDir: filepath.Join(r.outDir, "cache", "judge"), Getenv: r.d.Getenv,
		}
	}
	policy := r.mode.policy()
	s := pipeline.Settings{
		Executor: r.cfg.Executor, Judge: r.judge, DeferJudges: policy.collect,
		Shard: r.cfg.Shard, Baselines: r.baselineSource(),
		OutDir: r.outDir, Trials: r.cfg.Trials, Model: r.cfg.Model, SkipTriggers: r.cfg.SkipTriggers, Uplift: r.cfg.Uplift,
		RunCache: r.openRunCache, Progress: pipeline.NewProgress(r.agentOut, pipeline.ProgressGitHub),
		Log: r.agentErr, Version: r.d.Version,
	}
	if !policy.collect && !policy.reporting && r.cfg.Baseline != BaselineNone {
		// Collected grades are incomplete, the report workflow executes nothing, and without a
		// baseline nothing looks worse.
		s.ConfirmRuns = r.cfg.ConfirmRuns
	}
	return s
}

// load discovers the suites of the suites input and loads them; problems are annotated at their
// file and line.
func (r *run) load() (*pipeline.Plan, int, bool) {
	paths, err := resolveSuites(r.workDir, r.cfg.Suites)
	if err != nil {
		r.cmd.errorf("skillgate: bad input", "input %q: %v", InSuites, err)
		return nil, ExitUsage, false
	}
	plan, err := pipeline.Load(paths, r.settings())
	if err != nil {
		r.cmd.errorf("skillgate: no suites", "%v", err)
		return nil, ExitUsage, false
	}
	// Files that are not suites (a workflow named eval.yml, another tool's eval.yaml) are named
	// and skipped; a repository of only such files has nothing to run, which is no failure.
	if line := plan.SkippedLine(); line != "" && (plan.Loads() > 0 || plan.Skipped() > 0) {
		r.cmd.infof("skillgate: %s", line)
	}
	if plan.Loads() == 0 {
		if plan.Skipped() > 0 {
			r.cmd.noticef("skillgate: nothing to run: no suite in %s", strings.Join(paths, ", "))
			return nil, ExitOK, false
		}
		r.cmd.errorf("skillgate: no suites", "%v", plan.NoSuiteError(paths))
		return nil, ExitUsage, false
	}
	r.annotateProblems(plan, r.repoRoot, true)
	if plan.Stopped() {
		r.cmd.errorf("skillgate: invalid suites", "%d error(s) in the suites; nothing was run", len(plan.Diags.Errors()))
		return nil, ExitUsage, false
	}
	if plan.Broken() {
		// One broken suite never stops the others; the run cannot pass.
		r.cmd.errorf("skillgate: invalid suites", "%s; the other %d suite(s) run", plan.BrokenLine(), len(plan.Suites))
	}
	return plan, 0, true
}

// annotateProblems annotates each problem of the suites at its file (relative to root) and
// line; log also prints it.
func (r *run) annotateProblems(plan *pipeline.Plan, root string, log bool) {
	for _, p := range plan.Problems() {
		level := LevelError
		if p.Warning {
			level = LevelWarning
		}
		if log {
			fmt.Fprintln(r.d.Stderr, p.Text)
		}
		msg := p.Message
		if p.Fix != "" {
			msg += " (fix: " + p.Fix + ")"
		}
		r.cmd.annotate(Annotation{Level: level, File: repoPath(root, p.File), Line: max(p.Line, 1), Col: p.Col, Title: "skillgate: " + p.Key, Message: msg})
	}
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
