package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Formats of WriteComparison.
const (
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
	FormatTable    = "table"
)

// CompareFormats lists the accepted --format values.
var CompareFormats = []string{FormatMarkdown, FormatJSON, FormatTable}

// UnknownFormatError is a --format value WriteComparison does not know.
type UnknownFormatError struct{ Format string }

func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("unknown format %q: use one of %s", e.Format, strings.Join(CompareFormats, ", "))
}

// WriteComparison renders a comparison as markdown, json or table.
func WriteComparison(w io.Writer, c *Comparison, format string) error {
	switch format {
	case FormatJSON:
		return c.WriteJSON(w)
	case FormatMarkdown:
		_, err := io.WriteString(w, c.Markdown())
		return err
	case FormatTable, "":
		return c.WriteTable(w)
	}
	return &UnknownFormatError{Format: format}
}

// WriteJSON writes the comparison as indented JSON. Every number is finite by construction:
// values that do not exist are left out, never written as NaN.
func (c *Comparison) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return fmt.Errorf("encoding comparison: %w", err)
	}
	return nil
}

// Markdown renders the comparison for a PR comment or a terminal that shows markdown; it stays
// under CommentLimit.
func (c *Comparison) Markdown() string {
	head := fmt.Sprintf("### %s: %s\n\n%s\n\n%s\n\n", mdCell(c.Suite, 100), c.VerdictWords(), c.Headline(), mdCell(c.Message, 600))
	head += fmt.Sprintf("%s: %s · %s: %s\n\n", mdCell(c.Base.Label, 30), sideFacts(c.Base), mdCell(c.Head.Label, 30), sideFacts(c.Head))
	var metricRows []string
	metricHead := ""
	if !c.NoBaseline {
		metricHead = "| Metric | " + mdCell(c.Base.Label, 30) + " | " + mdCell(c.Head.Label, 30) + " | Δ | " + ciName(c.Settings.Confidence) + " | Test | Verdict |\n|---|---:|---:|---:|---|---|---|\n"
		for _, m := range c.Metrics {
			metricRows = append(metricRows, metricRow(m))
		}
	}
	taskHead := "| Task | " + mdCell(c.Base.Label, 30) + " pass rate | " + mdCell(c.Head.Label, 30) + " pass rate | Δ pass rate | Δ score | Change |\n|---|---:|---:|---:|---:|---|\n"
	var taskRows []string
	for _, t := range c.Tasks {
		dp, ds := "—", "—"
		if t.ScoreDelta != nil {
			dp, ds = signedPoints(*t.PassRateDelta), signed(*t.ScoreDelta)
		}
		flip := changeCell(t)
		taskRows = append(taskRows, fmt.Sprintf("| %s | %s | %s | %s | %s | %s |\n",
			mdCell(t.Name, 80), pct(t.Base.PassRate), pct(t.Head.PassRate), dp, ds, flip))
	}
	var extra []string
	if len(c.NewTasks) > 0 {
		extra = append(extra, fmt.Sprintf("New tasks (not compared): %s\n\n", refList(c.NewTasks, 100)))
	}
	if len(c.RemovedTasks) > 0 {
		extra = append(extra, fmt.Sprintf("Removed tasks: %s\n\n", refList(c.RemovedTasks, 100)))
	}
	var floorRows []string
	for _, f := range c.Floors {
		floorRows = append(floorRows, fmt.Sprintf("| %s | %s | %.4g | %s | %.4g | %s |\n", mdCell(f.Name, 60), num4(f.Base), f.Value, numCell("%+.4g", f.Delta), f.Threshold, passMark(f.Passed)))
	}
	sections := []*mdSection{
		{always: true, head: head},
		{priority: 1, head: metricHead, items: metricRows, tail: "\n", what: "metric rows"},
		{priority: 2, head: "Thresholds (always apply):\n\n| Metric | " + mdCell(c.Base.Label, 30) + " | " + mdCell(c.Head.Label, 30) + " | Δ | Threshold | Result |\n|---|---:|---:|---:|---:|---|\n", items: floorRows, tail: "\n", what: "threshold rows"},
		{priority: 3, items: extra, what: "task lists"},
		{priority: 4, head: fmt.Sprintf("<details><summary>Per-task changes (%s)</summary>\n\n", thousands(len(taskRows))) + taskHead, items: taskRows, tail: "\n</details>\n", what: "task rows"},
		{always: true, head: "\n<sub>" + methodNote(c) + "</sub>\n"},
	}
	return layoutMarkdown(sections, CommentLimit, 0, "PR comment")
}

func sideFacts(s Side) string {
	var parts []string
	if s.File != "" {
		parts = append(parts, mdCode(s.File, 120))
	}
	if s.Commit != "" {
		parts = append(parts, "commit "+mdCode(shortCommit(s.Commit), 20))
	}
	if s.Model != "" {
		parts = append(parts, "model "+mdCode(s.Model, 60))
	}
	parts = append(parts, plural(s.Tasks, "task"))
	return strings.Join(parts, ", ")
}

// WriteTable writes the comparison as plain text columns (waza's `compare` layout, with the
// verdicts added).
func (c *Comparison) WriteTable(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "COMPARISON REPORT: %s (%s)\n", c.Suite, c.Mode)
	for _, s := range []Side{c.Base, c.Head} {
		fmt.Fprintf(bw, "  %-13s %s\n", s.Label+":", plainSide(s))
	}
	fmt.Fprintf(bw, "\nVERDICT: %s\n%s\n%s\n\n", strings.ToUpper(c.VerdictWords()), PlainMarkdown(c.Headline()), c.Message)
	if !c.NoBaseline {
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "METRIC\t%s\t%s\tΔ\t%s\tVERDICT\n", strings.ToUpper(c.Base.Label), strings.ToUpper(c.Head.Label), strings.ToUpper(ciName(c.Settings.Confidence)))
		for _, m := range c.Metrics {
			if m.Name == MetricTasks {
				fmt.Fprintf(tw, "%s\t\t%d dropped, %d gained\t\t\t%s\n", m.Name, m.Dropped, m.Gained, m.Verdict)
				continue
			}
			base, head, delta, ci := "-", "-", "-", "-"
			if m.Delta != nil {
				base, head, delta = fmt.Sprintf("%.4f", *m.Base), fmt.Sprintf("%.4f", *m.Head), fmt.Sprintf("%+.4f", *m.Delta)
			}
			if m.Interval != nil {
				ci = fmt.Sprintf("[%+.4f, %+.4f]", m.Interval.Lower, m.Interval.Upper)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", m.Name, base, head, delta, ci, m.Verdict)
		}
		tw.Flush()
		bw.WriteString("\n")
	}
	if len(c.Floors) > 0 {
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "THRESHOLD\tVALUE\tTHRESHOLD\tRESULT\n")
		for _, f := range c.Floors {
			fmt.Fprintf(tw, "%s\t%.4f\t%.4f\t%s\n", f.Name, f.Value, f.Threshold, passWord(f.Passed))
		}
		tw.Flush()
		bw.WriteString("\n")
	}
	if len(c.Tasks) > 0 {
		bw.WriteString("PER-TASK DELTAS\n")
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "TASK\tSCORE\tΔ SCORE\tPASS RATE\tΔ PASS RATE\tNOTE\n")
		for _, t := range c.Tasks {
			name := t.Name
			if r := []rune(name); len(r) > 25 {
				name = string(r[:22]) + "..."
			}
			score, ds, rate, dp := "-", "-", "-", "-"
			if t.ScoreDelta != nil {
				score = fmt.Sprintf("%.4f → %.4f", *t.Base.Score, *t.Head.Score)
				ds = arrow(*t.ScoreDelta) + fmt.Sprintf("%+.4f", *t.ScoreDelta)
				rate = fmt.Sprintf("%.0f%% → %.0f%%", *t.Base.PassRate*100, *t.Head.PassRate*100)
				dp = arrow(*t.PassRateDelta) + fmt.Sprintf("%+.1f pp", *t.PassRateDelta*100)
			}
			note := changeWord(t.Change)
			if t.Change == ChangeNotCompared {
				note = t.Status
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", name, score, ds, rate, dp, note)
		}
		tw.Flush()
	}
	if len(c.NewTasks) > 0 {
		fmt.Fprintf(bw, "\nNEW TASKS (not compared): %s\n", refIDs(c.NewTasks))
	}
	var yardstick []string
	for _, t := range c.Tasks {
		if t.Change == ChangeYardstick {
			yardstick = append(yardstick, fmt.Sprintf("%s (%s)", t.ID, t.Yardstick))
		}
	}
	if len(yardstick) > 0 {
		fmt.Fprintf(bw, "\nDEFINITION CHANGED (not compared): %s\n", strings.Join(yardstick, ", "))
	}
	if len(c.RemovedTasks) > 0 {
		fmt.Fprintf(bw, "\nREMOVED TASKS: %s\n", refIDs(c.RemovedTasks))
	}
	return bw.Flush()
}

func plainSide(s Side) string {
	var parts []string
	if s.File != "" {
		parts = append(parts, s.File)
	}
	if s.Commit != "" {
		parts = append(parts, "commit "+shortCommit(s.Commit))
	}
	if s.Model != "" {
		parts = append(parts, "model "+s.Model)
	}
	parts = append(parts, plural(s.Tasks, "task"))
	if s.AggregateScore != nil {
		parts = append(parts, fmt.Sprintf("score %.4f", *s.AggregateScore))
	}
	return strings.Join(parts, ", ")
}

func arrow(d float64) string {
	switch {
	case d > 0.00005:
		return "↑ "
	case d < -0.00005:
		return "↓ "
	}
	return "  "
}

func refIDs(refs []TaskRef) string {
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	return strings.Join(ids, ", ")
}

// PlainMarkdown drops the emphasis and code marks of a markdown line for plain text.
func PlainMarkdown(s string) string {
	return strings.NewReplacer("**", "", "`", "", "\\|", "|").Replace(s)
}

// changeCell is a task's change word with its icon ("❌ new failure"); a changed yardstick
// says what changed.
func changeCell(t *TaskComparison) string {
	word := changeLabel(t.Change)
	switch t.Change {
	case ChangeNotCompared:
		word = mdCell(strings.ReplaceAll(t.Status, "_", " "), 20)
	case ChangeYardstick:
		word += " (" + t.Yardstick + ")"
	}
	return word
}

// methodNote says how the intervals were computed.
func methodNote(c *Comparison) string {
	if m := c.Metric(MetricScore); m != nil && m.IntervalMethod == IntervalTrials {
		return fmt.Sprintf("Fewer than %d shared tasks: intervals over the trials of each task (tasks taken as fixed), min effect %.2f.", c.Settings.MinTasks, c.Settings.MinEffect)
	}
	return fmt.Sprintf("Paired bootstrap over shared tasks, %s resamples, seed %d, min effect %.2f.", thousands(c.Settings.Resamples), c.Settings.Seed, c.Settings.MinEffect)
}
