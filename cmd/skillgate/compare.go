package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// cmdCompare compares results of one suite (skillgate's or waza's): BASE and HEAD are results
// files or output folders holding results/<suite>.json. It goes through the pipeline that
// `run --baseline` and `report --baseline` use, so the verdict, the words and the exit status
// (--fail-on) are theirs on the same files.
func (a *app) cmdCompare(args []string) int {
	fs := newFlagSet("compare", "compare [flags] BASE [BASE...] HEAD (results files, or --out folders holding results/<suite>.json; several BASEs are earlier base runs, pooled)", a.stderr)
	format := fs.String("format", "table", "output `FORMAT`: table, markdown or json")
	minEffect := fs.Float64("min-effect", report.DefaultMinEffect, "smallest drop that counts as a regression")
	failOn := fs.String("fail-on", pipeline.DefaultFailOn, "exit 1 when this `EXPRESSION` is true (the variables of docs/action.md#fail-on)")
	paths, err := parseOperands(fs, args, 2, -1, "give results files or folders: BASE (one or more earlier base runs) and HEAD")
	if err != nil {
		return usageExit(err)
	}
	if !validFormat(*format) {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", &report.UnknownFormatError{Format: *format})
		return exitUsage
	}
	prog, err := pipeline.CompileFailOn(*failOn)
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: --fail-on: %v\n", err)
		return exitUsage
	}
	files, err := resultsFiles(paths[len(paths)-1:])
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	}
	heads := make([]pipeline.Head, len(files))
	for i, f := range files {
		res, err := openCompared(f)
		if err != nil {
			fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
			return exitUsage
		}
		a.warnRead(f, res)
		heads[i] = pipeline.Head{Result: res, File: f}
	}
	if err := baselinesFor(a.ctx, paths[:len(paths)-1], heads); err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	}
	for _, h := range heads {
		if h.Base != nil {
			a.warnRead(h.Base.File, h.Base.Result)
		}
	}
	ev, err := pipeline.Judge(heads, pipeline.Options{MinEffect: *minEffect})
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitCodeOf(err)
	}
	var cmps []*report.Comparison
	for _, s := range ev.Input.Suites {
		if s.Comparison != nil {
			cmps = append(cmps, s.Comparison)
		}
	}
	if err := writeComparisons(a, cmps, *format); err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	}
	if len(cmps) != 1 && *format != report.FormatJSON {
		// Several suites: the run's headline, as the PR comment says it.
		fmt.Fprintf(a.stdout, "\n%s\n", report.PlainMarkdown(report.Headline(ev.Input)))
	}
	fail, err := pipeline.EvalFailOn(prog, ev.Vars)
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: --fail-on %q: %v\n", *failOn, err)
		return exitUsage
	}
	if fail {
		return exitFailed
	}
	return exitOK
}

// openCompared reads a results file to compare without holding its tasks, whatever its size: the
// comparison reads their digests (results.OpenFile), and two passes over the file cost less than
// decoding every task into memory (docs/performance.md#reports-on-very-large-results-files).
func openCompared(path string) (*results.SuiteResult, error) {
	return results.OpenFileWith(path, results.OpenOptions{Resident: -1})
}

func validFormat(f string) bool {
	for _, ok := range report.CompareFormats {
		if f == ok {
			return true
		}
	}
	return false
}

// baselinesFor pairs each head with its baseline among bases (results files or folders; with
// several, the newest of a suite's is its baseline and the others are pooled with it): a file
// must be of a suite among the heads, a folder must hold at least one of their suites.
func baselinesFor(ctx context.Context, bases []string, heads []pipeline.Head) error {
	for _, base := range bases {
		if _, err := os.Stat(base); err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
	}
	if len(bases) == 1 && len(heads) == 1 {
		if info, _ := os.Stat(bases[0]); !info.IsDir() {
			// One suite on each side: a different suite is an error (ErrDifferentSuites), not "no baseline".
			res, err := openCompared(bases[0])
			if err != nil {
				return err
			}
			heads[0].Base = &pipeline.Baseline{Result: res, File: bases[0]}
			return nil
		}
	}
	if err := pipeline.FindBaselines(ctx, pipeline.Locations(bases), heads, nil); err != nil {
		return err
	}
	for _, h := range heads {
		if h.Base != nil && h.Base.Result != nil {
			return nil
		}
	}
	return fmt.Errorf("%s holds no results of the suites in the head (looked for results/<suite>.json)", strings.Join(bases, ", "))
}

// writeComparisons writes one comparison as before, several one after another (a JSON array).
func writeComparisons(a *app, cmps []*report.Comparison, format string) error {
	if format == report.FormatJSON && len(cmps) != 1 {
		if cmps == nil {
			cmps = []*report.Comparison{}
		}
		return writeJSON(a.stdout, cmps)
	}
	for i, c := range cmps {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		if err := report.WriteComparison(a.stdout, c, format); err != nil {
			return err
		}
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
