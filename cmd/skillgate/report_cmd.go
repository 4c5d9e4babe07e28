package main

import (
	"fmt"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// cmdReport regenerates every report from results files, e.g. in a second, privileged workflow.
func (a *app) cmdReport(args []string) int {
	var rf reportFlags
	fs := newFlagSet("report", "report [flags] RESULTS.json...", a.stderr)
	outDir := fs.String("out", ".skillgate", "`DIR` to write the reports into")
	rf.register(fs)
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(paths) == 0 {
		fmt.Fprintln(a.stderr, "skillgate report: give one or more results files")
		fs.Usage()
		return exitUsage
	}
	var all []*results.SuiteResult
	for _, p := range paths {
		res, recovered, err := runner.ReadResults(p)
		if err != nil {
			fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
			return exitUsage
		}
		if recovered {
			fmt.Fprintf(a.stderr, "skillgate: %s: recovered %d finished task(s) from the journal of a run that stopped (marked incomplete)\n", p, len(res.Tasks))
		}
		all = append(all, res)
	}
	outcome, err := a.writeReports(*outDir, rf, all, paths)
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	}
	return gateExit(all, outcome)
}

// gateExit is 1 when a suite's gate failed or a comparison found a regression, else 0.
func gateExit(all []*results.SuiteResult, outcome reportOutcome) int {
	for _, r := range all {
		if r.Gate != nil && !r.Gate.Passed {
			return exitFailed
		}
	}
	if outcome.regressed {
		return exitFailed
	}
	return exitOK
}
