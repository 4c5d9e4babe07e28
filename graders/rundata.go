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

// The run's tool calls, tools used, tool call count and skill invocations are read through
// results.AgentRun.Digest, the one derivation executors and reports use too: the recorded
// digest's, with what it lacks derived from the transcript. A call whose outcome was never
// recorded has outcome unknown and success false (results.ToolUnknown).

func toolCalls(run *results.AgentRun) []results.ToolCall { return run.Digest().ToolCalls }

// toolsUsed returns the tool names in call order, duplicates kept.
func toolsUsed(run *results.AgentRun) []string { return run.Digest().ToolsUsed }

func toolCallCount(run *results.AgentRun) int { return run.Digest().ToolCallCount }

// skillsInvoked returns the names of the skills the agent invoked, in order.
func skillsInvoked(run *results.AgentRun) []string {
	names := []string{}
	for _, s := range run.Digest().SkillInvocations {
		names = append(names, s.Name)
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
