package report

import (
	"fmt"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// The small additions skill-creator suites bring to the reports, kept apart from the renderers:
// checks awaiting a judge, the blind pairwise verdicts of prompt-only evals, the trigger queries
// that missed their threshold.

// creatorLines are the terminal lines of those additions for one suite.
func (s *Suite) creatorLines() []string {
	r := s.Result
	out := s.judgeLines()
	for _, line := range []string{s.pairwiseLine(), s.skillEffectLine()} {
		if line != "" {
			out = append(out, line)
		}
	}
	for i, q := range missedQueries(r) {
		if i == 5 {
			out = append(out, fmt.Sprintf("… and %d more trigger queries", len(missedQueries(r))-5))
			break
		}
		out = append(out, fmt.Sprintf("trigger query %s (should %s): %s", q.ID, shouldWord(q.ShouldTrigger), q.Verdict()))
	}
	return out
}

// judgeLines say how many checks no judge graded (skill-creator's judged checks under the mock
// executor or without a judge), and why, once.
func (s *Suite) judgeLines() []string {
	f := s.taskFacts()
	if f.awaitingJudge == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s awaiting a judge, not graded: %s", plural(f.awaitingJudge, "check"), f.judgeWhy)}
}

// pairwiseLine counts the pairwise verdicts and names the worse answers ("" without any).
func (s *Suite) pairwiseLine() string {
	var better, tie int
	var worse []string
	l := s.tasks()
	for i := range l.digests {
		switch p := l.digests[i].Pairwise(); {
		case p == nil:
		case p.Verdict == results.PairwiseBetter:
			better++
		case p.Verdict == results.PairwiseWorse:
			worse = append(worse, l.digests[i].ID())
		default:
			tie++
		}
	}
	if better+tie+len(worse) == 0 {
		return ""
	}
	line := fmt.Sprintf("answers against the base branch's (blind pairwise judge): %d better, %d worse, %d tie", better, len(worse), tie)
	if len(worse) > 0 {
		line += "; worse: " + strings.Join(worse, ", ")
	}
	return line
}

func missedQueries(r *results.SuiteResult) []*results.TriggerQuery {
	var out []*results.TriggerQuery
	for _, q := range r.TriggerQueries {
		if q.Status != results.StatusPassed {
			out = append(out, q)
		}
	}
	return out
}

func shouldWord(should bool) string {
	if should {
		return "trigger"
	}
	return "not trigger"
}

// creatorSections are the markdown sections of those additions for one suite, and of the
// skill's effect per eval.
func creatorSections(s *Suite) []*mdSection {
	r := s.Result
	var out []*mdSection
	if sec := s.skillEffectSection(); sec != nil {
		out = append(out, sec)
	}
	var rows []string
	l := s.tasks()
	for i := range l.digests {
		t := &l.digests[i]
		p := t.Pairwise()
		if p == nil {
			continue
		}
		icon := map[string]string{results.PairwiseBetter: "🔺", results.PairwiseWorse: "🔻"}[p.Verdict]
		if icon == "" {
			icon = "➖"
		}
		rows = append(rows, fmt.Sprintf("| %s | %s %s | %d/%d/%d | %s |\n", mdCode(t.ID(), 60), icon, p.Verdict, p.Better, p.Worse, p.Tie, mdCell(p.Reason, 300)))
	}
	if len(rows) > 0 {
		out = append(out, &mdSection{priority: 5, head: "#### Answers against the base branch's\n\nPrompt-only evals have no checks: a blind judge compared each answer with the base branch's (order hidden and shuffled); a worse answer is a regression candidate.\n\n| Task | Verdict | Better/worse/tie | Judge's reasoning |\n|---|---|---:|---|\n",
			items: rows, tail: "\n", what: "pairwise verdicts", moreNote: "- … and %d more\n"})
	}
	if missed := missedQueries(r); len(missed) > 0 {
		var rows []string
		for _, q := range missed {
			rows = append(rows, fmt.Sprintf("| %s %s | should %s | %d/%d | %.2f | %.2g | %s |\n", mdCode(q.ID, 40), mdCell(q.Prompt, 120),
				shouldWord(q.ShouldTrigger), q.Triggers, q.Runs, q.TriggerRate, q.Threshold, q.Status))
		}
		out = append(out, &mdSection{priority: 4, head: fmt.Sprintf("#### Trigger queries below their threshold (%d of %d)\n\n| Query | Expected | Triggered | Rate | Threshold | Status |\n|---|---|---:|---:|---:|---|\n", len(missed), len(r.TriggerQueries)),
			items: rows, tail: "\n", what: "trigger queries", moreNote: "- … and %d more\n"})
	}
	return out
}
