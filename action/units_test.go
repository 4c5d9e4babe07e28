package action

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillgate/skillgate/internal/retry"
	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

func TestRetryTransport(t *testing.T) {
	now := time.Date(2026, 7, 3, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		method   string
		statuses []int
		headers  map[string]string
		want     int // final status
		calls    int
		sleeps   []time.Duration
	}{
		{"ok", "GET", []int{200}, nil, 200, 1, nil},
		{"5xx then ok", "GET", []int{502, 503, 200}, nil, 200, 3, []time.Duration{time.Second, 2 * time.Second}},
		{"5xx bounded", "GET", []int{500, 500, 500, 500, 500}, nil, 500, 4, []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}},
		{"429 retry-after", "POST", []int{429, 201}, map[string]string{"Retry-After": "3"}, 201, 2, []time.Duration{3 * time.Second}},
		{"429 retry-after too long", "GET", []int{429, 200}, map[string]string{"Retry-After": "3600"}, 429, 1, nil},
		{"403 rate limit reset", "GET", []int{403, 200}, map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1783080010"}, 200, 2, []time.Duration{11 * time.Second}},
		{"403 permission is final", "GET", []int{403, 200}, nil, 403, 1, nil},
		{"404 is final", "GET", []int{404, 200}, nil, 404, 1, nil},
		{"POST 502 is not retried", "POST", []int{502, 201}, nil, 502, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(r.Body)
				if r.Method == "POST" && string(body) != `{"body":"x"}` {
					t.Errorf("replayed body %q", body)
				}
				i := int(calls.Add(1)) - 1
				for k, v := range tt.headers {
					w.Header().Set(k, v)
				}
				w.WriteHeader(tt.statuses[min(i, len(tt.statuses)-1)])
			}))
			defer srv.Close()
			var sleeps []time.Duration
			noJitter := githubBackoff
			noJitter.Rand = func() float64 { return 0 }
			rt := &retryTransport{base: http.DefaultTransport, now: func() time.Time { return time.Unix(1783080000, 0).UTC() },
				sleep: func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); return nil }, backoff: noJitter}
			_ = now
			req, _ := http.NewRequest(tt.method, srv.URL, strings.NewReader(`{"body":"x"}`))
			if tt.method == "GET" {
				req, _ = http.NewRequest("GET", srv.URL, nil)
			}
			resp, err := rt.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want || int(calls.Load()) != tt.calls {
				t.Errorf("status %d after %d calls, want %d after %d", resp.StatusCode, calls.Load(), tt.want, tt.calls)
			}
			if len(sleeps) != len(tt.sleeps) {
				t.Fatalf("sleeps %v, want %v", sleeps, tt.sleeps)
			}
			for i := range sleeps {
				if sleeps[i] != tt.sleeps[i] {
					t.Errorf("sleep %d = %v, want %v", i, sleeps[i], tt.sleeps[i])
				}
			}
		})
	}
}

func TestRetryStopsWhenCancelled(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	rt := &retryTransport{base: http.DefaultTransport, now: time.Now, sleep: func(ctx context.Context, d time.Duration) error {
		cancel()
		return retry.Sleep(ctx, d)
	}}
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL, nil)
	if _, err := rt.RoundTrip(req); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

func resultsJSON(t *testing.T, name string) []byte {
	t.Helper()
	res := &results.SuiteResult{EvalName: name, Tasks: []*results.TaskResult{{ID: "a", Status: results.StatusPassed}}}
	data, err := results.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestReadResultsZip(t *testing.T) {
	greet, other := resultsJSON(t, "greet"), resultsJSON(t, "Other Suite")
	tests := []struct {
		name  string
		files map[string][]byte
		want  []string // slugs
		err   string
	}{
		{"top-level results", map[string][]byte{"results/greet.json": greet, "results/other.json": other, "junit.xml": []byte("<x/>")}, []string{"greet", "other-suite"}, ""},
		{"one folder down", map[string][]byte{".skillgate/results/greet.json": greet}, []string{"greet"}, ""},
		{"kept baselines are not results", map[string][]byte{"results/greet.json": greet, "baseline/results/other.json": other}, []string{"greet"}, ""},
		{"only baselines", map[string][]byte{"baseline/results/other.json": other}, nil, "no results/<suite>.json"},
		{"traversal", map[string][]byte{"results/../../etc/passwd": greet}, nil, "unsafe entry name"},
		{"absolute", map[string][]byte{"/results/greet.json": greet}, nil, "absolute"},
		{"backslash", map[string][]byte{`results\greet.json`: greet}, nil, "backslash"},
		{"not results", map[string][]byte{"results/greet.json": []byte(`{"hello": 1}`)}, nil, "not a results file"},
		{"truncated JSON", map[string][]byte{"results/greet.json": greet[:40]}, nil, "truncated JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := zipOf(t, tt.files)
			set, err := readResultsZip(bytes.NewReader(data), int64(len(data)))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(sortedKeys(set), ","); got != strings.Join(tt.want, ",") {
				t.Errorf("suites %s, want %v", got, tt.want)
			}
		})
	}
}

func TestReadResultsZipLimits(t *testing.T) {
	// An entry that claims more than the per-file limit is refused before it is read.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.CreateHeader(&zip.FileHeader{Name: "results/big.json", Method: zip.Deflate})
	w.Write(bytes.Repeat([]byte(" "), maxResultsFileSize+10))
	zw.Close()
	if _, err := readResultsZip(bytes.NewReader(buf.Bytes()), int64(buf.Len())); err == nil || !strings.Contains(err.Error(), "larger than 128 MiB") {
		t.Errorf("oversized entry: %v", err)
	}
	// Too many entries.
	files := map[string][]byte{}
	for i := 0; i <= maxZipEntries; i++ {
		files["x/"+itoa(i)] = nil
	}
	data := zipOf(t, files)
	if _, err := readResultsZip(bytes.NewReader(data), int64(len(data))); err == nil || !strings.Contains(err.Error(), "entries") {
		t.Errorf("entry count: %v", err)
	}
	if _, err := readResultsZip(bytes.NewReader([]byte("garbage")), 7); err == nil || !strings.Contains(err.Error(), "not a zip") {
		t.Errorf("garbage: %v", err)
	}
}

func FuzzReadResultsZip(f *testing.F) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("results/greet.json")
	w.Write([]byte(`{"schema_version":1,"eval_name":"greet","tasks":[]}`))
	zw.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("PK\x05\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		set, err := readResultsZip(bytes.NewReader(data), int64(len(data)))
		if err == nil && len(set) == 0 {
			t.Fatal("no error and no results")
		}
	})
}

func tarOf(t testing.TB, entries []tar.Header, contents map[string]string) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, h := range entries {
		h := h
		body := contents[h.Name]
		if h.Typeflag == tar.TypeReg {
			h.Size = int64(len(body))
		}
		if err := tw.WriteHeader(&h); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	return buf.Bytes()
}

func TestExtractTar(t *testing.T) {
	reg := func(name string) tar.Header { return tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644} }
	tests := []struct {
		name    string
		entries []tar.Header
		strip   bool
		exists  []string
		missing []string
		err     string
	}{
		{"strip the API's top folder", []tar.Header{{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header", PAXRecords: map[string]string{"comment": "abc"}},
			{Typeflag: tar.TypeDir, Name: "acme-demo-abc/", Mode: 0o755}, reg("acme-demo-abc/evals/eval.yaml")}, true, []string{"evals/eval.yaml"}, []string{"acme-demo-abc"}, ""},
		{"traversal", []tar.Header{reg("../escape.txt")}, false, nil, nil, "unsafe entry name"},
		{"traversal after strip", []tar.Header{reg("top/../../escape.txt")}, true, nil, nil, "unsafe entry name"},
		{"absolute", []tar.Header{reg("/etc/x")}, false, nil, nil, "absolute"},
		{"symlink inside kept", []tar.Header{reg("a/file"), {Typeflag: tar.TypeSymlink, Name: "a/link", Linkname: "file"}}, false, []string{"a/file", "a/link"}, nil, ""},
		{"symlink outside dropped", []tar.Header{{Typeflag: tar.TypeSymlink, Name: "out", Linkname: "../../etc"}, {Typeflag: tar.TypeSymlink, Name: "abs", Linkname: "/etc"}}, false, nil, []string{"out", "abs"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "tree")
			os.Mkdir(dir, 0o755)
			err := extractTar(bytes.NewReader(tarOf(t, tt.entries, map[string]string{})), dir, tt.strip)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				if _, err := os.Stat(filepath.Join(root, "escape.txt")); err == nil {
					t.Errorf("a file escaped the tree")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range tt.exists {
				if _, err := os.Lstat(filepath.Join(dir, p)); err != nil {
					t.Errorf("%s: %v", p, err)
				}
			}
			for _, p := range tt.missing {
				if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
					t.Errorf("%s exists", p)
				}
			}
		})
	}
}

func FuzzExtractTar(f *testing.F) {
	f.Add(tarOf(f, []tar.Header{{Typeflag: tar.TypeReg, Name: "top/a.txt", Mode: 0o644}}, nil), true)
	f.Add(tarOf(f, []tar.Header{{Typeflag: tar.TypeSymlink, Name: "l", Linkname: "../x"}}, nil), false)
	f.Fuzz(func(t *testing.T, data []byte, strip bool) {
		root := t.TempDir()
		dir := filepath.Join(root, "tree")
		os.Mkdir(dir, 0o755)
		extractTar(bytes.NewReader(data), dir, strip)
		entries, _ := os.ReadDir(root)
		if len(entries) != 1 {
			t.Fatalf("something was written outside the tree: %v", entries)
		}
	})
}

func TestNeutralWriter(t *testing.T) {
	var out bytes.Buffer
	w := newNeutralWriter(&out)
	io.WriteString(w, "plain line\n::add-mask::secret\n  ::error file=x::boom\n::group::suite\n::endgroup::\n##[error]legacy\n\u00a0::warning::nbsp\npartial ::set-output")
	io.WriteString(w, " name=x::y\n::notice::no newline")
	w.Flush()
	// Group markers written as text are defused too: the progress printer's go through Command.
	want := "plain line\n› ::add-mask::secret\n›   ::error file=x::boom\n› ::group::suite\n› ::endgroup::\n› ##[error]legacy\n› \u00a0::warning::nbsp\npartial ::set-output name=x::y\n› ::notice::no newline\n"
	if out.String() != want {
		t.Errorf("got\n%q\nwant\n%q", out.String(), want)
	}
}

func TestCommandsGuardFileCommands(t *testing.T) {
	env := map[string]string{}
	var out bytes.Buffer
	c := newCommands(&out, io.Discard, func(k string) string { return env[k] })
	if err := c.setOutput("verdict", "x"); !errors.Is(err, errNoFileCommand) {
		t.Errorf("unset GITHUB_OUTPUT: %v", err)
	}
	if err := c.addSummary("# x"); !errors.Is(err, errNoFileCommand) {
		t.Errorf("unset GITHUB_STEP_SUMMARY: %v", err)
	}
	env["GITHUB_OUTPUT"] = filepath.Join(t.TempDir(), "missing-dir", "out")
	if err := c.setOutput("verdict", "x"); err == nil || errors.Is(err, errNoFileCommand) {
		t.Errorf("unwritable GITHUB_OUTPUT: %v", err)
	}
	env["GITHUB_OUTPUT"] = filepath.Join(t.TempDir(), "out")
	// A value holding the library's fixed delimiter cannot inject another output.
	evil := "a\n_GitHubActionsFileCommandDelimeter_\ninjected<<X\nyes\nX"
	if err := c.setOutput("note", evil); err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, env: env}
	if got := h.outputs(); len(got) != 1 || got["note"] != evil {
		t.Errorf("outputs %q", got)
	}
}

func TestDecodeEvent(t *testing.T) {
	env := map[string]string{
		"GITHUB_EVENT_NAME": "pull_request", "GITHUB_REPOSITORY": "acme/demo", "GITHUB_SHA": mergeSHA,
		"GITHUB_EVENT_PATH":   "testdata/events/pull_request.synchronize.json",
		"GITHUB_WORKFLOW_REF": "acme/demo/.github/workflows/evals.yml@refs/pull/7/merge", "GITHUB_RUN_ID": "42",
	}
	ev, err := ReadEvent(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	pr := ev.PR
	if pr == nil || pr.Number != 7 || pr.HeadSHA != headSHA || pr.BaseSHA != baseSHA || pr.BaseRef != "main" || pr.HeadRepo != "acme/demo" {
		t.Fatalf("pr = %+v", pr)
	}
	if ev.Fork() || ev.HeadSHA() != headSHA || ev.Workflow != "evals.yml" || ev.RunID != 42 || ev.DefaultBranch != "main" {
		t.Errorf("event = %+v", ev)
	}
	env["GITHUB_EVENT_PATH"] = "testdata/events/pull_request.fork.json"
	if ev, _ := ReadEvent(func(k string) string { return env[k] }); !ev.Fork() {
		t.Errorf("fork not detected")
	}
	env["GITHUB_EVENT_NAME"], env["GITHUB_EVENT_PATH"], env["GITHUB_SHA"], env["GITHUB_REF"] = "push", "testdata/events/push.json", "", ""
	ev, err = ReadEvent(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if ev.PR != nil || ev.Before != mergeBaseSHA || ev.SHA != pushSHA || !ev.OnDefaultBranch() {
		t.Errorf("push = %+v", ev)
	}
	env["GITHUB_EVENT_PATH"] = filepath.Join(t.TempDir(), "absent.json")
	if _, err := ReadEvent(func(k string) string { return env[k] }); !errors.Is(err, ErrNoEvent) {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"pull_request": {"head": {}}}`), 0o644)
	env["GITHUB_EVENT_NAME"], env["GITHUB_EVENT_PATH"] = "pull_request", bad
	if _, err := ReadEvent(func(k string) string { return env[k] }); err == nil || errors.Is(err, ErrNoEvent) || !strings.Contains(err.Error(), "head.sha") {
		t.Errorf("bad payload: %v", err)
	}
}

func FuzzDecodeEvent(f *testing.F) {
	for _, name := range []string{"pull_request.synchronize", "push"} {
		data, err := os.ReadFile("testdata/events/" + name + ".json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add("pull_request", data)
		f.Add("push", data)
	}
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		e := &Event{Name: name}
		if err := decodeEvent(e, data); err == nil && e.PR != nil && (e.PR.HeadSHA == "" || e.PR.BaseSHA == "") {
			t.Fatalf("accepted a pull request without commits: %+v", e.PR)
		}
	})
}

func TestWorkflowFile(t *testing.T) {
	for in, want := range map[string]string{
		"acme/demo/.github/workflows/evals.yml@refs/pull/7/merge": "evals.yml",
		"acme/demo/.github/workflows/a.yaml@refs/heads/main":      "a.yaml",
		"": "",
	} {
		if got := workflowFile(in); got != want {
			t.Errorf("workflowFile(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJudgeOptions: the judge inputs become the pipeline's judge settings, one for every load
// (pipeline.TestJudgeSettingsOptions: the graders get them as options), not the process
// environment (which every child process would inherit). Which key goes to which endpoint is
// graders.TestJudgeKeyFromOptions.
func TestJudgeOptions(t *testing.T) {
	r := &run{d: Deps{Getenv: func(string) string { return "" }}, outDir: "/out", mode: runMode{},
		cfg: &Config{JudgeBaseURL: "https://api.openai.com/v1", JudgeAPIKey: "sk-123", Token: testToken, JudgeModel: "openai/gpt-4.1-mini"}}
	before, beforeSet := os.LookupEnv("SKILLGATE_JUDGE_API_KEY")
	o := r.settings().Judge
	if o.BaseURL != "https://api.openai.com/v1" || o.APIKey != "sk-123" || o.GitHubToken != testToken ||
		o.Model != "openai/gpt-4.1-mini" || o.CacheDir != filepath.Join("/out", "cache", "judge") || o.Getenv == nil {
		t.Errorf("judge settings %+v", o)
	}
	if again := r.settings().Judge; again != o {
		t.Errorf("a second load gets other judge settings: the rerun baseline would not share the client pool")
	}
	if after, afterSet := os.LookupEnv("SKILLGATE_JUDGE_API_KEY"); after != before || afterSet != beforeSet {
		t.Errorf("the judge key went into the process environment")
	}
}

func TestSuiteInputsAndAffected(t *testing.T) {
	ws := t.TempDir()
	copyTree(t, "testdata/workspace", ws)
	plan, err := pipeline.Load([]string{ws}, pipeline.Settings{})
	if err != nil || plan.Diags.HasErrors() {
		t.Fatal(err, plan.Diags)
	}
	bySuite := map[string]pipeline.Inputs{}
	for _, s := range plan.Suites {
		bySuite[s.Name()] = s.Inputs()
	}
	tests := []struct {
		suite, changed string
		want           bool
	}{
		{"greet", "evals/greet/eval.yaml", true},
		{"greet", "evals/greet/skills/greeter/SKILL.md", true},
		{"greet", "evals/greet/new-file.txt", true},
		{"greet", "evals/other/eval.yaml", false},
		{"greet", "evals/greeting/eval.yaml", false}, // a sibling sharing a name prefix
		{"greet", "shared/answer.txt", false},
		{"other", "shared/answer.txt", true},
		{"other", "shared/unrelated.txt", true}, // the task's whole context_dir is its fixtures
		{"other", "docs/intro.md", false},
		{"other", "README.md", false},
	}
	for _, tt := range tests {
		got := bySuite[tt.suite].AffectedBy(ws, []string{tt.changed}) != ""
		if got != tt.want {
			t.Errorf("%s affected by %s = %v, want %v", tt.suite, tt.changed, got, tt.want)
		}
	}
}

func TestGraderAndHookFilesAffectTheSuite(t *testing.T) {
	ws := t.TempDir()
	copyTree(t, "testdata/workspace", ws)
	os.MkdirAll(filepath.Join(ws, "schemas"), 0o755)
	os.WriteFile(filepath.Join(ws, "schemas/answer.json"), []byte(`{"type":"object"}`), 0o644)
	os.MkdirAll(filepath.Join(ws, "scripts"), 0o755)
	os.WriteFile(filepath.Join(ws, "scripts/setup.sh"), []byte("true\n"), 0o755)
	path := filepath.Join(ws, "evals/greet/eval.yaml")
	data, _ := os.ReadFile(path)
	s := strings.Replace(string(data), "metrics:", `  - type: json_schema
    name: shaped
    config:
      schema_file: ../../schemas/answer.json
hooks:
  before_run:
    - command: sh ../../scripts/setup.sh --fast
metrics:`, 1)
	os.WriteFile(path, []byte(s), 0o644)
	plan, err := pipeline.Load([]string{path}, pipeline.Settings{})
	if err != nil || plan.Diags.HasErrors() {
		t.Fatal(err, plan.Diags)
	}
	in := plan.Suites[0].Inputs()
	for _, changed := range []string{"schemas/answer.json", "scripts/setup.sh"} {
		if in.AffectedBy(ws, []string{changed}) == "" {
			t.Errorf("%s does not affect the suite that names it", changed)
		}
	}
	if in.AffectedBy(ws, []string{"schemas/other.json"}) != "" {
		t.Errorf("an unrelated schema affects the suite")
	}
}

func TestEmitAnnotationsLimit(t *testing.T) {
	var anns []Annotation
	for i := range 15 {
		anns = append(anns, Annotation{Level: LevelError, File: "e.yaml", Line: i + 1, Message: "e" + itoa(i)})
		anns = append(anns, Annotation{Level: LevelWarning, Message: "w" + itoa(i)})
	}
	var out bytes.Buffer
	c := newCommands(&out, io.Discard, func(string) string { return "" })
	emitAnnotations(c, anns)
	s := out.String()
	if n := strings.Count(s, "::error "); n != 10 {
		t.Errorf("%d errors printed", n)
	}
	if n := strings.Count(s, "::warning::"); n != 10 {
		t.Errorf("%d warnings printed", n)
	}
	if !strings.Contains(s, "5 more error(s), 5 more warning(s)") {
		t.Errorf("no count of the rest:\n%s", s)
	}
	if !strings.Contains(s, "::error file=e.yaml,line=1::e0") {
		t.Errorf("first annotation: %s", s)
	}
	if n := len(checkRunAnnotations(anns)); n != 15 {
		t.Errorf("%d check annotations, want the 15 with a place", n)
	}
}

func TestCollectAnnotationsOrder(t *testing.T) {
	loc := func(line int) *results.Location { return &results.Location{File: "evals/a/eval.yaml", Line: line} }
	res := &results.SuiteResult{EvalName: "a", Provenance: &results.Provenance{SuiteFile: "evals/a/eval.yaml"},
		Metrics: map[string]*results.MetricResult{"task_completion": {Value: 0.5, Threshold: 0.9, Source: loc(20)}},
		Tasks: []*results.TaskResult{{ID: "t1", Name: "Task one", Status: results.StatusFailed, Source: loc(30), Runs: []*results.RunResult{
			{Status: results.StatusFailed, Validations: results.Validations{{Name: "g", Type: "text", Feedback: "missing word", Source: loc(8)}}},
			{Status: results.StatusPassed, Validations: results.Validations{{Name: "g", Type: "text", Passed: true, Source: loc(8)}}},
		}}, {ID: "t2", Status: results.StatusError, Source: loc(40), Runs: []*results.RunResult{{Status: results.StatusError, ErrorMsg: "agent crashed"}}}},
		TriggerResults: []*results.TriggerResult{{ID: "p", Prompt: "hi", ShouldTrigger: true, DidTrigger: false, Source: loc(3)}},
	}
	anns := collectAnnotations(&report.Input{Suites: []*report.Suite{{Result: res}}}, "/ws")
	var got []string
	for _, a := range anns {
		got = append(got, a.Level+"@"+itoa(a.Line)+": "+a.Message)
	}
	// The findings of report.Input.Findings, in their order: without a baseline every failure
	// is new (an error); a misclassified trigger prompt is a warning unless a trigger threshold
	// it counts in is missed.
	want := []string{
		"error@20: task_completion is 0.5, below its threshold 0.9",
		"error@8: grader g (text) failed in 1 of 2 trials of task Task one (mean score 0.00): missing word",
		"error@40: the agent run of task t2 failed in 1 of 1 trials: agent crashed",
		"warning@3: trigger prompt p should trigger, but 1 of 1 trials got it wrong: hi",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestInfoFoldsLineBreaks(t *testing.T) {
	var out bytes.Buffer
	c := newCommands(&out, io.Discard, func(string) string { return "" })
	c.infof("skillgate: %s changed", "evil\n::add-mask::x\r\n::error::y")
	if got := out.String(); strings.Count(got, "\n") != 1 || strings.Contains(got, "\n::") {
		t.Errorf("%q", got)
	}
}
