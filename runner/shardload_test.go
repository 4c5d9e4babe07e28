package runner

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/results"
)

// writeFiles writes name → content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// shardLoadSuite writes a suite of task files that pass and fail, with input files, a
// duplicate id, a disabled task, a flow-style file, an inline task, trigger prompts and metrics.
func shardLoadSuite(t *testing.T) string {
	dir := t.TempDir()
	files := map[string]string{
		"eval.yaml": `name: shardload
skill: demo-skill
config:
  trials_per_task: 2
graders:
  - type: text
    name: says
    config: {contains: ["Mock response"]}
metrics:
  - name: task_completion
    threshold: 0.5
  - name: trigger_accuracy
    threshold: 0.5
tasks:
  - tasks/*.yaml
  - id: inline
    inputs: {prompt: "inline demo-skill"}
`,
		"trigger_tests.yaml": `skill: demo-skill
should_trigger_prompts:
  - {id: s1, prompt: use demo-skill}
  - {id: s2, prompt: demo-skill now}
should_not_trigger_prompts:
  - {id: n1, prompt: unrelated}
  - {id: n2, prompt: other}
`,
		"fixtures/in.txt":   "input\n",
		"tasks/dup.yaml":    "id: t03\ninputs:\n  prompt: the second t03\n",
		"tasks/off.yaml":    "id: off\nenabled: false\ninputs:\n  prompt: never\n",
		"tasks/flow.yaml":   "{id: flow, tags: [x], inputs: {prompt: flow style}}\n",
		"tasks/byname.yaml": "inputs:\n  prompt: named by its file\n",
	}
	for i := range 17 {
		want := "Mock response"
		if i%4 == 0 {
			want = "never said"
		}
		files[fmt.Sprintf("tasks/t%02d.yaml", i)] = fmt.Sprintf(`id: t%02d
name: Task %d
tags: [group-%d]
inputs:
  prompt: "Explain item %d."
  files:
    - path: in.txt
    - path: own-%02d.txt
graders:
  - type: text
    name: own
    config: {contains: [%q]}
`, i, i, i%3, i, i, want)
		files[fmt.Sprintf("fixtures/own-%02d.txt", i)] = fmt.Sprintf("input of t%02d\n", i)
	}
	writeFiles(t, dir, files)
	return dir
}

func loadOne(t *testing.T, dir string, o LoadOptions) *Prepared {
	t.Helper()
	prepared, diags, err := LoadSuitesWith([]string{dir}, o)
	if err != nil || diags.HasErrors() || len(prepared) != 1 {
		t.Fatalf("load: %v %v (%d suites)", err, diags, len(prepared))
	}
	return prepared[0]
}

func runPrepared(t *testing.T, p *Prepared, opts Options) *results.SuiteResult {
	t.Helper()
	opts.Executor, opts.Graders = agent.Mock{}, p.Graders
	opts.WorkspaceRoot = t.TempDir()
	opts.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	res, err := Run(context.Background(), p.Suite, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A shard that loads only its own tasks writes the results a shard that loads everything
// writes (skipped records, hashes, suite hash, config and all), and its shards merge into the
// unsharded run — by hash and longest first, for several shard counts.
func TestShardLoadsOnlyItsTasksWithTheSameResults(t *testing.T) {
	dir := shardLoadSuite(t)
	fullLoad := loadOne(t, dir, LoadOptions{})
	whole := runPrepared(t, fullLoad, Options{})
	durations := map[string]int64{}
	for i, task := range fullLoad.Suite.Tasks {
		durations[task.ID] = int64(100 + (i*7919)%1000)
	}
	for _, count := range []int{2, 3, 5} {
		for _, d := range []map[string]int64{nil, durations} {
			t.Run(fmt.Sprintf("%d shards, durations %t", count, d != nil), func(t *testing.T) {
				var parts []*results.SuiteResult
				unvalidated := 0
				for i := 1; i <= count; i++ {
					shard := &Shard{i, count}
					var asked []string
					p := loadOne(t, dir, LoadOptions{Shard: shard, ShardDurations: func(suite, at string, suites int) map[string]int64 {
						if at != dir {
							t.Errorf("durations asked for the suite in %s, not %s", at, dir)
						}
						asked = append(asked, fmt.Sprintf("%s/%d", suite, suites))
						return d
					}})
					if strings.Join(asked, ",") != "shardload/1" {
						t.Errorf("durations asked for %v", asked)
					}
					for _, task := range p.Suite.Tasks {
						if task.Unvalidated {
							unvalidated++
						}
					}
					opts := Options{Shard: shard, ShardDurations: d}
					got := runPrepared(t, p, opts)
					want := runPrepared(t, fullLoad, opts)
					if g, w := comparable(t, got), comparable(t, want); g != w {
						t.Errorf("shard %d: results differ from a full load's:\nshard load %.900s\nfull load  %.900s", i, g, w)
					}
					parts = append(parts, got)
				}
				// Every task of the others' is left unloaded, bar the inline one and the file of
				// the disabled task, which every shard loads.
				if want := (count - 1) * (len(fullLoad.Suite.Tasks) - 1); unvalidated != want {
					t.Errorf("%d tasks loaded for other shards' records, want %d", unvalidated, want)
				}
				mergeLikeWhole(t, parts, whole)
			})
		}
	}
}

// Policy: a problem in a task another shard runs is that shard's to report. The shard that
// owns the broken task refuses to run as an unsharded run does; the others run theirs.
func TestShardLeavesOtherShardsProblemsToThem(t *testing.T) {
	dir := shardLoadSuite(t)
	writeFiles(t, dir, map[string]string{"tasks/broken.yaml": `id: broken
bogus: 1
inputs: {prompt: hi}
graders:
  - type: text
    name: bad
    config: {regex_match: ["(unclosed"]}
`})
	if _, diags, _ := LoadSuitesWith([]string{dir}, LoadOptions{}); !diags.HasErrors() {
		t.Fatal("the broken task loads without errors")
	}
	const count = 3
	owner := hashShard("shardload", "broken", count)
	for i := 1; i <= count; i++ {
		prepared, diags, err := LoadSuitesWith([]string{dir}, LoadOptions{Shard: &Shard{i, count}})
		if err != nil {
			t.Fatal(err)
		}
		reported := strings.Contains(fmt.Sprint(diags), "broken.yaml")
		if i == owner {
			if !diags.HasErrors() || len(prepared) != 0 || !reported {
				t.Errorf("shard %d owns the broken task: %d suites, diagnostics %v", i, len(prepared), diags)
			}
			continue
		}
		if diags.HasErrors() || reported || len(prepared) != 1 {
			t.Fatalf("shard %d: %d suites, diagnostics %v", i, len(prepared), diags)
		}
		res := runPrepared(t, prepared[0], Options{Shard: &Shard{i, count}})
		for _, task := range res.Tasks {
			if task.ID == "broken" && (task.SkipReason != results.ShardSkipReason(owner, count) || task.GradersHash == "") {
				t.Errorf("shard %d: the broken task's record %+v", i, task)
			}
		}
	}
}

// A run whose split differs from the one its suite was loaded with refuses to start rather
// than run a task that was never validated.
func TestRunRefusesTasksLoadedForAnotherShard(t *testing.T) {
	dir := shardLoadSuite(t)
	p := loadOne(t, dir, LoadOptions{Shard: &Shard{1, 2}})
	for _, opts := range []Options{{Shard: &Shard{2, 2}}, {}} {
		opts.Executor, opts.Graders = agent.Mock{}, p.Graders
		_, err := Run(context.Background(), p.Suite, opts)
		var setup *SetupError
		if !errors.As(err, &setup) || !strings.Contains(err.Error(), "loaded for another shard") {
			t.Errorf("shard %v: error %v", opts.Shard, err)
		}
	}
}

// The LLM judges of every task name the judge models in the results' config and provenance, so
// a shard compiles those of the other shards' tasks too.
func TestShardLoadKeepsJudgeProvenance(t *testing.T) {
	dir := shardLoadSuite(t)
	writeFiles(t, dir, map[string]string{"tasks/judged.yaml": `id: judged
inputs: {prompt: judge me}
graders:
  - type: llm
    name: rubric
    config: {rubric: "Score 5 when the answer is right.", model: task-judge}
`})
	judge := &graders.JudgeOptions{BaseURL: "http://127.0.0.1:1/v1", Model: "default-judge", APIKey: "k", Getenv: func(string) string { return "" }}
	full := loadOne(t, dir, LoadOptions{Judge: judge})
	models, hash := full.Graders.JudgeProvenance()
	if models != "task-judge" || hash == "" {
		t.Fatalf("full load: judge provenance %q %q", models, hash)
	}
	for i := 1; i <= 3; i++ {
		p := loadOne(t, dir, LoadOptions{Judge: judge, Shard: &Shard{i, 3}})
		if m, h := p.Graders.JudgeProvenance(); m != models || h != hash {
			t.Errorf("shard %d: judge provenance %q %q, full load %q %q", i, m, h, models, hash)
		}
	}
}
