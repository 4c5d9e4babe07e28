package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// reportFlags choose where reports go and what they compare with (run and report commands).
type reportFlags struct {
	junit, sarif, comment, summary string
	baseline                       string
	key                            string
	minEffect                      float64
}

func (rf *reportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&rf.junit, "junit", "", "also write JUnit XML to `FILE` (always written to <out>/junit.xml)")
	fs.StringVar(&rf.sarif, "sarif", "", "also write SARIF to `FILE` (always written to <out>/results.sarif)")
	fs.StringVar(&rf.comment, "comment", "", "also write the PR comment markdown to `FILE` (always <out>/comment.md)")
	fs.StringVar(&rf.summary, "summary", "", "also write the job summary markdown to `FILE` (always <out>/summary.md)")
	fs.StringVar(&rf.baseline, "baseline", "", "compare with earlier results: a results `FILE`, or a folder holding results/<suite>.json")
	fs.StringVar(&rf.key, "key", "", "comment marker `KEY` distinguishing several skillgate comments on one PR")
	fs.Float64Var(&rf.minEffect, "min-effect", report.DefaultMinEffect, "smallest score or pass-rate drop that counts as a regression")
}

// reportOutcome is what the reports concluded.
type reportOutcome struct {
	regressed bool // a comparison found a real regression
}

// writeReports builds every report for these results, writes them into outDir (and the extra
// paths asked for) and prints the end-of-run table. A bad baseline is a usage error (exit 2).
func (a *app) writeReports(outDir string, rf reportFlags, all []*results.SuiteResult, files []string) (reportOutcome, error) {
	var out reportOutcome
	in := &report.Input{Key: rf.key, ToolVersion: versionString()}
	opts := report.CompareOptions{MinEffect: rf.minEffect}
	used := false
	for i, res := range all {
		base, baseFile, err := report.FindBaseline(rf.baseline, res, len(all))
		if err != nil {
			return out, err
		}
		used = used || base != nil
		opts.BaseFile, opts.HeadFile = baseFile, files[i]
		s, err := report.NewSuite(res, base, opts)
		if err != nil {
			return out, err
		}
		s.File = files[i]
		if s.Comparison.Regressed() {
			out.regressed = true
		}
		in.Suites = append(in.Suites, s)
	}
	if rf.baseline != "" && !used && isFile(rf.baseline) {
		return out, fmt.Errorf("--baseline %s: its suite was not among the results", rf.baseline)
	}
	if _, err := report.WriteDir(outDir, in); err != nil {
		return out, err
	}
	extra := []struct {
		path, name string
	}{{rf.junit, report.JUnitFile}, {rf.sarif, report.SARIFFile}, {rf.comment, report.CommentFile}, {rf.summary, report.SummaryFile}}
	for _, e := range extra {
		if e.path == "" {
			continue
		}
		if err := copyFile(filepath.Join(outDir, e.name), e.path); err != nil {
			return out, err
		}
	}
	fmt.Fprintln(a.stdout)
	if err := report.Terminal(a.stdout, in, report.TerminalOptions{Color: a.isTTY && a.getenv("NO_COLOR") == ""}); err != nil {
		return out, err
	}
	fmt.Fprintf(a.stderr, "reports: %s\n", outDir)
	return out, nil
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
