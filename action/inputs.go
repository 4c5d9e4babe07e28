package action

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/expr-lang/expr/vm"

	"github.com/skillgate/skillgate/internal/glob"
	"github.com/skillgate/skillgate/internal/runcache"
	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/results"
)

// Input names (action.yml `inputs:`). The runner exports each as INPUT_<NAME> with the hyphens
// kept, which go-githubactions reads.
const (
	InSuites           = "suites"
	InExecutor         = "executor"
	InModel            = "model"
	InTrials           = "trials"
	InSkipTriggers     = "skip-triggers"
	InUplift           = "uplift"
	InJudgeModel       = "judge-model"
	InJudgeBaseURL     = "judge-base-url"
	InJudgeAPIKey      = "judge-api-key"
	InBaseline         = "baseline"
	InArtifactName     = "artifact-name"
	InMinEffect        = "min-effect"
	InConfirmRuns      = "confirm-runs"
	InBaseHistory      = "base-history"
	InFailOn           = "fail-on"
	InComment          = "comment"
	InCheckRun         = "check-run"
	InAnnotations      = "annotations"
	InChangedOnly      = "changed-only"
	InGitHubToken      = "github-token"
	InWorkingDirectory = "working-directory"
	InResultsDir       = "results-dir"
	InMode             = "mode"
	InShard            = "shard"
	InVallyResults     = "vally-results"
	InCache            = "cache"
	InCacheMaxAge      = "cache-max-age"
)

// Modes (the mode input): docs/action.md, "Modes", says what each does.
const (
	// ModeAuto runs a same-repository pull request or a push in full (ModeRun) and collects a
	// pull request from a fork (ModeCollect); a shard input makes it one shard of a matrix.
	ModeAuto = "auto"
	// ModeRun evaluates and publishes everything in this job.
	ModeRun = "run"
	// ModeCollect is phase one of the fork-safe flow: the agent and the deterministic graders
	// run, LLM judges are deferred, nothing is written to GitHub, and the results folder becomes
	// a bundle (results, reports, pr.json, the suites as data) for the report workflow.
	ModeCollect = "collect"
	// ModeReport is phase two, in a workflow_run workflow: it downloads the bundle, checks it,
	// runs the LLM judges on the recorded runs, and posts the comment and the check run.
	ModeReport = "report"
	// ModeMerge combines the shards of a matrix into one results folder, comment and gate.
	ModeMerge = "merge"
)

// maxBaseHistory bounds base-history: each earlier artifact is one more download.
const maxBaseHistory = 50

// DefaultArtifactName is the artifact the baseline workflow uploads the results folder as.
const DefaultArtifactName = "skillgate-results"

// Input is one declared input: its name, its default (what action.yml declares and what an
// empty value means) and one line of help.
type Input struct {
	Name, Default, Description string
}

// Inputs lists every input of the action in action.yml order. A test keeps action.yml, this
// table and docs/action.md in step.
var Inputs = []Input{
	{InSuites, "", "suite files (eval.yaml, Vally specs, evals/evals.json) or folders to run, one per line or comma-separated; globs (`*`, `**`, `{a,b}`) match suite folders and files. Default - every suite under working-directory."},
	{InExecutor, "", "executor for every suite, overriding config.executor (mock, replay, command, claude-code, codex, copilot, gemini, qwen-code, opencode)."},
	{InModel, "", "model handed to the agent, overriding config.model."},
	{InTrials, "", "trials per task, overriding config.trials_per_task."},
	{InSkipTriggers, "false", "run no trigger prompt (trigger_tests.yaml); set it alike in the pull-request and baseline runs."},
	{InUplift, "false", "also run every task without the skill and report each one's skill effect (skill-creator's baseline for a new skill, as waza's baseline true); doubles the agent runs."},
	{InJudgeModel, "", "model of LLM judges, overriding SKILLGATE_JUDGE_MODEL."},
	{InJudgeBaseURL, "", "OpenAI-compatible base URL of LLM judges, overriding SKILLGATE_JUDGE_BASE_URL. Default - GitHub Models."},
	{InJudgeAPIKey, "", "API key of the judge endpoint, overriding SKILLGATE_JUDGE_API_KEY. Default - github-token, for GitHub Models only."},
	{InBaseline, "auto", "where the base-branch results come from - auto, artifact, file:<path>, rerun or none."},
	{InArtifactName, DefaultArtifactName, "name of the results artifact the baseline workflow uploads."},
	{InMinEffect, "0.02", "smallest drop in mean score or pass rate that counts as a regression."},
	{InConfirmRuns, "auto", "agent runs at most spent confirming tasks that look worse than on the base before the verdict - auto (a quarter of the planned runs, at least 32), a number, or 0 for none."},
	{InBaseHistory, "20", "earlier base-branch results artifacts pooled with the baseline for tasks whose inputs did not change (0 - the baseline alone)."},
	{InFailOn, pipeline.DefaultFailOn, "expression over the results and the comparison; the step fails when it is true."},
	{InComment, "auto", "sticky pull-request comment - auto, always or never."},
	{InCheckRun, "false", "also create a check run carrying every annotation."},
	{InAnnotations, "true", "annotate failures at the grader's file and line."},
	{InChangedOnly, "true", "on pull requests, run only the suites the change affects."},
	{InGitHubToken, "${{ github.token }}", "token for the GitHub API (comment, check run, baseline artifact)."},
	{InWorkingDirectory, ".", "folder, relative to the workspace, that suite paths and results-dir are relative to."},
	{InResultsDir, ".skillgate", "folder for results, reports and the baseline (upload it as the results artifact)."},
	{InMode, ModeAuto, "auto (run here; collect on pull requests from forks), run, collect, report (a workflow_run workflow publishing a collected run) or merge (combine shards)."},
	{InShard, "", "run one shard of the tasks, i/n (e.g. 2/4), in a matrix; a merge job publishes them."},
	{InVallyResults, "", "a Vally results.jsonl (relative to working-directory) to publish instead of running suites - its evals become suites of the comment, summary, comparison and gate."},
	{InCache, "true", "reuse recorded runs whose inputs did not change (the run cache, seeded on pull requests from the base branch's results artifact) - false executes every run."},
	{InCacheMaxAge, "14d", "reuse recorded runs at most this old, e.g. 14d or 36h."},
}

// Baseline methods.
const (
	BaselineAuto     = "auto"
	BaselineArtifact = results.BaselineArtifact
	BaselineFile     = results.BaselineFile
	BaselineRerun    = results.BaselineRerun
	BaselineNone     = results.BaselineNone
)

// Comment policies.
const (
	CommentAuto   = "auto"
	CommentAlways = "always"
	CommentNever  = "never"
)

// Config is the validated inputs.
type Config struct {
	Suites       []string
	Executor     string
	Model        string
	Trials       int
	SkipTriggers bool
	// Uplift also runs every task without the skill (the CLI's --uplift).
	Uplift       bool
	JudgeModel   string
	JudgeBaseURL string
	JudgeAPIKey  string
	Baseline     string // a Baseline* method
	BaselinePath string // for file:<path>
	ArtifactName string
	MinEffect    float64
	// ConfirmRuns bounds the confirmation runs (-1: the default for the planned runs; 0: none);
	// BaseHistory is how many earlier base artifacts are pooled.
	ConfirmRuns      int
	BaseHistory      int
	FailOn           string
	Comment          string
	CheckRun         bool
	Annotations      bool
	ChangedOnly      bool
	Token            string
	WorkingDirectory string
	ResultsDir       string
	Mode             string
	// Shard is the shard input; nil when the job runs every task.
	Shard *pipeline.Shard
	// VallyResults is a Vally results.jsonl to publish instead of running suites.
	VallyResults string
	// Cache turns the run cache on; CacheMaxAge bounds the age of a reused run.
	Cache       bool
	CacheMaxAge time.Duration

	failOn *vm.Program
}

// InputError is one bad input value, with what to write instead.
type InputError struct {
	Input, Value, Problem, Fix string
}

func (e *InputError) Error() string {
	s := fmt.Sprintf("input %q", e.Input)
	if e.Value != "" {
		s += fmt.Sprintf(" = %q", clip(e.Value, 200))
	}
	s += ": " + e.Problem
	if e.Fix != "" {
		s += " (fix: " + e.Fix + ")"
	}
	return s
}

// ParseInputs reads and validates every input; get returns an input's raw value (trimmed).
// Empty values take the defaults of Inputs. All problems are reported at once, joined.
func ParseInputs(get func(name string) string) (*Config, error) {
	var errs []error
	bad := func(name, value, problem, fix string) {
		errs = append(errs, &InputError{Input: name, Value: value, Problem: problem, Fix: fix})
	}
	val := func(name string) string {
		if v := strings.TrimSpace(get(name)); v != "" {
			return v
		}
		for _, in := range Inputs {
			if in.Name == name {
				return in.Default
			}
		}
		return ""
	}
	boolean := func(name string) bool {
		v := val(name)
		switch v {
		case "true", "True", "TRUE":
			return true
		case "false", "False", "FALSE":
			return false
		}
		bad(name, v, "not a boolean", "write true or false")
		return false
	}
	c := &Config{
		Model:        val(InModel),
		JudgeModel:   val(InJudgeModel),
		JudgeAPIKey:  val(InJudgeAPIKey),
		ArtifactName: val(InArtifactName),
		FailOn:       val(InFailOn),
		Token:        val(InGitHubToken),
	}
	c.Suites = splitList(val(InSuites))
	for _, p := range c.Suites {
		if err := checkPattern(p); err != nil {
			bad(InSuites, p, err.Error(), "use a path relative to working-directory, with * and ** as wildcards")
		}
	}
	if v := val(InExecutor); v != "" {
		if name, ok := pipeline.CanonicalExecutor(v); ok {
			c.Executor = name
		} else {
			bad(InExecutor, v, "unknown executor", "use one of: "+strings.Join(pipeline.ExecutorNames(), ", "))
		}
	}
	if v := val(InTrials); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			bad(InTrials, v, "not a whole number from 1 to 1000", "write e.g. trials: 3, or leave it empty for the suite's trials_per_task")
		}
		c.Trials = n
	}
	if v := val(InJudgeBaseURL); v != "" {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			bad(InJudgeBaseURL, v, "not an http(s) URL", "write the endpoint's base URL, e.g. https://api.openai.com/v1")
		}
		c.JudgeBaseURL = v
	}
	v := val(InBaseline)
	switch method, path, _ := strings.Cut(v, ":"); method {
	case BaselineAuto, BaselineArtifact, BaselineRerun, BaselineNone:
		if path != "" || strings.Contains(v, ":") {
			bad(InBaseline, v, "only file: takes a path", "write "+method)
		}
		c.Baseline = method
	case BaselineFile:
		if strings.TrimSpace(path) == "" {
			bad(InBaseline, v, "file: needs a path", "write file:<results file or folder>, e.g. file:evals/baseline")
		} else if err := checkPattern(path); err != nil || glob.HasMeta(path) {
			bad(InBaseline, v, "not a plain relative path", "write file:<path relative to working-directory>")
		}
		c.Baseline, c.BaselinePath = BaselineFile, strings.TrimSpace(path)
	default:
		bad(InBaseline, v, "unknown baseline", "use auto, artifact, file:<path>, rerun or none")
	}
	if v := val(InMinEffect); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || f <= 0 || f >= 1 {
			bad(InMinEffect, v, "not a number between 0 and 1 (exclusive)", "write e.g. 0.02 for two points of score")
		}
		c.MinEffect = f
	}
	c.ConfirmRuns = -1
	if v := val(InConfirmRuns); v != "" && v != "auto" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			bad(InConfirmRuns, v, "not auto or a whole number of runs", "write auto, 0 to run none, or e.g. 40")
		}
		c.ConfirmRuns = n
	}
	if v := val(InBaseHistory); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > maxBaseHistory {
			bad(InBaseHistory, v, fmt.Sprintf("not a whole number from 0 to %d", maxBaseHistory), "write e.g. 20")
		}
		c.BaseHistory = n
	}
	if prog, err := pipeline.CompileFailOn(c.FailOn); err != nil {
		bad(InFailOn, c.FailOn, err.Error(), "see the fail-on variables in docs/action.md")
	} else {
		c.failOn = prog
	}
	switch v := val(InComment); v {
	case CommentAuto, CommentAlways, CommentNever:
		c.Comment = v
	default:
		bad(InComment, v, "unknown comment policy", "use auto, always or never")
	}
	c.SkipTriggers = boolean(InSkipTriggers)
	c.Uplift = boolean(InUplift)
	c.CheckRun = boolean(InCheckRun)
	c.Annotations = boolean(InAnnotations)
	c.ChangedOnly = boolean(InChangedOnly)
	if c.Token == "${{ github.token }}" {
		// Outside a workflow nobody expanded the default: there is no token.
		c.Token = ""
	}
	c.WorkingDirectory = val(InWorkingDirectory)
	if err := checkPattern(c.WorkingDirectory); err != nil || glob.HasMeta(c.WorkingDirectory) {
		bad(InWorkingDirectory, c.WorkingDirectory, "not a folder inside the workspace", "use a path relative to the repository root")
	}
	c.ResultsDir = val(InResultsDir)
	if err := checkPattern(c.ResultsDir); err != nil || glob.HasMeta(c.ResultsDir) {
		bad(InResultsDir, c.ResultsDir, "not a folder inside the working directory", "use a relative path such as .skillgate")
	}
	if strings.ContainsAny(c.ArtifactName, "\"<>|*?\r\n\\/:") {
		bad(InArtifactName, c.ArtifactName, "not a valid artifact name", "use the name given to actions/upload-artifact")
	}
	switch v := val(InMode); v {
	case ModeAuto, ModeRun, ModeCollect, ModeReport, ModeMerge:
		c.Mode = v
	default:
		bad(InMode, v, "unknown mode", "use auto, run, collect, report or merge")
	}
	if v := val(InShard); v != "" {
		sh, err := pipeline.ParseShard(v)
		switch {
		case err != nil:
			bad(InShard, v, err.Error(), "write i/n, e.g. shard: ${{ matrix.shard }}/4")
		case c.Mode == ModeReport || c.Mode == ModeMerge:
			bad(InShard, v, "mode: "+c.Mode+" publishes whole runs, it is not one shard", "remove shard, or use mode: auto in the matrix jobs")
		default:
			c.Shard = &sh
		}
	}
	if v := val(InVallyResults); v != "" {
		switch {
		case c.Mode != ModeAuto && c.Mode != ModeRun:
			bad(InVallyResults, v, "mode: "+c.Mode+" runs or publishes skillgate's own runs", "use mode: auto (or run) with vally-results")
		case c.Shard != nil:
			bad(InVallyResults, v, "a Vally results file is not a shard", "remove shard")
		default:
			c.VallyResults = v
		}
	}
	c.Cache = boolean(InCache)
	if age, err := runcache.ParseAge(val(InCacheMaxAge)); err != nil {
		bad(InCacheMaxAge, val(InCacheMaxAge), err.Error(), "write e.g. 14d or 36h")
	} else {
		c.CacheMaxAge = age
	}
	return c, errors.Join(errs...)
}

// splitList splits a list input: one item per line or comma-separated, blank items dropped.
func splitList(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		for _, item := range strings.Split(line, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}

// checkPattern accepts relative, slash-separated paths (with optional wildcards) that stay inside
// the folder they are relative to.
func checkPattern(p string) error {
	switch {
	case p == "":
		return errors.New("empty path")
	case strings.HasPrefix(p, "/") || strings.Contains(p, `\`) || (len(p) > 1 && p[1] == ':'):
		return errors.New("absolute or Windows path")
	case strings.ContainsRune(p, 0):
		return errors.New("NUL in path")
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return errors.New("`..` leaves the folder")
		}
	}
	_, err := suitePattern(p)
	return err
}

// clip shortens s to n bytes (at a rune boundary) with an ellipsis.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	return s[:n] + "…"
}
