package runner

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in   string
		want Shard
		err  string
	}{
		{"1/1", Shard{1, 1}, ""},
		{"2/4", Shard{2, 4}, ""},
		{" 3 / 3 ", Shard{3, 3}, ""},
		{"256/256", Shard{256, 256}, ""},
		{"0/4", Shard{}, "index must be from 1 to 4"},
		{"5/4", Shard{}, "index must be from 1 to 4"},
		{"1/0", Shard{}, "count must be from 1"},
		{"1/257", Shard{}, "count must be from 1 to 256"},
		{"2", Shard{}, "not i/n"},
		{"a/b", Shard{}, "not i/n"},
		{"", Shard{}, "not i/n"},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.in)
		switch {
		case tt.err == "" && (err != nil || got != tt.want):
			t.Errorf("ParseShard(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseShard(%q) error %v, want %q", tt.in, err, tt.err)
		}
	}
}

// Every task lands in exactly one shard, whatever the sizes, and the split does not depend on
// the order the tasks are listed in or on the other tasks (hash) — so separate jobs agree.
func TestAssignTasksIsStableAndComplete(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 7, 10, 31, 100, 257, 1000} {
		ids := make([]string, n)
		durations := map[string]int64{}
		for i := range ids {
			ids[i] = fmt.Sprintf("task-%03d", i)
			if i%3 != 0 { // a third of the tasks are new: they count as the mean
				durations[ids[i]] = int64(100 + (i*7919)%5000)
			}
		}
		reversed := make([]string, n)
		for i, id := range ids {
			reversed[n-1-i] = id
		}
		for _, count := range []int{1, 2, 3, 4, 8, 16, 256} {
			for _, d := range []map[string]int64{nil, durations} {
				a := AssignTasks("suite", ids, count, d)
				b := AssignTasks("suite", reversed, count, d)
				if !reflect.DeepEqual(a, b) {
					t.Fatalf("n=%d count=%d durations=%t: the split depends on the task order", n, count, d != nil)
				}
				perShard := make([]int, count+1)
				for _, id := range ids {
					s := a.Owner[id]
					if s < 1 || s > count {
						t.Fatalf("n=%d count=%d: task %s in shard %d", n, count, id, s)
					}
					perShard[s]++
				}
				total := 0
				for _, c := range perShard {
					total += c
				}
				if total != n || len(a.Owner) != n {
					t.Fatalf("n=%d count=%d: %d assignments for %d tasks", n, count, len(a.Owner), n)
				}
				wantMethod := ShardByHash
				if d != nil && n > 1 {
					wantMethod = ShardByDurations
				}
				if n > 1 && a.Method != wantMethod {
					t.Errorf("n=%d durations=%t: method %s", n, d != nil, a.Method)
				}
			}
		}
	}
	// Hashing keeps a task's shard when other tasks come and go.
	few := AssignTasks("suite", []string{"a", "b", "c"}, 4, nil)
	more := AssignTasks("suite", []string{"x", "a", "y", "b", "z", "c"}, 4, nil)
	for _, id := range []string{"a", "b", "c"} {
		if few.Owner[id] != more.Owner[id] {
			t.Errorf("task %s moved from shard %d to %d when tasks were added", id, few.Owner[id], more.Owner[id])
		}
	}
	// The suite is part of the hash: two suites do not pile their tasks into the same shards.
	if reflect.DeepEqual(AssignTasks("one", idsN(40), 4, nil).Owner, AssignTasks("two", idsN(40), 4, nil).Owner) {
		t.Errorf("the suite name does not change the split")
	}
}

func idsN(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("t%d", i)
	}
	return out
}

func TestAssignTasksLongestFirst(t *testing.T) {
	d := map[string]int64{"a": 100, "b": 90, "c": 50, "d": 40, "e": 10}
	got := AssignTasks("s", []string{"e", "d", "c", "b", "a", "new"}, 2, d)
	// a→1 (100) b→2 (90) new→2 (mean 58: 148) c→1 (150) d→2 (188) e→1 (160)
	want := map[string]int{"a": 1, "b": 2, "new": 2, "c": 1, "d": 2, "e": 1}
	if !reflect.DeepEqual(got.Owner, want) {
		t.Errorf("owners %v, want %v", got.Owner, want)
	}
	if got.Method != ShardByDurations || !strings.HasPrefix(got.Plan, "sha256:") {
		t.Errorf("method %s plan %s", got.Method, got.Plan)
	}
	other := AssignTasks("s", []string{"e", "d", "c", "b", "a", "new"}, 2, map[string]int64{"a": 100, "b": 91, "c": 50, "d": 40, "e": 10})
	if other.Plan == got.Plan {
		t.Errorf("different durations give the same plan")
	}
	// Balanced: the heaviest shard carries no more than the lightest plus the longest task.
	many := map[string]int64{}
	var ids []string
	for i := range 200 {
		id := fmt.Sprintf("t%d", i)
		ids = append(ids, id)
		many[id] = int64(1 + (i*i*31)%997)
	}
	a := AssignTasks("s", ids, 7, many)
	load := make([]int64, 8)
	for id, s := range a.Owner {
		load[s] += many[id]
	}
	lo, hi := load[1], load[1]
	for _, l := range load[1:] {
		lo, hi = min(lo, l), max(hi, l)
	}
	if hi-lo > 997 {
		t.Errorf("unbalanced split: loads %v", load[1:])
	}
}

// shardSuite has tasks that pass and fail and trigger prompts, so every merged figure is
// exercised.
func shardSuite(t *testing.T) *spec.Suite {
	var tasks []*spec.Task
	for i := range 23 {
		want := "hello"
		if i%5 == 0 {
			want = "nope"
		}
		tasks = append(tasks, task(fmt.Sprintf("t%02d", i), fmt.Sprintf("say hello %d demo-skill", i), grader(t, "g", "want: "+want)))
	}
	s := suite(t.TempDir(), tasks...)
	s.Config.TrialsPerTask = 2
	var should, shouldNot []*spec.TriggerPrompt
	for i := range 9 {
		should = append(should, &spec.TriggerPrompt{ID: fmt.Sprintf("s%d", i), Prompt: "use demo-skill please", ShouldTrigger: true, Pos: spec.Pos{File: "/repo/t.yaml", Line: 10 + i}})
		shouldNot = append(shouldNot, &spec.TriggerPrompt{ID: fmt.Sprintf("n%d", i), Prompt: "unrelated", Pos: spec.Pos{File: "/repo/t.yaml", Line: 2 + i}})
	}
	s.TriggerTests = &spec.TriggerTests{Skill: "demo-skill", ShouldTrigger: should, ShouldNot: shouldNot}
	s.Metrics = []*spec.Metric{{Name: results.MetricTaskCompletion, Threshold: 0.5, Weight: 1, Enabled: true}, {Name: results.MetricTriggerAccuracy, Threshold: 0.9, Weight: 1, Enabled: true}}
	return s
}

// comparable strips what differs between two runs of the same work (timings, ids).
func comparable(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	json.Unmarshal(data, &generic)
	var strip func(any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if strings.Contains(k, "duration") {
					delete(x, k)
					continue
				}
				strip(val)
			}
		case []any:
			for _, val := range x {
				strip(val)
			}
		}
	}
	strip(generic)
	out, _ := json.Marshal(generic)
	return string(out)
}

// Merging the shards of a run gives the unsharded run's results: same tasks, trigger results,
// summary, metrics and gate — for hash and duration splits and several shard counts.
func TestMergedShardsEqualUnshardedRun(t *testing.T) {
	s := shardSuite(t)
	whole := run(t, s, Options{})
	durations := TaskDurations(whole)
	for id := range durations {
		durations[id] = int64(len(id)*37 + int(id[len(id)-1]))
	}
	for _, count := range []int{1, 2, 3, 5} {
		for _, d := range []map[string]int64{nil, durations} {
			t.Run(fmt.Sprintf("%d shards, durations %t", count, d != nil), func(t *testing.T) {
				var parts []*results.SuiteResult
				ran := map[string]int{}
				for i := 1; i <= count; i++ {
					res := run(t, s, Options{Shard: &Shard{i, count}, ShardDurations: d})
					if res.Config.Shard == nil || res.Config.Shard.Index != i || res.Config.Shard.Count != count {
						t.Fatalf("shard not recorded: %+v", res.Config.Shard)
					}
					for _, task := range res.Tasks {
						if results.ShardSkipped(task) {
							continue
						}
						ran[task.ID]++
					}
					parts = append(parts, res)
				}
				for _, task := range s.Tasks {
					if ran[task.ID] != 1 {
						t.Errorf("task %s ran in %d shards", task.ID, ran[task.ID])
					}
				}
				// Shards may come in any order.
				parts[0], parts[len(parts)-1] = parts[len(parts)-1], parts[0]
				merged := mergeLikeWhole(t, parts, whole)
				if merged.Config.Shard == nil || merged.Config.Shard.Index != 0 || merged.Config.Shard.Count != count {
					t.Errorf("merged shard info %+v", merged.Config.Shard)
				}
			})
		}
	}
}

func TestShardSkipsAreLabelled(t *testing.T) {
	s := shardSuite(t)
	res := run(t, s, Options{Shard: &Shard{2, 3}, TaskGlobs: []string{"t0*"}})
	a := AssignTasks(s.Name, idsOf(s), 3, nil)
	for _, task := range res.Tasks {
		owner := a.Owner[task.ID]
		switch {
		case owner != 2 && task.SkipReason != results.ShardSkipReason(owner, 3):
			t.Errorf("%s (shard %d): skip reason %q", task.ID, owner, task.SkipReason)
		case owner == 2 && !strings.HasPrefix(task.ID, "t0") && !strings.HasPrefix(task.SkipReason, "filtered:"):
			t.Errorf("%s: the filter did not apply in its own shard: %q", task.ID, task.SkipReason)
		case owner == 2 && strings.HasPrefix(task.ID, "t0") && task.Status == results.StatusSkipped:
			t.Errorf("%s: skipped in its own shard: %q", task.ID, task.SkipReason)
		}
	}
	for _, tr := range res.TriggerResults {
		if TriggerShard(s.Name, tr.ID, 3) != 2 {
			t.Errorf("trigger prompt %s ran in shard 2", tr.ID)
		}
	}
}

func idsOf(s *spec.Suite) []string {
	var ids []string
	for _, t := range s.Tasks {
		ids = append(ids, t.ID)
	}
	return ids
}

func TestMergeRefusesMismatchedShards(t *testing.T) {
	s := shardSuite(t)
	one := run(t, s, Options{Shard: &Shard{1, 3}})
	two := run(t, s, Options{Shard: &Shard{2, 3}})
	three := run(t, s, Options{Shard: &Shard{3, 3}})
	other := shardSuite(t)
	other.Name = "other"
	otherTwo := run(t, other, Options{Shard: &Shard{2, 3}})
	commit := func(res *results.SuiteResult, sha string) *results.SuiteResult {
		c := *res
		p := *res.Provenance
		p.GitCommit = sha
		c.Provenance = &p
		return &c
	}
	unsharded := run(t, s, Options{})
	durations := map[string]int64{"t01": 500}
	planned := run(t, s, Options{Shard: &Shard{2, 3}, ShardDurations: durations})
	tests := []struct {
		name  string
		parts []*results.SuiteResult
		want  string
	}{
		{"missing shards are named", []*results.SuiteResult{two}, "missing shard(s) 1, 3 of 3"},
		{"different suites", []*results.SuiteResult{one, otherTwo, three}, `different suites`},
		{"different commits", []*results.SuiteResult{commit(one, "aaa"), commit(two, "bbb"), commit(three, "aaa")}, `different commits: shard 2 "bbb", shard 1 "aaa"`},
		{"twice", []*results.SuiteResult{one, two, two, three}, "shard 2 given twice"},
		{"not a shard", []*results.SuiteResult{one, unsharded}, "not a shard"},
		{"different plans", []*results.SuiteResult{one, planned, three}, "different task assignments"},
		{"nothing", nil, "no shard results"},
	}
	for _, tt := range tests {
		_, err := results.Merge(tt.parts)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	merged, err := results.Merge([]*results.SuiteResult{three, one, two})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := results.Merge([]*results.SuiteResult{merged}); err == nil || !strings.Contains(err.Error(), "already merged") {
		t.Errorf("merging merged results: %v", err)
	}
}

// BenchmarkAssignTasks splits 10,000 tasks between 16 shards, by hash and longest first.
func BenchmarkAssignTasks(b *testing.B) {
	ids := make([]string, 10000)
	d := map[string]int64{}
	for i := range ids {
		ids[i] = fmt.Sprintf("task-%05d", i)
		d[ids[i]] = int64(1 + (i*7919)%60000)
	}
	for _, c := range []struct {
		name string
		d    map[string]int64
	}{{"hash", nil}, {"durations", d}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				AssignTasks("bench", ids, 16, c.d)
			}
		})
	}
}

// The report mode's options: no hook runs, listed tasks are skipped with their reason, and
// locations are relative to the given root.
func TestSkipHooksSkipAndRepoRoot(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log.txt")
	s := suite(filepath.Join(dir, "evals/x"), task("a", "hello", grader(t, "g", "want: hello")), task("b", "hello"))
	s.Tasks[0].Pos = spec.Pos{File: filepath.Join(dir, "evals/x/tasks/a.yaml"), Line: 2, Col: 1}
	s.Hooks = spec.Hooks{BeforeRun: []*spec.Hook{{Command: "echo ran >> " + log}}, BeforeTask: []*spec.Hook{{Command: "exit 1", ErrorOnFail: true}}}
	res := run(t, s, Options{SkipHooks: true, Skip: map[string]string{"b": "not run: fail_fast stopped the suite"}, RepoRoot: dir})
	if _, err := os.Stat(log); err == nil {
		t.Errorf("a hook ran")
	}
	if res.Tasks[0].Status != results.StatusPassed || res.Tasks[1].Status != results.StatusSkipped || res.Tasks[1].SkipReason != "not run: fail_fast stopped the suite" {
		t.Errorf("tasks: %s %s %q", res.Tasks[0].Status, res.Tasks[1].Status, res.Tasks[1].SkipReason)
	}
	if loc := res.Tasks[0].Source; loc == nil || loc.File != "evals/x/tasks/a.yaml" {
		t.Errorf("location %+v", loc)
	}
	if res.Provenance.GitCommit != "" {
		t.Errorf("the git state was read under a given root: %q", res.Provenance.GitCommit)
	}
}

// mergeLikeWhole merges shards' results and checks the merge says what the unsharded run said:
// tasks, trigger results and metrics, summary, metrics, gate and suite hash.
func mergeLikeWhole(t *testing.T, parts []*results.SuiteResult, whole *results.SuiteResult) *results.SuiteResult {
	t.Helper()
	merged, err := results.Merge(parts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"tasks", merged.Tasks, whole.Tasks},
		{"trigger results", merged.TriggerResults, whole.TriggerResults},
		{"trigger metrics", merged.TriggerMetrics, whole.TriggerMetrics},
		{"summary", merged.Summary, whole.Summary},
		{"metrics", merged.Metrics, whole.Metrics},
		{"gate", merged.Gate, whole.Gate},
		{"suite hash", merged.Provenance.SuiteHash, whole.Provenance.SuiteHash},
	} {
		if g, w := comparable(t, c.got), comparable(t, c.want); g != w {
			t.Errorf("%s differ:\nmerged    %.600s\nunsharded %.600s", c.what, g, w)
		}
	}
	return merged
}

// A baseline read in passes (a large file: results.OpenFile) gives the durations of the same
// file read whole, so a shard split by durations does not fall back to hashing.
func TestTaskDurationsOfAFileReadInPasses(t *testing.T) {
	whole := run(t, shardSuite(t), Options{})
	for i, task := range whole.Tasks {
		task.Stats.AvgDurationMS = int64(100 + i)
	}
	path := filepath.Join(t.TempDir(), "base.json")
	if err := results.WriteFile(path, whole); err != nil {
		t.Fatal(err)
	}
	streamed, err := results.OpenFileWith(path, results.OpenOptions{Resident: -1})
	if err != nil {
		t.Fatal(err)
	}
	if !streamed.Streamed() || streamed.Tasks != nil {
		t.Fatal("the file was read whole")
	}
	got, want := TaskDurations(streamed), TaskDurations(whole)
	if len(want) != len(whole.Tasks) || !reflect.DeepEqual(got, want) {
		t.Errorf("durations read in passes %v, read whole %v", got, want)
	}
}
