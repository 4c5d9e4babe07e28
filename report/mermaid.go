package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"
)

// A Mermaid chart of per-task pass rates, base against head: GitHub renders ```mermaid blocks
// in comments and job summaries. Only tasks compared on both sides whose pass rate changed are
// drawn, the largest changes first, so the picture shows what moved.

// chartTaskCap is how many tasks one chart draws; more bars than this are unreadable.
const chartTaskCap = 12

// commentChartCap is how many suites get a chart in the comment.
const commentChartCap = 3

// changedTasks are a comparison's tasks whose pass rate changed, largest change first (then the
// larger score change, then file order), at most n.
func changedTasks(c *Comparison, n int) (shown []*TaskComparison, changed int) {
	if c == nil || c.NoBaseline {
		return nil, 0
	}
	for _, t := range c.Tasks {
		if t.PassRateDelta == nil || t.Base.PassRate == nil || t.Head.PassRate == nil || math.Abs(*t.PassRateDelta) < 1e-9 {
			continue
		}
		shown = append(shown, t)
	}
	slices.SortStableFunc(shown, func(a, b *TaskComparison) int {
		if c := cmp.Compare(math.Abs(*b.PassRateDelta), math.Abs(*a.PassRateDelta)); c != 0 {
			return c
		}
		return cmp.Compare(math.Abs(derefOr(b.ScoreDelta, 0)), math.Abs(derefOr(a.ScoreDelta, 0)))
	})
	changed = len(shown)
	if len(shown) > n {
		shown = shown[:n]
	}
	return shown, changed
}

// passRateChart is the Mermaid block for one suite, or "" when fewer than two tasks' pass rates
// changed: a line of one point is not drawn, and one task's change reads better in words (the
// "What changed" list has it). Bars are the head's pass rate, the line the base's (xychart has
// no legend: the caption says so).
func passRateChart(name string, c *Comparison) string {
	tasks, changed := changedTasks(c, chartTaskCap)
	if len(tasks) < 2 {
		return ""
	}
	labels := make([]string, len(tasks))
	head := make([]string, len(tasks))
	base := make([]string, len(tasks))
	for i, t := range tasks {
		label := t.Name
		if label == "" {
			label = t.ID
		}
		text := mermaidText(label, 24)
		if text == "" {
			text = fmt.Sprintf("task %d", i+1) // nothing printable was left of the name
		}
		labels[i] = `"` + text + `"`
		head[i] = fmt.Sprintf("%.0f", clean(*t.Head.PassRate)*100)
		base[i] = fmt.Sprintf("%.0f", clean(*t.Base.PassRate)*100)
	}
	which := fmt.Sprintf("the %s whose pass rate changed", plural(changed, "task"))
	if changed > len(tasks) {
		which = fmt.Sprintf("the %d of %s whose pass rate changed most", len(tasks), plural(changed, "task"))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Pass rate of %s, %s (bars: %s; line: %s).\n\n",
		mdCell(name, 80), which, mdCell(c.Head.Label, 30), mdCell(c.Base.Label, 30))
	b.WriteString("```mermaid\nxychart-beta\n")
	fmt.Fprintf(&b, "  title \"%s: pass rate (%%) per task\"\n", mermaidText(name, 60))
	fmt.Fprintf(&b, "  x-axis [%s]\n", strings.Join(labels, ", "))
	b.WriteString("  y-axis \"pass rate (%)\" 0 --> 100\n")
	fmt.Fprintf(&b, "  bar [%s]\n", strings.Join(head, ", "))
	fmt.Fprintf(&b, "  line [%s]\n", strings.Join(base, ", "))
	b.WriteString("```\n\n")
	return b.String()
}

// mermaidText keeps a label to characters Mermaid reads literally inside quotes: letters,
// digits, spaces and plain punctuation; anything else (quotes, brackets, markup) becomes a space.
func mermaidText(s string, limit int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" -_.,:/()'+", r) {
			return r
		}
		return ' '
	}, s)
	s = collapseSpace(s)
	if r := []rune(s); len(r) > limit {
		s = string(r[:limit-1]) + "…"
	}
	return s
}

// commentChartSection draws the suites with a baseline, at most commentChartCap of them.
func commentChartSection(states []*suiteState) *mdSection {
	var charts []string
	for _, st := range states {
		if chart := passRateChart(st.name, st.s.Comparison); chart != "" {
			charts = append(charts, chart)
		}
	}
	if len(charts) > commentChartCap {
		charts = append(charts[:commentChartCap:commentChartCap], fmt.Sprintf("Charts of %d more suites are in the job summary.\n\n", len(charts)-commentChartCap))
	}
	return &mdSection{priority: 4, head: "#### Pass rate against the baseline\n\n", items: charts, what: "charts"}
}

// summaryChartSection is one suite's chart in the job summary.
func summaryChartSection(st *suiteState) *mdSection {
	var items []string
	if chart := passRateChart(st.name, st.s.Comparison); chart != "" {
		items = append(items, chart)
	}
	return &mdSection{priority: 3, head: "#### Pass rate per task against the baseline\n\n", items: items, what: "charts"}
}
