package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// outcome is what one suite's run changed against its baseline: the facts every headline is
// made of (docs/statistics.md#what-changed). Without a baseline every failure is new.
type outcome struct {
	name     string
	compared bool // a baseline with tasks
	ran      int  // tasks that ran here
	ch       Changes

	regressed, improved, unsettled bool
	why                            string // the regression, improvement or likely drop, short

	introduced int      // failures this run brings (Changes.Introduced, or every failure without a baseline)
	missed     []string // thresholds missed here that the baseline met (every miss without a baseline)
	incomplete bool
	skillHurts bool
	hurtsWhy   string
}

// blocking: the outcome fails the default fail-on (pipeline.DefaultFailOn), which blocks on what
// this run brings, not on what its baseline already had.
func (o outcome) blocking() bool {
	return o.regressed || o.introduced > 0 || len(o.missed) > 0 || o.incomplete
}

// outcomeOf derives a suite's outcome from its comparison (nil without a baseline) and, when
// known, its results (the gate's figures and an interrupted run).
func outcomeOf(name string, c *Comparison, r *results.SuiteResult, uplift *Comparison) outcome {
	o := outcome{name: name}
	switch {
	case r != nil:
		o.ran = r.Summary.Ran()
		o.incomplete = r.Incomplete
	case c != nil:
		o.incomplete = c.Head.Incomplete
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
		if !f.Passed && (f.BasePassed == nil || *f.BasePassed) {
			o.missed = append(o.missed, f.Name)
		}
	}
	switch {
	case c.Regressed():
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
// (new failures, failing added tasks, tasks failing under a changed yardstick; every failing task
// without a baseline) and missed metric thresholds the baseline met. The gate's new_failures and
// new_missed_thresholds.
func (s *Suite) Introduced() (failures, missedThresholds int) {
	o := outcomeOf(suiteName(s.Result), s.Comparison, s.Result, s.Uplift)
	return o.introduced, len(o.missed)
}

// metricChange is "pass rate −55.0 pp (95% CI −70.0 pp to −40.0 pp)".
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
			ci = fmt.Sprintf(" (95%% CI %s to %s)", signedPoints(iv.Lower), signedPoints(iv.Upper))
		} else {
			ci = fmt.Sprintf(" (95%% CI %s to %s)", signed(iv.Lower), signed(iv.Upper))
		}
	}
	return label + " " + delta + ci
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
			return plural(m.Dropped, "task") + " dropped significantly on their own trials"
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
			return plural(m.Gained, "task") + " improved significantly"
		}
		return metricChange(m)
	}
	return "improved"
}

// headline is the one line a reviewer reads first: what this change did, the most serious
// fact first and in bold. icon is ❌ when the default fail-on blocks, ⚠️ when something needs a
// look (a likely drop, a changed task or grader definition, a removed failing task), else ✅.
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
	if ch.AddedFailing > 0 {
		changes = append(changes, plural(ch.AddedFailing, "added task")+" failing")
	}
	if ch.YardstickFailing > 0 {
		changes = append(changes, plural(ch.YardstickFailing, "task")+" failing under its changed definition")
	}
	if ch.Fixed > 0 {
		changes = append(changes, thousands(ch.Fixed)+" fixed")
	}
	if ch.StillFailing > 0 {
		context = append(context, thousands(ch.StillFailing)+" still failing as on the baseline")
	}
	if ch.Flaky > 0 {
		context = append(context, plural(ch.Flaky, "task")+" flipped within trial noise")
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
	if n := ch.Added - ch.AddedFailing; n > 0 {
		notes = append(notes, plural(n, "passing task")+" added")
	}
	changed := strings.Join(changes, ", ")
	if len(context) > 0 {
		if changed == "" {
			changed = strings.Join(context, ", ")
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
	case len(notes) > 0:
		clauses = append(notes, changed)
	case compared == 0:
		return icon, fmt.Sprintf("**All %s in %s passed;** there was no baseline to compare with.", plural(ran, "task"), plural(len(outs), "suite"))
	case ch.StillFailing > 0 && ch.Flaky == 0:
		clauses = []string{fmt.Sprintf("No change: %s as on the baseline, %s of them failing on both", plural(ch.StillPassing+ch.StillFailing, "task"), thousands(ch.StillFailing))}
	case ch.StillFailing > 0:
		clauses = []string{"No new failures: " + changed}
	default:
		lead := fmt.Sprintf("No change: %s as on the baseline, all passing", plural(ch.StillPassing, "task"))
		if ch.Flaky > 0 {
			lead = fmt.Sprintf("No clear change: %s of %s flipped within trial noise", thousands(ch.Flaky), plural(ch.StillPassing+ch.Flaky, "task"))
		}
		if compared < len(outs) {
			lead += fmt.Sprintf("; %s of %s had no baseline", thousands(len(outs)-compared), plural(len(outs), "suite"))
		}
		clauses = []string{lead}
	}
	var kept []string
	for _, c := range clauses {
		if c != "" {
			kept = append(kept, c)
		}
	}
	return icon, boldFirst(kept)
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

// changeIcons mark each change in the "What changed" list.
var changeIcons = map[string]string{
	ChangeNewFailure: "❌ new failure", ChangeFixed: "✅ fixed", ChangeFlaky: "〰️ flaky",
	ChangeYardstick: "📏 definition changed", ChangeAdded: "➕ added", ChangeRemoved: "🗑️ removed",
}

// changeItems lists the tasks whose status this change moved, newest trouble first: new
// failures, failing added tasks, changed definitions, removed tasks, fixed, flaky, passing
// added tasks. Tasks still passing or still failing are only counted (in the headline).
func changeItems(in *Input, states []*suiteState) []string {
	type item struct {
		rank int
		text string
	}
	var items []item
	trials := func(s TaskSide) string {
		if s.Trials == 0 {
			return statusCell(s.Status)
		}
		return fmt.Sprintf("%d/%d", s.Passed, s.Trials)
	}
	line := func(icon, suite, name string, loc *results.Location, what string) string {
		l := location(in, loc)
		if l != "" {
			l = " " + l
		}
		return fmt.Sprintf("- %s · **%s** · %s%s: %s\n", icon, mdCell(suite, 60), mdCell(name, 100), l, what)
	}
	for _, st := range states {
		c := st.s.Comparison
		if c == nil || c.NoBaseline {
			continue
		}
		for _, t := range c.Tasks {
			rank := map[string]int{ChangeNewFailure: 0, ChangeYardstick: 2, ChangeFixed: 4, ChangeFlaky: 5}[t.Change]
			icon := changeIcons[t.Change]
			if icon == "" {
				continue
			}
			what := fmt.Sprintf("%s → %s trials passed", trials(t.Base), trials(t.Head))
			switch t.Change {
			case ChangeFlaky:
				what += ", within the noise of its trials"
			case ChangeYardstick:
				what += fmt.Sprintf(" — its %s changed, so this is not a skill change", t.Yardstick)
			}
			items = append(items, item{rank, line(icon, st.name, t.Name, t.Source, what)})
		}
		for _, r := range c.NewTasks {
			rank, what := 6, "passes"
			if !r.Passed {
				rank, what = 1, "fails"
			}
			items = append(items, item{rank, line(changeIcons[ChangeAdded], st.name, r.Name, r.Source, what)})
		}
		for _, r := range c.RemovedTasks {
			rank, what := 6, "passed on the baseline"
			if !r.Passed {
				rank, what = 3, "failed on the baseline — removing a failing task hides it"
			}
			items = append(items, item{rank, line(changeIcons[ChangeRemoved], st.name, r.Name, r.Source, what)})
		}
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].rank < items[j].rank })
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.text
	}
	return out
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
