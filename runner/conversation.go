package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// Multi-turn conversations (a Vally stimulus's `turns`, docs/vally.md#multi-turn-stimuli): the
// runner sends the turns one at a time, each resuming the session the previous one reported,
// within the run's one time limit. The turns make one run: their transcripts in order, usage and
// durations summed, the turns' answers joined as the final output, and each turn recorded
// (results.AgentRun.Turns) so a grader pinned to a turn sees that turn alone.

// converse runs a task's conversation, or its single prompt.
func (r *suiteRun) converse(ctx context.Context, req *agent.Request, t *spec.Task) (*results.AgentRun, error) {
	if len(t.Turns) < 2 || !r.conversational() {
		return r.execute(ctx, req)
	}
	deadline := time.Now().Add(req.Timeout)
	merged := &results.AgentRun{}
	var usage *results.Usage
	session := ""
	for i, turn := range t.Turns {
		treq := *req
		treq.Prompt = turn
		if i == 0 {
			treq.Prompt = req.Prompt
		}
		treq.ResumeSession = session
		treq.Timeout = time.Until(deadline)
		if treq.Timeout <= 0 {
			merged.AgentError = fmt.Sprintf("timed out after %s before turn %d of %d", req.Timeout, i+1, len(t.Turns))
			break
		}
		run, err := r.execute(ctx, &treq)
		if run == nil {
			run = &results.AgentRun{}
		}
		merged.Transcript = append(merged.Transcript, run.Transcript...)
		merged.DurationMS += run.DurationMS
		merged.UnknownEvents += run.UnknownEvents
		if run.Stderr != "" {
			merged.Stderr = strings.TrimSpace(merged.Stderr + "\n" + run.Stderr)
		}
		usage = addUsage(usage, run.SessionDigest.Usage)
		merged.Turns = append(merged.Turns, results.TurnRecord{Prompt: turn, Output: run.FinalOutput,
			TranscriptEnd: len(merged.Transcript), Usage: run.SessionDigest.Usage, DurationMS: run.DurationMS})
		merged.StoppedEarly = run.StoppedEarly
		if run.SessionDigest.SessionID != "" {
			session = run.SessionDigest.SessionID
		}
		if err != nil {
			merged.AgentError = fmt.Sprintf("turn %d of %d: %v", i+1, len(t.Turns), err)
			break
		}
		if session == "" && i+1 < len(t.Turns) && r.opts.Executor.Name() != "mock" {
			merged.AgentError = fmt.Sprintf("turn %d of %d reported no session id: the conversation cannot continue", i+1, len(t.Turns))
			break
		}
	}
	outputs := make([]string, 0, len(merged.Turns))
	for _, tr := range merged.Turns {
		if tr.Output != "" {
			outputs = append(outputs, tr.Output)
		}
	}
	merged.FinalOutput = strings.Join(outputs, "\n\n")
	merged.SessionDigest = results.Digest(merged.Transcript, usage, session)
	if merged.AgentError != "" {
		return merged, conversationError(merged.AgentError)
	}
	return merged, nil
}

type conversationError string

func (e conversationError) Error() string { return string(e) }

// conversational reports whether the executor sends a conversation turn by turn. The replay
// executor replays the recorded conversation whole; another that cannot resume a session gets
// the first turn only (the loader's plan says so, see Plan).
func (r *suiteRun) conversational() bool {
	c, ok := r.opts.Executor.(agent.Conversational)
	return ok && c.ContinuesSessions()
}

// addUsage sums two usages (nil when neither is known).
func addUsage(a, b *results.Usage) *results.Usage {
	if b == nil {
		return a
	}
	if a == nil {
		c := *b
		c.ModelMetrics = nil
		return &c
	}
	a.Turns += b.Turns
	a.InputTokens += b.InputTokens
	a.OutputTokens += b.OutputTokens
	a.CacheReadTokens += b.CacheReadTokens
	a.CacheWriteTokens += b.CacheWriteTokens
	a.ReasoningTokens += b.ReasoningTokens
	a.CostUSD += b.CostUSD
	a.PremiumRequests += b.PremiumRequests
	return a
}

// warnTurns warns, once per suite, when the executor cannot continue a session: multi-turn
// stimuli then send their first turn only.
func (r *suiteRun) warnTurns() {
	if r.conversational() || r.opts.Executor.Name() == "replay" {
		return
	}
	n := 0
	for _, t := range r.suite.Tasks {
		if len(t.Turns) > 1 {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(r.log, "warning: %s: the %s executor cannot continue a session: %d multi-turn stimulus(es) send their first turn only (run them with claude-code, codex, copilot or gemini)\n",
			r.suite.Name, r.opts.Executor.Name(), n)
	}
}
