package graders

import (
	"strings"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// checkResult builds the result of a check-counting grader (docs/graders.md#common-rules): score =
// (checks − failures) / checks, passed iff nothing failed, failures joined with "; ".
func checkResult(def *spec.Grader, checks int, failures []string, allPassed string, details map[string]any) *results.GraderResult {
	score := 1.0
	if checks > 0 {
		score = float64(checks-len(failures)) / float64(checks)
		if score < 0 {
			score = 0
		}
	}
	feedback := allPassed
	if len(failures) > 0 {
		feedback = strings.Join(failures, "; ")
	}
	if details == nil {
		details = map[string]any{}
	}
	details["failures"] = failures
	return &results.GraderResult{
		Name:     def.Name,
		Type:     def.Type,
		Score:    score,
		Weight:   def.Weight,
		Passed:   len(failures) == 0,
		Feedback: feedback,
		Details:  details,
	}
}

// result builds a grader result with the declaration's identity.
func result(def *spec.Grader, score float64, passed bool, feedback string, details map[string]any) *results.GraderResult {
	return &results.GraderResult{
		Name:     def.Name,
		Type:     def.Type,
		Score:    score,
		Weight:   def.Weight,
		Passed:   passed,
		Feedback: feedback,
		Details:  details,
	}
}

func runOf(in *Input) *results.AgentRun {
	if in == nil || in.Run == nil {
		return &results.AgentRun{}
	}
	return in.Run
}

// toolCalls returns the run's tool calls in order: the session digest's, or, when the digest has
// none, the transcript's tool_call events.
func toolCalls(run *results.AgentRun) []results.ToolCall {
	if len(run.SessionDigest.ToolCalls) > 0 {
		return run.SessionDigest.ToolCalls
	}
	var calls []results.ToolCall
	for _, e := range run.Transcript {
		if e.Type != results.EventToolCall {
			continue
		}
		name := e.Name
		if name == "" {
			name = e.ToolName
		}
		result := e.Result
		if result == nil {
			result = e.ToolResult
		}
		calls = append(calls, results.ToolCall{
			ID: e.ID, Name: name, Arguments: e.Arguments, Result: result,
			Success: e.Success == nil || *e.Success, DurationMS: e.DurationMS,
		})
	}
	return calls
}

// toolsUsed returns the tool names in call order, duplicates kept: the digest's tools_used, else
// the names of the tool calls.
func toolsUsed(run *results.AgentRun) []string {
	if len(run.SessionDigest.ToolsUsed) > 0 {
		return run.SessionDigest.ToolsUsed
	}
	calls := toolCalls(run)
	names := make([]string, 0, len(calls))
	for _, c := range calls {
		names = append(names, c.Name)
	}
	return names
}

// toolCallCount is the digest's count, else the number of tool calls found.
func toolCallCount(run *results.AgentRun) int {
	if run.SessionDigest.ToolCallCount > 0 {
		return run.SessionDigest.ToolCallCount
	}
	return len(toolCalls(run))
}

// skillsInvoked returns the names of the skills the agent invoked, in order: the digest's
// skill_invocations, else the transcript's skill_invocation events.
func skillsInvoked(run *results.AgentRun) []string {
	names := []string{}
	if len(run.SessionDigest.SkillInvocations) > 0 {
		for _, s := range run.SessionDigest.SkillInvocations {
			names = append(names, s.Name)
		}
		return names
	}
	for _, e := range run.Transcript {
		if e.Type == results.EventSkillInvocation {
			names = append(names, e.Name)
		}
	}
	return names
}

// totalTokens is input + output tokens; ok is false when the agent reported no usage.
func totalTokens(run *results.AgentRun) (total int64, ok bool) {
	u := run.SessionDigest.Usage
	if u == nil {
		return 0, false
	}
	return u.InputTokens + u.OutputTokens, true
}

// orEmpty makes nil slices render as [] in details, as waza's never-nil lists do.
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// hasDigest reports whether a run recorded anything of its session beyond the final output: a
// transcript, tool calls, token usage or a session id. Mock runs and replays of bare results
// have none.
func hasDigest(run *results.AgentRun) bool {
	d := run.SessionDigest
	return len(run.Transcript) > 0 || d.ToolCallCount > 0 || len(d.ToolCalls) > 0 || d.Usage != nil || d.SessionID != ""
}

// skipped is the result of a grader that did not apply to the run: it counts in no score and
// fails nothing (results.ScoreRun).
func skipped(def *spec.Grader, feedback string) *results.GraderResult {
	r := result(def, 0, true, feedback, nil)
	r.Status = results.StatusSkipped
	return r
}
