package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// creatorCorpus holds real repositories' skill-creator files (testdata/skill-creator/SOURCES.md
// names each repository, commit and licence).
const creatorCorpus = "testdata/skill-creator"

// TestSkillCreatorCorpus is the acceptance of skill-creator's format: every evals.json and
// trigger eval set of the corpus runs under the mock executor from its repository's root (exit 0
// or 1): one task per eval with a prompt, one trigger prompt per query (three runs each), and
// every check a judge grades pending, never passed. Exit codes, counts and diagnostics are kept
// in testdata/skill-creator.golden (`-update` rewrites it).
func TestSkillCreatorCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the whole skill-creator corpus")
	}
	repos, err := os.ReadDir(creatorCorpus)
	if err != nil {
		t.Fatal(err)
	}
	var golden strings.Builder
	ran := 0
	for _, e := range repos {
		if !e.IsDir() {
			continue
		}
		repo, _ := filepath.Abs(filepath.Join(creatorCorpus, e.Name()))
		found, err := spec.Find([]string{repo})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(e.Name(), func(t *testing.T) {
			t.Chdir(repo)
			out := t.TempDir()
			code, _, stderr := run(t, map[string]string{}, "run", "--executor", "mock", "--quiet", "--out", out, ".")
			fmt.Fprintf(&golden, "## %s\nexit %d\n", e.Name(), code)
			if code != exitOK && code != exitFailed {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			for _, line := range strings.Split(stderr, "\n") {
				if strings.Contains(line, ": warning: ") || strings.Contains(line, ": error: ") || strings.HasPrefix(line, "skillgate: skipped") {
					golden.WriteString(line + "\n")
				}
			}
			files, _ := filepath.Glob(filepath.Join(out, "results", "*.json"))
			sort.Strings(files)
			if len(files) != len(found.Suites) {
				t.Errorf("%d results files for %d suites", len(files), len(found.Suites))
			}
			for _, suite := range found.Suites {
				evals, queries := countCreator(t, suite)
				s, _ := spec.Load(suite, spec.Options{SearchRoot: repo})
				res := readResults(t, results.PathIn(out, s.Name))
				pending, judged := 0, 0
				for _, task := range res.Tasks {
					for _, r := range task.Runs {
						for _, v := range r.Validations {
							if v.Type == spec.JudgedChecksType {
								judged++
								if v.Status == results.StatusPending && !v.Passed {
									pending++
								}
							}
						}
					}
				}
				rel, _ := filepath.Rel(repo, suite)
				fmt.Fprintf(&golden, "%s: %d tasks (%d not graded, %d failed), %d judged checks pending, %d trigger runs\n",
					filepath.ToSlash(rel), len(res.Tasks), res.Summary.Skipped, res.Summary.Failed, pending, len(res.TriggerResults))
				prompts := map[string]bool{}
				for _, tr := range res.TriggerResults {
					prompts[tr.ID] = true
				}
				// Under the mock no query gets a verdict (its trigger decisions are a keyword match).
				if len(res.Tasks) != evals || len(prompts) != queries || len(res.TriggerResults) != 3*queries || len(res.TriggerQueries) != 0 {
					t.Errorf("%s: %d tasks for %d evals, %d trigger prompts (%d runs, %d verdicts) for %d queries", rel, len(res.Tasks), evals, len(prompts), len(res.TriggerResults), len(res.TriggerQueries), queries)
				}
				if pending != judged {
					t.Errorf("%s: %d of %d judged checks pending", rel, pending, judged)
				}
				ran++
			}
		})
	}
	if ran < 25 {
		t.Errorf("%d suites ran", ran)
	}
	checkGolden(t, "testdata/skill-creator.golden", golden.String())
}

// countCreator counts, with encoding/json, the evals with a prompt of a suite's evals.json and the
// queries of its folder's trigger sets.
func countCreator(t *testing.T, suite string) (evals, queries int) {
	t.Helper()
	dir := filepath.Dir(suite)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch spec.Classify(p).Kind {
		case spec.KindSkillCreator:
			var doc struct {
				Evals []map[string]any `json:"evals"`
			}
			data, _ := os.ReadFile(p)
			if err := json.Unmarshal(data, &doc); err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			for _, ev := range doc.Evals {
				if s, _ := ev["prompt"].(string); strings.TrimSpace(s) != "" {
					evals++
				}
			}
		case spec.KindTriggerSet:
			data, _ := os.ReadFile(p)
			var list []any
			var obj map[string]any
			if json.Unmarshal(data, &list) == nil {
				queries += len(list)
			} else if json.Unmarshal(data, &obj) == nil {
				for _, k := range []string{"queries", "should_trigger", "should_not_trigger"} {
					if l, ok := obj[k].([]any); ok {
						queries += len(l)
					}
				}
			}
		}
	}
	return evals, queries
}

// With a judge (a scripted chat-completions endpoint) and recorded answers replayed, every
// judged check is graded PASS or FAIL with the evidence the judge cited, in one call per run.
func TestSkillCreatorGradedByScriptedJudge(t *testing.T) {
	repo, _ := filepath.Abs(filepath.Join(creatorCorpus, "xpepper__tcr-skill"))
	runs := t.TempDir()
	for _, id := range []string{"1", "2", "3"} {
		run := results.AgentRun{FinalOutput: "Run the tests, then `git commit` on green or `git reset --hard` on red (answer " + id + ")."}
		data, _ := json.Marshal(run)
		if err := os.WriteFile(filepath.Join(runs, id+".json"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	calls := 0
	judgeSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
			ResponseFormat map[string]string `json:"response_format"`
		}
		body, _ := io.ReadAll(r.Body)
		if r.URL.Path != "/chat/completions" || json.Unmarshal(body, &req) != nil || req.ResponseFormat["type"] != "json_object" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		calls++
		user := req.Messages[len(req.Messages)-1].Content
		// The first check passes with evidence; the others fail (uncertain).
		var entries []map[string]any
		for i := 1; strings.Contains(user, fmt.Sprintf("\n%d. ", i)); i++ {
			entries = append(entries, map[string]any{"id": i, "passed": i == 1, "evidence": fmt.Sprintf("evidence for check %d", i)})
		}
		content, _ := json.Marshal(map[string]any{"expectations": entries})
		reply, _ := json.Marshal(map[string]any{"id": "chatcmpl-1", "object": "chat.completion", "model": "judge-model",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(content)}}},
			"usage":   map[string]any{"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940}})
		w.Header().Set("Content-Type", "application/json")
		w.Write(reply)
	}))
	defer judgeSrv.Close()
	env := map[string]string{"SKILLGATE_JUDGE_BASE_URL": judgeSrv.URL, "SKILLGATE_JUDGE_API_KEY": "k", "SKILLGATE_JUDGE_MODEL": "judge-model"}
	out := t.TempDir()
	code, _, stderr := run(t, env, "run", "--executor", "replay", "--from", runs, "--skip-triggers", "--quiet", "--out", out, repo)
	if code != exitFailed {
		t.Fatalf("exit %d, want 1 (checks failed)\n%s", code, stderr)
	}
	if calls != 3 {
		t.Errorf("%d judge calls, want one per run (3)", calls)
	}
	res := readResults(t, results.PathIn(out, "tcr"))
	for _, task := range res.Tasks {
		vals := task.Runs[0].Validations
		if task.Status != results.StatusFailed || len(vals) < 4 {
			t.Fatalf("task %s: %s, %d checks", task.ID, task.Status, len(vals))
		}
		if v := vals[0]; !v.Passed || v.Feedback != "evidence for check 1" || v.Source == nil || v.Source.Line == 0 {
			t.Errorf("task %s check 1: %+v", task.ID, v)
		}
		if v := vals[1]; v.Passed || v.Feedback != "evidence for check 2" {
			t.Errorf("task %s check 2: %+v", task.ID, v)
		}
		if want := 1 / float64(len(vals)); task.Stats.AvgScore != want {
			t.Errorf("task %s score %v, want %v (the fraction of checks passed)", task.ID, task.Stats.AvgScore, want)
		}
	}
}

// `skillgate report` turns a committed skill-creator workspace into results and every report,
// given with --from-skill-creator or as a folder.
func TestReportFromSkillCreator(t *testing.T) {
	ws := filepath.Join(creatorCorpus, "geoffsdesk__gke-upgrades-skill", "workspace")
	for _, args := range [][]string{{"--from-skill-creator", ws}, {ws}} {
		out := t.TempDir()
		code, stdout, stderr := run(t, nil, append([]string{"report", "--out", out}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		res := readResults(t, results.PathIn(out, "gke-upgrades"))
		if len(res.Tasks) != 3 || res.BaselineOutcome == nil || res.Summary.Succeeded != 3 {
			t.Errorf("%v: %+v", args, res.Summary)
		}
		if !strings.Contains(stdout, "gke-upgrades: skill effect per eval (skill − baseline): mean pass rate +100 pp over 3 evals") {
			t.Errorf("%v: terminal:\n%s", args, stdout)
		}
		summary, err := os.ReadFile(filepath.Join(out, "summary.md"))
		if err != nil || !strings.Contains(string(summary), "#### The skill's effect per eval (skill − baseline)") {
			t.Errorf("%v: summary %v", args, err)
		}
	}
}

// Trigger queries keep skill-creator's meaning with recorded runs: three runs per query, a
// should-trigger query passes at a rate ≥ 0.5, and a query whose run errored is an error, never
// "did not trigger" (which would pass a should-not query).
func TestSkillCreatorTriggerQueriesReplayed(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"greeter/SKILL.md": "---\nname: greeter\ndescription: Greets.\n---\n",
		"greeter/evals/trigger-evals.json": `[{"query": "greet Ada", "should_trigger": true}, {"query": "greet Linus", "should_trigger": true},
 {"query": "list files", "should_trigger": false}]`,
	}
	invoked, _ := json.Marshal(results.AgentRun{FinalOutput: "Hello", SessionDigest: results.SessionDigest{SkillInvocations: []results.SkillInvocation{{Name: "greeter"}}}})
	plain, _ := json.Marshal(results.AgentRun{FinalOutput: "Hello"})
	crashed, _ := json.Marshal(results.AgentRun{AgentError: "the agent crashed"})
	files["runs/trigger-should-1.json"] = string(invoked)
	files["runs/trigger-should-2.json"] = string(plain)
	files["runs/trigger-should-not-1.json"] = string(crashed)
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	code, _, stderr := run(t, nil, "run", "--executor", "replay", "--from", filepath.Join(dir, "runs"), "--quiet", "--out", out, filepath.Join(dir, "greeter"))
	if code != exitFailed {
		t.Fatalf("exit %d, want 1\n%s", code, stderr)
	}
	res := readResults(t, results.PathIn(out, "greeter"))
	if len(res.TriggerResults) != 9 || res.Config.TriggerRateThreshold != 0.5 {
		t.Fatalf("%d trigger runs, threshold %v", len(res.TriggerResults), res.Config.TriggerRateThreshold)
	}
	want := map[string]results.Status{"should-1": results.StatusPassed, "should-2": results.StatusFailed, "should-not-1": results.StatusError}
	for _, q := range res.TriggerQueries {
		if q.Status != want[q.ID] || q.Runs != 3 {
			t.Errorf("%s: %s over %d runs (%s)", q.ID, q.Status, q.Runs, q.Verdict())
		}
	}
	if !strings.Contains(strings.Join(res.Gate.Reasons, "; "), "1 of 3 trigger queries failed and 1 errored") {
		t.Errorf("gate %+v", res.Gate)
	}
}
