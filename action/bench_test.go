package action

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/internal/benchsuite"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// syntheticResults is a results file of tasks × trials, every third trial failing its grader.
func syntheticResults(tasks, trials int) *results.SuiteResult {
	res := &results.SuiteResult{EvalName: "bench", Provenance: &results.Provenance{SuiteFile: "evals/bench/eval.yaml"}, Metrics: map[string]*results.MetricResult{}}
	for i := range tasks {
		t := &results.TaskResult{ID: fmt.Sprintf("task-%05d", i), Name: fmt.Sprintf("Task %d", i), Source: &results.Location{File: "evals/bench/tasks/t.yaml", Line: 1}}
		for j := range trials {
			ok := (i+j)%3 != 0
			t.Runs = append(t.Runs, &results.RunResult{RunNumber: j + 1, Attempts: 1, Status: map[bool]results.Status{true: results.StatusPassed, false: results.StatusFailed}[ok],
				AgentRun: results.AgentRun{FinalOutput: strings.Repeat("an answer of about two hundred characters ", 5)},
				Validations: results.Validations{{Name: "answered", Type: "text", Passed: ok, Score: map[bool]float64{true: 1}[ok], Weight: 1,
					Feedback: "expected the word hello", Source: &results.Location{File: "evals/bench/eval.yaml", Line: 12}}}})
		}
		t.Finish()
		res.Tasks = append(res.Tasks, t)
	}
	results.Summarize(res)
	res.Gate = results.ComputeGate(res)
	return res
}

// BenchmarkReadResultsZip reads a results artifact holding one 2,000-task × 3-trial suite.
func BenchmarkReadResultsZip(b *testing.B) {
	data, err := results.Marshal(syntheticResults(2000, 3))
	if err != nil {
		b.Fatal(err)
	}
	z := zipOf(b, map[string][]byte{"results/bench.json": data, "junit.xml": []byte("<x/>")})
	benchReadZip(b, z, len(data), readResultsZip)
	b.ReportMetric(float64(len(z))/1e6, "zip-MB")
}

// BenchmarkCollectAnnotations turns a 2,000-task × 3-trial suite with 1,334 failing tasks into
// annotations.
func BenchmarkCollectAnnotations(b *testing.B) {
	in := &report.Input{Suites: []*report.Suite{{Result: syntheticResults(2000, 3)}}}
	b.ReportAllocs()
	for b.Loop() {
		if len(collectAnnotations(in, "/ws")) == 0 {
			b.Fatal("no annotations")
		}
	}
}

// BenchmarkActionPullRequest runs the whole action on a pull request against the fake API: a
// generated suite of 200 tasks × 3 trials under the mock executor, the baseline artifact found
// and downloaded, comment, summary, annotations and a check run.
func BenchmarkActionPullRequest(b *testing.B) {
	h := newHarness(b, "pull_request.synchronize")
	h.skipSecretScan = true
	os.RemoveAll(filepath.Join(h.ws, "evals"))
	if err := benchsuite.Write(filepath.Join(h.ws, "evals", "bench"), 200, 3); err != nil {
		b.Fatal(err)
	}
	h.gh.prFiles = [][2]string{{"evals/bench/eval.yaml", ""}}
	h.input(InCheckRun, "true")
	prepared, _, err := runner.LoadSuites([]string{filepath.Join(h.ws, "evals")}, "")
	if err != nil {
		b.Fatal(err)
	}
	out := b.TempDir()
	ran, err := runner.RunSuites(context.Background(), prepared, runner.SuitesOptions{OutDir: out})
	if err != nil {
		b.Fatal(err)
	}
	data, _ := os.ReadFile(ran.Files[0])
	z := zipOf(b, map[string][]byte{"results/bench.json": data})
	h.gh.runs = []fakeRun{{ID: 501, HeadSHA: mergeBaseSHA, HeadRepo: "acme/demo", CreatedAt: time.Now(), Artifacts: []fakeArtifact{{ID: 9001, Name: DefaultArtifactName, Size: int64(len(z))}}}}
	h.gh.blobs[9001] = z
	h.gh.ancestors = []string{mergeBaseSHA}
	b.ResetTimer()
	for b.Loop() {
		if code := h.run(); code != ExitOK {
			b.Fatalf("exit %d\n%s", code, h.stdout.String())
		}
	}
}

// BenchmarkReadBundle reads a fork's bundle holding one 2,000-task × 3-trial suite: every entry
// checked, pr.json and the results file validated against their schemas, then decoded. Compare
// with BenchmarkReadResultsZip (the same results file, trusted: decoded only).
func BenchmarkReadBundle(b *testing.B) {
	res := syntheticResults(2000, 3)
	res.SchemaVersion = results.SchemaVersion
	data, err := results.Marshal(res)
	if err != nil {
		b.Fatal(err)
	}
	pr := `{"version":1,"number":7,"head_sha":"` + headSHA + `","head_repo":"octodev/demo","head_ref":"main","base_ref":"main","base_sha":"` + baseSHA + `","key":"evals","workflow":"evals.yml","needs_report":true,"reason":"fork","suites":[{"name":"bench","results":"results/bench.json","suite_file":"evals/bench/eval.yaml"}],"unaffected":[],"skillgate_version":"v1","deferred_grades":0}`
	z := zipOf(b, map[string][]byte{"results/bench.json": data, PRFile: []byte(pr), "bundle/tree/evals/bench/eval.yaml": []byte("name: bench\n")})
	benchReadZip(b, z, len(data), readBundle)
}

// benchReadZip times read on the zip z, which holds a results file of n bytes.
func benchReadZip[T any](b *testing.B, z []byte, n int, read func(io.ReaderAt, int64) (T, error)) {
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := read(bytes.NewReader(z), int64(len(z))); err != nil {
			b.Fatal(err)
		}
	}
}
