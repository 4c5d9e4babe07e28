package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
	"github.com/skillgate/skillgate/results"
)

// mockSuites writes suites under the mock executor: each name gets an eval.yaml with four tasks
// (a, b, c, d) and a grader every mock run passes.
func mockSuites(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{}
	for _, name := range names {
		files[name+"/eval.yaml"] = "name: " + name + "\nconfig:\n  executor: mock\n  trials_per_task: 1\n" +
			"graders:\n  - type: text\n    name: answered\n    config:\n      regex_match: [\".\"]\ntasks:\n  - tasks/*.yaml\n"
		for _, id := range []string{"a", "b", "c", "d"} {
			files[name+"/tasks/"+id+".yaml"] = "id: " + id + "\ninputs:\n  prompt: \"Task " + id + "\"\n"
		}
	}
	testtree.Write(t, dir, files)
	return dir
}

// evaluate loads paths with s and evaluates the plan, publishing into a new folder.
func evaluate(t *testing.T, paths []string, s Settings) (*Plan, *Outcome) {
	t.Helper()
	if s.OutDir == "" {
		s.OutDir = t.TempDir()
	}
	plan, err := Load(paths, s)
	if err != nil || plan.Diags.HasErrors() {
		t.Fatalf("load: %v %v", err, plan.Diags)
	}
	out, err := Evaluate(context.Background(), plan, &Options{OutDir: s.OutDir})
	if err != nil {
		t.Fatalf("evaluate: %v", err)
	}
	return plan, out
}

// One evaluation for every adapter: a plan runs, each suite is compared with the baseline its
// source finds, and the reports are written; a plan of results already written compares and
// publishes them the same way without running anything.
func TestEvaluateRunsComparesAndPublishes(t *testing.T) {
	dir := mockSuites(t, "demo")
	base := t.TempDir()
	evaluate(t, []string{dir}, Settings{OutDir: base})
	head := t.TempDir()
	_, out := evaluate(t, []string{dir}, Settings{OutDir: head, Baselines: Locations{base}})
	if len(out.Heads) != 1 || out.Heads[0].File != results.PathIn(head, "demo") {
		t.Fatalf("heads %+v", out.Heads)
	}
	if b := out.Heads[0].Base; b == nil || b.File != results.PathIn(base, "demo") {
		t.Errorf("baseline %+v, want the --baseline folder's results", b)
	}
	if c := out.Input.Suites[0].Comparison; c == nil {
		t.Errorf("no comparison with the baseline")
	}
	if !fileExists(filepath.Join(head, "comment.md")) {
		t.Errorf("no reports written")
	}

	res, err := results.ReadFile(results.PathIn(head, "demo"))
	if err != nil {
		t.Fatal(err)
	}
	again := t.TempDir()
	published, err := Evaluate(context.Background(), Results([]Head{{Result: res, File: results.PathIn(head, "demo")}}, Settings{Baselines: Locations{base}}), &Options{OutDir: again})
	if err != nil || published.Input.Suites[0].Comparison == nil || !fileExists(filepath.Join(again, "comment.md")) {
		t.Errorf("results plan: %v %+v", err, published)
	}
	if published.Vars.Verdict != out.Vars.Verdict {
		t.Errorf("verdict %s from the results, %s from the run", published.Vars.Verdict, out.Vars.Verdict)
	}
}

// A shard is split longest first by the durations of the baseline its source finds as the
// suites load, runs with that split, confirms against that baseline, and compares nothing.
func TestShardSplitsByTheBaselinesDurations(t *testing.T) {
	dir := mockSuites(t, "demo")
	base := t.TempDir()
	_, out := evaluate(t, []string{dir}, Settings{OutDir: base})
	res := out.Heads[0].Result
	for i, task := range res.Tasks {
		task.Stats.AvgDurationMS = int64(1000 * (i + 1))
	}
	if err := results.WriteFile(results.PathIn(base, "demo"), res); err != nil {
		t.Fatal(err)
	}
	plan, shard := evaluate(t, []string{dir}, Settings{Shard: &Shard{Index: 1, Count: 2}, Baselines: Locations{base}})
	split, byDurations := plan.Suites[0].Split()
	if split == nil || split.File != results.PathIn(base, "demo") || !byDurations {
		t.Fatalf("split %+v by durations %v", split, byDurations)
	}
	got := shard.Heads[0].Result.Config.Shard
	if got == nil || got.Method != "durations" || got.Plan == "" {
		t.Errorf("shard %+v, want split by durations", got)
	}
	if shard.Heads[0].Base != split {
		t.Errorf("the shard's confirmation baseline is not its split's")
	}
	if c := shard.Input.Suites[0].Comparison; c != nil {
		t.Errorf("a shard compared: %+v", c)
	}
	// Without a baseline: by hash.
	plan, shard = evaluate(t, []string{dir}, Settings{Shard: &Shard{Index: 1, Count: 2}})
	if split, _ := plan.Suites[0].Split(); split != nil || shard.Heads[0].Result.Config.Shard.Method != "hash" {
		t.Errorf("no baseline: split %+v, shard %+v", split, shard.Heads[0].Result.Config.Shard)
	}
}

// A suite with errors does not run and the run cannot pass; choosing the suites that run (a pull
// request's changed-only) does not change that.
func TestBrokenSuiteStaysBrokenWhenOthersAreChosen(t *testing.T) {
	dir := mockSuites(t, "good", "bad")
	testtree.Write(t, dir, map[string]string{"bad/eval.yaml": "name: bad\nconfig:\n  executor: nowhere\ntasks:\n  - tasks/*.yaml\n"})
	plan, err := Load([]string{dir}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Suites) != 1 || !plan.Broken() || plan.Stopped() || !strings.Contains(plan.BrokenLine(), "bad") {
		t.Fatalf("suites %d broken %v stopped %v: %s", len(plan.Suites), plan.Broken(), plan.Stopped(), plan.BrokenLine())
	}
	if none := plan.Only(nil); !none.Broken() || none.Stopped() {
		t.Errorf("after choosing no suite: broken %v stopped %v", none.Broken(), none.Stopped())
	}
	problems := plan.Problems()
	if len(problems) == 0 || problems[0].Warning || !strings.HasSuffix(problems[0].File, filepath.Join("bad", "eval.yaml")) || problems[0].Line == 0 {
		t.Errorf("problems %+v", problems)
	}
}

// The confirmation budget is the job's: a shard spends its share of the matrix's.
func TestConfirmBudgetOfAShard(t *testing.T) {
	tests := []struct {
		runs  int
		shard *Shard
		want  int
	}{
		{40, nil, 40},
		{40, &Shard{Index: 1, Count: 3}, 14},
		{40, &Shard{Index: 1, Count: 1}, 40},
		{-1, &Shard{Index: 2, Count: 4}, -1}, // the default scales with the shard's own runs
		{0, &Shard{Index: 2, Count: 4}, 0},
	}
	for _, tt := range tests {
		p := &Plan{settings: Settings{ConfirmRuns: tt.runs, Shard: tt.shard}}
		if got := p.confirmRuns(); got != tt.want {
			t.Errorf("%d runs, shard %v: %d, want %d", tt.runs, tt.shard, got, tt.want)
		}
	}
}

// --baseline names results to compare with: a file of a suite the run does not have is an error
// once the run is known, not while a shard's split asks suite by suite.
func TestLocationsRefuseAFileOfNoSuite(t *testing.T) {
	file := filepath.Join(t.TempDir(), "other.json")
	if err := results.WriteFile(file, &results.SuiteResult{EvalName: "other", Tasks: []*results.TaskResult{}}); err != nil {
		t.Fatal(err)
	}
	q := Query{Suites: []Wanted{{Name: "demo"}, {Name: "more"}}, Total: 2}
	if _, err := (Locations{file}).Baselines(context.Background(), q); err == nil || !strings.Contains(err.Error(), "not among the results") {
		t.Errorf("after the run: %v", err)
	}
	q.BeforeRun = true
	found, err := (Locations{file}).Baselines(context.Background(), q)
	if err != nil || found["demo"] == nil || found["demo"].Result != nil {
		t.Errorf("before the run: %v %+v", err, found)
	}
}

func fileExists(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular()
}
