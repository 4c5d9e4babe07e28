package main

import (
	"fmt"
	"os"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/results"
)

// cmdMerge combines the results of `skillgate run --shard i/n` jobs into one results file per
// suite, one set of reports and one gate decision.
func (a *app) cmdMerge(args []string) int {
	var rf reportFlags
	fs := newFlagSet("merge", "merge [flags] PATH...   (PATH: a shard's results file, or a folder searched for results/<suite>.json)", a.stderr)
	rf.register(fs, "`DIR` to write the merged results and the reports into")
	paths, err := parseOperands(fs, args, 1, -1, "give the shards' results files or folders")
	if err != nil {
		return usageExit(err)
	}
	if !rf.compileFailOn(a) {
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
	heads, problems := pipeline.MergeShards(files, rf.outDir, rf.pretty)
	for _, p := range problems {
		fmt.Fprintf(a.stderr, "skillgate merge: %v\n", p)
	}
	if len(problems) > 0 {
		return exitUsage
	}
	for _, h := range heads {
		for _, w := range h.Result.ReadWarnings {
			fmt.Fprintf(a.stderr, "skillgate: warning: %s\n", w) // each names its shard file
		}
		fmt.Fprintf(a.stderr, "merged %d shard(s) of %s: %s\n", h.Result.Config.Shard.Count, h.Result.EvalName, h.File)
	}
	return a.publishHeads(rf, heads)
}
