package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// `run --shard i/n` runs a part; `merge` of every part gives the unsharded run's results and
// exit status.
func TestShardAndMerge(t *testing.T) {
	whole := t.TempDir()
	wholeCode, _, stderr := run(t, nil, "run", hello, "--out", whole, "--quiet")
	if wholeCode != exitOK {
		t.Fatalf("unsharded: exit %d\n%s", wholeCode, stderr)
	}
	var shards []string
	ran := map[string]int{}
	for _, i := range []string{"1", "2", "3"} {
		out := t.TempDir()
		code, _, stderr := run(t, nil, "run", hello, "--out", out, "--quiet", "--shard", i+"/3")
		if code != exitOK || !strings.Contains(stderr, "skillgate merge") {
			t.Fatalf("shard %s: exit %d\n%s", i, code, stderr)
		}
		res := readResults(t, results.PathIn(out, "hello"))
		if res.Config.Shard == nil || res.Config.Shard.Count != 3 {
			t.Fatalf("shard not recorded: %+v", res.Config.Shard)
		}
		for _, task := range res.Tasks {
			if !results.ShardSkipped(task) {
				ran[task.ID]++
			}
		}
		shards = append(shards, out)
	}
	if len(ran) != 2 || ran["greet"] != 1 || ran["farewell"] != 1 {
		t.Errorf("tasks per shard: %v", ran)
	}
	merged := t.TempDir()
	args := append([]string{"merge", "--out", merged}, shards...)
	code, stdout, stderr := run(t, nil, args...)
	if code != wholeCode {
		t.Fatalf("merge: exit %d, unsharded %d\n%s\n%s", code, wholeCode, stdout, stderr)
	}
	got, want := readResults(t, results.PathIn(merged, "hello")), readResults(t, results.PathIn(whole, "hello"))
	gs, ws := got.Summary, want.Summary
	gs.DurationMS, ws.DurationMS = 0, 0
	if gs.Spend != nil && ws.Spend != nil {
		// Agent time is this machine's wall clock, as the duration above.
		gs.Spend.AgentMS, ws.Spend.AgentMS = 0, 0
	}
	a, _ := json.Marshal(gs)
	b, _ := json.Marshal(ws)
	if string(a) != string(b) || got.Gate.Passed != want.Gate.Passed || got.TriggerMetrics.Accuracy != want.TriggerMetrics.Accuracy {
		t.Errorf("merged summary %s, unsharded %s", a, b)
	}
	for _, f := range []string{"junit.xml", "comment.md"} {
		if !fileExists(filepath.Join(merged, f)) {
			t.Errorf("no %s", f)
		}
	}

	// A missing shard is named.
	code, _, stderr = run(t, nil, "merge", "--out", t.TempDir(), shards[0], shards[2])
	if code != exitUsage || !strings.Contains(stderr, "hello: missing shard(s) 2 of 3") {
		t.Errorf("missing shard: exit %d\n%s", code, stderr)
	}
	// Unsharded results are not shards.
	code, _, stderr = run(t, nil, "merge", "--out", t.TempDir(), whole)
	if code != exitUsage || !strings.Contains(stderr, "not a shard") {
		t.Errorf("unsharded input: exit %d\n%s", code, stderr)
	}
}

func TestShardFlagErrors(t *testing.T) {
	for _, bad := range []string{"0/2", "3/2", "x", "1/999"} {
		code, _, stderr := run(t, nil, "run", hello, "--out", t.TempDir(), "--shard", bad)
		if code != exitUsage || !strings.Contains(stderr, "--shard") {
			t.Errorf("--shard %s: exit %d\n%s", bad, code, stderr)
		}
	}
	code, _, stderr := run(t, nil, "merge")
	if code != exitUsage || !strings.Contains(stderr, "give the shards' results") {
		t.Errorf("merge without paths: exit %d\n%s", code, stderr)
	}
}

// With --baseline, shards split longest first by its recorded durations, and record the plan.
func TestShardByBaselineDurations(t *testing.T) {
	base := t.TempDir()
	if code, _, stderr := run(t, nil, "run", hello, "--out", base, "--quiet"); code != exitOK {
		t.Fatalf("baseline: %s", stderr)
	}
	res := readResults(t, results.PathIn(base, "hello"))
	for i, task := range res.Tasks {
		task.Stats.AvgDurationMS = int64(1000 * (i + 1))
	}
	if err := results.WriteFile(results.PathIn(base, "hello"), res); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if code, _, stderr := run(t, nil, "run", hello, "--out", out, "--quiet", "--shard", "1/2", "--baseline", base); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	sh := readResults(t, results.PathIn(out, "hello")).Config.Shard
	if sh == nil || sh.Method != "durations" || sh.Plan == "" {
		t.Errorf("shard %+v", sh)
	}
}

func fileExists(path string) bool { return isFile(path) }

// A shard reports the problems of its own task files only: the shard that runs a broken task
// refuses to run (exit 2, the error named), the other runs its tasks and does not mention it.
func TestShardReportsItsOwnTasksProblems(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hello")
	copyDir(t, hello, dir)
	broken := "id: broken\ninputs: {prompt: hi}\ngraders:\n  - type: text\n    name: bad\n    config: {regex_match: [\"(unclosed\"]}\n"
	if err := os.WriteFile(filepath.Join(dir, "tasks", "broken.yaml"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	owner := runner.AssignTasks("hello", []string{"broken"}, 2, nil).Owner["broken"]
	for i := 1; i <= 2; i++ {
		code, _, stderr := run(t, nil, "run", dir, "--out", t.TempDir(), "--quiet", "--shard", fmt.Sprintf("%d/2", i))
		named := strings.Contains(stderr, "broken.yaml")
		if i == owner && (code != exitUsage || !named) || i != owner && (code != exitOK || named) {
			t.Errorf("shard %d (broken in %d): exit %d\n%s", i, owner, code, stderr)
		}
	}
	if code, _, stderr := run(t, nil, "run", dir, "--out", t.TempDir(), "--quiet", "--shard", fmt.Sprintf("%d/2", 3-owner), "--baseline", filepath.Join(dir, "nowhere")); code != exitUsage || !strings.Contains(stderr, "--baseline") {
		t.Errorf("a missing baseline: exit %d\n%s", code, stderr)
	}
}
