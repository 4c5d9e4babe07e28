package main

import (
	"fmt"
	"os"

	"github.com/skillgate/skillgate/results"
)

// cmdMerge combines the results of `skillgate run --shard i/n` jobs into one results file per
// suite, one set of reports and one gate decision.
func (a *app) cmdMerge(args []string) int {
	var rf reportFlags
	fs := newFlagSet("merge", "merge [flags] PATH...   (PATH: a shard's results file, or a folder searched for results/<suite>.json)", a.stderr)
	outDir := fs.String("out", ".skillgate", "`DIR` to write the merged results and the reports into")
	rf.register(fs)
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(paths) == 0 {
		fmt.Fprintln(a.stderr, "skillgate merge: give the shards' results files or folders")
		fs.Usage()
		return exitUsage
	}
	var files []string
	for _, p := range paths {
		info, err := os.Stat(p)
		if err != nil {
			fmt.Fprintf(a.stderr, "skillgate merge: %v\n", err)
			return exitUsage
		}
		if !info.IsDir() {
			files = append(files, p)
			continue
		}
		found, err := results.ShardFiles(p)
		if err != nil {
			fmt.Fprintf(a.stderr, "skillgate merge: %v\n", err)
			return exitUsage
		}
		if len(found) == 0 {
			fmt.Fprintf(a.stderr, "skillgate merge: no results/<suite>.json below %s\n", p)
			return exitUsage
		}
		files = append(files, found...)
	}
	merged, problems := results.MergeFiles(files)
	for _, p := range problems {
		fmt.Fprintf(a.stderr, "skillgate merge: %v\n", p)
	}
	if len(problems) > 0 {
		return exitUsage
	}
	var written []string
	for _, res := range merged {
		file := results.PathIn(*outDir, res.EvalName)
		if err := results.WriteFile(file, res); err != nil {
			fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
			return exitUsage
		}
		written = append(written, file)
		fmt.Fprintf(a.stderr, "merged %d shard(s) of %s: %s\n", res.Config.Shard.Count, res.EvalName, file)
	}
	return a.publishResults(*outDir, rf, merged, written)
}
