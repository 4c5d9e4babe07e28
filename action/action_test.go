package action

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// failingGrader makes every greet task fail under the mock executor.
const failingGrader = `      contains: ["Mock response"]`

func breakGreet(h *harness) {
	h.write("evals/greet/eval.yaml", strings.Replace(h.readFile("evals/greet/eval.yaml"), failingGrader, `      contains: ["Bonjour"]`, 1))
}

// agentAnswersGreet runs the greet suite through a command agent that answers as the mock does
// but never invokes a skill: its trigger decisions gate, unlike the mock's keyword match.
func agentAnswersGreet(h *harness) {
	h.write("evals/greet/agent.sh", "#!/bin/sh\necho \"Mock response for: $1\"\n")
	if err := os.Chmod(filepath.Join(h.ws, "evals", "greet", "agent.sh"), 0o755); err != nil {
		h.t.Fatal(err)
	}
	command := "executor: command\n  agent_path: ./agent.sh\n  command:\n    argv: [agent, \"{prompt}\"]\n    output: text"
	h.write("evals/greet/eval.yaml", strings.Replace(h.readFile("evals/greet/eval.yaml"), "executor: mock", command, 1))
}

func TestPullRequestEndToEnd(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.gh.prFiles = [][2]string{{"evals/greet/skills/greeter/SKILL.md", ""}, {"README.md", ""}}
	h.publishBaseline(0, nil)

	if code := h.run(); code != ExitOK {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, h.stdout.String(), h.stderr.String())
	}
	if !strings.HasPrefix(h.stdout.String(), "::add-mask::"+testToken+"\n") {
		t.Errorf("the token is not masked first:\n%.200s", h.stdout.String())
	}
	bodies := h.gh.commentBodies()
	if len(bodies) != 1 {
		t.Fatalf("%d comments, want 1", len(bodies))
	}
	body := bodies[0]
	for _, want := range []string{report.Marker("evals"), "| greet |", "Suites not run: unaffected by this change (1)", "- other:",
		"from the base branch's artifact", "commit `" + mergeBaseSHA[:12] + "`"} {
		if !strings.Contains(body, want) {
			t.Errorf("comment lacks %q:\n%s", want, body)
		}
	}
	if !strings.HasPrefix(body, report.Marker("evals")) {
		t.Errorf("comment does not start with its marker")
	}
	out := h.outputs()
	want := map[string]string{
		OutVerdict: "inconclusive", OutPassed: "true", OutSuitesRun: `["greet"]`, OutScore: "1.0000", OutSuccessRate: "1.0000",
		OutDeltaScore: "0.0000", OutTriggerAccuracy: "1.0000", OutResultsDir: ".skillgate",
		OutCommentURL: "https://github.com/acme/demo/pull/7#issuecomment-1001",
	}
	for k, v := range want {
		if out[k] != v {
			t.Errorf("output %s = %q, want %q", k, out[k], v)
		}
	}
	if s := h.summary(); !strings.Contains(s, "## skillgate results") || !strings.Contains(s, "### greet") {
		t.Errorf("step summary:\n%.500s", s)
	}
	res, err := results.ReadFile(filepath.Join(h.ws, ".skillgate/results/greet.json"))
	if err != nil {
		t.Fatal(err)
	}
	if b := res.Provenance.Baseline; b == nil || b.Method != BaselineArtifact || b.Commit != mergeBaseSHA || !strings.Contains(b.Detail, "run 501") {
		t.Errorf("baseline provenance = %+v", res.Provenance.Baseline)
	}
	if _, err := os.Stat(filepath.Join(h.ws, ".skillgate/baseline/results/greet.json")); err != nil {
		t.Errorf("the baseline used is not kept: %v", err)
	}
	if _, err := os.Stat(filepath.Join(h.ws, ".skillgate/results/other.json")); err == nil {
		t.Errorf("the unaffected suite ran")
	}
	for _, auth := range h.gh.blobAuth {
		if auth != "" {
			t.Errorf("the signed artifact URL got credentials: %q", auth)
		}
	}
	if len(h.annotations("error")) != 0 {
		t.Errorf("errors annotated on a passing run:\n%s", strings.Join(h.annotations("error"), "\n"))
	}

	// The second run changes the outcome: the same comment is edited, not a new one posted.
	breakGreet(h)
	if code := h.run(); code != ExitFailed {
		t.Fatalf("second run: exit %d, want 1\n%s", code, h.stdout.String())
	}
	bodies = h.gh.commentBodies()
	if len(bodies) != 1 {
		t.Fatalf("second run: %d comments, want 1 edited in place", len(bodies))
	}
	if bodies[0] == body || !strings.Contains(bodies[0], "❌") {
		t.Errorf("the comment was not updated:\n%s", bodies[0])
	}
	if n := h.gh.called("POST /repos/acme/demo/issues/7/comments"); n != 1 {
		t.Errorf("%d comment creations over two runs, want 1", n)
	}
	if n := h.gh.called("PATCH /repos/acme/demo/issues/comments/1001"); n != 1 {
		t.Errorf("%d comment edits, want 1", n)
	}
}

func TestExitStatus(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(h *harness)
		failOn  string
		want    int
		verdict string
		passed  string
	}{
		{"pass", func(h *harness) { h.publishBaseline(0, nil) }, "", ExitOK, "inconclusive", "true"},
		{"threshold miss", func(h *harness) {
			h.publishBaseline(0, nil)
			// A should-trigger prompt the agent does not trigger on.
			agentAnswersGreet(h)
			h.write("evals/greet/trigger_tests.yaml", "skill: greeter\nshould_trigger_prompts:\n  - id: vague\n    prompt: \"Welcome the new teammate\"\nshould_not_trigger_prompts:\n  - id: unrelated\n    prompt: \"What is the capital of France?\"\n")
			h.write("evals/greet/eval.yaml", strings.Replace(h.readFile("evals/greet/eval.yaml"), "threshold: 0.5", "threshold: 0.9", 1))
		}, "", ExitFailed, "inconclusive", "false"},
		{"regression", func(h *harness) {
			h.input(InTrials, "10")
			h.publishBaseline(10, nil)
			breakGreet(h)
		}, "", ExitFailed, "regressed", "false"},
		{"regression only fails with a custom fail-on", func(h *harness) {
			h.input(InTrials, "10")
			h.publishBaseline(10, nil)
			breakGreet(h)
		}, `verdict == "regressed"`, ExitFailed, "regressed", "false"},
		{"failed tasks pass a fail-on that only looks at regressions", func(h *harness) {
			h.input(InBaseline, "none")
			breakGreet(h)
		}, `verdict == "regressed" || metrics.trigger_accuracy.passed == false`, ExitOK, "no-baseline", "false"},
		{"threshold metric in fail-on", func(h *harness) {
			h.input(InBaseline, "none")
			agentAnswersGreet(h)
			h.write("evals/greet/trigger_tests.yaml", "skill: greeter\nshould_trigger_prompts:\n  - id: vague\n    prompt: \"Welcome the new teammate\"\n")
		}, `metrics.trigger_accuracy.passed == false`, ExitFailed, "no-baseline", "false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "pull_request.synchronize")
			h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
			tt.setup(h)
			if tt.failOn != "" {
				h.input(InFailOn, tt.failOn)
			}
			if code := h.run(); code != tt.want {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.want, h.stdout.String(), h.stderr.String())
			}
			out := h.outputs()
			if out[OutVerdict] != tt.verdict || out[OutPassed] != tt.passed {
				t.Errorf("verdict %q passed %q, want %q %q", out[OutVerdict], out[OutPassed], tt.verdict, tt.passed)
			}
		})
	}
}

func TestRegressionAnnotationsAndCheckRun(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
	// 60 tasks: more failures than GitHub shows per step, more annotations than one check-run
	// request carries.
	var tasks strings.Builder
	for i := range 60 {
		tasks.WriteString("  - id: t" + itoa(i) + "\n    inputs:\n      prompt: \"Greet person " + itoa(i) + "\"\n")
	}
	mutate := func(ws string) {
		path := filepath.Join(ws, "evals/greet/eval.yaml")
		data, _ := os.ReadFile(path)
		os.WriteFile(path, []byte(strings.Replace(string(data), "  - tasks/*.yaml\n", tasks.String(), 1)), 0o644)
	}
	h.input(InTrials, "3")
	h.input(InCheckRun, "true")
	h.publishBaseline(3, mutate)
	mutate(h.ws)
	breakGreet(h)

	if code := h.run(); code != ExitFailed {
		t.Fatalf("exit %d, want 1\n%s", code, h.stderr.String())
	}
	errs := h.annotations("error")
	if len(errs) != stepAnnotationLimit {
		t.Fatalf("%d error annotations, want %d (GitHub's per-step limit):\n%s", len(errs), stepAnnotationLimit, strings.Join(errs, "\n"))
	}
	if !strings.Contains(errs[0], "title=skillgate%3A greet regressed") || !strings.Contains(errs[0], "file=evals/greet/eval.yaml,line=1") {
		t.Errorf("the regression is not the first annotation: %s", errs[0])
	}
	graderLine := "file=evals/greet/eval.yaml,line=10"
	found := false
	for _, e := range errs {
		found = found || (strings.Contains(e, graderLine) && strings.Contains(e, "grader answered (text) failed in 3 of 3 trials"))
	}
	if !found {
		t.Errorf("no annotation at the grader's line (%s):\n%s", graderLine, strings.Join(errs, "\n"))
	}
	if !strings.Contains(h.stdout.String(), "more error(s) are in the job summary") {
		t.Errorf("the dropped annotations are not mentioned")
	}
	h.gh.mu.Lock()
	checks := h.gh.checks
	h.gh.mu.Unlock()
	if len(checks) < 2 || checks[0].Method != "POST" {
		t.Fatalf("check run calls: %+v", checks)
	}
	total := 0
	for i, c := range checks {
		out := c.Body["output"].(map[string]any)
		anns, _ := out["annotations"].([]any)
		if len(anns) > checkRunBatch {
			t.Errorf("call %d carries %d annotations, over %d", i, len(anns), checkRunBatch)
		}
		if i > 0 && (c.Method != "PATCH" || c.Body["name"] != "skillgate (evals)") {
			t.Errorf("follow-up %d: %s name %v", i, c.Method, c.Body["name"])
		}
		total += len(anns)
	}
	if total < 60 {
		t.Errorf("the check run got %d annotations, want every one (≥ 60)", total)
	}
	first := checks[0].Body
	if first["conclusion"] != "failure" || first["head_sha"] != headSHA || first["status"] != "completed" {
		t.Errorf("check run: conclusion %v head_sha %v status %v", first["conclusion"], first["head_sha"], first["status"])
	}
	ann := first["output"].(map[string]any)["annotations"].([]any)[0].(map[string]any)
	if ann["annotation_level"] != "failure" || ann["path"] != "evals/greet/eval.yaml" {
		t.Errorf("first check annotation: %v", ann)
	}
	// The check run's title is the comment's headline: one story, one word per task.
	comment := h.readFile(".skillgate/comment.md")
	headline := ""
	for _, line := range strings.Split(comment, "\n") {
		if strings.HasPrefix(line, "### ") {
			headline = strings.TrimPrefix(line, "### ")
			break
		}
	}
	// The mock executor: the title says first that no agent ran, as the comment does.
	if title := first["output"].(map[string]any)["title"]; title != "mock executor: the suites were checked, no agent ran; "+report.PlainMarkdown(headline) {
		t.Errorf("check run title %q, comment headline %q", title, headline)
	}
}

// mode: run on a fork evaluates everything in place (including the baseline, readable with
// actions: read) and writes nothing to GitHub.
func TestForkPullRequestDoesNotWrite(t *testing.T) {
	h := newHarness(t, "pull_request.fork")
	h.gh.prFiles = [][2]string{{"evals/greet/tasks/hello.yaml", ""}}
	h.input(InCheckRun, "true")
	h.input(InMode, ModeRun)
	h.publishBaseline(0, nil)
	if code := h.run(); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if n := h.gh.called("POST "); n != 0 {
		t.Errorf("%d writes on a fork pull request", n)
	}
	if !strings.Contains(h.stdout.String(), "::notice::skillgate: pull request from a fork (octodev/demo)") {
		t.Errorf("no notice about the fork:\n%s", h.stdout.String())
	}
	if h.outputs()[OutVerdict] != "inconclusive" {
		t.Errorf("the baseline (readable with actions: read) was not used: %v", h.outputs())
	}
}

func TestPushToDefaultBranchRunsEverything(t *testing.T) {
	h := newHarness(t, "push")
	h.publishBaseline(0, nil)
	if code := h.run(); code != ExitOK {
		t.Fatalf("exit %d\n%s\n%s", code, h.stdout.String(), h.stderr.String())
	}
	out := h.outputs()
	if out[OutSuitesRun] != `["greet","other"]` {
		t.Errorf("suites-run = %s", out[OutSuitesRun])
	}
	if h.gh.called("GET /repos/acme/demo/issues") != 0 || h.gh.called("GET /repos/acme/demo/pulls") != 0 {
		t.Errorf("a push looked for a pull request")
	}
	res, err := results.ReadFile(filepath.Join(h.ws, ".skillgate/results/greet.json"))
	if err != nil {
		t.Fatal(err)
	}
	if b := res.Provenance.Baseline; b.Method != BaselineArtifact || b.Commit != mergeBaseSHA {
		t.Errorf("push baseline = %+v, want the artifact of the commit before the push", b)
	}
}

func TestMissingEventFile(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.env["GITHUB_EVENT_PATH"] = filepath.Join(t.TempDir(), "gone.json")
	if code := h.run(); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if !strings.Contains(h.stdout.String(), "::warning::skillgate: event file missing") {
		t.Errorf("no warning:\n%s", h.stdout.String())
	}
	if got := h.outputs()[OutSuitesRun]; got != `["greet","other"]` {
		t.Errorf("suites-run = %s, want every suite", got)
	}
	if n := h.gh.called("POST "); n != 0 {
		t.Errorf("%d writes without a pull request", n)
	}
}

func TestPermissionsDegradeToWarnings(t *testing.T) {
	for _, tt := range []struct {
		name   string
		faults map[string][]int
		want   []string
	}{
		{"401 listing comments", map[string][]int{"list-comments": {401}}, []string{"the token was refused (401 Bad credentials)"}},
		{"403 creating the check run", map[string][]int{"create-check": {403}},
			[]string{"grant `permissions: checks: write`"}},
		{"persistent 503 listing comments", map[string][]int{"list-comments": {503, 503, 503, 503}}, []string{"503 Service Unavailable"}},
		{"persistent 500 creating the check run", map[string][]int{"create-check": {500, 500, 500, 500}}, []string{"creating the check run: 500"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "pull_request.synchronize")
			h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
			h.input(InCheckRun, "true")
			h.input(InBaseline, "none")
			h.gh.faults = tt.faults
			if code := h.run(); code != ExitOK {
				t.Fatalf("exit %d: a reporting failure must not fail the evaluation\n%s", code, h.stdout.String())
			}
			warnings := strings.Join(h.annotations("warning"), "\n")
			for _, w := range tt.want {
				if !strings.Contains(warnings, w) {
					t.Errorf("no warning with %q:\n%s", w, warnings)
				}
			}
			if h.outputs()[OutVerdict] != pipeline.VerdictNoBaseline {
				t.Errorf("outputs missing: %v", h.outputs())
			}
			if _, err := os.Stat(filepath.Join(h.ws, ".skillgate", report.CommentFile)); err != nil {
				t.Errorf("report files missing: %v", err)
			}
		})
	}
}

func TestRetriesWithBackoff(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
	h.publishBaseline(0, nil)
	h.gh.faults = map[string][]int{"runs": {502, 503}, "list-comments": {429}}
	if code := h.run(); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	// backoff (jittered: half to all of 1 s, then of 2 s), then the Retry-After of 2 s as given
	lo := []time.Duration{time.Second / 2, time.Second, 2 * time.Second}
	hi := []time.Duration{time.Second, 2 * time.Second, 2 * time.Second}
	if len(h.sleeps) != len(lo) {
		t.Fatalf("sleeps %v, want %d", h.sleeps, len(lo))
	}
	for i := range lo {
		if h.sleeps[i] < lo[i] || h.sleeps[i] > hi[i] {
			t.Errorf("sleep %d = %v, want %v to %v", i, h.sleeps[i], lo[i], hi[i])
		}
	}
	if len(h.gh.commentBodies()) != 1 || h.outputs()[OutVerdict] != "inconclusive" {
		t.Errorf("the retried calls did not complete the loop: %v", h.outputs())
	}
}

func TestBaselineFallbacks(t *testing.T) {
	tests := []struct {
		name     string
		baseline string
		setup    func(h *harness)
		method   string
		detail   string
	}{
		{"no artifact in the run", "artifact", func(h *harness) {
			h.publishBaseline(0, nil)
			h.gh.runs[0].Artifacts = nil
		}, BaselineNone, "run 501 has no artifact named skillgate-results"},
		{"no run at an ancestor", "artifact", func(h *harness) {
			h.publishBaseline(0, nil)
			h.gh.runs[0].HeadSHA = "3333333333333333333333333333333333333333"
		}, BaselineNone, "no successful push run of evals.yml on main"},
		{"a fork's run on a branch named main is ignored", "artifact", func(h *harness) {
			h.publishBaseline(0, nil)
			h.gh.runs[0].HeadRepo = "octodev/demo"
		}, BaselineNone, "no successful push run"},
		{"expired in the list", "artifact", func(h *harness) {
			h.publishBaseline(0, nil)
			h.gh.runs[0].Artifacts[0].Expired = true
		}, BaselineNone, "expired"},
		{"410 on download", "artifact", func(h *harness) {
			h.publishBaseline(0, nil)
			h.gh.faults["artifact-zip"] = []int{410}
		}, BaselineNone, "expired (410)"},
		{"corrupt zip", "artifact", func(h *harness) {
			h.publishBaseline(0, nil)
			h.gh.blobs[9001] = []byte("PK\x03\x04 this is not a zip")
		}, BaselineNone, "not a zip archive"},
		{"zip with a path traversal", "artifact", func(h *harness) {
			h.publishBaseline(0, nil)
			h.gh.blobs[9001] = zipOf(t, map[string][]byte{"../results/greet.json": []byte("{}")})
		}, BaselineNone, "unsafe entry name"},
		{"oversized artifact is not downloaded", "artifact", func(h *harness) {
			h.publishBaseline(0, nil)
			h.gh.runs[0].Artifacts[0].Size = maxArtifactZip + 1
		}, BaselineNone, "over the 256 MiB limit"},
		{"nearest ancestor", "artifact", func(h *harness) {
			h.publishBaseline(0, nil)
			h.gh.runs[0].HeadSHA = h.gh.ancestors[2]
		}, BaselineArtifact, "2 commit(s) before 7e5d3c1"},
		{"expired artifact falls back to a rerun from the tarball", "auto", func(h *harness) {
			h.publishBaseline(0, nil)
			h.gh.faults["artifact-zip"] = []int{410}
			h.gh.tarball = tarballOf(t, "testdata/workspace", "acme-demo-7e5d3c1")
		}, BaselineRerun, "re-run in this job"},
		{"committed baseline file", "auto", func(h *harness) {
			files := baselineResults(t, 0, nil)
			h.write("evals/greet/baseline.json", string(files["results/greet.json"]))
		}, BaselineFile, "evals/greet/baseline.json"},
		{"file input", "file:base", func(h *harness) {
			files := baselineResults(t, 0, nil)
			h.write("base/results/greet.json", string(files["results/greet.json"]))
		}, BaselineFile, "base/results/greet.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "pull_request.synchronize")
			h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
			h.input(InBaseline, tt.baseline)
			tt.setup(h)
			if code := h.run(); code != ExitOK {
				t.Fatalf("exit %d\n%s\n%s", code, h.stdout.String(), h.stderr.String())
			}
			res, err := results.ReadFile(filepath.Join(h.ws, ".skillgate/results/greet.json"))
			if err != nil {
				t.Fatal(err)
			}
			b := res.Provenance.Baseline
			if b == nil || b.Method != tt.method || !strings.Contains(b.Detail, tt.detail) {
				t.Fatalf("baseline = %+v, want method %s with %q", b, tt.method, tt.detail)
			}
			comment := h.readFile(".skillgate/" + report.CommentFile)
			if tt.method == BaselineNone && !strings.Contains(comment, "No baseline (") {
				t.Errorf("the comment does not say why there is no baseline")
			}
			if tt.method == BaselineRerun && (b.Commit != mergeBaseSHA || h.gh.called("GET /repos/acme/demo/tarball/"+mergeBaseSHA) != 1) {
				t.Errorf("rerun: commit %s, tarball requests %d", b.Commit, h.gh.called("GET /repos/acme/demo/tarball/"))
			}
			if strings.Contains(tt.name, "oversized") && h.gh.called("GET /repos/acme/demo/actions/artifacts/9001/zip") != 0 {
				t.Errorf("the oversized artifact was downloaded")
			}
		})
	}
}

func TestStaleBaselineWarns(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
	h.publishBaseline(0, nil)
	h.gh.runs[0].CreatedAt = time.Now().Add(-10*24*time.Hour - 12*time.Hour)
	if code := h.run(); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if w := strings.Join(h.annotations("warning"), "\n"); !strings.Contains(w, "the baseline of greet is 10 days old") {
		t.Errorf("no stale-baseline warning:\n%s", w)
	}
}

func TestConcurrentRunsKeepOneComment(t *testing.T) {
	for _, tt := range []struct {
		name       string
		racerFirst bool // the racing run's comment is older than ours
	}{{"racer older", true}, {"racer younger", false}} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, "pull_request.synchronize")
			h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
			h.input(InBaseline, "none")
			marker := report.Marker("evals")
			h.gh.afterCreate = func() {
				h.gh.mu.Lock()
				defer h.gh.mu.Unlock()
				c := h.gh.addComment(marker+"\nthe other run's report", "github-actions[bot]")
				if tt.racerFirst {
					c.CreatedAt = c.CreatedAt.Add(-time.Hour)
				}
			}
			if code := h.run(); code != ExitOK {
				t.Fatalf("exit %d", code)
			}
			bodies := h.gh.commentBodies()
			if len(bodies) != 1 {
				t.Fatalf("%d comments after a race, want 1", len(bodies))
			}
			if strings.Contains(bodies[0], "the other run's report") {
				t.Errorf("the kept comment does not carry this run's report")
			}
			if !strings.HasSuffix(h.outputs()[OutCommentURL], "#issuecomment-"+map[bool]string{true: "1002", false: "1001"}[tt.racerFirst]) {
				t.Errorf("comment-url = %s", h.outputs()[OutCommentURL])
			}
		})
	}
}

func TestNoSuiteAffected(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.gh.prFiles = [][2]string{{"docs/intro.md", ""}}
	if code := h.run(); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	out := h.outputs()
	if out[OutVerdict] != pipeline.VerdictSkipped || out[OutSuitesRun] != "[]" {
		t.Errorf("outputs %v", out)
	}
	if len(h.gh.commentBodies()) != 0 {
		t.Errorf("comment: auto posted a comment although nothing ran")
	}
	// With an earlier comment, auto keeps it current.
	h.gh.addComment(report.Marker("evals")+"\nold", "github-actions[bot]")
	h.run()
	if b := h.gh.commentBodies(); len(b) != 1 || !strings.Contains(b[0], "No suite to run") {
		t.Errorf("the existing comment was not updated: %q", b)
	}
}

func TestSharedFileChangeAffectsItsSuite(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.gh.prFiles = [][2]string{{"shared/answer.txt", "shared/old-answer.txt"}}
	h.input(InBaseline, "none")
	if code := h.run(); code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	if got := h.outputs()[OutSuitesRun]; got != `["other"]` {
		t.Errorf("suites-run = %s, want the suite whose fixture changed", got)
	}
}

func TestWorkflowFileChangeRunsEverything(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.gh.prFiles = [][2]string{{".github/workflows/evals.yml", ""}}
	h.input(InBaseline, "none")
	h.run()
	if got := h.outputs()[OutSuitesRun]; got != `["greet","other"]` {
		t.Errorf("suites-run = %s", got)
	}
}

func TestBadInputsExitTwoBeforeRunning(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.input(InFailOn, "verdict ==")
	h.input(InTrials, "zero")
	h.input(InBaseline, "sometimes")
	if code := h.run(); code != ExitUsage {
		t.Fatalf("exit %d, want 2", code)
	}
	errs := strings.Join(h.annotations("error"), "\n")
	for _, want := range []string{`input "fail-on"`, `input "trials" = "zero"`, `input "baseline" = "sometimes"`} {
		if !strings.Contains(errs, want) {
			t.Errorf("no error for %s:\n%s", want, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(h.ws, ".skillgate")); err == nil {
		t.Errorf("something ran despite bad inputs")
	}
	if len(h.gh.requests) != 0 {
		t.Errorf("GitHub was called despite bad inputs: %v", h.gh.requests)
	}
}

func TestInvalidSuiteIsAnnotated(t *testing.T) {
	h := newHarness(t, "push")
	// A regular expression that does not compile: the grader cannot be evaluated.
	h.write("evals/greet/eval.yaml", strings.Replace(h.readFile("evals/greet/eval.yaml"), failingGrader, `      regex_match: ["(unclosed"]`, 1))
	// The broken suite fails alone: the others run, and the step fails (exit 1, not 2).
	if code := h.run(); code != ExitFailed {
		t.Fatalf("exit %d, want 1", code)
	}
	found := false
	for _, e := range h.annotations("error") {
		found = found || strings.Contains(e, "file=evals/greet/eval.yaml,line=13")
	}
	if !found {
		t.Errorf("the suite error is not annotated at its line:\n%s", h.stdout.String())
	}
}

func TestPanicIsRecovered(t *testing.T) {
	var out, errOut strings.Builder
	code := Main(t.Context(), Deps{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string {
		if k == "GITHUB_WORKSPACE" {
			panic("boom")
		}
		return ""
	}})
	if code != ExitUsage || !strings.Contains(out.String(), "::error title=skillgate crashed::internal error: boom") {
		t.Errorf("exit %d\n%s", code, out.String())
	}
}

func TestSuitesAndWorkingDirectoryInputs(t *testing.T) {
	h := newHarness(t, "push")
	h.input(InWorkingDirectory, "evals")
	h.input(InSuites, "gr*")
	h.input(InBaseline, "none")
	if code := h.run(); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	out := h.outputs()
	if out[OutSuitesRun] != `["greet"]` || out[OutResultsDir] != "evals/.skillgate" {
		t.Errorf("outputs %v", out)
	}
	h.input(InSuites, "nothing-*")
	if code := h.run(); code != ExitUsage || !strings.Contains(h.stdout.String(), "nothing-* matches no suite") {
		t.Errorf("exit %d for a pattern matching nothing\n%s", code, h.stdout.String())
	}
}

func TestCommentKeyPerSuiteSelection(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}, {"shared/answer.txt", ""}}
	h.input(InBaseline, "none")
	h.input(InSuites, "evals/greet")
	h.run()
	h.input(InSuites, "evals/other")
	h.run()
	bodies := h.gh.commentBodies()
	if len(bodies) != 2 || strings.SplitN(bodies[0], "\n", 2)[0] == strings.SplitN(bodies[1], "\n", 2)[0] {
		t.Errorf("two suite selections share one comment: %d comments", len(bodies))
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestSuiteThatCannotStart(t *testing.T) {
	h := newHarness(t, "push")
	h.input(InBaseline, "none")
	h.write("evals/greet/eval.yaml", h.readFile("evals/greet/eval.yaml")+"hooks:\n  before_run:\n    - command: exit 3\n      error_on_fail: true\n")
	if code := h.run(); code != ExitUsage {
		t.Fatalf("exit %d, want 2", code)
	}
	if errs := strings.Join(h.annotations("error"), "\n"); !strings.Contains(errs, "title=skillgate%3A suite could not start::greet:") {
		t.Errorf("no error for the suite:\n%s", errs)
	}
	out := h.outputs()
	if out[OutSuitesRun] != `["other"]` || out[OutPassed] != "false" {
		t.Errorf("the other suite is not reported: %v", out)
	}
}

// TestOutputsAgreeWithResults: the step outputs are the figures of the results file and of the
// JUnit properties, on a run with a failing task (docs/results.md#summary).
func TestOutputsAgreeWithResults(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.gh.prFiles = [][2]string{{"evals/greet/skills/greeter/SKILL.md", ""}}
	h.publishBaseline(0, nil)
	breakGreet(h)
	if code := h.run(); code != ExitFailed {
		t.Fatalf("exit %d, want 1\n%s", code, h.stderr.String())
	}
	res, err := results.ReadFile(filepath.Join(h.ws, ".skillgate/results/greet.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := h.outputs()
	junit := h.readFile(".skillgate/junit.xml")
	for output, v := range map[string]float64{OutScore: res.Summary.AggregateScore, OutSuccessRate: res.Summary.SuccessRate} {
		if want := fmt.Sprintf("%.4f", v); out[output] != want {
			t.Errorf("output %s = %q, results file says %s", output, out[output], want)
		}
	}
	for prop, v := range map[string]float64{"score": res.Summary.AggregateScore, "success_rate": res.Summary.SuccessRate, "pass_rate": res.Summary.PassRate} {
		if want := fmt.Sprintf(`name="%s" value="%.4f"`, prop, v); !strings.Contains(junit, want) {
			t.Errorf("junit.xml lacks %s", want)
		}
	}
	if res.Summary.SuccessRate == 1 {
		t.Errorf("the broken suite reads as all passing: %+v", res.Summary)
	}
}

// skip-triggers reaches the runner: no trigger prompt runs, the results say so, and the log's
// plan counts only the tasks.
func TestSkipTriggersInput(t *testing.T) {
	h := newHarness(t, "push")
	h.input(InSkipTriggers, "true")
	h.publishBaseline(0, nil)
	code := h.run()
	res, err := results.ReadFile(filepath.Join(h.ws, ".skillgate/results/greet.json"))
	if err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, h.stderr.String())
	}
	if len(res.TriggerResults) != 0 || res.TriggerMetrics != nil || !res.Config.SkipTriggers {
		t.Errorf("%d trigger results, skip_triggers %v", len(res.TriggerResults), res.Config.SkipTriggers)
	}
	if log := h.stdout.String(); !strings.Contains(log, "::group::greet (") || strings.Contains(log, "trigger prompt") {
		t.Errorf("the plan must count no trigger prompt:\n%s", log)
	}
}

// TestRunCacheSeededFromTheBaseArtifact: on a pull request, the base branch's results artifact
// seeds the run cache before anything runs, so the runs of tasks the change did not touch are
// reused, graded with the PR's graders, and the comment says so; the artifact is downloaded once.
func TestRunCacheSeededFromTheBaseArtifact(t *testing.T) {
	for _, cache := range []string{"true", "false"} {
		t.Run("cache "+cache, func(t *testing.T) {
			h := newHarness(t, "pull_request.synchronize")
			h.gh.prFiles = [][2]string{{"evals/greet/tasks/hello.yaml", ""}}
			h.input(InBaseline, "artifact")
			h.input(InCache, cache)
			// The mock executor's runs are not cached (one costs less than its entry): the suite
			// runs a command agent that answers as the mock does, on both branches.
			const greetEval = "evals/greet/eval.yaml"
			toCommand := func(eval string) string {
				return strings.Replace(eval, "  executor: mock\n", "  executor: command\n  command:\n"+
					"    argv: [sh, -c, 'echo \"Mock response for: $1\"', sh, \"{prompt}\"]\n    output: text\n", 1)
			}
			h.publishBaseline(0, func(ws string) {
				path := filepath.Join(ws, greetEval)
				data, err := os.ReadFile(path)
				if err == nil {
					err = os.WriteFile(path, []byte(toCommand(string(data))), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			})
			h.write(greetEval, toCommand(h.readFile(greetEval)))
			// The PR changes one task's prompt.
			hello := h.readFile("evals/greet/tasks/hello.yaml")
			h.write("evals/greet/tasks/hello.yaml", strings.Replace(hello, "greet Ada", "greet Grace", 1))
			if code := h.run(); code != ExitOK && code != ExitFailed {
				t.Fatalf("exit %d\n%s\n%s", code, h.stdout.String(), h.stderr.String())
			}
			res, err := results.ReadFile(filepath.Join(h.ws, ".skillgate/results/greet.json"))
			if err != nil {
				t.Fatal(err)
			}
			sp := res.Summary.Spend
			helloRuns, reusedHello := 0, 0
			for _, task := range res.Tasks {
				for _, run := range task.Runs {
					if task.ID == "hello" {
						helloRuns++
						if run.Reused != nil {
							reusedHello++
						}
					}
				}
			}
			if n := h.gh.called("GET /repos/acme/demo/actions/artifacts/9001/zip"); n != 1 {
				t.Errorf("the artifact was downloaded %d times", n)
			}
			comment := h.readFile(".skillgate/" + report.CommentFile)
			if cache == "false" {
				if sp.Reused != 0 {
					t.Errorf("cache: false reused %d runs", sp.Reused)
				}
				return
			}
			if reusedHello != 0 || helloRuns == 0 {
				t.Errorf("the changed task reused %d of %d runs", reusedHello, helloRuns)
			}
			if sp.Reused != sp.Runs-helloRuns || sp.Reused == 0 {
				t.Errorf("reused %d of %d runs, want all but the %d of the changed task", sp.Reused, sp.Runs, helloRuns)
			}
			if len(sp.ReusedFrom) != 1 || sp.ReusedFrom[0] != mergeBaseSHA {
				t.Errorf("reused from %v, want the base commit", sp.ReusedFrom)
			}
			if want := fmt.Sprintf("%d of %d runs reused (inputs unchanged) from commit", sp.Reused, sp.Runs); !strings.Contains(comment, want) {
				t.Errorf("the comment does not say %q:\n%s", want, comment)
			}
		})
	}
}

// The uplift input runs every task without the skill too: the results carry the without-skill
// run and each task's skill effect, and fail-on sees the uplift verdict.
func TestUpliftInput(t *testing.T) {
	for _, uplift := range []bool{true, false} {
		t.Run(strconv.FormatBool(uplift), func(t *testing.T) {
			h := newHarness(t, "pull_request.synchronize")
			h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
			h.input(InBaseline, "none")
			h.input(InUplift, strconv.FormatBool(uplift))
			h.input(InFailOn, `any(suites, .name == "greet" && .uplift_verdict == "")`)
			want := map[bool]int{true: ExitOK, false: ExitFailed}[uplift]
			if code := h.run(); code != want {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, want, h.stdout.String(), h.stderr.String())
			}
			res, err := results.ReadFile(filepath.Join(h.ws, ".skillgate/results/greet.json"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Config.Uplift != uplift || (res.BaselineOutcome != nil) != uplift || (res.Tasks[0].SkillImpact != nil) != uplift {
				t.Errorf("uplift %v: config %v, without-skill run %v, skill impact %+v", uplift, res.Config.Uplift, res.BaselineOutcome != nil, res.Tasks[0].SkillImpact)
			}
		})
	}
}
