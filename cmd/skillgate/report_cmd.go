package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// cmdReport regenerates every report from results files, e.g. in a second, privileged workflow.
func (a *app) cmdReport(args []string) int {
	var rf reportFlags
	fs := newFlagSet("report", "report [flags] RESULTS.json|DIR... | --from-vally results.jsonl", a.stderr)
	fromVally := fs.String("from-vally", "", "import Vally's results.jsonl `FILE`: one results file per eval under DIR/results, then the reports")
	rf.register(fs, "`DIR` to write the reports into")
	paths, err := parseInterspersed(fs, args)
	if err != nil || !rf.compileFailOn(a) {
		return exitUsage
	}
	var all []*results.SuiteResult
	if *fromVally != "" {
		imported, written, err := importVally(*fromVally, rf.outDir, rf.pretty)
		if err != nil {
			fmt.Fprintf(a.stderr, "skillgate: --from-vally: %v\n", err)
			return exitUsage
		}
		for _, w := range written {
			fmt.Fprintf(a.stderr, "results: %s\n", w)
		}
		all = append(all, imported...)
		paths = append(written, paths...)
	}
	// An --out folder (or a downloaded results artifact) stands for its results files.
	var expanded []string
	for i, p := range paths {
		if info, err := os.Stat(p); i < len(all) || err != nil || !info.IsDir() {
			expanded = append(expanded, p) // a file, or a missing one whose journal may be there
			continue
		}
		files, err := resultsFiles([]string{p})
		if err != nil {
			fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
			return exitUsage
		}
		expanded = append(expanded, files...)
	}
	paths = expanded
	if len(paths) == 0 {
		fmt.Fprintln(a.stderr, "skillgate report: give one or more results files")
		fs.Usage()
		return exitUsage
	}
	for _, p := range paths[len(all):] {
		res, recovered, err := runner.ReadResults(p)
		if err != nil {
			fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
			return exitUsage
		}
		a.warnRead(p, res)
		if recovered {
			fmt.Fprintf(a.stderr, "skillgate: %s: recovered %d finished task(s) from the journal of a run that stopped (marked incomplete)\n", p, len(res.Tasks))
		}
		all = append(all, res)
	}
	return a.publishResults(rf, all, paths)
}

// importVally reads Vally's results.jsonl and writes one skillgate results file per eval.
func importVally(file, outDir string, pretty bool) ([]*results.SuiteResult, []string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	suites, err := results.ReadVally(f, file)
	if err != nil {
		return nil, nil, err
	}
	var written []string
	for _, s := range suites {
		p := results.PathIn(outDir, s.EvalName)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, nil, err
		}
		if err := results.WriteFileAs(p, s, pretty); err != nil {
			return nil, nil, err
		}
		written = append(written, p)
	}
	return suites, written, nil
}
