package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The verdicts suite (report/testdata/suites/verdicts) runs one trial per task through a scripted
// command agent: on the head, "broken" fails every time, "noise" fails once and then passes,
// "coinflip" fails where the base passed half the time.
const verdictsSuite = "../../report/testdata/suites/verdicts"

// baseRuns runs the verdicts suite n times as the base branch would and returns their --out
// folders as --baseline arguments (the newest is the baseline, the others are pooled).
func baseRuns(t *testing.T, state string, n int) []string {
	t.Helper()
	t.Setenv("VERDICTS_SIDE", "base")
	t.Setenv("VERDICTS_STATE", state)
	var args []string
	for k := 1; k <= n; k++ {
		out := filepath.Join(t.TempDir(), "base"+strconv.Itoa(k))
		if code, _, stderr := run(t, nil, "run", "--quiet", "--no-cache", "--out", out, verdictsSuite); code != exitFailed {
			t.Fatalf("base run %d: exit %d\n%s", k, code, stderr)
		}
		args = append(args, "--baseline", out)
	}
	return args
}

// A pull request at one trial per task: the task the change broke is run again until its
// failures are confirmed and blocks; the one that failed once passes its rerun and does not.
func TestRunConfirmsBeforeBlocking(t *testing.T) {
	state := t.TempDir()
	bases := baseRuns(t, state, 6)
	t.Setenv("VERDICTS_SIDE", "head")
	out := filepath.Join(t.TempDir(), "head")
	code, stdout, stderr := run(t, nil, append([]string{"run", "--quiet", "--no-cache", "--out", out}, append(bases, verdictsSuite)...)...)
	if code != exitFailed {
		t.Fatalf("exit %d, want 1 (a confirmed new failure)\n%s\n%s", code, stdout, stderr)
	}
	res := readResults(t, filepath.Join(out, "results", "verdicts.json"))
	confirmations := map[string]int{}
	for _, task := range res.Tasks {
		confirmations[task.ID] = len(task.Confirmations)
		if len(task.Runs) != 1 {
			t.Errorf("%s: %d planned runs, want 1 (confirmation trials are kept apart)", task.ID, len(task.Runs))
		}
	}
	if confirmations["broken"] < 2 || confirmations["noise"] != 1 || confirmations["coinflip"] != 0 || confirmations["steady"] != 0 {
		t.Errorf("confirmation trials %v: want broken several, noise one (its first rerun passes), coinflip none (it passes half the time on the base)", confirmations)
	}
	if sp := res.Summary.Spend; sp == nil || sp.Confirmations != confirmations["broken"]+confirmations["noise"] {
		t.Errorf("spend %+v: confirmation runs not counted", res.Summary.Spend)
	}
	comment := readFile(t, filepath.Join(out, "comment.md"))
	for _, want := range []string{
		"### ❌ **1 new failure**",
		"❌ new failure · **verdicts** · broken",
		"head failed 1 of 1, then failed " + strconv.Itoa(confirmations["broken"]) + " of " + strconv.Itoa(confirmations["broken"]) + " reruns: worse beyond trial noise",
		"〰️ within noise · **verdicts** · noise",
		"head failed 1 of 1, then passed 1 of 1 rerun: within the noise",
		"(6 base runs)",
	} {
		if !strings.Contains(comment, want) {
			t.Errorf("comment lacks %q:\n%s", want, comment)
		}
	}
	if !strings.Contains(stderr, "confirming 2 tasks that look worse than on the baseline") {
		t.Errorf("the confirmation rounds are not said:\n%s", stderr)
	}

	// Without confirmation runs the same change cannot be confirmed: it is reported, not blocked.
	t.Setenv("VERDICTS_STATE", t.TempDir())
	out = filepath.Join(t.TempDir(), "none")
	code, stdout, stderr = run(t, nil, append([]string{"run", "--quiet", "--no-cache", "--confirm-runs", "0", "--out", out}, append(bases, verdictsSuite)...)...)
	if code != exitOK {
		t.Fatalf("--confirm-runs 0: exit %d, want 0 (nothing confirmed)\n%s\n%s", code, stdout, stderr)
	}
	if comment := readFile(t, filepath.Join(out, "comment.md")); !strings.Contains(comment, "❔ looks worse, unconfirmed · **verdicts** · broken") {
		t.Errorf("--confirm-runs 0: broken is not reported unconfirmed:\n%s", comment)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
