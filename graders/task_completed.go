package graders

import (
	"context"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:    "task_completed",
		Summary: "Passes when the agent finished the run without an error or a timeout (expected.outcomes `task_completed`, which waza's scaffold writes into every task).",
		Compile: compileTaskCompleted,
	})
}

func compileTaskCompleted(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	return GraderFunc(func(_ context.Context, in *Input) (*results.GraderResult, error) {
		run := runOf(in)
		if run.AgentError != "" {
			return result(def, 0, false, "The agent did not finish the task: "+run.AgentError, map[string]any{"agent_error": run.AgentError}), nil
		}
		return result(def, 1, true, "The agent finished the task", nil), nil
	}), nil
}
