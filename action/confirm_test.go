package action

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// The verdicts suite of report/testdata runs each task once through a scripted command agent:
// on the head, "broken" fails every time and "noise" fails once, then passes.
const verdictsSuite = "../report/testdata/suites/verdicts"

// publishBaseHistory makes n successful push runs on the base branch, newest at the merge base,
// each carrying a results artifact of the verdicts suite as the base side answers it.
func (h *harness) publishBaseHistory(n int) {
	h.t.Helper()
	h.t.Setenv("VERDICTS_SIDE", "base")
	h.t.Setenv("VERDICTS_STATE", h.t.TempDir())
	prepared, diags, err := runner.LoadSuites([]string{filepath.Join(h.ws, "evals/verdicts")}, "")
	if err != nil || diags.HasErrors() {
		h.t.Fatalf("verdicts suite: %v %v", err, diags)
	}
	h.gh.ancestors = []string{mergeBaseSHA}
	for k := 0; k < n; k++ {
		out := h.t.TempDir()
		ran, err := runner.RunSuites(context.Background(), prepared, runner.SuitesOptions{OutDir: out})
		if err != nil || len(ran.Results) != 1 {
			h.t.Fatalf("base run %d: %v", k, err)
		}
		data, err := results.Marshal(ran.Results[0])
		if err != nil {
			h.t.Fatal(err)
		}
		blob := zipOf(h.t, map[string][]byte{"results/verdicts.json": data})
		sha := mergeBaseSHA
		if k > 0 {
			sha = fmt.Sprintf("%040d", k)
			h.gh.ancestors = append(h.gh.ancestors, sha)
		}
		id := int64(600 + k)
		h.gh.runs = append(h.gh.runs, fakeRun{ID: id, HeadSHA: sha, HeadRepo: "acme/demo", CreatedAt: time.Now().Add(-time.Duration(k+1) * time.Hour),
			Artifacts: []fakeArtifact{{ID: 9100 + id, Name: DefaultArtifactName, Size: int64(len(blob))}}})
		h.gh.blobs[9100+id] = blob
	}
}

// On a pull request the action pools the base branch's earlier artifacts with its baseline and
// runs a task that looks worse again before the verdict: the task the change broke blocks, the
// one that failed once passes its rerun and does not.
func TestPullRequestConfirmsWithBaseHistory(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	copyTree(t, verdictsSuite, filepath.Join(h.ws, "evals/verdicts"))
	if err := os.Chmod(filepath.Join(h.ws, "evals/verdicts/agent.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.input(InSuites, "evals/verdicts")
	h.input(InChangedOnly, "false")
	h.publishBaseHistory(6)
	t.Setenv("VERDICTS_SIDE", "head")
	if code := h.run(); code != ExitFailed {
		t.Fatalf("exit %d, want 1 (a confirmed new failure)\n%s\n%s", code, h.stdout.String(), h.stderr.String())
	}
	if !strings.Contains(h.stdout.String(), "base history: the results of 5 earlier base run(s) are pooled") {
		t.Errorf("the base history was not pooled:\n%s", h.stdout.String())
	}
	comment := h.readFile(".skillgate/comment.md")
	for _, want := range []string{
		"❌ **1 new failure**",
		"❌ new failure · **verdicts** · broken",
		"(6 base runs), head failed 1 of 1, then failed",
		"〰️ within noise · **verdicts** · noise",
		"then passed 1 of 1 rerun",
	} {
		if !strings.Contains(comment, want) {
			t.Errorf("comment lacks %q:\n%s", want, comment)
		}
	}
	res, err := results.ReadFile(filepath.Join(h.ws, ".skillgate/results/verdicts.json"))
	if err != nil {
		t.Fatal(err)
	}
	if sp := res.Summary.Spend; sp == nil || sp.Confirmations < 2 {
		t.Errorf("the results file does not hold the confirmation runs: %+v", res.Summary.Spend)
	}
	if errs := h.annotations("error"); len(errs) == 0 || !strings.Contains(strings.Join(errs, "\n"), "broken (new failure)") {
		t.Errorf("no error annotation names the new failure:\n%s", strings.Join(errs, "\n"))
	}
}
