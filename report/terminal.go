package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// TerminalOptions control the end-of-run table.
type TerminalOptions struct {
	// Color enables ANSI colours (only when the caller knows the output is a terminal that
	// wants them: not for NO_COLOR, not for files).
	Color bool
}

const (
	ansiReset  = "\x1b[0m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBold   = "\x1b[1m"
)

// Terminal writes the end-of-run table: per suite its tasks, pass rate, score and duration,
// with the change against the baseline (and its interval) when there is one, then the reasons
// behind every failure.
func Terminal(w io.Writer, in *Input, opts TerminalOptions) error {
	bw := bufio.NewWriter(w)
	if s := NoAgentRan(in); s != "" {
		fmt.Fprintln(bw, s)
	}
	sts := states(in)
	withDelta := false
	for _, st := range sts {
		if st.s.Comparison != nil {
			withDelta = true
		}
	}
	header := []string{"SUITE", "TASKS", "PASS RATE", "SCORE"}
	if withDelta {
		ci := strings.ToUpper(ciName(statesConfidence(sts)))
		header = append(header, "Δ SCORE ("+ci+")", "Δ PASS RATE ("+ci+")")
	}
	header = append(header, "DURATION", "RESULT")
	type cell struct {
		text, color string
	}
	rows := [][]cell{}
	for _, st := range sts {
		p, n := st.passedTasks()
		row := []cell{{text: st.name}, {text: fmt.Sprintf("%d/%d", p, n)}, {text: pctCell(st.side.PassRate)}, {text: num2(st.side.AggregateScore)}}
		if withDelta {
			ds, dp := cell{text: "—"}, cell{text: "—"}
			if c := st.s.Comparison; c != nil {
				if c.NoBaseline {
					ds.text, dp.text = "no baseline", "no baseline"
				} else {
					ds = cell{text: plainDelta(c.Metric(MetricScore), false), color: deltaColor(c.Metric(MetricScore))}
					dp = cell{text: plainDelta(c.Metric(MetricPassRate), true), color: deltaColor(c.Metric(MetricPassRate))}
				}
			}
			row = append(row, ds, dp)
		}
		// The suite's result as the comment's table says it, coloured by its icon.
		result, color := st.resultCell(), ansiGreen
		switch {
		case strings.HasPrefix(result, "❌"):
			color = ansiRed
		case strings.HasPrefix(result, "⚠️"), strings.HasPrefix(result, "➖"), strings.HasPrefix(result, "〰️"):
			color = ansiYellow
		}
		row = append(row, cell{text: fmt.Sprintf("%.1fs", seconds(st.s.Result.Summary.DurationMS))}, cell{text: result, color: color})
		rows = append(rows, row)
	}
	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c.text))
		}
	}
	paint := func(s, color string) string {
		if !opts.Color || color == "" {
			return s
		}
		return color + s + ansiReset
	}
	writeRow := func(cells []cell) {
		for i, c := range cells {
			text := c.text
			if i < len(cells)-1 {
				text += strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c.text)+2)
				// Colour only the text, not its padding, so columns stay aligned.
				bw.WriteString(paint(c.text, c.color) + text[len(c.text):])
				continue
			}
			bw.WriteString(paint(text, c.color))
		}
		bw.WriteString("\n")
	}
	hdr := make([]cell, len(header))
	for i, h := range header {
		hdr[i] = cell{text: h, color: ansiBold}
	}
	writeRow(hdr)
	for _, row := range rows {
		writeRow(row)
	}

	for _, st := range sts {
		for _, reason := range st.gate.Reasons {
			fmt.Fprintf(bw, "%s: %s\n", st.name, paint(reason, ansiRed))
		}
		for _, line := range st.s.reviewLines() {
			fmt.Fprintf(bw, "%s: %s\n", st.name, paint(line, ansiYellow))
		}
		if line := spendLine(st.s.Result.Summary.Spend, executorOf(st.s.Result)); line != "" {
			fmt.Fprintf(bw, "%s: %s\n", st.name, line)
		}
		for _, c := range st.s.comparisons() {
			color := ""
			switch {
			case c.Verdict == VerdictRegressed:
				color = ansiRed
			case st.unsettled() && c == st.s.Comparison:
				color = ansiYellow
			}
			prefix := "against the baseline"
			if c.Mode == ModeUplift {
				prefix = "with vs without the skill"
			}
			fmt.Fprintf(bw, "%s (%s): %s\n", st.name, prefix, paint(collapseSpace(c.Message), color))
		}
	}
	if withDelta {
		// What this change did, as the PR comment's first line says it.
		fmt.Fprintln(bw, PlainMarkdown(verdict(in, sts)))
	}
	if len(in.Unaffected) > 0 {
		names := make([]string, 0, len(in.Unaffected))
		for _, u := range in.Unaffected {
			names = append(names, u.Name)
		}
		fmt.Fprintf(bw, "Not run (unaffected by this change): %s\n", strings.Join(names, ", "))
	}
	return bw.Flush()
}

// plainDelta is "−0.12 (−0.18 to −0.06)" for a metric comparison.
func plainDelta(m *MetricComparison, points bool) string {
	if m == nil || m.Delta == nil {
		return "no shared tasks"
	}
	f := signed
	if points {
		f = signedPoints
	}
	s := f(*m.Delta)
	if m.Interval != nil {
		s += fmt.Sprintf(" (%s to %s)", f(m.Interval.Lower), f(m.Interval.Upper))
	}
	return s
}

func deltaColor(m *MetricComparison) string {
	if m == nil {
		return ""
	}
	switch m.Verdict {
	case VerdictRegressed:
		return ansiRed
	case VerdictImproved:
		return ansiGreen
	}
	return ""
}
