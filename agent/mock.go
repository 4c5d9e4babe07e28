package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillgate/skillgate/results"
)

func init() {
	Register("mock", func(Options) (Executor, error) { return Mock{}, nil })
}

// Mock is the deterministic executor (docs/agents.md#the-mock-executor): it answers "Mock response
// for: <prompt>", plus "\nAnalyzed N file(s)" when the task put N > 0 files into the workspace, and
// invokes the skill under test only when the prompt names it (case-insensitively) and the skill is
// installed (not in the without-skill pass of uplift mode). No tool calls, no usage.
type Mock struct{}

// Name implements Executor.
func (Mock) Name() string { return "mock" }

// WorkspaceFree implements WorkspaceFree: the mock only counts the input files.
func (Mock) WorkspaceFree() bool { return true }

// ContinuesSessions implements Conversational: each turn of a conversation is answered like a
// prompt of its own.
func (Mock) ContinuesSessions() bool { return true }

// Run implements Executor.
func (Mock) Run(ctx context.Context, req *Request) (*results.AgentRun, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := "Mock response for: " + req.Prompt
	if n := len(req.InputFiles); n > 0 {
		out += fmt.Sprintf("\nAnalyzed %d file(s)", n)
	}
	var events []results.Event
	if req.WithSkill && req.Skill != "" && strings.Contains(strings.ToLower(req.Prompt), strings.ToLower(req.Skill)) {
		events = append(events, results.Event{Type: results.EventSkillInvocation, Name: req.Skill, Path: skillPath(req)})
	}
	return &results.AgentRun{
		FinalOutput:   out,
		Transcript:    events,
		SessionDigest: results.Digest(events, nil, ""),
		DurationMS:    time.Since(start).Milliseconds(),
	}, nil
}

// skillPath returns the installed folder of the skill under test, when one is named after it.
func skillPath(req *Request) string {
	for _, dir := range req.SkillDirs {
		if filepath.Base(dir) == req.Skill {
			return dir
		}
	}
	return ""
}
