package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// cmdReport regenerates every report from results files, e.g. in a second, privileged workflow.
func (a *app) cmdReport(args []string) int {
	var rf reportFlags
	fs := newFlagSet("report", "report [flags] RESULTS.json|DIR... | --from-vally results.jsonl | --from-skill-creator WORKSPACE", a.stderr)
	fromVally := fs.String("from-vally", "", "import Vally's results.jsonl `FILE`: one results file per eval under <out>/results, then the reports")
	fromCreator := fs.String("from-skill-creator", "", "import a skill-creator workspace `DIR` (grading.json, timing.json, benchmark.json; of several iteration-N folders the latest with a graded run): one results file under <out>/results, then the reports")
	rf.register(fs, "`DIR` to write the reports into")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return usageExit(err)
	}
	if !rf.compileFailOn(a) {
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
	// A folder of skill-creator's run outputs is imported as --from-skill-creator would.
	var workspaces []string
	if *fromCreator != "" {
		workspaces = append(workspaces, *fromCreator)
	}
	kept := paths[:len(all):len(all)]
	for _, p := range paths[len(all):] {
		if info, err := os.Stat(p); err == nil && info.IsDir() && !hasResultsFiles(p) && results.IsSkillCreatorWorkspace(p) {
			workspaces = append(workspaces, p)
			continue
		}
		kept = append(kept, p)
	}
	paths = kept
	for _, ws := range workspaces {
		res, err := results.ReadSkillCreator(ws, "")
		if err != nil {
			fmt.Fprintf(a.stderr, "skillgate: --from-skill-creator: %v\n", err)
			return exitUsage
		}
		file := results.PathIn(rf.outDir, res.EvalName)
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
			return exitUsage
		}
		if err := results.WriteFileAs(file, res, rf.pretty); err != nil {
			fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(a.stderr, "results: %s (%s)\n", file, res.Provenance.SuiteFile) // names the iteration read
		paths = append(paths[:len(all):len(all)], append([]string{file}, paths[len(all):]...)...)
		all = append(all, res)
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
		res, recovered, err := openResults(p)
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

// openResults reads a results file as runner.ReadResults does (a journal, or the journal of a
// run that stopped, is recovered), but a large file without holding its tasks: the reports
// read them from the file as they list them (results.OpenFile).
func openResults(path string) (*results.SuiteResult, bool, error) {
	if isFile(path) && !strings.HasSuffix(path, results.JournalSuffix) {
		res, err := results.OpenFile(path)
		return res, false, err
	}
	return runner.ReadResults(path)
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

// hasResultsFiles reports whether dir is an --out folder (results/*.json in it).
func hasResultsFiles(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "results", "*.json"))
	return len(m) > 0
}
