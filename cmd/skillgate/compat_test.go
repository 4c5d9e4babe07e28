package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/linediff"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

var update = flag.Bool("update", false, "rewrite golden files")

// corpus holds real waza suites written outside this project (testdata/waza-suites/SOURCES.md
// names each repository, commit and licence).
const corpus = "testdata/waza-suites"

// TestWazaCorpus is the compatibility promise (docs/format.md#what-is-an-error): every
// real suite that waza accepts runs under the mock executor — exit 0 or 1, results written —
// and says what it ignores. The exit codes, task counts and every diagnostic are kept in
// testdata/waza-suites.golden; `go test ./cmd/skillgate -run WazaCorpus -update` rewrites it.
func TestWazaCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the whole waza corpus")
	}
	files, err := spec.Discover([]string{corpus})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 60 {
		t.Fatalf("found %d suites in %s", len(files), corpus)
	}
	wd, _ := os.Getwd()
	var golden strings.Builder
	for _, file := range files {
		dir, _ := filepath.Rel(wd, filepath.Dir(file))
		out := t.TempDir()
		code, _, stderr := run(t, nil, "run", "--executor", "mock", "--quiet", "--out", out, dir)
		fmt.Fprintf(&golden, "## %s\nexit %d\n", filepath.ToSlash(dir), code)
		if code != exitOK && code != exitFailed {
			t.Errorf("%s: exit %d, want 0 or 1:\n%s", dir, code, stderr)
			continue
		}
		res, err := results.ReadFile(results.PathIn(out, resultsName(t, out)))
		if err != nil {
			t.Errorf("%s: no results: %v", dir, err)
			continue
		}
		s := res.Summary
		fmt.Fprintf(&golden, "tasks %d: %d passed, %d failed, %d errors\n", s.TotalTests, s.Succeeded, s.Failed, s.Errors)
		for _, line := range strings.Split(stderr, "\n") {
			if strings.Contains(line, ": warning: ") || strings.Contains(line, ": error: ") {
				golden.WriteString(strings.ReplaceAll(line, wd+string(filepath.Separator), "") + "\n")
			}
		}
	}
	checkGolden(t, "testdata/waza-suites.golden", golden.String())
}

// resultsName is the one suite results file a run wrote under out.
func resultsName(t *testing.T, out string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(out, "results", "*.json"))
	if len(matches) != 1 {
		t.Fatalf("results files under %s: %v", out, matches)
	}
	return strings.TrimSuffix(filepath.Base(matches[0]), ".json")
}

// checkGolden compares got with the golden file, or rewrites it under -update.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if string(want) != got {
		t.Fatalf("%s differs (run with -update to accept) from %s", path, linediff.Lines(string(want), got, 1))
	}
}

// TestWazaExampleScoreParity runs waza's own two example suites unchanged under the mock
// executor and compares every grader score with waza's results for them
// (testdata/waza-suites/microsoft__waza/waza-results, produced by waza 0.12 with its mock engine).
func TestWazaExampleScoreParity(t *testing.T) {
	for _, example := range []string{"code-explainer", "grader-showcase"} {
		t.Run(example, func(t *testing.T) {
			out := t.TempDir()
			code, _, stderr := run(t, nil, "run", "--executor", "mock", "--quiet", "--out", out, corpus+"/microsoft__waza/examples/"+example)
			if code != exitOK && code != exitFailed {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			ours, err := results.ReadFile(results.PathIn(out, resultsName(t, out)))
			if err != nil {
				t.Fatal(err)
			}
			waza, err := results.ReadFile(corpus + "/microsoft__waza/waza-results/" + example + ".json")
			if err != nil {
				t.Fatal(err)
			}
			byID := map[string]*results.TaskResult{}
			for _, task := range ours.Tasks {
				byID[task.ID] = task
			}
			compared := 0
			for _, wt := range waza.Tasks {
				task := byID[wt.ID]
				if task == nil {
					t.Errorf("task %s: not run", wt.ID)
					continue
				}
				for i, wr := range wt.Runs {
					if i >= len(task.Runs) {
						t.Errorf("task %s: %d runs, waza %d", wt.ID, len(task.Runs), len(wt.Runs))
						break
					}
					// The run's verdict and the mock's output (the prompt alone, without
					// inputs.context, and the count of files it was given) are waza's too.
					if r := task.Runs[i]; r.Status != wr.Status || r.FinalOutput != wr.FinalOutput {
						t.Errorf("task %s run %d: %s %q, waza %s %q", wt.ID, i+1, r.Status, r.FinalOutput, wr.Status, wr.FinalOutput)
					}
					for _, wv := range wr.Validations {
						v := task.Runs[i].Validations.Get(wv.Name)
						switch {
						case v == nil:
							t.Errorf("task %s run %d: no grader %q", wt.ID, i+1, wv.Name)
						case math.Abs(v.Score-wv.Score) > 1e-9 || v.Passed != wv.Passed:
							t.Errorf("task %s run %d grader %s: score %.4f passed %v, waza %.4f %v (%s)", wt.ID, i+1, wv.Name, v.Score, v.Passed, wv.Score, wv.Passed, v.Feedback)
						default:
							compared++
						}
					}
				}
			}
			if compared == 0 {
				t.Fatal("no grader compared")
			}
			// Trigger prompts run once each, as in waza, whatever trials_per_task says.
			if len(ours.TriggerResults) != len(waza.TriggerResults) {
				t.Errorf("%d trigger results, waza %d", len(ours.TriggerResults), len(waza.TriggerResults))
			}
			// The run fails where waza's does: a failed task or metric. (waza's mock scores every
			// trigger prompt correct; skillgate's mock trigger metrics do not gate, so a mock run
			// passes or fails on its tasks alone, as waza's does.)
			wazaFailed := waza.Summary.Failed+waza.Summary.Errors > 0
			for _, m := range waza.Metrics {
				wazaFailed = wazaFailed || !m.Passed
			}
			if want := map[bool]int{false: exitOK, true: exitFailed}[wazaFailed]; code != want {
				t.Errorf("exit %d, waza's run %s", code, map[bool]string{false: "passed", true: "failed"}[wazaFailed])
			}
			t.Logf("%d grader results equal waza's", compared)
		})
	}
}

// TestVallyCorpus: every real Vally spec in testdata/vally (SOURCES.md names each repository,
// commit and licence) validates and runs under the mock executor, with results for each.
func TestVallyCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the whole Vally corpus")
	}
	const root = "testdata/vally"
	code, stdout, stderr := run(t, nil, "validate", root)
	if code != exitOK || !strings.Contains(stdout, "17 suite(s)") {
		t.Fatalf("validate: exit %d\n%s\n%s", code, stdout, lastLines(stderr, 20))
	}
	out := t.TempDir()
	code, _, stderr = run(t, nil, "run", "--executor", "mock", "--quiet", "--out", out, root)
	if code != exitOK && code != exitFailed {
		t.Fatalf("run: exit %d\n%s", code, lastLines(stderr, 20))
	}
	files, _ := filepath.Glob(filepath.Join(out, "results", "*.json"))
	if len(files) != 17 {
		t.Errorf("%d results files, want 17", len(files))
	}
}

// A waza suite and a Vally spec in one folder run in one `skillgate run`, with one comment;
// the Vally scoring threshold decides each trial from the weighted score.
func TestWazaAndVallyInOneRun(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, nil, "run", "--quiet", "--out", out, "testdata/mixed")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, name := range []string{"hello", "greeting-vally"} {
		if _, err := os.Stat(results.PathIn(out, name)); err != nil {
			t.Errorf("no results for %s: %v", name, err)
		}
	}
	res := readResults(t, results.PathIn(out, "greeting-vally"))
	r := res.Tasks[0].Runs[0]
	// output-matches passes (weight 3), output-not-matches fails (weight 1): weighted 0.75 ≥ 0.5,
	// so the trial passes although one grader failed.
	if res.Config.RunsPerTest != 2 || r.Status != results.StatusPassed || r.WeightedScore != 0.75 || r.Validations.Get("output-not-matches").Passed {
		t.Errorf("runs %d status %s weighted %v", res.Config.RunsPerTest, r.Status, r.WeightedScore)
	}
	comment, err := os.ReadFile(filepath.Join(out, "comment.md"))
	if err != nil || !strings.Contains(string(comment), "hello") || !strings.Contains(string(comment), "greeting-vally") {
		t.Errorf("one comment for both suites: %v\n%s", err, comment)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// `--suite NAME` runs what a suite of .vally.yaml selects: AKS-Skills' `smoke` takes the
// stimuli tagged tier: smoke, two in each of its two specs.
func TestVallySuiteSelection(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, nil, "run", "--suite", "smoke", "--executor", "mock", "--quiet", "--out", out, "testdata/vally/Azure__AKS-Skills")
	if code != exitOK && code != exitFailed {
		t.Fatalf("exit %d\n%s", code, lastLines(stderr, 10))
	}
	for _, name := range []string{"aks-network-capture-agentic-eval", "aks-troubleshooting-agentic-eval"} {
		res := readResults(t, results.PathIn(out, name))
		if len(res.Tasks) != 2 {
			t.Errorf("%s: %d tasks, want the 2 smoke stimuli", name, len(res.Tasks))
		}
	}
	code, _, stderr = run(t, nil, "run", "--suite", "nightly", "--out", t.TempDir(), "testdata/vally/Azure__AKS-Skills")
	if code != exitUsage || !strings.Contains(stderr, `has no suite "nightly" (suites: mock, smoke)`) {
		t.Errorf("unknown suite: exit %d\n%s", code, lastLines(stderr, 3))
	}
}

// An imported Vally results.jsonl round-trips: one results file per eval, one task per
// stimulus, each trial's verdict Vally's, and the per-stimulus pass rates in the comment equal
// those of the records (2 of 3, 0 of 3).
func TestReportFromVally(t *testing.T) {
	out := t.TempDir()
	code, _, stderr := run(t, nil, "report", "--from-vally", "testdata/vally-results/results.jsonl", "--out", out)
	if code != exitFailed {
		t.Fatalf("exit %d, want 1 (a stimulus failed)\n%s", code, stderr)
	}
	res := readResults(t, results.PathIn(out, "aks-network-capture-agentic-eval"))
	if len(res.Tasks) != 2 || res.Config.RunsPerTest != 3 {
		t.Fatalf("tasks %d runs %d", len(res.Tasks), res.Config.RunsPerTest)
	}
	passed := func(task *results.TaskResult) (n int) {
		for _, r := range task.Runs {
			if r.Status == results.StatusPassed {
				n++
			}
		}
		return n
	}
	dns, egress := res.Tasks[0], res.Tasks[1]
	if dns.ID != "Routing: DNS resolution failure" || passed(dns) != 2 || passed(egress) != 0 || egress.Runs[1].Status != results.StatusError ||
		!strings.Contains(egress.Runs[1].ErrorMsg, "timed out after 5m") {
		t.Errorf("dns %s %d/3, egress %s %d/3 (%s)", dns.ID, passed(dns), egress.ID, passed(egress), egress.Runs[1].ErrorMsg)
	}
	comment, err := os.ReadFile(filepath.Join(out, "comment.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| Routing: DNS resolution failure | ❌ failed | 2/3 | 66.7%", "| Routing: egress traffic blocked | 💥 error | 0/3 | 0.0%"} {
		if !strings.Contains(string(comment), want) {
			t.Errorf("comment lacks %q:\n%s", want, comment)
		}
	}
	if code, _, stderr := run(t, nil, "report", "--from-vally", "testdata/vally-results/README.md", "--out", t.TempDir()); code != exitUsage || !strings.Contains(stderr, "not a JSON record") {
		t.Errorf("not a results.jsonl: exit %d %s", code, stderr)
	}
}

// inputs.context on hoffe86/agile-agents' efficacy suite (testdata/waza-suites/SOURCES.md, MIT):
// as in waza, the context is not sent to the agent and its `fixture` folder is copied into the
// workspace, where the file grader finds main.bicep with its modules and, the mock having
// bumped nothing, the old pins: the two must_not_match checks fail, 6 of its 8 pass.
func TestWazaContextFixture(t *testing.T) {
	out := t.TempDir()
	suite := corpus + "/hoffe86__agile-agents/eval/skills/s2-efficacy/avm-bump-efficacy"
	code, _, stderr := run(t, nil, "run", "--executor", "mock", "--quiet", "--out", out, suite)
	if code != exitFailed {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	res := readResults(t, results.PathIn(out, resultsName(t, out)))
	r := res.Tasks[0].Runs[0]
	if want := "Mock response for: Bump every AVM module in this Bicep file to the latest published version.\nAnalyzed 1 file(s)"; r.FinalOutput != want {
		t.Errorf("final output %q, want %q", r.FinalOutput, want)
	}
	v := r.Validations.Get("modules-bumped-and-intact")
	if v == nil || math.Abs(v.Score-0.75) > 1e-9 || v.Passed {
		t.Fatalf("file grader %+v", v)
	}
	for _, f := range v.Details["failures"].([]any) {
		if !strings.Contains(f.(string), "contains forbidden pattern") {
			t.Errorf("failure %q: only the old pins should fail", f)
		}
	}
}

// A real suite whose input files are missing (iwasa-kosui/kamae-ts' kamae-review, MIT, run with
// a --context-dir that lacks them): as in waza, each missing file is a warning at its
// file:line:col, and the task runs and is graded without it.
func TestWazaMissingInputFilesRunAndGrade(t *testing.T) {
	out := t.TempDir()
	suite := corpus + "/iwasa-kosui__kamae-ts/evals/kamae-review"
	code, _, stderr := run(t, nil, "run", "--executor", "mock", "--quiet", "--out", out, "--context-dir", t.TempDir(), suite)
	if code != exitOK && code != exitFailed {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if want := `kamae-review/tasks/clean-code-no-findings.yaml:15:13: warning: inputs.files[0].path: input file "clean/taxi-request.ts" not found in the context dir`; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	res := readResults(t, results.PathIn(out, resultsName(t, out)))
	for _, task := range res.Tasks {
		for _, r := range task.Runs {
			if r.Status == results.StatusError || len(r.Validations) == 0 || strings.Contains(r.FinalOutput, "Analyzed") {
				t.Errorf("task %s run %d: status %s, %d graders, output %q", task.ID, r.RunNumber, r.Status, len(r.Validations), r.FinalOutput)
			}
		}
	}
}
