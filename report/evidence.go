package report

import (
	"encoding/json"
	"fmt"
	"html"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/skillgate/skillgate/results"
)

// Evidence is what a failed task's worst trial shows a reviewer: why it did not pass (the
// agent's or executor's error first, then every failing grader with its message), the tool calls
// it made and the first lines of what the agent answered.

// problem is one reason a trial did not pass: an error of the run, or a failing grader.
type problem struct {
	err    string                // the run's error: the agent's (crash, timeout) or the executor's
	agent  bool                  // err is the agent's own error
	grader *results.GraderResult // a grader that failed or errored
}

// text is the problem in one line: "agent error: …", the run's error, or "name (type): feedback".
func (p problem) text() string {
	switch {
	case p.grader != nil:
		return fmt.Sprintf("%s (%s): %s", p.grader.Name, p.grader.Type, p.grader.Feedback)
	case p.agent:
		return "agent error: " + p.err
	}
	return p.err
}

// trialProblems lists why a trial did not pass, the agent's error first: when the agent
// errored, the graders judged no real answer, so their failures are consequences, not causes.
// A run error raised by a grader that errored is left to that grader's line.
func trialProblems(r *results.RunResult) []problem {
	var out []problem
	var graderErrored bool
	for _, v := range r.Validations {
		if v == nil || v.Status == results.StatusPending || v.Status == results.StatusSkipped || (v.Passed && v.Status != results.StatusError) {
			continue
		}
		graderErrored = graderErrored || v.Status == results.StatusError
		out = append(out, problem{grader: v})
	}
	switch {
	case r.AgentError != "":
		out = append([]problem{{err: r.AgentError, agent: true}}, out...)
	case r.ErrorMsg != "" && !graderErrored:
		out = append([]problem{{err: r.ErrorMsg}}, out...)
	}
	return out
}

// trialErrored: the trial has no real answer to judge.
func trialErrored(r *results.RunResult) bool {
	return r.Status == results.StatusError || runError(r) != ""
}

// worstTrial is the trial a reviewer should read first: an errored one, else the failed one
// with the lowest score (the first of equals). Nil when every trial passed.
func worstTrial(t *results.TaskResult) *results.RunResult {
	var worst *results.RunResult
	for _, r := range t.Runs {
		if r == nil || r.Status == results.StatusPassed || r.Status == results.StatusPending {
			continue
		}
		switch {
		case worst == nil:
			worst = r
		case trialErrored(r) != trialErrored(worst):
			if trialErrored(r) {
				worst = r
			}
		case clean(r.Score) < clean(worst.Score):
			worst = r
		}
	}
	return worst
}

// taskProblem is the first reason a task failed: its own error (a hook failed before any trial
// ran), else the first problem of its worst trial.
func taskProblem(t *results.TaskResult) (problem, bool) {
	if t.ErrorMsg != "" {
		return problem{err: t.ErrorMsg}, true
	}
	if r := worstTrial(t); r != nil {
		if ps := trialProblems(r); len(ps) > 0 {
			return ps[0], true
		}
	}
	return problem{}, false
}

// evidenceLimits bound one task's evidence block.
type evidenceLimits struct {
	problems    int // failing graders shown
	feedback    int // characters of one grader message or error
	lines       int // lines of agent output
	lineChars   int // characters of one output line
	outputChars int // characters of output in all
	calls       int // tool calls listed
}

var (
	// A comment's block stays under ~2 KB, so its cap of tasks fits beside the tables.
	commentEvidence = evidenceLimits{problems: 3, feedback: 300, lines: 8, lineChars: 160, outputChars: 800, calls: 5}
	summaryEvidence = evidenceLimits{problems: 10, feedback: 1000, lines: 20, lineChars: 300, outputChars: 3000, calls: 12}
)

// How many tasks show evidence: in the comment, and per suite in the job summary, which keeps
// room for its table of every task.
const (
	commentEvidenceCap = 10
	summaryEvidenceCap = 50
)

// evidenceTask is a failing task with the trial its evidence comes from and its word.
type evidenceTask struct {
	suite string
	smp   taskSample
	run   *results.RunResult
	v     unitVerdict
}

// evidenceItems gathers, in a pass over the tasks, the evidence of failing tasks with a trial
// to show: those that block first, then those whose word says they changed (unconfirmed,
// within noise), then those failing as on the baseline, each in file order (the order of the
// failure list). Only the blocks that can be shown are made.
type evidenceItems struct {
	ranked *rankedItems
	cap    int
	render func(et evidenceTask) string
}

// evidenceRanks are evidenceTask.rank's.
const evidenceRanks = 4

func newEvidenceItems(cap int, render func(et evidenceTask) string) *evidenceItems {
	return &evidenceItems{ranked: newRankedItems(evidenceRanks, cap, math.MaxInt), cap: cap, render: render}
}

func (e *evidenceItems) suiteStart(*suiteState) {}
func (e *evidenceItems) suiteEnd(*suiteState)   {}
func (e *evidenceItems) finish() error          { return nil }

func (e *evidenceItems) task(st *suiteState, smp taskSample) {
	if smp.skipped || smp.allPassed() {
		return
	}
	r := worstTrial(smp.task)
	if r == nil {
		return
	}
	et := evidenceTask{suite: st.name, smp: smp, run: r, v: st.s.verdictOf(smp)}
	e.ranked.add(et.rank(), func() string { return e.render(et) })
}

// blocks are the first cap blocks by rank and how many failing tasks have evidence.
func (e *evidenceItems) blocks() ([]string, int) {
	items, n := e.ranked.merged().items, e.ranked.count()
	return items[:min(len(items), e.cap)], n
}

// rank orders evidence: blocking, then unconfirmed, then another change, then none.
func (et evidenceTask) rank() int {
	_, changed := changeRank[et.v.change]
	switch {
	case et.v.blocking:
		return 0
	case et.v.change == ChangeUnconfirmed:
		return 1
	case changed:
		return 2
	}
	return 3
}

// evidenceTitle is the one-line heading of a task's evidence, in plain text.
func (et evidenceTask) title(withSuite bool) string {
	icon := "❌"
	if trialErrored(et.run) {
		icon = "💥"
	}
	name := taskName(et.smp.task)
	if withSuite {
		name = et.suite + " · " + name
	}
	s := fmt.Sprintf("%s %s — trial %d of %d", icon, name, et.run.Trial(0), len(et.smp.task.Runs))
	if trialErrored(et.run) {
		s += fmt.Sprintf(", %s after %s", et.run.Status, durationText(et.run.DurationMS))
	} else {
		s += fmt.Sprintf(", score %.2f, %s", clean(et.run.Score), durationText(et.run.DurationMS))
	}
	s += wordSuffix(et.v.change)
	return s
}

// evidenceBody renders one trial's evidence as markdown: problems, tool calls, output.
func evidenceBody(r *results.RunResult, lim evidenceLimits) string {
	var b strings.Builder
	ps := trialProblems(r)
	for i, p := range ps {
		if i == lim.problems {
			fmt.Fprintf(&b, "- … and %d more failing graders\n", len(ps)-i)
			break
		}
		if p.grader == nil {
			label := "error"
			if p.agent {
				label = "agent error"
			}
			fmt.Fprintf(&b, "- 💥 **%s**: %s\n", label, mdCell(p.err, lim.feedback))
			continue
		}
		icon := "❌"
		if p.grader.Status == results.StatusError {
			icon = "💥"
		}
		fmt.Fprintf(&b, "- %s %s (%s, score %.2f): %s\n", icon, mdCode(p.grader.Name, 60), mdCell(p.grader.Type, 30), clean(p.grader.Score), mdCell(p.grader.Feedback, lim.feedback))
	}
	if calls := r.SessionDigest.ToolCalls; len(calls) > 0 {
		var parts []string
		for i, c := range calls {
			if i == lim.calls {
				parts = append(parts, fmt.Sprintf("%d more", len(calls)-i))
				break
			}
			parts = append(parts, toolCallCell(c))
		}
		fmt.Fprintf(&b, "- 🔧 %s: %s\n", plural(len(calls), "tool call"), strings.Join(parts, "; "))
	}
	if len(ps) > 0 || len(r.SessionDigest.ToolCalls) > 0 {
		b.WriteString("\n")
	}
	switch {
	case strings.TrimSpace(r.FinalOutput) != "":
		b.WriteString(outputExcerpt("Agent output", r.FinalOutput, lim, false))
	case strings.TrimSpace(r.Stderr) != "":
		b.WriteString(outputExcerpt("The agent gave no output; its stderr", r.Stderr, lim, true))
	default:
		b.WriteString("The agent gave no output.\n\n")
	}
	return b.String()
}

// toolCallCell is one tool call in a line: its name, then its command or arguments.
func toolCallCell(c results.ToolCall) string {
	s := mdCode(c.Name, 40)
	switch {
	case c.Command != "":
		s += " " + mdCode(c.Command, 80)
	case len(c.Arguments) > 0:
		args, _ := json.Marshal(c.Arguments)
		s += " " + mdCode(string(args), 80)
	}
	if !c.Success {
		s += " (failed)"
	}
	return s
}

// outputExcerpt is the first (or, for stderr, last) lines of agent text in a code block that
// nothing inside can close.
func outputExcerpt(label, text string, lim evidenceLimits, tail bool) string {
	lines := strings.Split(strings.TrimRight(plainText(text), "\n"), "\n")
	total := len(lines)
	if tail && total > lim.lines {
		lines = lines[total-lim.lines:]
	}
	var kept []string
	size := 0
	for _, l := range lines {
		if len(kept) == lim.lines || size >= lim.outputChars {
			break
		}
		l = cutRunes(l, min(lim.lineChars, lim.outputChars-size))
		kept = append(kept, l)
		size += utf8.RuneCountInString(l) + 1
	}
	which := "first"
	if tail {
		which = "last"
	}
	if len(kept) < total {
		label += fmt.Sprintf(" (%s %d of %d lines)", which, len(kept), total)
	}
	body := strings.Join(kept, "\n")
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	return fmt.Sprintf("%s:\n\n%stext\n%s\n%s\n\n", label, fence, body, fence)
}

// plainText drops control characters other than tabs and line ends, which could hide text or
// confuse a terminal or a browser.
func plainText(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "�")
	}
	return strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// cutRunes keeps the first n characters of s, marking a cut with "…".
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n-1, 0)]) + "…"
}

func longestRun(s string, c rune) int {
	longest, run := 0, 0
	for _, r := range s {
		if r == c {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// htmlInline is text for an HTML element of a markdown document (such as <summary>), where
// markdown is not parsed: one line, HTML-escaped, mentions defused, bounded.
func htmlInline(s string, limit int) string {
	s = truncate(collapseSpace(plainText(s)), limit)
	return strings.ReplaceAll(html.EscapeString(s), "@", "@\u2060")
}

// newCommentEvidence gathers the comment's evidence blocks.
func newCommentEvidence(states []*suiteState) *evidenceItems {
	withSuite := len(states) > 1
	return newEvidenceItems(commentEvidenceCap, func(et evidenceTask) string {
		return fmt.Sprintf("**%s**\n\n%s", mdCell(et.title(withSuite), 200), evidenceBody(et.run, commentEvidence))
	})
}

// commentEvidenceSection is the comment's folded evidence: the worst trial of each failing
// task, those that block first, bounded to commentEvidenceCap tasks.
func commentEvidenceSection(states []*suiteState) *mdSection {
	e := newCommentEvidence(states)
	visitTasks(states, e)
	return e.commentSection()
}

func (e *evidenceItems) commentSection() *mdSection {
	items, n := e.blocks()
	if n > e.cap {
		items = append(items, fmt.Sprintf("… and %s more failing tasks in the job summary and report.html.\n\n", thousands(n-e.cap)))
	}
	head := fmt.Sprintf("<details><summary>Evidence: what the agent answered in the worst trial of %s</summary>\n\n", plural(n, "failing task"))
	return &mdSection{priority: 5, head: head, items: items, tail: "</details>\n\n", what: "evidence blocks"}
}

// newSummaryEvidence gathers one suite's evidence blocks for the job summary.
func newSummaryEvidence(*suiteState) *evidenceItems {
	return newEvidenceItems(summaryEvidenceCap, func(et evidenceTask) string {
		title := et.title(false)
		if p, ok := taskProblem(et.smp.task); ok {
			title += ": " + p.text()
		}
		return fmt.Sprintf("<details><summary>%s</summary>\n\n%s</details>\n\n", htmlInline(title, 200), evidenceBody(et.run, summaryEvidence))
	})
}

// summarySection is one suite's evidence in the job summary, one folded block per failing task.
func (e *evidenceItems) summarySection() *mdSection {
	items, n := e.blocks()
	if n > e.cap {
		items = append(items, fmt.Sprintf("… and %s more failing tasks in report.html.\n\n", thousands(n-e.cap)))
	}
	return &mdSection{priority: 5, head: "#### Evidence: the worst trial of each failing task\n\n", items: items, what: "evidence blocks", moreNote: "… and %d more failing tasks in report.html\n\n"}
}
