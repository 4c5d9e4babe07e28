package results

import (
	"fmt"
	"strings"
	"testing"
)

// shardedParts splits a tasks × trials suite into n shard results, task i in shard i%n+1.
func shardedParts(tasks, trials, n int) []*SuiteResult {
	var parts []*SuiteResult
	for s := 1; s <= n; s++ {
		p := &SuiteResult{SchemaVersion: 1, EvalName: "bench", Metrics: map[string]*MetricResult{
			MetricTaskCompletion: {Name: MetricTaskCompletion, Threshold: 0.5, Weight: 1}}}
		p.Config.Shard = &ShardInfo{Index: s, Count: n, Method: "hash"}
		for i := range tasks {
			t := &TaskResult{ID: fmt.Sprintf("task-%05d", i)}
			if i%n+1 != s {
				t.Status, t.SkipReason = StatusSkipped, ShardSkipReason(i%n+1, n)
			} else {
				for j := range trials {
					ok := (i+j)%3 != 0
					t.Runs = append(t.Runs, &RunResult{RunNumber: j + 1, Status: StatusPassed, AgentRun: AgentRun{DurationMS: int64(100 + i)},
						Validations: Validations{{Name: "g", Passed: ok, Score: map[bool]float64{true: 1}[ok], Weight: 1}}})
				}
			}
			t.Finish()
			p.Tasks = append(p.Tasks, t)
		}
		Summarize(p)
		parts = append(parts, p)
	}
	return parts
}

// BenchmarkMerge merges 8 shards of a 2,000-task × 3-trial suite.
func BenchmarkMerge(b *testing.B) {
	parts := shardedParts(2000, 3, 8)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Merge(parts); err != nil {
			b.Fatal(err)
		}
	}
}

// Merge of the synthetic shards keeps every task once and recomputes the summary.
func TestMergeSyntheticShards(t *testing.T) {
	m, err := Merge(shardedParts(100, 3, 7))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Tasks) != 100 || m.Summary.TotalTests != 100 || m.Summary.Skipped != 0 || m.Summary.TotalRuns != 300 || m.Metrics[MetricTaskCompletion] == nil {
		t.Errorf("merged: %+v", m.Summary)
	}
	for i, task := range m.Tasks {
		if task.ID != fmt.Sprintf("task-%05d", i) || ShardSkipped(task) {
			t.Fatalf("task %d: %s %q", i, task.ID, task.SkipReason)
		}
	}
}

// Shards run with different settings do not merge: their tasks were not run alike.
func TestMergeRefusesDifferentSettings(t *testing.T) {
	for name, change := range map[string]func(*RunConfig){
		"trials":        func(c *RunConfig) { c.RunsPerTest = 5 },
		"skip triggers": func(c *RunConfig) { c.SkipTriggers = true },
		"uplift":        func(c *RunConfig) { c.Uplift = true },
	} {
		parts := shardedParts(10, 1, 2)
		change(&parts[1].Config)
		if _, err := Merge(parts); err == nil || !strings.Contains(err.Error(), "different settings") {
			t.Errorf("%s: merged shards with different settings (%v)", name, err)
		}
	}
}
