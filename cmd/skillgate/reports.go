package main

import (
	"errors"
	"flag"
	"fmt"
	"github.com/expr-lang/expr/vm"
	"os"
	"path/filepath"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// reportFlags choose where reports go, what they compare with and when the command fails
// (run, report and merge commands).
type reportFlags struct {
	outDir                         string
	junit, sarif, comment, summary string
	baselines                      argList
	key                            string
	failOn                         string
	failOnProgram                  *vm.Program // compiled by compileFailOn before any work
	minEffect                      float64
	pretty                         bool
}

// register adds the flags to fs; outUsage is the command's help of --out.
func (rf *reportFlags) register(fs *flag.FlagSet, outUsage string) {
	fs.StringVar(&rf.outDir, "out", ".skillgate", outUsage)
	fs.StringVar(&rf.junit, "junit", "", "also write JUnit XML to `FILE` (always written to <out>/junit.xml)")
	fs.StringVar(&rf.sarif, "sarif", "", "also write SARIF to `FILE` (always written to <out>/results.sarif)")
	fs.StringVar(&rf.comment, "comment", "", "also write the PR comment markdown to `FILE` (always <out>/comment.md)")
	fs.StringVar(&rf.summary, "summary", "", "also write the job summary markdown to `FILE` (always <out>/summary.md)")
	fs.Var(&rf.baselines, "baseline", "compare with earlier results: a results `FILE`, or a folder holding results/<suite>.json; repeat it to give earlier base runs too (the newest is the baseline, the others are pooled with it)")
	fs.StringVar(&rf.key, "key", "", "comment marker `KEY` distinguishing several skillgate comments on one PR")
	fs.StringVar(&rf.failOn, "fail-on", pipeline.DefaultFailOn, "exit 1 when this `EXPRESSION` over the results and the comparison is true (the Action's fail-on; variables in docs/action.md)")
	fs.Float64Var(&rf.minEffect, "min-effect", report.DefaultMinEffect, "smallest score or pass-rate drop that counts as a regression")
	fs.BoolVar(&rf.pretty, "pretty", false, "write results JSON indented for reading (default: compact)")
}

// compileFailOn compiles --fail-on as soon as the flags are read, so that a mistake in it costs
// no run; it reports the mistake and returns false.
func (rf *reportFlags) compileFailOn(a *app) bool {
	prog, err := pipeline.CompileFailOn(rf.failOn)
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: --fail-on %q: %v\n", rf.failOn, err)
		return false
	}
	rf.failOnProgram = prog
	return true
}

// publishOptions are the pipeline's options for these flags.
func (rf reportFlags) publishOptions() pipeline.Options {
	return pipeline.Options{OutDir: rf.outDir, Key: rf.key, ToolVersion: versionString(), MinEffect: rf.minEffect, Pretty: rf.pretty}
}

// finishReports copies the reports to the extra paths asked for, prints the end-of-run table
// and, with gate, evaluates fail-on: exit 1 when it is true.
func (a *app) finishReports(rf reportFlags, ev *pipeline.Evaluation, gate bool) int {
	extra := []struct {
		path, name string
	}{{rf.junit, report.JUnitFile}, {rf.sarif, report.SARIFFile}, {rf.comment, report.CommentFile}, {rf.summary, report.SummaryFile}}
	for _, e := range extra {
		if e.path == "" {
			continue
		}
		if err := copyFile(filepath.Join(rf.outDir, e.name), e.path); err != nil {
			if code, ok := a.diskFullFailure(err, filepath.Dir(e.path)); ok {
				return code
			}
			fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
			return exitFailed
		}
	}
	fmt.Fprintln(a.stdout)
	if err := report.Terminal(a.stdout, ev.Input, report.TerminalOptions{Color: a.isTTY && a.getenv("NO_COLOR") == ""}); err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitFailed
	}
	fmt.Fprintf(a.stderr, "reports: %s\n", rf.outDir)
	if !gate {
		return exitOK
	}
	if rf.failOnProgram == nil && !rf.compileFailOn(a) {
		return exitUsage
	}
	fail, err := pipeline.EvalFailOn(rf.failOnProgram, ev.Vars)
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: --fail-on %q: %v\n", rf.failOn, err)
		return exitUsage
	}
	if fail {
		fmt.Fprintf(a.stderr, "skillgate: fail-on is true (%s): %s\n", rf.failOn, ev.Vars.Facts())
		return exitFailed
	}
	return exitOK
}

// publishResults compares already written results with the --baseline and writes every report
// (report and merge commands); the exit status is fail-on's.
func (a *app) publishResults(rf reportFlags, all []*results.SuiteResult, files []string) int {
	heads := make([]pipeline.Head, len(all))
	for i, res := range all {
		heads[i] = pipeline.Head{Result: res, File: files[i]}
	}
	return a.publishHeads(rf, heads)
}

// publishHeads compares results with the --baseline, writes every report and applies fail-on.
func (a *app) publishHeads(rf reportFlags, heads []pipeline.Head) int {
	publish := rf.publishOptions()
	plan := pipeline.Results(heads, pipeline.Settings{Baselines: a.warnBaselines(pipeline.Locations(rf.baselines))})
	out, err := pipeline.Evaluate(a.ctx, plan, &publish)
	if code, ok := a.diskFullFailure(err, rf.outDir); ok {
		return code
	}
	var baseErr *pipeline.BaselineError
	switch {
	case errors.As(err, &baseErr):
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	case err != nil:
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitCodeOf(err)
	}
	return a.finishReports(rf, out.Evaluation, true)
}

// exitCodeOf is 2 for bad input (a baseline of another suite, an unreadable file), else 1.
func exitCodeOf(err error) int {
	if usageError(err) {
		return exitUsage
	}
	return exitFailed
}

func isFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && !info.IsDir()
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if dir := filepath.Dir(to); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	return os.WriteFile(to, data, 0o644)
}

// usageError reports whether err is bad input (exit 2) rather than a failure of the run.
func usageError(err error) bool {
	var re *results.ReadError
	var fe *report.UnknownFormatError
	return errors.As(err, &re) || errors.Is(err, report.ErrDifferentSuites) || errors.As(err, &fe) || errors.Is(err, os.ErrNotExist)
}
