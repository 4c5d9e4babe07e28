// Package agent holds the executors: each turns a prompt and a workspace into the normalized run
// (results.AgentRun, docs/agents.md#the-recorded-run).
package agent

import (
	"context"
	"time"

	"github.com/skillgate/skillgate/results"
)

// Request is one run asked of an executor.
type Request struct {
	Prompt    string
	Workspace string // absolute; the agent's working directory
	// SkillDirs are the skill folders to install; empty in the without-skill pass of uplift mode.
	SkillDirs []string
	// Skill is the suite's skill under test (may be empty).
	Skill       string
	Model       string
	Timeout     time.Duration
	Environment map[string]string

	// InputFiles are the workspace-relative paths the task put into the workspace.
	InputFiles []string

	// Identity of the run, for executors that look runs up (replay) and for logs.
	Suite     string
	TaskID    string
	Trial     int  // 1-based
	Trigger   bool // a trigger-test prompt rather than a task
	WithSkill bool // false in the without-skill pass of uplift mode

	// Stop, when set, stops the agent once the run's outcome is known or it goes over its
	// budget (docs/format.md#early-stop). Executors that cannot watch a run ignore it.
	Stop *StopRule

	// ResumeSession, when set, continues that session of the agent with Prompt as the next user
	// message of a multi-turn conversation (executors that implement Conversational).
	ResumeSession string
}

// Conversational is implemented by executors that can continue a session with a further user
// message: the runner sends a multi-turn conversation one turn at a time, each resuming the
// session the previous one reported (docs/agents.md#multi-turn-conversations).
type Conversational interface {
	ContinuesSessions() bool
}

// Executor runs agents. Implementations must be safe for concurrent use.
type Executor interface {
	// Name is the executor's canonical name as written in results (config.engine_type).
	Name() string
	// Run performs one run. A non-nil error means the agent failed to produce a run (crash,
	// timeout, bad output): the run is recorded as `error` with that message, and whatever the
	// returned AgentRun holds (it may be partial or nil) is kept for graders and reports.
	Run(ctx context.Context, req *Request) (*results.AgentRun, error)
}

// Versioner is implemented by executors that can report the agent CLI's version. Version bounds
// itself (VersionTimeout); callers need not add a shorter deadline.
type Versioner interface {
	Version(ctx context.Context) (string, error)
}

// WorkspaceFree is implemented by executors that never read or write the workspace (the mock):
// the runner may then skip creating it when no grader reads it either. The run behaves exactly
// the same; only the files on disk are not written.
type WorkspaceFree interface {
	WorkspaceFree() bool
}

// Preflighter is implemented by executors that can tell before any run that they cannot work
// (the agent CLI is not installed), so the CLI stops with exit 2 instead of erroring every run.
type Preflighter interface {
	Preflight() error
}
