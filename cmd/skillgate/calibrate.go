package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillgate/skillgate/internal/redact"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// cmdCalibrate writes a review sheet of sampled runs for a person to label, and the matching
// labels-file skeleton (the calibration workflow of docs/graders.md#human-review-and-calibration).
func (a *app) cmdCalibrate(args []string) int {
	fs := newFlagSet("calibrate", "calibrate [flags] RESULTS...   (RESULTS: results files, or --out folders holding results/*.json)", a.stderr)
	out := fs.String("o", "calibration.md", "write the review sheet to `FILE`")
	labelsOut := fs.String("labels-out", "", "write the labels-file skeleton to `FILE` (default: next to the sheet, <name>-labels.yaml)")
	sample := fs.Int("sample", 20, "runs to sample `N`: half the grader's passes, half its failures")
	seed := fs.Uint64("seed", 1, "sampling `SEED` (the same seed and results give the same sheet)")
	grader := fs.String("grader", "", "grader `NAME` whose verdicts are reviewed (default: the first LLM grader, else each run's status)")
	paths, err := parseOperands(fs, args, 1, -1, "give one or more results files or output folders")
	if err != nil {
		return usageExit(err)
	}
	if *sample < 1 {
		fmt.Fprintln(a.stderr, "skillgate calibrate: --sample must be at least 1")
		return exitUsage
	}
	files, err := resultsFiles(paths)
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	}
	var all []*results.SuiteResult
	for _, f := range files {
		res, err := results.ReadFile(f)
		if err != nil {
			fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
			return exitUsage
		}
		a.warnRead(f, res)
		all = append(all, res)
	}
	if *labelsOut == "" {
		*labelsOut = strings.TrimSuffix(*out, filepath.Ext(*out)) + "-labels.yaml"
	}
	sheet, err := report.CalibrationSheet(all, report.SheetOptions{Sample: *sample, Seed: *seed, Grader: *grader, LabelsFile: filepath.Base(*labelsOut)})
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate calibrate: %v\n", err)
		return exitUsage
	}
	for _, w := range []struct{ path, content string }{{*out, sheet.Markdown}, {*labelsOut, sheet.Labels}} {
		if dir := filepath.Dir(w.path); dir != "." {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
				return exitUsage
			}
		}
		if err := os.WriteFile(w.path, []byte(redact.String(w.content)), 0o644); err != nil {
			fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
			return exitUsage
		}
	}
	reviewed := "run status"
	if sheet.Grader != "" {
		reviewed = "grader " + sheet.Grader
	}
	fmt.Fprintf(a.stdout, "%s: %d runs sampled from %d passes and %d failures (%s, seed %d)\n", *out, sheet.Sampled, sheet.Passes, sheet.Failures, reviewed, *seed)
	fmt.Fprintf(a.stdout, "label them in %s, then regrade: skillgate run SUITE --from RESULTS --labels %s\n", *labelsOut, *labelsOut)
	return exitOK
}

// resultsFiles expands output folders into their results/*.json files.
func resultsFiles(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			out = append(out, p)
			continue
		}
		found, _ := filepath.Glob(filepath.Join(p, "results", "*.json"))
		if len(found) == 0 {
			return nil, fmt.Errorf("%s holds no results/*.json", p)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}
