package action

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/internal/runcache"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// harness runs the whole action in-process against the fake GitHub API, with a copy of
// testdata/workspace as the checkout.
type harness struct {
	t      testing.TB
	ws     string
	gh     *fakeGitHub
	env    map[string]string
	stdout bytes.Buffer
	stderr bytes.Buffer
	sleeps []time.Duration
	git    bool // let the action find git
	// skipSecretScan leaves out the token scan of every file (benchmarks).
	skipSecretScan bool
	// secrets are further values no output may carry (besides the token).
	secrets []string
}

// newHarness prepares a run for an event fixture ("pull_request.synchronize", "push", …).
func newHarness(t testing.TB, event string) *harness {
	t.Helper()
	h := &harness{t: t, ws: t.TempDir(), gh: newFakeGitHub(t)}
	copyTree(t, "testdata/workspace", h.ws)
	files := t.TempDir()
	for _, name := range []string{"output", "summary"} {
		if err := os.WriteFile(filepath.Join(files, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.env = map[string]string{
		"CI": "true", "GITHUB_ACTIONS": "true",
		"GITHUB_WORKSPACE":    h.ws,
		"GITHUB_REPOSITORY":   "acme/demo",
		"GITHUB_API_URL":      h.gh.srv.URL,
		"GITHUB_SERVER_URL":   "https://github.com",
		"GITHUB_WORKFLOW":     "evals",
		"GITHUB_RUN_ID":       "9001",
		"GITHUB_OUTPUT":       filepath.Join(files, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(files, "summary"),
		"INPUT_GITHUB-TOKEN":  testToken,
	}
	if event != "" {
		data, err := os.ReadFile(filepath.Join("testdata", "events", event+".json"))
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(files, "event.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		h.env["GITHUB_EVENT_PATH"] = path
	}
	switch {
	case strings.HasPrefix(event, "pull_request"):
		h.env["GITHUB_EVENT_NAME"] = "pull_request"
		h.env["GITHUB_SHA"] = mergeSHA
		h.env["GITHUB_REF"] = "refs/pull/7/merge"
		h.env["GITHUB_BASE_REF"], h.env["GITHUB_HEAD_REF"] = "main", "friendlier-greeter"
		h.env["GITHUB_WORKFLOW_REF"] = "acme/demo/.github/workflows/evals.yml@refs/pull/7/merge"
	case strings.HasPrefix(event, "workflow_run"):
		h.env["GITHUB_EVENT_NAME"] = "workflow_run"
		h.env["GITHUB_SHA"] = baseSHA
		h.env["GITHUB_REF"] = "refs/heads/main"
		h.env["GITHUB_WORKFLOW"] = "skillgate-report"
		h.env["GITHUB_RUN_ID"] = "9100"
		h.env["GITHUB_WORKFLOW_REF"] = "acme/demo/.github/workflows/skillgate-report.yml@refs/heads/main"
	case event == "push":
		h.env["GITHUB_EVENT_NAME"] = "push"
		h.env["GITHUB_SHA"] = pushSHA
		h.env["GITHUB_REF"] = "refs/heads/main"
		h.env["GITHUB_WORKFLOW_REF"] = "acme/demo/.github/workflows/evals.yml@refs/heads/main"
	}
	return h
}

func (h *harness) input(name, value string) { h.env["INPUT_"+strings.ToUpper(name)] = value }

// write replaces a workspace file.
func (h *harness) write(rel, content string) {
	h.t.Helper()
	path := filepath.Join(h.ws, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) run() int {
	h.t.Helper()
	h.stdout.Reset()
	h.stderr.Reset()
	h.sleeps = nil
	code := Main(context.Background(), Deps{
		Stdout: &h.stdout, Stderr: &h.stderr,
		Getenv:     func(k string) string { return h.env[k] },
		HTTPClient: h.gh.srv.Client(),
		Sleep:      func(_ context.Context, d time.Duration) error { h.sleeps = append(h.sleeps, d); return nil },
		LookPath: func(name string) (string, error) {
			if h.git {
				return exec.LookPath(name)
			}
			return "", exec.ErrNotFound
		},
		Version: "v0.0.0-test",
	})
	if !h.skipSecretScan {
		h.noSecrets()
	}
	return code
}

// outputs parses the GITHUB_OUTPUT file (name<<delimiter heredocs), the last value winning.
func (h *harness) outputs() map[string]string {
	h.t.Helper()
	data, err := os.ReadFile(h.env["GITHUB_OUTPUT"])
	if err != nil {
		h.t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		name, delim, ok := strings.Cut(lines[i], "<<")
		if !ok {
			continue
		}
		var val []string
		for i++; i < len(lines) && lines[i] != delim; i++ {
			val = append(val, lines[i])
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

func (h *harness) summary() string {
	data, err := os.ReadFile(h.env["GITHUB_STEP_SUMMARY"])
	if err != nil {
		h.t.Fatal(err)
	}
	return string(data)
}

// noSecrets fails the test if the token (or one of h.secrets) shows up anywhere but its
// ::add-mask:: command: logs, outputs, summary, files written, or bodies sent to GitHub.
func (h *harness) noSecrets() {
	h.t.Helper()
	secrets := append([]string{testToken}, h.secrets...)
	check := func(where, text string) {
		for i, s := range secrets {
			if strings.Contains(text, s) {
				h.t.Errorf("secret %d (%.8s…) leaked into %s", i, s, where)
			}
		}
	}
	stdout := h.stdout.String()
	for _, s := range secrets {
		stdout = strings.ReplaceAll(stdout, "::add-mask::"+s+"\n", "")
	}
	check("stdout", stdout)
	check("stderr", h.stderr.String())
	for _, k := range []string{"GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"} {
		data, _ := os.ReadFile(h.env[k])
		check(k, string(data))
	}
	filepath.WalkDir(h.ws, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			data, _ := os.ReadFile(path)
			check(path, string(data))
		}
		return nil
	})
	h.gh.mu.Lock()
	for _, b := range h.gh.bodies {
		check("a request body", b)
	}
	h.gh.mu.Unlock()
}

// annotations returns the workflow-command annotation lines of a level.
func (h *harness) annotations(level string) []string {
	var out []string
	for _, line := range strings.Split(h.stdout.String(), "\n") {
		if strings.HasPrefix(line, "::"+level+" ") || strings.HasPrefix(line, "::"+level+"::") {
			out = append(out, line)
		}
	}
	return out
}

func (h *harness) readFile(rel string) string {
	h.t.Helper()
	data, err := os.ReadFile(filepath.Join(h.ws, filepath.FromSlash(rel)))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(data)
}

// publishBaseline makes run 501 (a push run at the merge base) carry a results artifact built
// by running the workspace's suites, as changed by mutate, with trials trials.
func (h *harness) publishBaseline(trials int, mutate func(ws string)) {
	h.t.Helper()
	files := baselineResults(h.t, trials, mutate)
	h.gh.runs = append(h.gh.runs, fakeRun{ID: 501, HeadSHA: mergeBaseSHA, HeadRepo: "acme/demo", CreatedAt: time.Now().Add(-2 * time.Hour),
		Artifacts: []fakeArtifact{{ID: 9001, Name: DefaultArtifactName, Size: int64(len(zipOf(h.t, files)))}}})
	h.gh.blobs[9001] = zipOf(h.t, files)
	h.gh.ancestors = []string{mergeBaseSHA, "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"}
}

// baselineResults runs the test workspace's suites (after mutate) and returns the files of the
// results folder an upload-artifact step would zip, keyed by their path in the zip.
func baselineResults(t testing.TB, trials int, mutate func(ws string)) map[string][]byte {
	t.Helper()
	ws := t.TempDir()
	copyTree(t, "testdata/workspace", ws)
	if mutate != nil {
		mutate(ws)
	}
	prepared, diags, err := runner.LoadSuites([]string{ws}, "")
	if err != nil || diags.HasErrors() {
		t.Fatalf("baseline suites: %v %v", err, diags)
	}
	out := filepath.Join(ws, ".skillgate")
	// The base branch's run records its run keys, as the Action's runs do by default.
	store, err := runcache.Open(filepath.Join(out, "cache", "runs"), runcache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ran, err := runner.RunSuites(context.Background(), prepared, runner.SuitesOptions{Run: runner.Options{Trials: trials, Cache: &runner.CacheOptions{Store: store}}, OutDir: out})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range ran.Files {
		// The mock agent answers from the prompt alone, so the tests make "the agent got worse"
		// by changing a grader (breakGreet). A baseline recorded before task hashes existed is
		// compared whatever its definitions, so that is the baseline these tests publish.
		res, err := results.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range res.Tasks {
			task.DefinitionHash, task.GradersHash = "", ""
		}
		data, err := results.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		files["results/"+filepath.Base(f)] = data
	}
	files["junit.xml"] = []byte("<testsuites></testsuites>\n")
	return files
}

// dirFiles reads every file below dir, keyed by its slash-separated path relative to dir: the
// entries actions/upload-artifact puts in the zip of a folder.
func dirFiles(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func zipOf(t testing.TB, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range sortedKeys(files) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(files[name])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// tarballOf packs a folder the way GitHub's tarball API does: gzip, a pax global header, and
// everything under one owner-repo-sha/ folder.
func tarballOf(t testing.TB, dir, top string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header", PAXRecords: map[string]string{"comment": mergeBaseSHA}})
	tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: top + "/", Mode: 0o755})
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		name := top + "/" + filepath.ToSlash(rel)
		if d.IsDir() {
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name + "/", Mode: 0o755})
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(data))}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func copyTree(t testing.TB, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
