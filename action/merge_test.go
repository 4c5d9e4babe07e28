package action

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// shardHarness is a pull request touching both suites, with a task-rich greet suite so shards
// have work to split.
func shardHarness(t *testing.T, event string) *harness {
	h := newHarness(t, event)
	h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}, {"evals/other/eval.yaml", ""}}
	h.input(InBaseline, "none")
	var tasks strings.Builder
	for i := range 12 {
		prompt := "Greet person " + itoa(i)
		if i%4 == 0 {
			prompt = "Bonjour " + itoa(i) // the mock echoes it: fails not_contains
		}
		tasks.WriteString("  - id: t" + itoa(i) + "\n    inputs:\n      prompt: \"" + prompt + "\"\n")
	}
	suite := strings.Replace(h.readFile("evals/greet/eval.yaml"), "  - tasks/*.yaml\n", "  - tasks/*.yaml\n"+tasks.String(), 1)
	suite = strings.Replace(suite, `contains: ["Mock response"]`, `contains: ["Mock response"]`+"\n      not_contains: [\"Bonjour\"]", 1)
	h.write("evals/greet/eval.yaml", suite)
	return h
}

// runShards runs every shard of n in its own job (harness) and returns the results folders, as
// the merge job downloads them.
func runShards(t *testing.T, event string, n int) map[string]map[string][]byte {
	t.Helper()
	out := map[string]map[string][]byte{}
	for i := 1; i <= n; i++ {
		h := shardHarness(t, event)
		h.input(InShard, itoa(i)+"/"+itoa(n))
		if code := h.run(); code != ExitOK {
			t.Fatalf("shard %d: exit %d\n%s", i, code, h.stdout.String())
		}
		if h.gh.called("POST ") != 0 {
			t.Errorf("shard %d wrote to GitHub", i)
		}
		out[DefaultArtifactName+"-shard-"+itoa(i)] = dirFiles(t, filepath.Join(h.ws, ".skillgate"))
	}
	return out
}

func placeShards(t *testing.T, h *harness, shards map[string]map[string][]byte) {
	for artifact, files := range shards {
		for name, data := range files {
			h.write(".skillgate/shards/"+artifact+"/"+name, string(data))
		}
	}
}

// The merge job publishes the shards as one run: one results file per suite equal to an
// unsharded run's, one comment, one check run and the same gate.
func TestMergeModeEqualsAnUnshardedRun(t *testing.T) {
	whole := shardHarness(t, "pull_request.synchronize")
	wholeCode := whole.run()
	shards := runShards(t, "pull_request.synchronize", 3)

	h := shardHarness(t, "pull_request.synchronize")
	h.input(InMode, ModeMerge)
	h.input(InCheckRun, "true")
	placeShards(t, h, shards)
	code := h.run()
	if code != wholeCode || code != ExitFailed {
		t.Fatalf("merge exit %d, unsharded %d (want 1: two greet tasks fail)\n%s", code, wholeCode, h.stdout.String())
	}
	for _, suite := range []string{"greet", "other"} {
		merged, err := results.ReadFile(filepath.Join(h.ws, ".skillgate/results", suite+".json"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := results.ReadFile(filepath.Join(whole.ws, ".skillgate/results", suite+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if merged.Config.Shard == nil || merged.Config.Shard.Index != 0 || merged.Config.Shard.Count != 3 {
			t.Errorf("%s: shard info %+v", suite, merged.Config.Shard)
		}
		if len(merged.Tasks) != len(want.Tasks) {
			t.Fatalf("%s: %d tasks merged, %d unsharded", suite, len(merged.Tasks), len(want.Tasks))
		}
		for i, task := range merged.Tasks {
			if task.ID != want.Tasks[i].ID || task.Status != want.Tasks[i].Status || task.Stats.AvgScore != want.Tasks[i].Stats.AvgScore {
				t.Errorf("%s task %d: %s %s, unsharded %s %s", suite, i, task.ID, task.Status, want.Tasks[i].ID, want.Tasks[i].Status)
			}
		}
		ms, ws := merged.Summary, want.Summary
		ms.DurationMS, ws.DurationMS = 0, 0
		for _, sp := range []**results.Spend{&ms.Spend, &ws.Spend} {
			if *sp != nil {
				c := **sp
				c.AgentMS, c.ReusedMS = 0, 0 // agent time of this machine
				*sp = &c
			}
		}
		a, _ := json.Marshal(ms)
		b, _ := json.Marshal(ws)
		if string(a) != string(b) || merged.Gate.Passed != want.Gate.Passed || len(merged.TriggerResults) != len(want.TriggerResults) {
			t.Errorf("%s: summary %s gate %v, unsharded %s gate %v", suite, a, merged.Gate.Passed, b, want.Gate.Passed)
		}
	}
	if bodies := h.gh.commentBodies(); len(bodies) != 1 || !strings.Contains(bodies[0], "| greet |") || !strings.Contains(bodies[0], "| other |") {
		t.Errorf("comments: %q", bodies)
	}
	if n := h.gh.called("POST /repos/acme/demo/check-runs"); n != 1 {
		t.Errorf("%d check runs", n)
	}
	if out := h.outputs(); out[OutSuitesRun] != `["greet","other"]` || out[OutPassed] != "false" {
		t.Errorf("outputs %v", out)
	}
}

func TestMergeModeRefusesIncompleteShards(t *testing.T) {
	shards := runShards(t, "pull_request.synchronize", 3)
	delete(shards, DefaultArtifactName+"-shard-2")
	h := shardHarness(t, "pull_request.synchronize")
	h.input(InMode, ModeMerge)
	placeShards(t, h, shards)
	if code := h.run(); code != ExitUsage {
		t.Fatalf("exit %d, want 2\n%s", code, h.stdout.String())
	}
	errs := strings.Join(h.annotations("error"), "\n")
	for _, want := range []string{"greet: missing shard(s) 2 of 3", "other: missing shard(s) 2 of 3"} {
		if !strings.Contains(errs, want) {
			t.Errorf("no error %q:\n%s", want, errs)
		}
	}
	if h.gh.called("POST ") != 0 {
		t.Errorf("a refused merge published")
	}

	empty := shardHarness(t, "pull_request.synchronize")
	empty.input(InMode, ModeMerge)
	if code := empty.run(); code != ExitUsage || !strings.Contains(strings.Join(empty.annotations("error"), ""), "no shard results under .skillgate/shards") {
		t.Errorf("no shards: exit %d\n%s", code, empty.stdout.String())
	}
}

// On a fork's pull request the merge job collects: the merged results become the bundle for the
// report workflow, and nothing is written to GitHub.
func TestMergeModeOnAForkCollects(t *testing.T) {
	shards := runShards(t, "pull_request.fork", 2)
	h := shardHarness(t, "pull_request.fork")
	h.input(InMode, ModeMerge)
	placeShards(t, h, shards)
	if code := h.run(); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if h.gh.called("POST ") != 0 {
		t.Errorf("a fork's merge wrote to GitHub")
	}
	var rec PRRecord
	if err := json.Unmarshal([]byte(h.readFile(".skillgate/"+PRFile)), &rec); err != nil {
		t.Fatal(err)
	}
	if len(rec.Suites) != 2 || !rec.NeedsReport {
		t.Errorf("pr.json %+v", rec)
	}
	if _, err := os.Stat(filepath.Join(h.ws, ".skillgate/bundle/tree/shared/answer.txt")); err != nil {
		t.Errorf("the other suite's fixture outside its folder is not in the bundle: %v", err)
	}
	// The merged bundle reads as a valid bundle.
	files := dirFiles(t, filepath.Join(h.ws, ".skillgate"))
	data := zipOf(t, files)
	if _, err := readBundle(bytesReader(data), int64(len(data))); err != nil {
		t.Errorf("the merged bundle: %v", err)
	}
}

// With a baseline artifact, shards split the tasks longest first by its recorded durations and
// record the plan, which every shard computes alike.
func TestShardsUseBaselineDurations(t *testing.T) {
	probe := shardHarness(t, "pull_request.synchronize")
	suite := probe.readFile("evals/greet/eval.yaml")
	files := baselineResults(t, 0, func(ws string) {
		os.WriteFile(filepath.Join(ws, "evals/greet/eval.yaml"), []byte(suite), 0o644)
	})
	var base results.SuiteResult
	if err := json.Unmarshal(files["results/greet.json"], &base); err != nil {
		t.Fatal(err)
	}
	durations := map[string]int64{}
	var ids []string
	for i, task := range base.Tasks {
		task.Stats.AvgDurationMS = int64(1000 * (i + 1))
		durations[task.ID] = task.Stats.AvgDurationMS
		ids = append(ids, task.ID)
	}
	data, err := results.Marshal(&base)
	if err != nil {
		t.Fatal(err)
	}
	files["results/greet.json"] = data
	want := runnerAssign("greet", ids, 2, durations)
	for i := 1; i <= 2; i++ {
		h := shardHarness(t, "pull_request.synchronize")
		h.input(InShard, itoa(i)+"/2")
		h.input(InBaseline, "auto")
		h.gh.runs = append(h.gh.runs, fakeRun{ID: 501, HeadSHA: mergeBaseSHA, HeadRepo: "acme/demo", CreatedAt: timeAgo(2),
			Artifacts: []fakeArtifact{{ID: 9001, Name: DefaultArtifactName, Size: int64(len(zipOf(t, files)))}}})
		h.gh.blobs[9001] = zipOf(t, files)
		h.gh.ancestors = []string{mergeBaseSHA}
		if code := h.run(); code != ExitOK {
			t.Fatalf("exit %d\n%s", code, h.stdout.String())
		}
		res, err := results.ReadFile(filepath.Join(h.ws, ".skillgate/results/greet.json"))
		if err != nil {
			t.Fatal(err)
		}
		if sh := res.Config.Shard; sh == nil || sh.Method != "durations" || sh.Plan != want.Plan {
			t.Fatalf("shard %d: %+v, want plan %s", i, sh, want.Plan)
		}
		for _, task := range res.Tasks {
			if ran := !results.ShardSkipped(task); ran != (want.Owner[task.ID] == i) {
				t.Errorf("shard %d: task %s ran=%v, but its shard is %d", i, task.ID, ran, want.Owner[task.ID])
			}
		}
		if !strings.Contains(h.stdout.String(), "split longest first by the durations of artifact") {
			t.Errorf("no log line about the split:\n%s", h.stdout.String())
		}
	}
}

func runnerAssign(suite string, ids []string, n int, d map[string]int64) runner.Assignment {
	return runner.AssignTasks(suite, ids, n, d)
}

func timeAgo(hours int) time.Time { return time.Now().Add(-time.Duration(hours) * time.Hour) }

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
