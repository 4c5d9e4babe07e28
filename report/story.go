package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// outcome is what one suite's run changed against its baseline: the facts every headline is
// made of (docs/statistics.md#what-changed-one-word-per-task). Without a baseline every failure is new.
type outcome struct {
	name     string
	compared bool // a baseline with tasks
	ran      int  // tasks that ran here
	ch       Changes
	c        *Comparison

	regressed, improved, unsettled bool
	why                            string // the regression, improvement or likely drop, short

	introduced int      // failures this run brings (Changes.Introduced, or every failure without a baseline)
	missed     []string // thresholds missed here that the baseline met, confirmed (every miss without a baseline)
	noiseMiss  []string // thresholds missed here that the baseline met, within the noise
	incomplete bool
	skillHurts bool
	hurtsWhy   string
	noAgent    bool // the mock executor ran: the suites were checked, no agent ran
}

// blocking: the outcome fails the default fail-on (pipeline.DefaultFailOn), which blocks on what
// this run brings, not on what its baseline already had.
func (o outcome) blocking() bool {
	return o.regressed || o.introduced > 0 || len(o.missed) > 0 || o.incomplete
}

// outcomeOf derives a suite's outcome from its comparison (nil without a baseline) and, when
// known, its results (the gate's figures and an interrupted run).
func outcomeOf(name string, c *Comparison, r *results.SuiteResult, uplift *Comparison) outcome {
	o := outcome{name: name, c: c}
	switch {
	case r != nil:
		o.ran = r.Summary.Ran()
		o.incomplete = r.Incomplete
		o.noAgent = executorOf(r) == "mock"
	case c != nil:
		o.incomplete = c.Head.Incomplete
		o.noAgent = c.Head.Executor == "mock"
	}
	if uplift.Regressed() {
		o.skillHurts, o.hurtsWhy = true, shortWhy(uplift)
	}
	var fl []Floor
	switch {
	case c != nil:
		fl = c.Floors
	case r != nil:
		fl = floors(nil, r)
	}
	if c == nil || c.NoBaseline {
		if r != nil {
			gate := r.Gate
			if gate == nil {
				gate = results.ComputeGate(r)
			}
			if !gate.Passed {
				o.introduced = r.Summary.Failed + r.Summary.Errors
			}
		} else if c != nil {
			o.introduced = c.Changes.AddedFailing
			o.ran = c.Head.Tasks
		}
		for _, f := range fl {
			if !f.Passed {
				o.missed = append(o.missed, f.Name)
			}
		}
		return o
	}
	o.compared = true
	o.ch = c.Changes
	if r == nil {
		o.ran = c.Head.Tasks
	}
	o.introduced = c.Changes.Introduced()
	for _, f := range fl {
		switch {
		case f.Passed || (f.BasePassed != nil && !*f.BasePassed):
		case f.Noise:
			o.noiseMiss = append(o.noiseMiss, f.Name)
		default:
			o.missed = append(o.missed, f.Name)
		}
	}
	switch {
	case intervalRegressed(c):
		// A regression of the suite's mean; one made of tasks confirmed worse is told by their
		// words (new failures, worse).
		o.regressed, o.why = true, shortLoss(c)
	case c.Verdict == VerdictImproved:
		o.improved, o.why = true, shortGain(c)
	case c.Unsettled():
		o.unsettled = true
		for _, name := range []string{MetricPassRate, MetricScore} {
			if m := c.Metric(name); m != nil && m.LikelyDrop {
				o.why = metricChange(m)
				if m.TrialsToSettle > 0 {
					o.why += fmt.Sprintf("; about %d trials per task would settle it", m.TrialsToSettle)
				}
				break
			}
		}
	}
	return o
}

// Introduced returns what the suite's run brings that its baseline did not have: failing tasks
// (new failures, tasks confirmed worse, added tasks failing clearly, tasks failing clearly under
// a changed yardstick; every failing task without a baseline) and missed metric thresholds the
// baseline met, where the evidence confirms the drop. The gate's new_failures and
// new_missed_thresholds.
func (s *Suite) Introduced() (failures, missedThresholds int) {
	o := outcomeOf(suiteName(s.Result), s.Comparison, s.Result, s.Uplift)
	return o.introduced, len(o.missed)
}

// metricChange is "pass rate −55.0 pp (99% CI −70.0 pp to −40.0 pp)".
func metricChange(m *MetricComparison) string {
	if m.Delta == nil {
		return ""
	}
	label, delta, ci := "mean score", signed(*m.Delta), ""
	if m.Name == MetricPassRate {
		label, delta = "pass rate", signedPoints(*m.Delta)
	}
	if iv := m.Interval; iv != nil {
		if m.Name == MetricPassRate {
			ci = fmt.Sprintf(" (%s %s to %s)", ciName(m.confidence), signedPoints(iv.Lower), signedPoints(iv.Upper))
		} else {
			ci = fmt.Sprintf(" (%s %s to %s)", ciName(m.confidence), signed(iv.Lower), signed(iv.Upper))
		}
	}
	return label + " " + delta + ci
}

// ciName is "99% CI" for an interval at that confidence.
func ciName(confidence float64) string {
	if confidence <= 0 {
		confidence = DefaultConfidence
	}
	return pctWord(confidence) + " CI"
}

// intervalRegressed: the suite's mean score or pass rate regressed (its interval lies below
// −min_effect), as opposed to tasks confirmed worse on their own.
func intervalRegressed(c *Comparison) bool {
	for _, name := range []string{MetricPassRate, MetricScore} {
		if m := c.Metric(name); m != nil && m.Verdict == VerdictRegressed {
			return true
		}
	}
	return false
}

// shortLoss is the change of the first regressed metric, the pass rate first (it reads as
// trials: "−55 pp").
func shortLoss(c *Comparison) string {
	for _, name := range []string{MetricPassRate, MetricScore, MetricTasks} {
		m := c.Metric(name)
		if m == nil {
			continue
		}
		if m.Verdict != VerdictRegressed {
			continue
		}
		if m.Name == MetricTasks {
			return plural(m.Dropped, "task") + " confirmed worse beyond trial noise"
		}
		return metricChange(m)
	}
	return "regressed"
}

func shortGain(c *Comparison) string {
	for _, m := range c.Metrics {
		if m.Verdict != VerdictImproved {
			continue
		}
		if m.Name == MetricTasks {
			return plural(m.Gained, "task") + " better beyond trial noise"
		}
		return metricChange(m)
	}
	return "improved"
}

// headline is the one line a reviewer reads first: what this change did, the most serious
// fact first and in bold. icon is ❌ when the default fail-on blocks, ⚠️ when something needs a
// look (a likely or unconfirmed drop, a changed task or grader definition, a removed failing
// task, a threshold missed within the noise), else ✅. It says "No change" only when the
// estimates show none; a drop the trials cannot rule out is named.
func headline(outs []outcome) (icon, text string) {
	var regressions, improvements, blockers, notes []string
	var ch Changes
	compared, ran := 0, 0
	warn, blocking := false, false
	for _, o := range outs {
		ran += o.ran
		blocking = blocking || o.blocking()
		name := mdCell(o.name, 60)
		if o.compared {
			compared++
			addChanges(&ch, o.ch)
		} else if o.introduced > 0 {
			blockers = append(blockers, fmt.Sprintf("%s in %s (no baseline)", plural(o.introduced, "failing task"), name))
		}
		if o.regressed {
			regressions = append(regressions, fmt.Sprintf("%s, %s", name, o.why))
		}
		for _, m := range o.missed {
			blockers = append(blockers, fmt.Sprintf("%s below its threshold in %s", mdCode(m, 40), name))
		}
		for _, m := range o.noiseMiss {
			warn = true
			notes = append(notes, fmt.Sprintf("%s below its threshold in %s within the noise (no task it counts confirmed worse)", mdCode(m, 40), name))
		}
		if o.incomplete {
			blockers = append(blockers, "Incomplete run: "+name+" did not finish")
		}
		if o.skillHurts {
			blocking = true
			blockers = append(blockers, fmt.Sprintf("Skill hurts: %s does worse with the skill than without it (%s)", name, o.hurtsWhy))
		}
		if o.unsettled {
			warn = true
			notes = append(notes, fmt.Sprintf("Drop likely, not shown: %s, %s", name, o.why))
		}
		if o.improved {
			improvements = append(improvements, fmt.Sprintf("%s, %s", name, o.why))
			if len(outs) == 1 {
				improvements[len(improvements)-1] = o.why
			}
		}
	}
	// What changed task by task over the compared suites, newest trouble first.
	var changes, context []string
	if ch.NewFailures > 0 {
		changes = append(changes, plural(ch.NewFailures, "new failure"))
	}
	if ch.Worse > 0 {
		changes = append(changes, plural(ch.Worse, "failing task")+" confirmed worse")
	}
	if ch.AddedFailing > 0 {
		changes = append(changes, plural(ch.AddedFailing, "added task")+" failing clearly")
	}
	if ch.YardstickFailing > 0 {
		changes = append(changes, plural(ch.YardstickFailing, "task")+" failing clearly under its changed definition")
	}
	if ch.PromptsWorse > 0 {
		changes = append(changes, plural(ch.PromptsWorse, "trigger prompt")+" confirmed worse")
	}
	if ch.Fixed > 0 {
		changes = append(changes, thousands(ch.Fixed)+" fixed")
	}
	if ch.Better > 0 {
		changes = append(changes, thousands(ch.Better)+" better")
	}
	if ch.StillFailing > 0 {
		context = append(context, thousands(ch.StillFailing)+" still failing as on the baseline")
	}
	if ch.Flaky > 0 {
		context = append(context, plural(ch.Flaky, "task")+" flipped within trial noise")
	}
	if n := ch.Unconfirmed + ch.PromptsUnconfirmed; n > 0 {
		warn = true
		what := plural(ch.Unconfirmed, "task")
		if ch.PromptsUnconfirmed > 0 {
			what = plural(n, "task or trigger prompt")
		}
		verb := "look"
		if n == 1 {
			verb = "looks"
		}
		notes = append(notes, fmt.Sprintf("%s %s worse, not confirmed (no confirmation runs, or their budget ran out)", what, verb))
	}
	if ch.YardstickChanged > 0 {
		warn = true
		what := "Task or grader definitions"
		if ch.GradersChanged == ch.YardstickChanged {
			what = "Grader definitions"
		}
		notes = append([]string{fmt.Sprintf("%s changed for %s: their deltas are not a skill regression", what, plural(ch.YardstickChanged, "task"))}, notes...)
	}
	if ch.Removed > 0 {
		note := plural(ch.Removed, "task") + " removed"
		switch {
		case ch.RemovedFailing == ch.Removed:
			warn = true
			note += " that failed on the baseline"
		case ch.RemovedFailing > 0:
			warn = true
			note += " (" + thousands(ch.RemovedFailing) + " failed on the baseline)"
		}
		notes = append(notes, note)
	}
	if ch.NotInBaseline > 0 {
		notes = append(notes, plural(ch.NotInBaseline, "task")+" not compared: the baseline's run was interrupted before them")
	}
	if n := ch.AddedUnconfirmed; n > 0 {
		warn = true
		notes = append(notes, plural(n, "added task")+" failing every trial, not confirmed")
	}
	if n := ch.Added - ch.AddedFailing - ch.AddedUnconfirmed; n > 0 {
		notes = append(notes, plural(n, "added task")+" not failing clearly")
	}
	changed := strings.Join(changes, ", ")
	if len(context) > 0 {
		if changed == "" {
			// Only context: it follows what blocks, it never leads.
			blockers = append(blockers, strings.Join(context, ", "))
		} else {
			changed += " (" + strings.Join(context, ", ") + ")"
		}
	}
	switch {
	case blocking:
		icon = "❌"
	case warn:
		icon = "⚠️"
	default:
		icon = "✅"
	}
	var clauses []string
	switch {
	case len(regressions) > 0 || blocking || len(changes) > 0 || len(improvements) > 0:
		if len(regressions) == 1 && len(outs) == 1 {
			clauses = append(clauses, "Regressed: "+outs[0].why)
		} else if len(regressions) > 0 {
			clauses = append(clauses, "Regressed: "+strings.Join(regressions, ", "))
		}
		if len(improvements) > 0 && !blocking {
			clauses = append(clauses, "Improved: "+strings.Join(improvements, ", "))
			improvements = nil
		}
		if changed != "" {
			clauses = append(clauses, changed)
		}
		if len(improvements) > 0 {
			notes = append(notes, "Improved: "+strings.Join(improvements, ", "))
		}
		clauses = append(append(clauses, blockers...), notes...)
	case len(notes) > 0 && warn:
		// Something needs a look (a likely or unconfirmed drop, a changed definition…): it leads.
		clauses = append(notes, strings.Join(context, ", "))
	case compared == 0:
		return icon, fmt.Sprintf("**All %s in %s passed;** there was no baseline to compare with.", plural(ran, "task"), plural(len(outs), "suite"))
	default:
		lead := quietLead(outs, ch, compared)
		if len(context) > 0 && !strings.HasPrefix(lead, "No change") {
			lead += "; " + strings.Join(context, ", ")
		}
		clauses = append([]string{lead}, notes...)
	}
	var kept []string
	for _, c := range clauses {
		if c != "" {
			kept = append(kept, c)
		}
	}
	return icon, boldFirst(kept)
}

// quietLead is the first clause when nothing blocks or changed for the better: "No change" only
// when every compared task is as on the baseline or the intervals rule out a drop beyond the
// minimum effect; otherwise the drop the trials cannot rule out is named, with its interval.
func quietLead(outs []outcome, ch Changes, compared int) string {
	identical, ruledOut := true, true
	var loose *MetricComparison
	for _, o := range outs {
		if !o.compared || o.c == nil {
			continue
		}
		identical = identical && o.c.identical()
		for _, name := range []string{MetricPassRate, MetricScore} {
			m := o.c.Metric(name)
			if m == nil || m.Tasks == 0 || m.NoRegression {
				continue
			}
			ruledOut = false
			if loose == nil || (m.Delta != nil && loose.Delta != nil && *m.Delta < *loose.Delta && m.Name == loose.Name) {
				loose = m
			}
		}
	}
	tasks := ch.StillPassing + ch.StillFailing + ch.Flaky
	var lead string
	switch {
	case identical && ch.StillFailing > 0:
		lead = fmt.Sprintf("No change: %s as on the baseline, %s of them failing on both", plural(tasks, "task"), thousands(ch.StillFailing))
	case identical:
		lead = fmt.Sprintf("No change: %s as on the baseline, all passing", plural(tasks, "task"))
	case ruledOut:
		lead = fmt.Sprintf("No regression: %s compared, a drop beyond the minimum effect is ruled out", plural(tasks, "task"))
	case loose != nil:
		lead = "No confirmed regression: " + metricChange(loose) + ", within the noise of these trials"
	default:
		lead = "No confirmed regression"
	}
	if compared < len(outs) {
		lead += fmt.Sprintf("; %s of %s had no baseline", thousands(len(outs)-compared), plural(len(outs), "suite"))
	}
	return lead
}

// boldFirst joins clauses into a sentence with the first (up to its colon) in bold.
func boldFirst(clauses []string) string {
	first := clauses[0]
	if lead, rest, ok := strings.Cut(first, ": "); ok {
		first = "**" + lead + ":** " + rest
	} else if lead, rest, ok := strings.Cut(first, " ("); ok {
		first = "**" + lead + "** (" + rest
	} else {
		first = "**" + first + "**"
	}
	if len(clauses) > 4 {
		clauses = append(clauses[:4:4], fmt.Sprintf("and %d more", len(clauses)-4))
	}
	return strings.Join(append([]string{first}, clauses[1:]...), "; ") + "."
}

func addChanges(a *Changes, b Changes) {
	a.NewFailures += b.NewFailures
	a.Worse += b.Worse
	a.Unconfirmed += b.Unconfirmed
	a.Better += b.Better
	a.PromptsWorse += b.PromptsWorse
	a.PromptsUnconfirmed += b.PromptsUnconfirmed
	a.NotInBaseline += b.NotInBaseline
	a.AddedUnconfirmed += b.AddedUnconfirmed
	a.Fixed += b.Fixed
	a.Flaky += b.Flaky
	a.StillFailing += b.StillFailing
	a.StillPassing += b.StillPassing
	a.Added += b.Added
	a.Removed += b.Removed
	a.YardstickChanged += b.YardstickChanged
	a.GradersChanged += b.GradersChanged
	a.NotCompared += b.NotCompared
	a.AddedFailing += b.AddedFailing
	a.RemovedFailing += b.RemovedFailing
	a.YardstickFailing += b.YardstickFailing
}

// Headline is the comparison's one-line story, as the PR comment of the same run says it.
func (c *Comparison) Headline() string {
	icon, text := headline([]outcome{outcomeOf(c.Suite, c, nil, nil)})
	return icon + " " + text
}

// changeRank orders the "What changed" list: newest trouble first.
var changeRank = map[string]int{
	ChangeNewFailure: 0, ChangeWorse: 0, ChangeAddedFailing: 1, ChangeYardstick: 2, ChangeUnconfirmed: 3,
	ChangeRemoved: 3, ChangeFixed: 4, ChangeBetter: 4, ChangeFlaky: 5, ChangeAdded: 6,
}

// changeItems lists the tasks and trigger prompts whose status this change moved, newest
// trouble first, each with its word and why. Units still passing or still failing are only
// counted (in the headline).
func changeItems(in *Input, states []*suiteState) []string {
	var items []changeItem
	for _, st := range states {
		items = append(items, unitItems(in, st.name, st.s.Comparison)...)
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].rank < items[j].rank })
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.text
	}
	return out
}

// changeItem is one line of the "What changed" list with its rank.
type changeItem struct {
	rank int
	text string
}

// unitItems are one comparison's lines of the "What changed" list.
func unitItems(in *Input, suite string, c *Comparison) []changeItem {
	var items []changeItem
	line := func(change, name string, loc *results.Location, what string) changeItem {
		l := location(in, loc)
		if l != "" {
			l = " " + l
		}
		return changeItem{changeRank[change], fmt.Sprintf("- %s · **%s** · %s%s: %s\n", changeLabel(change), mdCell(suite, 60), mdCell(name, 100), l, mdCell(what, 400))}
	}
	if c == nil || c.NoBaseline {
		return nil
	}
	for _, t := range c.Tasks {
		if _, ok := changeRank[t.Change]; ok && t.Change != ChangeRemoved {
			items = append(items, line(t.Change, t.Name, t.Source, t.Why))
		}
	}
	for _, p := range c.Prompts {
		switch p.Change {
		case ChangeNewFailure, ChangeWorse, ChangeUnconfirmed, ChangeFixed, ChangeBetter:
			items = append(items, line(p.Change, "trigger prompt "+p.ID, p.Source, p.Why))
		}
	}
	for _, r := range c.NewTasks {
		items = append(items, line(r.Change, r.Name, r.Source, r.Why))
	}
	for _, r := range c.RemovedTasks {
		what, rank := "passed on the baseline", 6
		if !r.Passed {
			what, rank = "failed on the baseline — removing a failing task hides it", 3
		}
		it := line(ChangeRemoved, r.Name, r.Source, what)
		it.rank = rank
		items = append(items, it)
	}
	return items
}

// metricRows are the gated metrics and trigger figures with their baseline values and changes:
// every suite metric with a threshold, and trigger accuracy, precision and recall.
func metricRows(states []*suiteState, withSuite bool) (head string, rows []string) {
	head = "| Metric | Baseline | This run | Δ | Threshold | Result |\n|---|---:|---:|---:|---:|---|\n"
	if withSuite {
		head = "| Suite | Metric | Baseline | This run | Δ | Threshold | Result |\n|---|---|---:|---:|---:|---:|---|\n"
	}
	for _, st := range states {
		c := st.s.Comparison
		if c == nil || c.NoBaseline {
			continue
		}
		row := func(name string, base, value *float64, threshold float64, result string) {
			// Scores read as scores; every other gated metric is a share.
			score := name == results.MetricAggregateScore || name == results.MetricWeightedScore
			format, delta, limit := pctCell, "—", "—"
			if score {
				format = num2
			}
			if d := deltaPtr(base, value); d != nil {
				delta = signedPoints(*d)
				if score {
					delta = signed(*d)
				}
			}
			if threshold > 0 {
				limit = format(&threshold)
			}
			cells := fmt.Sprintf("%s | %s | %s | %s | %s | %s |\n", mdCode(name, 60), format(base), format(value), delta, limit, result)
			if withSuite {
				cells = mdCell(st.name, 60) + " | " + cells
			}
			rows = append(rows, "| "+cells)
		}
		seen := map[string]bool{}
		for _, f := range c.Floors {
			result := "✅"
			switch {
			case !f.Passed && f.BasePassed != nil && !*f.BasePassed:
				result = "❌ as on the baseline"
			case !f.Passed:
				result = "❌"
			}
			v := f.Value
			row(f.Name, f.Base, &v, f.Threshold, result)
			seen[f.Name] = true
		}
		if tr := c.Triggers; tr != nil {
			for _, m := range []struct {
				name       string
				base, head *float64
			}{
				{results.MetricTriggerAccuracy, tr.Base, tr.Head},
				{results.MetricTriggerPrecision, tr.BasePrecision, tr.HeadPrecision},
				{results.MetricTriggerRecall, tr.BaseRecall, tr.HeadRecall},
			} {
				if !seen[m.name] && m.head != nil {
					row(m.name, m.base, m.head, 0, "")
				}
			}
		}
	}
	return head, rows
}

// VerdictWords is the suite verdict as people read it: "regressed", "improved", "no regression"
// (a drop beyond min_effect is ruled out), "no clear change" (none seen, none ruled out),
// "drop likely, not shown", "not comparable" or "no baseline". The JSON keeps Verdict.
func (c *Comparison) VerdictWords() string {
	if c.Words != "" {
		return c.Words
	}
	return c.verdictWords()
}

// verdictWords decides VerdictWords (finish records them in Words).
func (c *Comparison) verdictWords() string {
	switch {
	case c.NoBaseline:
		return "no baseline"
	case c.Verdict != VerdictInconclusive:
		return string(c.Verdict)
	case c.Unsettled():
		return "drop likely, not shown"
	}
	score, pass := c.Metric(MetricScore), c.Metric(MetricPassRate)
	switch {
	case score == nil || score.Tasks == 0:
		return "not comparable"
	case c.identical():
		return "no change"
	case score.NoRegression && pass.NoRegression:
		return "no regression"
	}
	return "no clear change"
}
