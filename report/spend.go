package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/skillgate/skillgate/results"
)

// What the agent runs cost and how many were reused from the run cache, per suite, with the
// change in tokens and cost against the base (docs/results.md#spend). Every figure comes from
// results.Spend; this file only lays it out.

// spendColumns head the spend table in the comment, the job summary and the HTML page.
var spendColumns = []string{"Suite", "Agent runs", "Reused", "Tokens in (cached) / out", "Δ tokens", "Cost", "Δ cost"}

var spendTableHead = "| " + strings.Join(spendColumns, " | ") + " |\n|---|" + strings.Repeat("---:|", len(spendColumns)-1) + "\n"

// spendRow is one suite's row of the "Agent runs and cost" table: the cells after the suite's
// name, in spendTableHead's order, and its reuse note (inline markdown, "" without one).
type spendRow struct {
	index int // the suite's place in states, from 0
	suite string
	cells []string
	note  string
}

// spendRows are the rows of the suites whose spend is worth showing, for the comment, the job
// summary and the HTML report alike.
func spendRows(states []*suiteState) []spendRow {
	var rows []spendRow
	for i, st := range states {
		sp := st.s.Result.Summary.Spend
		if !worthShowing(sp) {
			continue
		}
		var base *results.Spend
		if st.s.Baseline != nil {
			base = st.s.Baseline.Summary.Spend
		}
		dTokens, dCost := "—", "—"
		if d, ok := results.CompareSpend(base, sp); ok {
			if d.Counted {
				dTokens = signedCount(d.Tokens)
			}
			if d.Costed {
				dCost = signedDollars(d.CostUSD)
			}
		}
		rows = append(rows, spendRow{
			index: i,
			suite: st.name,
			cells: []string{thousands(sp.Runs), reusedCell(sp), tokensCell(sp, executorOf(st.s.Result)),
				dTokens, costCell(sp), dCost},
			note: reuseNote(st.s, sp),
		})
	}
	return rows
}

// spendSection is the "Agent runs and cost" section of the comment and the job summary; nil
// when no suite recorded a spend.
func spendSection(states []*suiteState, priority int) *mdSection {
	var rows, notes []string
	for _, row := range spendRows(states) {
		rows = append(rows, fmt.Sprintf("| %s | %s |\n", mdCell(row.suite, 80), strings.Join(row.cells, " | ")))
		if row.note != "" {
			notes = append(notes, "- "+row.note+"\n")
		}
	}
	if len(rows) == 0 {
		return nil
	}
	tail := "\n"
	if len(notes) > 0 {
		tail += strings.Join(notes, "") + "\n"
	}
	return &mdSection{priority: priority, head: "#### Agent runs and cost\n\n" + spendTableHead, items: rows, tail: tail, what: "cost rows"}
}

// tokensCell is "in (cached) / out", saying for how many runs the tokens are unknown: never a 0
// that stands for runs whose agent reported nothing.
func tokensCell(sp *results.Spend, executor string) string {
	unknown := unknownTokens(sp, executor)
	var cell string
	switch {
	case !reportedOutput(sp):
		return unknown
	case !reportedInput(sp):
		cell = "out " + compact(sp.OutputTokens)
	default:
		cell = fmt.Sprintf("%s (%s) / %s", compact(sp.InputTokens), compact(sp.CachedTokens), compact(sp.OutputTokens))
	}
	if unknown != "" {
		cell += "; " + unknown
	}
	return cell
}

// reportedOutput and reportedInput say whether some run reported its output (input) tokens:
// without one, the figure is not shown at all.
func reportedOutput(sp *results.Spend) bool { return sp.UnknownTokenRuns < sp.Runs }
func reportedInput(sp *results.Spend) bool {
	return sp.UnknownTokenRuns+sp.UnknownInputRuns < sp.Runs
}

// unknownTokens says which runs' tokens are unknown ("tokens: unknown for 12 copilot runs",
// "input tokens: unknown for 3 copilot runs"); "" when every run reported them.
func unknownTokens(sp *results.Spend, executor string) string {
	what := func(n int) string {
		switch executor {
		case "", "replay", "mock":
			return plural(n, "run")
		}
		return plural(n, executor+" run")
	}
	var parts []string
	if n := sp.UnknownTokenRuns; n > 0 {
		parts = append(parts, "tokens: unknown for "+what(n))
	}
	if n := sp.UnknownInputRuns; n > 0 {
		parts = append(parts, "input tokens: unknown for "+what(n))
	}
	return strings.Join(parts, "; ")
}

func reusedCell(sp *results.Spend) string {
	if sp.Reused == 0 {
		return "0"
	}
	return fmt.Sprintf("%s of %s", thousands(sp.Reused), thousands(sp.Runs))
}

func costCell(sp *results.Spend) string {
	if sp.Priced == 0 {
		return "—"
	}
	cell := dollars(sp.CostUSD)
	if sp.Priced < sp.Runs {
		cell += fmt.Sprintf(" (%d of %d runs priced)", sp.Priced, sp.Runs)
	}
	return cell
}

// reuseNote says, for one suite, how many runs were reused and from where, which tasks had
// unchanged inputs against the base, and how many runs stopped early (inline markdown).
func reuseNote(s *Suite, sp *results.Spend) string {
	var parts []string
	if sp.Reused > 0 {
		part := fmt.Sprintf("%s of %s runs reused (inputs unchanged)", thousands(sp.Reused), thousands(sp.Runs))
		if len(sp.ReusedFrom) > 0 {
			commits := make([]string, 0, len(sp.ReusedFrom))
			for _, c := range sp.ReusedFrom {
				commits = append(commits, mdCode(shortCommit(c), 20))
			}
			if len(commits) > 3 {
				commits = append(commits[:3], fmt.Sprintf("%d more", len(commits)-3))
			}
			part += " from commit " + strings.Join(commits, ", ")
		}
		if sp.ReusedMS > 0 {
			part += fmt.Sprintf(", saving %s of agent time", duration(sp.ReusedMS))
		}
		parts = append(parts, part)
	}
	if ex := sp.Executed(); ex > 0 {
		parts = append(parts, fmt.Sprintf("%s executed (%s of agent time)", plural(ex, "run"), duration(sp.AgentMS)))
	}
	if sp.StoppedEarly > 0 {
		parts = append(parts, fmt.Sprintf("%s stopped early once decided", thousands(sp.StoppedEarly)))
	}
	if s.Baseline != nil {
		if same := results.UnchangedDigests(s.baseTasks().digests, s.tasks().digests); len(same) > 0 {
			parts = append(parts, fmt.Sprintf("%s of %s with unchanged inputs against the base: a change in their grade comes from the graders, not from the agent",
				plural(len(same), "task"), thousands(s.tasks().len())))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return mdCell(s.Result.EvalName, 80) + ": " + strings.Join(parts, "; ")
}

// compact writes a token count briefly: 950, 12.3k, 4.5M.
func compact(n int64) string {
	switch {
	case n < 10_000 && n > -10_000:
		return fmt.Sprint(n)
	case n < 1_000_000 && n > -1_000_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

func signedCount(n int64) string {
	if n > 0 {
		return "+" + compact(n)
	}
	if n < 0 {
		return "−" + compact(-n)
	}
	return "0"
}

func dollars(x float64) string {
	if x < 0.01 && x > 0 {
		return fmt.Sprintf("$%.4f", x)
	}
	return fmt.Sprintf("$%.2f", x)
}

func signedDollars(x float64) string {
	switch {
	case x > 0:
		return "+" + dollars(x)
	case x < 0:
		return "−" + dollars(-x)
	}
	return "$0"
}

func duration(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%dms", ms)
	}
	return (time.Duration(ms) * time.Millisecond).Round(time.Second / 10).String()
}

// worthShowing is false for a spend with nothing to say: no tokens reported or unknown, nothing
// reused, stopped or priced (the mock executor's runs).
func worthShowing(sp *results.Spend) bool {
	return sp != nil && (sp.Tokens() > 0 || !sp.TokensComplete() || sp.Reused > 0 || sp.StoppedEarly > 0 || sp.Priced > 0)
}

// spendLine is the one-line spend of a suite for the terminal ("" without one).
func spendLine(sp *results.Spend, executor string) string {
	if !worthShowing(sp) {
		return ""
	}
	line := fmt.Sprintf("agent runs: %d (%d reused, %d executed", sp.Runs, sp.Reused, sp.Executed())
	if executor == "replay" || executor == "skill-creator" {
		// Recorded runs, read back: no agent was executed now.
		line = fmt.Sprintf("agent runs: %d (recorded, none executed now", sp.Runs)
	}
	if sp.StoppedEarly > 0 {
		line += fmt.Sprintf(", %d stopped early", sp.StoppedEarly)
	}
	line += ")"
	switch {
	case reportedInput(sp):
		line += fmt.Sprintf(" · tokens in %s (%s cached) / out %s", compact(sp.InputTokens), compact(sp.CachedTokens), compact(sp.OutputTokens))
	case reportedOutput(sp):
		line += " · tokens out " + compact(sp.OutputTokens)
	}
	if unknown := unknownTokens(sp, executor); unknown != "" {
		line += " · " + unknown
	}
	if sp.Priced > 0 {
		line += " · cost " + dollars(sp.CostUSD)
		if sp.SpentUSD != sp.CostUSD {
			line += " (" + dollars(sp.SpentUSD) + " spent now)"
		}
	}
	return line
}
