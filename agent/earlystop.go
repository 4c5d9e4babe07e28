package agent

import (
	"context"
	"fmt"
	"sync"

	"github.com/skillgate/skillgate/internal/regex"
	"github.com/skillgate/skillgate/results"
)

// Reasons a run was stopped early (results.AgentRun.StoppedEarly).
const (
	StopSkillCall     = "skill_call"
	StopToolCallCount = "tool_call_count"
	StopOutputMatches = "output_matches"
)

// StopRule says when an executor stops the agent before it finishes (docs/format.md#early-stop):
// as soon as the run's outcome is known, or when it goes over its budget.
type StopRule struct {
	// SkillCall stops once this skill is invoked ("*": any skill).
	SkillCall string
	// ToolCallCount stops after this many tool calls (0: no limit).
	ToolCallCount int
	// OutputMatches stops once an assistant message matches.
	OutputMatches *regex.Regexp
	// MaxTokens and MaxCostUSD bound the run: past them the agent is stopped and the run
	// errors. Cost prices the usage seen so far (nil: MaxCostUSD is not checked).
	MaxTokens  int64
	MaxCostUSD float64
	Cost       func(*results.Usage) (float64, bool)
}

// KeyString is the rule as it enters a run key: the conditions that change what is recorded.
func (s *StopRule) KeyString() string {
	if s == nil {
		return ""
	}
	re := ""
	if s.OutputMatches != nil {
		re = s.OutputMatches.String()
	}
	return fmt.Sprintf("skill=%q tools=%d output=%q tokens=%d cost=%g", s.SkillCall, s.ToolCallCount, re, s.MaxTokens, s.MaxCostUSD)
}

// matches runs an early_stop pattern: RE2, which never backtracks, so it cannot fail.
func matches(re *regex.Regexp, s string) bool {
	ok, _ := re.MatchString(s)
	return ok
}

// stopWatch follows a parser's builder while the agent streams and stops the agent once a rule
// applies. It sits between the process's output and the parser: after a stop, later lines are
// not parsed, so the run holds exactly what was seen when the decision was made.
type stopWatch struct {
	rule   *StopRule
	sink   lineSink
	b      *builder
	cancel context.CancelFunc
	// interrupt, when set, ends an early-stopped agent instead of cancel, and after reads the
	// lines it prints once interrupted, for the session's usage (interruptible).
	interrupt func()
	after     usageReporter

	mu      sync.Mutex
	checked int    // events already looked at
	calls   int    // tool calls seen
	reason  string // why the run stopped early ("" while running)
	budget  string // why the run went over its budget ("" within it)
}

// builderOwner is implemented by every parser that builds its run with a builder.
type builderOwner interface{ builder() *builder }

func (p *claudeParser) builder() *builder  { return p.b }
func (p *codexParser) builder() *builder   { return p.b }
func (p *copilotParser) builder() *builder { return p.b }
func (p *geminiParser) builder() *builder  { return p.b }
func (p *commandParser) builder() *builder { return p.b }

// interruptible is implemented by the parsers of CLIs that, interrupted (SIGINT), end their
// stream with the whole session's usage (Claude Code's result line). An early stop interrupts
// them rather than killing them, so the stopped run's tokens are counted.
type interruptible interface {
	// afterStop is a fresh parser for the lines printed after the stop.
	afterStop() usageReporter
}

// usageReporter reads the usage a stream reports for the whole session.
type usageReporter interface {
	lineSink
	// reportedUsage is the session's usage, or nil when the stream did not report it.
	reportedUsage() *results.Usage
}

// watchStream wraps sink so the rule is checked after every line; nil when there is no rule or
// the parser keeps no builder, and then sink is used as is. An early stop calls interrupt when
// the parser is interruptible (and interrupt is set), else cancel.
func watchStream(rule *StopRule, sink lineSink, cancel, interrupt context.CancelFunc) *stopWatch {
	if rule == nil {
		return nil
	}
	owner, ok := sink.(builderOwner)
	if !ok {
		return nil
	}
	w := &stopWatch{rule: rule, sink: sink, b: owner.builder(), cancel: cancel}
	if in, ok := sink.(interruptible); ok && interrupt != nil {
		w.interrupt, w.after = interrupt, in.afterStop()
	}
	return w
}

func (w *stopWatch) line(raw []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reason != "" || w.budget != "" {
		if w.reason != "" && w.after != nil {
			w.after.line(raw)
		}
		return
	}
	w.sink.line(raw)
	w.check()
	switch {
	case w.reason != "" && w.interrupt != nil:
		w.interrupt()
	case w.reason != "" || w.budget != "":
		w.cancel()
	}
}

// stoppedUsage is the session's usage an interrupted agent reported after its early stop, or nil.
func (w *stopWatch) stoppedUsage() *results.Usage {
	if w == nil || w.after == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.after.reportedUsage()
}

// check looks at the events added since the last line.
func (w *stopWatch) check() {
	r := w.rule
	for ; w.checked < len(w.b.events); w.checked++ {
		ev := w.b.events[w.checked]
		switch ev.Type {
		case results.EventSkillInvocation:
			if r.SkillCall != "" && (r.SkillCall == "*" || ev.Name == r.SkillCall) {
				w.reason = StopSkillCall
				return
			}
		case results.EventToolCall:
			w.calls++
			if r.ToolCallCount > 0 && w.calls >= r.ToolCallCount {
				w.reason = StopToolCallCount
				// A skill announced by this very call (codex reads SKILL.md with a shell
				// command) still decides: the next events are looked at before stopping.
			}
		case results.EventMessage:
			if r.OutputMatches != nil && ev.Role == roleAssistant && matches(r.OutputMatches, ev.Content) {
				w.reason = StopOutputMatches
				return
			}
		}
	}
	if err := r.CheckBudget(w.b.usage); err != nil {
		w.budget = err.Error()
	}
}

// outcome is why the run stopped: early (a decision) or over budget (an error); both empty for
// a run that ended by itself.
func (w *stopWatch) outcome() (stopped, overBudget string) {
	if w == nil {
		return "", ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.reason, w.budget
}

// CheckBudget is the budget check on a finished run, for agents that report usage only at the
// end: the error says how the run went over (nil within it).
func (s *StopRule) CheckBudget(u *results.Usage) error {
	if s == nil || u == nil {
		return nil
	}
	tokens := u.InputTokens + u.OutputTokens // input counts cached tokens too
	if s.MaxTokens > 0 && tokens > s.MaxTokens {
		return fmt.Errorf("over the run's token budget: %d tokens used, max_tokens is %d", tokens, s.MaxTokens)
	}
	if s.MaxCostUSD > 0 && s.Cost != nil {
		if cost, ok := s.Cost(u); ok && cost > s.MaxCostUSD {
			return fmt.Errorf("over the run's cost budget: $%.4f spent, max_cost is $%.4f", cost, s.MaxCostUSD)
		}
	}
	return nil
}
