package action

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// durationsArtifact is the base branch's results artifact for shardHarness's suites, with
// distinct recorded task durations, and those durations by suite name.
func durationsArtifact(t *testing.T) (map[string][]byte, map[string]map[string]int64) {
	t.Helper()
	probe := shardHarness(t, "pull_request.synchronize")
	suite := probe.readFile("evals/greet/eval.yaml")
	files := baselineResults(t, 0, func(ws string) {
		os.WriteFile(filepath.Join(ws, "evals/greet/eval.yaml"), []byte(suite), 0o644)
	})
	durations := map[string]map[string]int64{}
	for name, data := range files {
		if !strings.HasPrefix(name, "results/") || !strings.HasSuffix(name, ".json") {
			continue
		}
		var res results.SuiteResult
		if err := json.Unmarshal(data, &res); err != nil {
			t.Fatal(err)
		}
		for i, task := range res.Tasks {
			if task.Stats != nil {
				task.Stats.AvgDurationMS = int64(1000 * (len(res.Tasks) - i))
			}
		}
		if data, err := results.Marshal(&res); err != nil {
			t.Fatal(err)
		} else {
			files[name] = data
		}
		durations[res.EvalName] = runner.TaskDurations(&res)
	}
	return files, durations
}

// offerArtifact makes the artifact the baseline of h's pull request.
func offerArtifact(t *testing.T, h *harness, files map[string][]byte) {
	zip := zipOf(t, files)
	h.gh.runs = append(h.gh.runs, fakeRun{ID: 501, HeadSHA: mergeBaseSHA, HeadRepo: "acme/demo", CreatedAt: timeAgo(2),
		Artifacts: []fakeArtifact{{ID: 9001, Name: DefaultArtifactName, Size: int64(len(zip))}}})
	h.gh.blobs[9001] = zip
	h.gh.ancestors = []string{mergeBaseSHA}
}

// taskView is what a shard's results say of a task, without the run's timing.
type taskView struct {
	ID, Name, SkipReason, DefinitionHash, GradersHash, Group string
	Status                                                   results.Status
	Tags                                                     []string
	Trials, Passed                                           int
}

func viewTasks(res *results.SuiteResult) []taskView {
	var out []taskView
	for _, task := range res.Tasks {
		v := taskView{ID: task.ID, Name: task.Name, SkipReason: task.SkipReason, DefinitionHash: task.DefinitionHash,
			GradersHash: task.GradersHash, Group: task.Group, Status: task.Status, Tags: task.Tags}
		if task.Stats != nil {
			v.Trials, v.Passed = task.Stats.Trials, task.Stats.PassedTrials
		}
		out = append(out, v)
	}
	return out
}

// A shard job loads only its own tasks, splitting as it did when it loaded every task: longest
// first by the baseline's durations (the artifact downloaded once), whichever method found it.
// Its results equal those of a shard that loaded every suite in full.
func TestShardJobLoadsItsOwnTasks(t *testing.T) {
	files, durations := durationsArtifact(t)
	tests := []struct {
		name, baseline, source string
		offer                  func(h *harness)
	}{
		{"artifact", "auto", "artifact", func(h *harness) { offerArtifact(t, h, files) }},
		{"committed", "auto", "evals/greet/baseline.json", func(h *harness) {
			h.write("evals/greet/baseline.json", string(files["results/greet.json"]))
			h.write("evals/other/baseline.json", string(files["results/other.json"]))
		}},
		{"file input", "file:base", "base/results/greet.json", func(h *harness) {
			for name, data := range files {
				h.write("base/"+name, string(data))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := 1; i <= 2; i++ {
				h := shardHarness(t, "pull_request.synchronize")
				h.input(InShard, itoa(i)+"/2")
				h.input(InBaseline, tt.baseline)
				tt.offer(h)
				if code := h.run(); code != ExitOK {
					t.Fatalf("shard %d: exit %d\n%s", i, code, h.stdout.String())
				}
				if n, want := h.gh.called("GET /repos/acme/demo/actions/artifacts/9001/zip"), len(h.gh.blobs); n != want {
					t.Errorf("shard %d: the baseline artifact was downloaded %d times, want %d", i, n, want)
				}
				if !strings.Contains(h.stdout.String(), "of greet: tasks split longest first by the durations of "+tt.source) {
					t.Errorf("shard %d: no log line about the split:\n%s", i, h.stdout.String())
				}
				compareFullLoadShard(t, h, runner.Shard{Index: i, Count: 2}, durations)
			}
		})
	}
}

// compareFullLoadShard runs the shard of h's suites loaded in full, as the job did before it
// loaded only its own tasks, and compares its results with the job's.
func compareFullLoadShard(t *testing.T, h *harness, shard runner.Shard, durations map[string]map[string]int64) {
	t.Helper()
	prepared, diags, err := runner.LoadSuites([]string{filepath.Join(h.ws, "evals")}, "")
	if err != nil || diags.HasErrors() {
		t.Fatalf("full load: %v %v", err, diags)
	}
	ref, err := runner.RunSuites(context.Background(), prepared, runner.SuitesOptions{
		Run: runner.Options{Shard: &shard}, ShardDurations: durations, OutDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.Results) != 2 {
		t.Fatalf("shard %s: %d suites in the full-load run", shard, len(ref.Results))
	}
	for _, want := range ref.Results {
		got, err := results.ReadFile(results.PathIn(filepath.Join(h.ws, ".skillgate"), want.EvalName))
		if err != nil {
			t.Fatal(err)
		}
		if g, w := got.Config.Shard, want.Config.Shard; g == nil || w == nil || *g != *w {
			t.Errorf("shard %s, %s: split %+v, full load %+v", shard, want.EvalName, g, w)
		} else if want.EvalName == "greet" && g.Method != "durations" {
			t.Errorf("shard %s: greet split by %s, want durations", shard, g.Method)
		}
		if g, w := mustJSON(t, viewTasks(got)), mustJSON(t, viewTasks(want)); g != w {
			t.Errorf("shard %s, %s: tasks\n%s\nfull load\n%s", shard, want.EvalName, g, w)
		}
		// The baseline of a suite that ran is kept next to the results, as before.
		if _, err := os.Stat(results.PathIn(filepath.Join(h.ws, ".skillgate", baselineDir), want.EvalName)); err != nil {
			t.Errorf("shard %s: baseline of %s not kept: %v", shard, want.EvalName, err)
		}
	}
}

// A task that fails validation fails only the job of the shard that runs it; the other shard's
// job runs its own tasks and records the broken one as another shard's.
func TestShardJobLeavesOtherShardsProblems(t *testing.T) {
	const n = 2
	owner := runner.AssignTasks("greet", []string{"broken"}, n, nil).Owner["broken"]
	for i := 1; i <= n; i++ {
		h := shardHarness(t, "pull_request.synchronize")
		h.write("evals/greet/tasks/broken.yaml", "id: broken\ninputs:\n  prompt: Greet the broken one\ngraders:\n  - {type: text, name: bad, config: {regex_match: [\"(unclosed\"]}}\n")
		h.input(InShard, itoa(i)+"/"+itoa(n))
		code := h.run()
		errs := strings.Join(h.annotations("error"), "\n")
		if i == owner {
			if code != ExitFailed || !strings.Contains(errs, "broken.yaml") {
				t.Errorf("shard %d owns the broken task: exit %d, errors %s", i, code, errs)
			}
			continue
		}
		if code != ExitOK || strings.Contains(errs, "broken.yaml") {
			t.Fatalf("shard %d: exit %d, errors %s\n%s", i, code, errs, h.stdout.String())
		}
		res, err := results.ReadFile(filepath.Join(h.ws, ".skillgate/results/greet.json"))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, task := range res.Tasks {
			if task.ID == "broken" {
				found = true
				if task.SkipReason != results.ShardSkipReason(owner, n) {
					t.Errorf("shard %d: the broken task's record %+v", i, task)
				}
			}
		}
		if !found {
			t.Errorf("shard %d: no record of the broken task", i)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
