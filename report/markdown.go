package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/skillgate/skillgate/results"
)

// Size limits of GitHub's markdown surfaces.
const (
	// CommentLimit is the maximum body of an issue or PR comment (characters).
	CommentLimit = 65536
	// SummaryLimit is the maximum job summary of one step (bytes).
	SummaryLimit = 1 << 20
)

// suiteState is what the markdown and terminal reports say about one suite.
type suiteState struct {
	s    *Suite
	name string
	side Side
	gate *results.Gate
}

func newSuiteState(s *Suite) *suiteState {
	r := s.Result
	st := &suiteState{s: s, name: suiteName(r)}
	st.side = describeSide("", "", r)
	st.gate = r.Gate
	if st.gate == nil {
		st.gate = results.ComputeGate(r)
	}
	return st
}

// unsettled: a comparison that sees a likely drop it cannot call a regression.
func (st *suiteState) unsettled() bool { return st.s.Comparison.Unsettled() }

func (st *suiteState) passedTasks() (passed, ran int) {
	sum := st.s.Result.Summary
	return sum.Succeeded, sum.Ran()
}

// resultCell is a suite's outcome in a few words with its icon, from the same outcome the
// headline reads.
func (st *suiteState) resultCell() string {
	o := st.outcome()
	var brought []string
	if o.compared {
		for _, p := range []struct {
			n    int
			word string
		}{
			{o.ch.NewFailures, "new failure"}, {o.ch.Worse, "task worse"}, {o.ch.AddedFailing, "new task failing"},
			{o.ch.YardstickFailing, "task failing under a changed definition"}, {o.ch.PromptsWorse, "trigger prompt worse"},
		} {
			if p.n > 0 {
				brought = append(brought, plural(p.n, p.word))
			}
		}
	}
	switch {
	case o.regressed:
		return "❌ regressed"
	case len(brought) > 0:
		return "❌ " + strings.Join(brought, ", ")
	case o.blocking():
		return "❌ failed"
	case o.skillHurts:
		return "❌ skill hurts"
	case o.unsettled:
		return "⚠️ drop likely, not shown"
	case o.ch.Unconfirmed+o.ch.PromptsUnconfirmed > 0:
		return "⚠️ " + plural(o.ch.Unconfirmed+o.ch.PromptsUnconfirmed, "unconfirmed drop")
	case len(o.noiseMiss) > 0:
		return "⚠️ threshold missed within noise"
	case o.ch.YardstickChanged > 0:
		return "⚠️ definitions changed"
	case o.ch.RemovedFailing > 0:
		return "⚠️ failing task removed"
	case o.improved:
		return "✅ improved"
	case !st.gate.Passed && o.ch.StillFailing > 0:
		return "➖ failing as on the baseline"
	case !st.gate.Passed && o.ch.Flaky > 0:
		return "〰️ failing within noise"
	}
	return "✅ passed"
}

// verdict is the one-sentence headline of a comment or summary: what this change did.
func verdict(in *Input, states []*suiteState) string {
	switch {
	case len(states) == 0 && len(in.Unaffected) > 0:
		return fmt.Sprintf("✅ **No suite to run:** the change affects none of the %s.", plural(len(in.Unaffected), "suite"))
	case len(states) == 0:
		return "⚠️ **No results:** no suite was run."
	}
	outs := make([]outcome, len(states))
	for i, st := range states {
		outs[i] = st.outcome()
	}
	icon, text := headline(outs)
	return icon + " " + text
}

func (st *suiteState) outcome() outcome {
	return outcomeOf(st.name, st.s.Comparison, st.s.Result, st.s.Uplift)
}

// Headline is the first line of the PR comment and the job summary: what this change did.
func Headline(in *Input) string { return verdict(in, states(in)) }

func shortWhy(c *Comparison) string {
	for _, m := range c.Metrics {
		if m.Verdict != VerdictRegressed {
			continue
		}
		if m.Name == MetricTasks {
			return plural(m.Dropped, "task") + " confirmed worse"
		}
		label := "mean score"
		if m.Name == MetricPassRate {
			label = "pass rate"
		}
		return fmt.Sprintf("%s %s, %s %s to %s", label, signed(*m.Delta), ciName(m.confidence), signed(m.Interval.Lower), signed(m.Interval.Upper))
	}
	return "regressed"
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%s %ss", thousands(n), word)
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 10000 && n > -10000 {
		return s
	}
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

func states(in *Input) []*suiteState {
	var out []*suiteState
	for _, s := range in.suites() {
		out = append(out, newSuiteState(s))
	}
	return out
}

// suiteTable is the compact per-suite table; tableKey says what its numbers are.
func suiteTable(states []*suiteState) (head string, rows []string) {
	ci := ciName(statesConfidence(states))
	head = "| Suite | " + tasksColumn(states) + " | Score | Pass rate | Δ score (" + ci + ") | Δ pass rate (" + ci + ") | Triggers | Result |\n" +
		"|---|---:|---:|---:|---|---|---|---|\n"
	for _, st := range states {
		p, n := st.passedTasks()
		dScore, dPass := "—", "—"
		var base *results.SuiteResult
		if c := st.s.Comparison; c != nil {
			if c.NoBaseline {
				dScore, dPass = "no baseline", "no baseline"
			} else {
				dScore = deltaCell(c.Metric(MetricScore), false)
				dPass = deltaCell(c.Metric(MetricPassRate), true)
				base = st.s.Baseline
			}
		}
		rows = append(rows, fmt.Sprintf("| %s | %d/%d | %s | %s | %s | %s | %s | %s |\n",
			mdCell(st.name, 80), p, n, num2(st.side.AggregateScore), pctCell(st.side.PassRate), dScore, dPass, triggerCell(st.s.Result, base), st.resultCell()))
	}
	return head, rows
}

// tasksColumn names the task count for what it is: with the default task pass rule a task
// passes only when every trial passes.
func tasksColumn(states []*suiteState) string {
	for _, st := range states {
		if t := st.s.Result.Config.TaskPassThreshold; t > 0 && t < 1 {
			return "Tasks passing"
		}
	}
	return "Tasks passing every trial"
}

// tableKey is the key under the suite table.
func tableKey(states []*suiteState) string {
	tasks := "**Tasks passing every trial**: a task with one failed trial does not pass"
	if tasksColumn(states) != "Tasks passing every trial" {
		tasks = "**Tasks passing**: tasks whose share of passed trials reaches the suite's `task_pass_threshold` (every trial by default)"
	}
	me := DefaultMinEffect
	for _, st := range states {
		if c := st.s.Comparison; c != nil && !c.NoBaseline {
			me = c.Settings.MinEffect
			break
		}
	}
	ci := ciName(statesConfidence(states))
	return fmt.Sprintf("<sub>%s. **Score**: mean grader score (0–1) per task, averaged over tasks. **Pass rate**: share of trials that passed, averaged over tasks. "+
		"**Δ (%s)**: change against the baseline and its %s interval; 🔻/🔺 when the whole interval lies beyond ∓%.2f. **Triggers**: trigger-test accuracy.</sub>\n\n", tasks, ci, strings.TrimSuffix(ci, " CI"), me)
}

// statesConfidence is the confidence of the first comparison there is (every suite of a run
// shares its options), else the default.
func statesConfidence(states []*suiteState) float64 {
	for _, st := range states {
		if c := st.s.Comparison; c != nil && !c.NoBaseline {
			return c.Settings.Confidence
		}
	}
	return DefaultConfidence
}

// deltaCell is "−0.12 (−0.18 to −0.06) 🔻" for a metric comparison.
func deltaCell(m *MetricComparison, points bool) string {
	s := plainDelta(m, points)
	if m == nil || m.Delta == nil {
		return s
	}
	switch m.Verdict {
	case VerdictRegressed:
		s += " 🔻"
	case VerdictImproved:
		s += " 🔺"
	}
	return s
}

// signedPoints formats a pass-rate change in percentage points.
func signedPoints(x float64) string {
	if math.Abs(x) < 0.0005 {
		x = 0
	}
	s := fmt.Sprintf("%+.1f pp", x*100)
	if strings.HasPrefix(s, "-") {
		s = "−" + s[1:]
	}
	return s
}

func triggerCell(r, base *results.SuiteResult) string {
	tm := r.TriggerMetrics
	if tm == nil {
		return "—"
	}
	s := fmt.Sprintf("%.0f%%", clean(tm.Accuracy)*100)
	if base != nil && base.TriggerMetrics != nil {
		b := clean(base.TriggerMetrics.Accuracy)
		s = fmt.Sprintf("%.0f%% → %s (%s)", b*100, s, signedPoints(clean(tm.Accuracy)-b))
	}
	if m := r.Metrics[results.MetricTriggerAccuracy]; m != nil {
		s += fmt.Sprintf(" (≥ %.0f%%) %s", clean(m.Threshold)*100, passMark(m.Passed))
	}
	return s
}

// numCell is *p in format, or a dash where there is no value.
func numCell(format string, p *float64) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprintf(format, *p)
}

func num2(p *float64) string { return numCell("%.2f", p) }

func pctCell(p *float64) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", *p*100)
}

// location renders a task or grader source as inline code.
func location(in *Input, loc *results.Location) string {
	if loc == nil || loc.File == "" {
		return ""
	}
	return mdCode(fmt.Sprintf("%s:%d", relPath(in.RepoRoot, loc.File), loc.Line), 200)
}

// regressionItems lists what got worse against the baseline: suite metrics whose interval lies
// below −min_effect, then tasks and trigger prompts confirmed worse, with why.
func regressionItems(in *Input, states []*suiteState) []string {
	var items []string
	for _, st := range states {
		for _, c := range st.s.comparisons() {
			prefix := ""
			if c.Mode == ModeUplift {
				prefix = "with the skill vs without: "
			}
			for _, m := range c.Metrics {
				if m.Verdict == VerdictRegressed && m.Name != MetricTasks {
					items = append(items, fmt.Sprintf("- 🔻 **%s**: %s%s\n", mdCell(st.name, 80), prefix, mdCell(m.Message, 300)))
				}
			}
			if c.Mode == ModeUplift {
				continue
			}
			for _, list := range [][]*TaskComparison{c.Tasks, c.Prompts} {
				for _, t := range list {
					if t.Change != ChangeNewFailure && t.Change != ChangeWorse {
						continue
					}
					loc := location(in, t.Source)
					if loc != "" {
						loc = " " + loc
					}
					name := t.Name
					if isPrompt(c, t) {
						name = "trigger prompt " + t.ID
					}
					items = append(items, fmt.Sprintf("- %s · **%s** · %s%s: %s\n", changeLabel(t.Change), mdCell(st.name, 80), mdCell(name, 100), loc, mdCell(t.Why, 400)))
				}
			}
		}
	}
	return items
}

// isPrompt reports whether a unit of c is one of its trigger prompts.
func isPrompt(c *Comparison, u *TaskComparison) bool {
	for _, p := range c.Prompts {
		if p == u {
			return true
		}
	}
	return false
}

// Failures are listed by rank: missed thresholds and an interrupted run, then the tasks that
// block, the other failing tasks, and misclassified trigger prompts.
const (
	failureRankSuite = iota
	failureRankBlocking
	failureRankTask
	failureRankTrigger
	failureRanks
)

// suiteFailures are a suite's failures that come before its tasks': missed thresholds and an
// interrupted run.
func suiteFailures(in *Input, st *suiteState) []string {
	var items []string
	r := st.s.Result
	for _, f := range st.s.thresholdFindings(st.name, "") {
		icon := map[string]string{LevelError: "❌", LevelWarning: "⚠️"}[f.Level]
		items = append(items, fmt.Sprintf("- %s **%s**: %s %s\n", icon, mdCell(st.name, 80), mdCell(f.Message, 300), location(in, f.Location)))
	}
	if r.Incomplete {
		items = append(items, fmt.Sprintf("- ❌ **%s**: the run is incomplete (%s); only finished tasks are reported\n",
			mdCell(st.name, 80), mdCell(r.IncompleteReason, 200)))
	}
	return items
}

// taskFailure is a failed or errored task's line (smp.task is the whole task) and its rank; ok
// is false for a task that did not fail.
func taskFailure(in *Input, st *suiteState, smp taskSample, feedbackLimit int) (rank int, render func() string, ok bool) {
	t := smp.task
	if smp.skipped || smp.allPassed() || (!smp.ok && t.Status != results.StatusError && t.Status != results.StatusFailed) {
		return 0, nil, false
	}
	v := st.s.verdictOf(smp)
	rank = failureRankTask
	if v.blocking {
		rank = failureRankBlocking
	}
	return rank, func() string {
		tag := wordSuffix(v.change)
		icon := "❌"
		what := fmt.Sprintf("%d of %d trials failed", smp.trials-smp.passed, smp.trials)
		switch {
		case smp.errors > 0:
			icon = "💥"
			what = fmt.Sprintf("%d of %d trials errored", smp.errors, smp.trials)
		case t.Status == results.StatusError && len(t.Runs) == 0:
			icon = "💥"
			what = "errored before any trial ran"
		case !smp.ok:
			what = "no usable trial data"
		}
		loc := location(in, t.Source)
		if loc != "" {
			loc = " " + loc
		}
		return fmt.Sprintf("- %s **%s** · %s%s%s: %s%s\n",
			icon, mdCell(st.name, 80), mdCell(taskName(t), 100), loc, tag, what, firstFailure(t, feedbackLimit))
	}, true
}

// triggerFailures are a suite's misclassified trigger prompts.
func triggerFailures(in *Input, st *suiteState) []string {
	var items []string
	for _, tr := range sampleTriggers(st.s.Result.TriggerResults) {
		if tr.correct == tr.trials {
			continue
		}
		items = append(items, fmt.Sprintf("- ❌ **%s** · trigger prompt %s %s: %s, triggered in %d of %d trials: %s\n",
			mdCell(st.name, 80), mdCode(tr.id, 60), location(in, tr.source), tr.expectation(), tr.triggered, tr.trials, mdCell(tr.prompt, 120)))
	}
	return items
}

// addFailures adds the items of suiteFailures or triggerFailures under a rank.
func addFailures(r *rankedItems, rank int, items []string) {
	for _, it := range items {
		r.add(rank, func() string { return it })
	}
}

// firstFailure names the first reason a task failed (taskProblem): a run error before any grader.
func firstFailure(t *results.TaskResult, limit int) string {
	p, ok := taskProblem(t)
	switch {
	case !ok:
		return ""
	case p.grader == nil:
		return " — " + mdCell(p.text(), limit)
	}
	return fmt.Sprintf(" — %s (%s): %s", mdCode(p.grader.Name, 60), mdCell(p.grader.Type, 30), mdCell(p.grader.Feedback, limit))
}

// taskRowsHead heads the table of every task, with the baseline change when there is one.
func taskRowsHead(withSuite bool) string {
	if withSuite {
		return "| Suite | Task | Result | Trials | Pass rate | Score | Δ pass rate | Δ score | Change |\n|---|---|---|---:|---:|---:|---:|---:|---|\n"
	}
	return "| Task | Result | Trials | Pass rate | Score | Δ pass rate | Δ score | Change | Source |\n|---|---|---:|---:|---:|---:|---:|---|---|\n"
}

// taskRow is one task's row of that table (smp.task is the whole task).
func taskRow(in *Input, st *suiteState, smp taskSample, withSuite bool) string {
	t := smp.task
	dp, ds, flip := "—", "—", changeLabel(st.s.verdictOf(smp).change)
	if d := st.s.deltas()[smp.key]; d != nil {
		flip = changeCell(d)
		if d.ScoreDelta != nil {
			dp, ds = signedPoints(*d.PassRateDelta), signed(*d.ScoreDelta)
		}
	}
	var passRate, score *float64
	if smp.ok {
		passRate, score = &smp.passRate, &smp.score
	}
	trials := fmt.Sprintf("%d/%d", smp.passed, smp.trials)
	if smp.skipped {
		trials = "—"
	}
	if withSuite {
		return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			mdCell(st.name, 60), mdCell(taskName(t), 80), statusCell(t.Status), trials, pctCell(passRate), num2(score), dp, ds, flip)
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
		mdCell(taskName(t), 80), statusCell(t.Status), trials, pctCell(passRate), num2(score), dp, ds, flip, location(in, t.Source))
}

func statusCell(s results.Status) string {
	switch s {
	case results.StatusPassed:
		return "✅ passed"
	case results.StatusFailed:
		return "❌ failed"
	case results.StatusError:
		return "💥 error"
	case results.StatusSkipped:
		return "⏭️ skipped"
	case "":
		return "—"
	}
	return mdCell(string(s), 20)
}

// footer names the baseline's provenance and how the comparison was made.
func footer(in *Input, states []*suiteState) string {
	var lines []string
	seen := map[string]bool{}
	for _, st := range states {
		line := provenanceLine(in.baselineSource(st.s), st.s)
		if line == "" || seen[line] {
			continue
		}
		seen[line] = true
		lines = append(lines, line)
	}
	if len(lines) > 3 {
		lines = append(lines[:3], fmt.Sprintf("and %d more baselines", len(lines)-3))
	}
	var method string
	for _, st := range states {
		if c := st.s.Comparison; c != nil && !c.NoBaseline {
			method = fmt.Sprintf("Regressions need the whole %s interval of the mean change below −%.2f (a paired bootstrap over tasks, %s resamples; over trials below %d tasks), or a task confirmed worse beyond trial noise (Fisher's exact test on the pooled base and the head with its confirmation trials, %s false alarms per pull request at most).",
				pctWord(c.Settings.Confidence), c.Settings.MinEffect, thousands(c.Settings.Resamples), c.Settings.MinTasks, pctWord(c.Settings.Alpha))
			break
		}
	}
	var b strings.Builder
	b.WriteString("\n---\n<sub>")
	b.WriteString(strings.Join(lines, " · "))
	if method != "" {
		if len(lines) > 0 {
			b.WriteString(" · ")
		}
		b.WriteString(method)
	}
	if v := in.toolVersion(); v != "" {
		fmt.Fprintf(&b, " · skillgate %s", mdCell(v, 40))
	}
	b.WriteString("</sub>\n")
	return b.String()
}

func provenanceLine(src *results.BaselineSource, s *Suite) string {
	hasBaseline := s.Comparison != nil && !s.Comparison.NoBaseline
	if src == nil || src.Method == "" || src.Method == "none" {
		if hasBaseline {
			line := "Baseline: a results file of unknown origin"
			if n := len(s.Comparison.Base.Pooled); n > 0 {
				line += ", pooled with " + plural(n, "earlier base run") + " where a task's inputs did not change"
			}
			return line
		}
		if src != nil && src.Detail != "" {
			return "No baseline (" + mdCell(src.Detail, 200) + ")"
		}
		return "No baseline"
	}
	var parts []string
	if src.Commit != "" {
		parts = append(parts, "commit "+mdCode(shortCommit(src.Commit), 20))
	}
	how := map[string]string{"artifact": "from the base branch's artifact", "file": "from a results file", "rerun": "re-run on the base commit"}[src.Method]
	if how == "" {
		how = "obtained by " + mdCell(src.Method, 30)
	}
	parts = append(parts, how)
	if !src.CreatedAt.IsZero() && s.Result != nil && !s.Result.Timestamp.IsZero() {
		parts = append(parts, age(s.Result.Timestamp.Sub(src.CreatedAt))+" before this run")
	}
	if src.Detail != "" {
		parts = append(parts, mdCell(src.Detail, 200))
	}
	if hasBaseline && len(s.Comparison.Base.Pooled) > 0 {
		parts = append(parts, "pooled with "+plural(len(s.Comparison.Base.Pooled), "earlier base run")+" where a task's inputs did not change")
	}
	if !hasBaseline {
		return "No baseline results (" + strings.Join(parts, ", ") + ")"
	}
	return "Baseline: " + strings.Join(parts, ", ")
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}

// age renders a duration the way people say it.
func age(d time.Duration) string {
	if d < 0 {
		return "0 minutes"
	}
	switch {
	case d < time.Hour:
		return plural(int(d.Minutes()), "minute")
	case d < 48*time.Hour:
		return plural(int(d.Hours()), "hour")
	}
	return plural(int(d.Hours()/24), "day")
}

// upliftItems reports the with-skill versus without-skill comparison of uplift runs.
func upliftItems(states []*suiteState) []string {
	var items []string
	for _, st := range states {
		c := st.s.Uplift
		if c == nil {
			continue
		}
		icon := map[Verdict]string{VerdictRegressed: "🔻", VerdictImproved: "🔺"}[c.Verdict]
		if icon == "" {
			icon = "➖"
		}
		items = append(items, fmt.Sprintf("- %s **%s**: score %s vs %s without the skill; %s\n",
			icon, mdCell(st.name, 80), num2(c.Head.AggregateScore), num2(c.Base.AggregateScore), mdCell(c.Message, 300)))
	}
	return items
}

func unaffectedItems(in *Input) []string {
	var items []string
	for _, u := range in.Unaffected {
		reason := u.Reason
		if reason == "" {
			reason = "not affected by this change"
		}
		items = append(items, fmt.Sprintf("- %s: %s\n", mdCell(u.Name, 80), mdCell(reason, 200)))
	}
	return items
}

// commentListCap keeps the comment's lists short enough to read; the job summary has them all.
const commentListCap = 25

func capList(items []string, n int) []string {
	if len(items) <= n {
		return items
	}
	return append(items[:n:n], fmt.Sprintf("- … and %s more in the job summary\n", thousands(len(items)-n)))
}

// Comment renders the sticky PR comment: the verdict first, a compact table per suite,
// regressions and failures next, everything else folded; the baseline's provenance in the
// footer and the hidden marker for upserting. It always stays under CommentLimit, shedding the
// least important sections first and saying so.
func Comment(in *Input) string {
	sts := states(in)
	c := newCommentReport(in, sts)
	visitTasks(sts, c)
	return c.text
}

// commentReport makes the comment in a pass over the tasks: the lists that name tasks are
// gathered as far as the comment could show them, the rest is laid out at the end.
type commentReport struct {
	in       *Input
	sts      []*suiteState
	failures *rankedItems
	rows     itemList
	evidence *evidenceItems
	w        io.Writer // where finish writes the comment; nil keeps it in text
	text     string
}

func newCommentReport(in *Input, sts []*suiteState) *commentReport {
	return &commentReport{in: in, sts: sts, failures: newRankedItems(failureRanks, commentListCap, CommentLimit),
		rows: itemList{room: CommentLimit}, evidence: newCommentEvidence(sts)}
}

func (c *commentReport) suiteStart(st *suiteState) {
	addFailures(c.failures, failureRankSuite, suiteFailures(c.in, st))
}

func (c *commentReport) task(st *suiteState, smp taskSample) {
	if rank, render, ok := taskFailure(c.in, st, smp, 200); ok {
		c.failures.add(rank, render)
	}
	c.rows.add(taskRow(c.in, st, smp, true))
	c.evidence.task(st, smp)
}

func (c *commentReport) suiteEnd(st *suiteState) {
	addFailures(c.failures, failureRankTrigger, triggerFailures(c.in, st))
}

func (c *commentReport) finish() error {
	in, sts := c.in, c.sts
	tableHead, tableRows := suiteTable(sts)
	regressions := capList(regressionItems(in, sts), commentListCap)
	failures := c.failures.capped(commentListCap, "the job summary")
	uplift := upliftItems(sts)
	unaffected := unaffectedItems(in)

	changes := capList(changeItems(in, sts), commentListCap)
	metricHead, metricRows := metricRows(sts, len(sts) > 1)
	sections := []*mdSection{
		{always: true, head: Marker(in.Key) + "\n" + noAgentNote(in) + "### " + verdict(in, sts) + "\n\n"},
		{priority: 1, head: tableHead, items: tableRows, tail: "\n" + tableKey(sts), what: "suite rows"},
		{priority: 2, head: "#### What changed\n\n", items: changes, tail: "\n", what: "changed tasks", moreNote: "- … and %d more\n"},
		{priority: 3, head: "#### Gated metrics against the baseline\n\n" + metricHead, items: metricRows, tail: "\n", what: "metric rows"},
		{priority: 2, head: "#### Regressions\n\n", items: regressions, tail: "\n", what: "regressions", moreNote: "- … and %d more\n"},
		{priority: 3, head: "#### Failures\n\n", items: failures, tail: "\n", what: "failures", moreNote: "- … and %d more\n"},
		commentChartSection(sts),
		c.evidence.commentSection(),
		{priority: 4, head: "#### Skill uplift\n\n", items: uplift, tail: "\n", what: "uplift lines"},
		c.rows.fill(&mdSection{priority: 6, head: fmt.Sprintf("<details><summary>All tasks (%s)</summary>\n\n", thousands(c.rows.count)) + taskRowsHead(true), tail: "\n</details>\n\n", what: "task rows"}),
		{priority: 5, head: fmt.Sprintf("<details><summary>Suites not run: unaffected by this change (%d)</summary>\n\n", len(unaffected)), items: unaffected, tail: "\n</details>\n\n", what: "unaffected suites"},
	}
	if spend := spendSection(sts, 5); spend != nil {
		sections = append(sections, spend)
	}
	sections = append(sections, &mdSection{always: true, head: footer(in, sts)})
	c.text = layoutMarkdown(sections, CommentLimit, 0, "PR comment")
	if c.w != nil {
		_, err := io.WriteString(c.w, c.text)
		return err
	}
	return nil
}

// Summary renders the job summary: the same headline and table, then per suite the full
// comparison, thresholds, every task, new and removed tasks, failures with feedback and the
// trigger tests. It stays under SummaryLimit (1 MiB) the same way Comment stays under its limit.
func Summary(in *Input) string {
	sts := states(in)
	r := newSummaryReport(in, sts)
	visitTasks(sts, r)
	return r.text
}

// summaryReport makes the job summary in a pass over the tasks, gathering each suite's lists as
// far as the summary could show them.
type summaryReport struct {
	in     *Input
	sts    []*suiteState
	suites map[*suiteState]*summarySuite
	cur    *summarySuite
	w      io.Writer // where finish writes the summary; nil keeps it in text
	text   string
}

// summarySuite is what the pass gathers of one suite for the job summary.
type summarySuite struct {
	failures *rankedItems
	rows     itemList
	evidence *evidenceItems
	pending  itemList
	facts    taskFacts
}

func newSummaryReport(in *Input, sts []*suiteState) *summaryReport {
	return &summaryReport{in: in, sts: sts, suites: map[*suiteState]*summarySuite{}}
}

func (r *summaryReport) suiteStart(st *suiteState) {
	r.cur = &summarySuite{failures: newRankedItems(failureRanks, 0, SummaryLimit), rows: itemList{room: SummaryLimit},
		evidence: newSummaryEvidence(st), pending: itemList{room: SummaryLimit}}
	r.suites[st] = r.cur
	addFailures(r.cur.failures, failureRankSuite, suiteFailures(r.in, st))
}

func (r *summaryReport) task(st *suiteState, smp taskSample) {
	sum := r.cur
	if rank, render, ok := taskFailure(r.in, st, smp, 1000); ok {
		sum.failures.add(rank, render)
	}
	sum.rows.add(taskRow(r.in, st, smp, false))
	sum.evidence.task(st, smp)
	for _, item := range pendingItems(smp.task) {
		sum.pending.add(item)
	}
	sum.facts.add(smp.task)
}

func (r *summaryReport) suiteEnd(st *suiteState) {
	addFailures(r.cur.failures, failureRankTrigger, triggerFailures(r.in, st))
	st.s.keepFacts(&r.cur.facts)
}

func (r *summaryReport) finish() error {
	in, sts := r.in, r.sts
	tableHead, tableRows := suiteTable(sts)
	metricHead, metricRows := metricRows(sts, len(sts) > 1)
	sections := []*mdSection{
		{always: true, head: "## skillgate results\n\n" + noAgentNote(in) + verdict(in, sts) + "\n\n"},
		{priority: 1, head: tableHead, items: tableRows, tail: "\n" + tableKey(sts), what: "suite rows"},
		{priority: 2, head: "### What changed\n\n", items: changeItems(in, sts), tail: "\n", what: "changed tasks", moreNote: "- … and %d more\n"},
		{priority: 3, head: "### Gated metrics against the baseline\n\n" + metricHead, items: metricRows, tail: "\n", what: "metric rows"},
	}
	if spend := spendSection(sts, 3); spend != nil {
		sections = append(sections, spend)
	}
	prio := 10
	for _, st := range sts {
		sum := r.suites[st]
		if sum == nil { // the pass stopped before this suite
			sum = &summarySuite{failures: newRankedItems(failureRanks, 0, SummaryLimit), evidence: newSummaryEvidence(st)}
		}
		sections = append(sections, suiteSections(in, st, sum, &prio)...)
	}
	if unaffected := unaffectedItems(in); len(unaffected) > 0 {
		sections = append(sections, &mdSection{priority: 5, head: "### Suites not run (unaffected by this change)\n\n", items: unaffected, tail: "\n", what: "unaffected suites"})
	}
	sections = append(sections, &mdSection{always: true, head: footer(in, sts)})
	r.text = layoutMarkdown(sections, SummaryLimit, 0, "job summary")
	if r.w != nil {
		_, err := io.WriteString(r.w, r.text)
		return err
	}
	return nil
}

// suiteSections are one suite's part of the job summary, from what the pass gathered of it.
func suiteSections(in *Input, st *suiteState, sum *summarySuite, prio *int) []*mdSection {
	r := st.s.Result
	var out []*mdSection
	var facts []string
	facts = append(facts, fmt.Sprintf("executor %s", mdCode(orDash(executorOf(r)), 40)))
	if m := modelOf(r); m != "" {
		facts = append(facts, "model "+mdCode(m, 60))
	}
	facts = append(facts, fmt.Sprintf("%s per task", plural(r.Config.RunsPerTest, "trial")))
	facts = append(facts, fmt.Sprintf("%.1fs", seconds(r.Summary.DurationMS)))
	if r.Provenance != nil && r.Provenance.GitCommit != "" {
		facts = append(facts, "commit "+mdCode(shortCommit(r.Provenance.GitCommit), 20))
	}
	if human, deferred := sum.facts.pendingHuman, sum.facts.deferred; human > 0 || deferred > 0 {
		if human > 0 {
			facts = append(facts, fmt.Sprintf("%s awaiting a human label", plural(human, "grade")))
		}
		if deferred > 0 {
			facts = append(facts, fmt.Sprintf("%s deferred to the report workflow", plural(deferred, "grade")))
		}
	}
	head := fmt.Sprintf("### %s — %s\n\n%s\n\n", mdCell(st.name, 100), st.resultCell(), strings.Join(facts, " · "))
	for _, reason := range st.gate.Reasons {
		head += fmt.Sprintf("- ❌ %s\n", mdCell(reason, 300))
	}
	if len(st.gate.Reasons) > 0 {
		head += "\n"
	}
	out = append(out, &mdSection{always: true, head: head})

	for _, c := range st.s.comparisons() {
		title := "Against the baseline"
		if c.Mode == ModeUplift {
			title = "With the skill against without it"
		}
		h := fmt.Sprintf("#### %s\n\n%s\n\n", title, mdCell(c.Message, 500))
		var rows []string
		if !c.NoBaseline {
			h += "| Metric | " + mdCell(c.Base.Label, 30) + " | " + mdCell(c.Head.Label, 30) + " | Δ | " + ciName(c.Settings.Confidence) + " | Test | Verdict |\n|---|---:|---:|---:|---|---|---|\n"
			for _, m := range c.Metrics {
				rows = append(rows, metricRow(m))
			}
		}
		tail := "\n"
		if len(c.NewTasks) > 0 {
			tail += fmt.Sprintf("New tasks (not compared): %s\n\n", refList(c.NewTasks, 50))
		}
		if len(c.RemovedTasks) > 0 {
			tail += fmt.Sprintf("Removed tasks (only in the %s): %s\n\n", mdCell(c.Base.Label, 30), refList(c.RemovedTasks, 50))
		}
		if len(c.Base.Pooled) > 0 {
			tail += fmt.Sprintf("Base trials pooled from %s of the suite with unchanged inputs (docs/statistics.md#remembering-the-base).\n\n", plural(len(c.Base.Pooled), "earlier base run"))
		}
		*prio++
		out = append(out, &mdSection{priority: 2, always: true, head: h, items: rows, tail: tail})
	}
	if len(r.Metrics) > 0 {
		h := "#### Thresholds\n\n| Metric | Value | Threshold | Baseline | Δ | Result |\n|---|---:|---:|---:|---:|---|\n"
		var rows []string
		for _, f := range floors(st.s.Baseline, r) {
			rows = append(rows, fmt.Sprintf("| %s | %.4g | %.4g | %s | %s | %s |\n", mdCell(f.Name, 60), f.Value, f.Threshold, num4(f.Base), numCell("%+.4g", f.Delta), passMark(f.Passed)))
		}
		out = append(out, &mdSection{priority: 3, head: h, items: rows, tail: "\n", what: "threshold rows"})
	}
	if failures := sum.failures.merged(); failures.count > 0 {
		out = append(out, failures.fill(&mdSection{priority: 4, head: "#### Failures\n\n", tail: "\n", what: "failures", moreNote: "- … and %d more\n"}))
	}
	out = append(out, summaryChartSection(st), sum.evidence.summarySection())
	if sec := reviewSectionOf(r, &sum.pending); sec != nil {
		out = append(out, sec)
	}
	out = append(out, creatorSections(st.s)...)
	*prio++
	out = append(out, sum.rows.fill(&mdSection{priority: 20 + *prio, head: fmt.Sprintf("#### Tasks (%s)\n\n", thousands(sum.rows.count)) + taskRowsHead(false), tail: "\n", what: "task rows"}))
	if trs := sampleTriggers(r.TriggerResults); len(trs) > 0 {
		h := "#### Trigger tests"
		if tm := r.TriggerMetrics; tm != nil {
			h += fmt.Sprintf(" — accuracy %.1f%%, precision %.1f%%, recall %.1f%%, F1 %.2f", clean(tm.Accuracy)*100, clean(tm.Precision)*100, clean(tm.Recall)*100, clean(tm.F1))
		}
		h += "\n\n| Prompt | Expected | Triggered | Correct | Source |\n|---|---|---:|---:|---|\n"
		var rows []string
		for _, t := range trs {
			rows = append(rows, fmt.Sprintf("| %s %s | %s | %d/%d | %d/%d | %s |\n",
				mdCode(t.id, 40), mdCell(t.prompt, 120), t.expectation(), t.triggered, t.trials, t.correct, t.trials, location(in, t.source)))
		}
		*prio++
		out = append(out, &mdSection{priority: 20 + *prio, head: h, items: rows, tail: "\n", what: "trigger rows"})
	}
	return out
}

func metricRow(m *MetricComparison) string {
	label := map[string]string{MetricScore: "Mean score", MetricPassRate: "Pass rate", MetricTasks: "Tasks confirmed worse"}[m.Name]
	if label == "" {
		label = m.Name
	}
	base, head, delta, ci := "—", "—", "—", "—"
	if m.Name == MetricTasks {
		head = fmt.Sprintf("%d worse, %d better", m.Dropped, m.Gained)
		delta = fmt.Sprintf("%d tested", m.Tasks)
	} else if m.Delta != nil {
		if m.Name == MetricPassRate {
			base, head, delta = pctCell(m.Base), pctCell(m.Head), signedPoints(*m.Delta)
			if m.Interval != nil {
				ci = signedPoints(m.Interval.Lower) + " to " + signedPoints(m.Interval.Upper)
			}
		} else {
			base, head, delta = num2(m.Base), num2(m.Head), signed(*m.Delta)
			if m.Interval != nil {
				ci = signed(m.Interval.Lower) + " to " + signed(m.Interval.Upper)
			}
		}
	}
	test := "paired bootstrap"
	if m.IntervalMethod == IntervalTrials {
		test = "interval over trials"
	}
	if m.PValue != nil {
		test = fmt.Sprintf("sign test p = %.3g", *m.PValue)
	}
	if m.Name == MetricTasks {
		test = "Fisher, Tarone–Bonferroni"
	}
	v := string(m.Verdict)
	switch {
	case m.Verdict == VerdictRegressed:
		v = "🔻 regressed"
	case m.Verdict == VerdictImproved:
		v = "🔺 improved"
	case m.NoRegression:
		v = "✅ no regression"
	case m.Tasks > 0:
		v = "⚠️ inconclusive"
	}
	if m.TrialsToSettle > 0 {
		v += fmt.Sprintf(" (~%d trials/task would settle it)", m.TrialsToSettle)
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s |\n", label, base, head, delta, ci, test, v)
}

func refList(refs []TaskRef, limit int) string {
	var parts []string
	for i, r := range refs {
		if i == limit {
			parts = append(parts, fmt.Sprintf("and %d more", len(refs)-limit))
			break
		}
		parts = append(parts, mdCode(r.ID, 80))
	}
	return strings.Join(parts, ", ")
}

func num4(p *float64) string { return numCell("%.4g", p) }

// passMark is the result cell of a threshold or check.
func passMark(passed bool) string {
	if passed {
		return "✅"
	}
	return "❌"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
