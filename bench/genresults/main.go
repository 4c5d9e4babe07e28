// Command genresults writes a synthetic results file for benchmarks of the commands that read
// results (report, compare, merge): N tasks × T trials, two text graders per run with the details
// skillgate's text grader writes, a seeded share of failing runs; with -shards, the results of
// that many shards of the run, for merge.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/skillgate/skillgate/results"
)

func main() {
	tasks := flag.Int("tasks", 10000, "number of tasks")
	trials := flag.Int("trials", 1, "trials per task")
	failRate := flag.Float64("fail", 0.05, "share of runs whose second grader fails")
	seed := flag.Uint64("seed", 1, "seed of the failing runs")
	shards := flag.Int("shards", 0, "write the results of `N` shards of the run instead (-out is then a folder: shard-I/results/bench.json, for merge)")
	out := flag.String("out", "", "results `FILE` to write")
	flag.Parse()
	if *out == "" || *tasks < 1 || *trials < 1 {
		flag.Usage()
		os.Exit(2)
	}
	rng := rand.New(rand.NewPCG(*seed, 0))
	s := &results.SuiteResult{SchemaVersion: results.SchemaVersion, EvalName: "bench", Skill: "bench", Metrics: map[string]*results.MetricResult{}}
	s.Config.TaskPassThreshold = 1
	for i := 0; i < *tasks; i++ {
		src := &results.Location{File: fmt.Sprintf("tasks/t%06d.yaml", i), Line: 1, Col: 1}
		t := &results.TaskResult{ID: fmt.Sprintf("task-%06d", i), Name: fmt.Sprintf("Task %d", i), Source: src}
		for r := 1; r <= *trials; r++ {
			fail := rng.Float64() < *failRate
			shape := &results.GraderResult{Name: "shape", Type: "text", Score: 1, Weight: 1, Passed: true, Feedback: "All text checks passed",
				Source: &results.Location{File: src.File, Line: 15, Col: 5}, Details: textDetails(nil)}
			if fail {
				shape.Score, shape.Passed = 0, false
				shape.Feedback = "output does not match /^The .* is/"
				shape.Details = textDetails([]string{"regex_match: /^The .* is/ not found"})
			}
			t.Runs = append(t.Runs, &results.RunResult{RunNumber: r, Attempts: 1, Validations: results.Validations{
				{Name: "answered", Type: "text", Score: 1, Weight: 1, Passed: true, Feedback: "All text checks passed",
					Source: &results.Location{File: src.File, Line: 9, Col: 5}, Details: textDetails(nil)},
				shape,
			}, AgentRun: results.AgentRun{FinalOutput: fmt.Sprintf("Mock response for: Explain item %d of the benchmark in one sentence.\nAnalyzed 1 file(s)", i),
				SessionDigest: results.SessionDigest{ToolsUsed: []string{}, Errors: []string{}}}})
		}
		t.FinishAt(s.Config.TaskPassThreshold)
		s.Tasks = append(s.Tasks, t)
	}
	if *shards < 1 {
		results.Summarize(s)
		if err := results.WriteFile(*out, s); err != nil {
			log.Fatal(err)
		}
		return
	}
	// Each shard lists every task and runs every shards-th one; the others say which shard
	// runs them, as `skillgate run --shard i/n` writes them.
	for i := 1; i <= *shards; i++ {
		part := *s
		part.Config.Shard = &results.ShardInfo{Index: i, Count: *shards, Method: "hash"}
		part.Tasks = make([]*results.TaskResult, len(s.Tasks))
		for j, t := range s.Tasks {
			if owner := j%*shards + 1; owner != i {
				t = &results.TaskResult{ID: t.ID, Name: t.Name, Source: t.Source, Status: results.StatusSkipped, SkipReason: results.ShardSkipReason(owner, *shards)}
			}
			part.Tasks[j] = t
		}
		results.Summarize(&part)
		if err := results.WriteFile(filepath.Join(*out, fmt.Sprintf("shard-%d", i), "results", "bench.json"), &part); err != nil {
			log.Fatal(err)
		}
	}
}

// textDetails are the details skillgate's text grader writes: its config echoed and the failures.
func textDetails(failures []string) map[string]any {
	return map[string]any{
		"contains": []string{"Mock response"}, "not_contains": []string{"TODO"},
		"contains_cs": []string(nil), "not_contains_cs": []string(nil),
		"regex_match": []string{"^The .* is"}, "regex_not_match": []string{"(?i)error", "(?i)traceback"},
		"failures": failures,
	}
}
