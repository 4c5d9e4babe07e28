package pipeline

import (
	"io"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/graders/judge"
	"github.com/skillgate/skillgate/internal/runcache"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
	"github.com/skillgate/skillgate/spec"
)

// Settings are what an adapter chooses for an evaluation: the CLI maps its flags to them, the
// Action its inputs. Load reads the loading half and keeps the rest in the plan for Evaluate.
// Zero values mean "as each suite says".
type Settings struct {
	// Loading.

	// ContextDir is the fixtures folder instead of each suite's fixtures/ (--context-dir).
	ContextDir string
	// Executor is the executor every suite runs with, overriding config.executor ("" for each
	// suite's own): only the executor a suite actually runs with must exist in this build.
	Executor string
	// ExecutorAtRun (validate): the executor is chosen when the suites run, so a suite's
	// executor this build lacks is a warning (runner.LoadOptions.ExecutorAtRun).
	ExecutorAtRun bool
	// Experiments are Vally experiment files to run besides those found beside a .vally.yaml.
	Experiments []string
	// Skip lists folders discovery does not search (the output folder).
	Skip []string
	// VallySuite keeps what the named suite of .vally.yaml selects (--suite).
	VallySuite string
	// Labels is a human labels file for human and human_calibration graders (--labels).
	Labels string
	// Judge locates the LLM judge; nil: the environment only.
	Judge *JudgeSettings
	// DeferJudges turns every LLM judge into a pending grade the report workflow grades later
	// (the collecting run of a pull request from a fork).
	DeferJudges bool
	// Shard runs one part of the tasks; the split is longest first by the durations of the
	// baselines Baselines finds before anything runs, else by hash.
	Shard *Shard
	// Baselines finds the earlier results each suite is compared with (and a shard is split
	// by); nil compares with nothing.
	Baselines BaselineSource

	// Running.

	// OutDir receives each suite's results file as soon as the suite finishes.
	OutDir string
	// Pretty writes results files indented (--pretty); compact otherwise.
	Pretty bool
	// Trials, Workers, Parallel, Timeout and Model override the suites' config.
	Trials, Workers int
	Parallel        *bool
	Timeout         time.Duration
	Model           string
	// TaskGlobs and TagGlobs select tasks (--task, --tags).
	TaskGlobs, TagGlobs []string
	// Uplift also runs every task without the skill; SkipTriggers runs no trigger prompt.
	Uplift, SkipTriggers bool
	// KeepWorkspaces keeps every run's workspace under WorkspaceRoot.
	KeepWorkspaces bool
	WorkspaceRoot  string
	// ReplayFrom replays recorded runs from a results file or a folder of run files (--from).
	ReplayFrom string
	// AgentPath and AgentArgs are the agent CLI's binary and extra arguments.
	AgentPath string
	AgentArgs []string
	// RunCache, when set, opens the run cache, which reuses recorded runs whose inputs did not
	// change (nil store: off). It is opened when the evaluation starts; an error stops it.
	RunCache func() (*runcache.Store, error)
	// Progress shows the run as it goes; nil shows nothing.
	Progress *Progress
	// Log receives warnings, hook output and what the evaluation says it does; nil discards.
	Log io.Writer
	// Version is skillgate's version, for provenance.
	Version string
	// Written, when set, is called after each suite's results file is written (the CLI copies
	// it to -o). An error stops the remaining suites.
	Written func(res *results.SuiteResult, file string) error

	// Deciding.

	// ConfirmRuns bounds the confirmation trials before the verdict (0: none; negative: the
	// default budget for the planned runs). The shards of a matrix share it.
	ConfirmRuns int
}

// JudgeSettings say where the LLM judges are: the CLI's --judge-* flags, the Action's judge inputs. The
// environment (SKILLGATE_JUDGE_*) fills in what they leave empty. One JudgeSettings is one pool of
// endpoint clients, so JudgeSettings shared by several loads (the pull request's suites and a rerun
// baseline) shares one concurrency limit per endpoint.
type JudgeSettings struct {
	BaseURL, Model string
	// APIKey is the endpoint's key; GitHubToken the key for GitHub Models only.
	APIKey, GitHubToken string
	// CacheDir holds the verdict cache; "" caches nothing and shares no client pool
	// (validation and doctor ask no judge).
	CacheDir string
	// Mode says who judges checks written as sentences: graders.JudgeEndpoint (default) or
	// graders.JudgeAgent.
	Mode   string
	Getenv func(string) string

	pool *judge.Pool
}

// options are the graders' judge options: the keys travel as options, never through the
// process environment, which every child process would inherit.
func (j *JudgeSettings) options() *graders.JudgeOptions {
	if j == nil {
		return &graders.JudgeOptions{}
	}
	if j.pool == nil && j.CacheDir != "" {
		j.pool = &judge.Pool{CacheDir: j.CacheDir}
	}
	return &graders.JudgeOptions{BaseURL: j.BaseURL, Model: j.Model, APIKey: j.APIKey, GitHubToken: j.GitHubToken,
		CacheDir: j.CacheDir, Getenv: j.Getenv, Pool: j.pool, Mode: j.Mode}
}

// Shard is one part of a run split over several jobs (`--shard i/n`, the shard input).
type Shard = runner.Shard

// ParseShard reads "i/n" with 1 ≤ i ≤ n ≤ runner.MaxShards.
func ParseShard(s string) (Shard, error) { return runner.ParseShard(s) }

// ExecutorNames are the executors of this build.
func ExecutorNames() []string { return agent.Names() }

// CanonicalExecutor returns the executor name a user's spelling stands for, and whether there
// is one.
func CanonicalExecutor(name string) (string, bool) { return agent.Canonical(name) }

// Discover lists the suite files (eval.yaml) under paths.
func Discover(paths []string) ([]string, error) { return spec.Discover(paths) }

// run are the runner's options of the settings, with the run cache store opened (nil: off);
// each suite's executor and graders are filled in by the runner.
func (s *Settings) run(store *runcache.Store) runner.SuitesOptions {
	var cache *runner.CacheOptions
	if store != nil {
		cache = &runner.CacheOptions{Store: store, AgentArgs: s.AgentArgs}
	}
	var observer runner.Observer
	if s.Progress != nil {
		observer = s.Progress
	}
	return runner.SuitesOptions{
		Executor: s.executor(),
		Run: runner.Options{
			Shard:  s.Shard,
			Trials: s.Trials, Parallel: s.Parallel, Workers: s.Workers, Timeout: s.Timeout, Model: s.Model,
			TaskGlobs: s.TaskGlobs, TagGlobs: s.TagGlobs, Uplift: s.Uplift, SkipTriggers: s.SkipTriggers,
			KeepWorkspaces: s.KeepWorkspaces, WorkspaceRoot: s.WorkspaceRoot, ReplayFrom: s.ReplayFrom,
			Observer: observer, Log: s.Log, Version: s.Version, Cache: cache,
		},
		OutDir:  s.OutDir,
		Pretty:  s.Pretty,
		Written: s.Written,
	}
}

func (s *Settings) executor() runner.ExecutorOptions {
	return runner.ExecutorOptions{Name: s.Executor, Path: s.AgentPath, Args: s.AgentArgs, ReplayFrom: s.ReplayFrom, Log: s.Log}
}

// log is Log, or a writer that discards.
func (s *Settings) log() io.Writer {
	if s.Log == nil {
		return io.Discard
	}
	return s.Log
}
