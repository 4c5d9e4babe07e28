// Package graders holds the grader types and their registry. A grader is a pure function of its
// configuration, the run and the run's workspace.
package graders

import (
	"context"
	"net/http"
	"os"
	"sync"

	"github.com/skillgate/skillgate/graders/judge"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// Input is everything a grader may look at for one run.
type Input struct {
	Suite *spec.Suite
	Task  *spec.Task
	Run   *results.AgentRun
	// Workspace is the run's workspace folder, still present while graders run; "" when the
	// run had none (replayed runs get a fresh workspace holding only the task's inputs).
	Workspace string
	Trial     int
	// NoSkill marks uplift mode's run of the task without the skill.
	NoSkill bool
	// Executor names the executor that produced the run ("mock": no agent answered).
	Executor string
	// AskAgent runs the agent CLI under test once more, in the finished workspace and without
	// the skill, with a prompt of the grader's, and returns its run: the judge of `--judge
	// agent`. nil when the executor is no agent CLI.
	AskAgent func(ctx context.Context, prompt string) (*results.AgentRun, error)
}

// Grader grades runs. Compiled once per suite, called once per run, possibly concurrently.
type Grader interface {
	// Grade judges one run. A returned error means the grader could not run (script crashed,
	// judge unreachable): the run becomes `error`. A failed check is not an error.
	Grade(ctx context.Context, in *Input) (*results.GraderResult, error)
}

// GraderFunc adapts a function to the Grader interface.
type GraderFunc func(ctx context.Context, in *Input) (*results.GraderResult, error)

// Grade calls f.
func (f GraderFunc) Grade(ctx context.Context, in *Input) (*results.GraderResult, error) {
	return f(ctx, in)
}

// Env is what compiling a grader may need beyond its own declaration.
type Env struct {
	Suite *spec.Suite
	// Judge says where LLM graders find their endpoint beyond eval.yaml (flags, environment);
	// nil means the process environment only.
	Judge *JudgeOptions
	// Labels are the human labels that turn pending human graders into scores; nil: none.
	Labels *Labels
	// Override, when set, is asked first for every declaration of a registered type: a non-nil
	// grader is used as is, and the declaration is not compiled. The fork-safe modes use it to
	// defer LLM judges and to replay the recorded results of graders they must not run.
	Override func(def *spec.Grader, t *Type) Grader

	judgeOnce  sync.Once
	judgeSetup *judgeSetup
	judgeDiags spec.Diagnostics
	// pendingWarned: the suite was told once that its judged checks stay pending.
	pendingWarned bool
}

// judgeMode is who judges the checks a judge grades: JudgeOptions.Mode, else SKILLGATE_JUDGE,
// else "" (the endpoint).
func (env *Env) judgeMode() string {
	if env.Judge == nil {
		return os.Getenv("SKILLGATE_JUDGE")
	}
	if env.Judge.Mode != "" {
		return env.Judge.Mode
	}
	getenv := env.Judge.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	return getenv("SKILLGATE_JUDGE")
}

// warnPendingOnce reports whether this is the first judged_checks grader of the suite to say
// that its checks stay pending (one warning per suite, not one per task).
func (env *Env) warnPendingOnce() bool {
	first := !env.pendingWarned
	env.pendingWarned = true
	return first
}

// JudgeOptions locate the LLM judge endpoint from outside eval.yaml. Explicit values win over
// the environment, which wins over eval.yaml's config.judge (see docs/graders.md). The settings
// travel here, never through this process's environment, so that no child process (hook,
// script grader, agent) sees the judge's key.
type JudgeOptions struct {
	BaseURL string // --judge-base-url, the action's judge-base-url
	Model   string // --judge-model, the action's judge-model
	// APIKey is the endpoint's key (the action's judge-api-key); "" reads SKILLGATE_JUDGE_API_KEY.
	APIKey string
	// GitHubToken is the key for GitHub Models only (the action's github-token); "" reads
	// GITHUB_TOKEN. It is never sent to another endpoint.
	GitHubToken string
	// CacheDir holds the verdict cache; "" disables it.
	CacheDir string
	// Getenv reads SKILLGATE_JUDGE_*, GITHUB_TOKEN and the variable config.judge.api_key_env
	// names; nil means os.Getenv.
	Getenv     func(string) string
	HTTPClient *http.Client
	// Pool shares endpoint clients (and their concurrency limits) between suites; nil: one per Env.
	Pool *judge.Pool
	// Mode says who judges the checks a judge grades (judged_checks, the pairwise comparison):
	// JudgeEndpoint (default) or JudgeAgent (--judge agent, SKILLGATE_JUDGE=agent).
	Mode string
}

// Type describes one grader type.
type Type struct {
	Name string
	// Summary is one line of help, used for SARIF rules and `skillgate validate` messages.
	Summary string
	// Config returns a new config struct (a pointer) for a declaration that writes the given
	// config keys: the loader decodes the declaration's config into it (spec.GraderType.Config).
	// nil: the type takes no settings.
	Config func(keys []string) any
	// Compile checks a declaration and builds the grader; def.Config holds the decoded config.
	// Diagnostics name file:line:col.
	Compile func(def *spec.Grader, env *Env) (Grader, spec.Diagnostics)
	// Files lists what grading a declaration reads besides the run and the suite's own files:
	// files its config names (absolute paths), and documents it refers to by another name (a
	// schema's $ref, as written). nil: nothing.
	Files func(def *spec.Grader) []string
	// Executes is true for graders that run programs (script, program); the fork-safe report
	// mode never runs them.
	Executes bool
	// Judge is true for graders that call an LLM.
	Judge bool
	// ReadsWorkspace is true for graders that look at the run's workspace (files on disk). When
	// neither the executor nor any grader of a task does, the runner skips creating it.
	ReadsWorkspace bool
}
