package report_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/skillgate/skillgate/internal/linediff"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/golden")

const (
	casesDir  = "testdata/cases"
	goldenDir = "testdata/golden"
)

// goldenSuite is one suite of a case: its results file and, optionally, its baseline's and
// earlier base runs pooled with it.
type goldenSuite struct {
	head, base string
	history    []string
}

// verdictsHistory are the earlier base runs of the verdicts cases.
var verdictsHistory = []string{"verdicts-base-1", "verdicts-base-2", "verdicts-base-3", "verdicts-base-4", "verdicts-base-5"}

// goldenCases are the report inputs whose every rendering is kept in testdata/golden/<case>/.
// The results files were produced by running skillgate (testdata/README.md says how).
var goldenCases = []struct {
	name       string
	suites     []goldenSuite
	unaffected []report.Unaffected
}{
	{name: "passed", suites: []goldenSuite{{head: "hello"}}},
	// failed, errored, flaky, skipped (filtered) and hook-error tasks; a missed threshold.
	{name: "failing", suites: []goldenSuite{{head: "checkout"}}},
	{name: "incomplete", suites: []goldenSuite{{head: "nightly"}}},
	// pending human review; an LLM judge without an endpoint errors every run.
	{name: "judge-unavailable", suites: []goldenSuite{{head: "release-notes"}}},
	// pending human review; the LLM judge deferred by the Action's collect mode.
	{name: "judge-deferred", suites: []goldenSuite{{head: "release-notes-collect"}}},
	{name: "trigger-misses", suites: []goldenSuite{{head: "pdf-tools"}}},
	{name: "uplift", suites: []goldenSuite{{head: "sql-review"}}},
	{name: "no-baseline", suites: []goldenSuite{{head: "api-service-worse"}}},
	{name: "regression", suites: []goldenSuite{{base: "api-service-good", head: "api-service-worse"}}},
	// One trial per task with five earlier base runs pooled: a task confirmed broken by its
	// confirmation trials, one unlucky once and then passing, a coin flip within the noise.
	{name: "one-trial", suites: []goldenSuite{{base: "verdicts-base-6", head: "verdicts-head", history: verdictsHistory}}},
	{name: "improvement", suites: []goldenSuite{{base: "verdicts-base-6", head: "verdicts-fixed", history: verdictsHistory}}},
	{name: "inconclusive", suites: []goldenSuite{{base: "api-service-good", head: "api-service-noisy"}}},
	// The pull-request stories of docs/statistics.md#what-changed-one-word-per-task.
	{name: "identical-rerun", suites: []goldenSuite{{base: "hello", head: "hello"}}},
	{name: "main-failing", suites: []goldenSuite{{base: "docs-bot-red", head: "docs-bot-red-newfail"}}},
	{name: "small-regression", suites: []goldenSuite{{base: "docs-bot-good", head: "docs-bot-worse"}}},
	{name: "removed-task", suites: []goldenSuite{{base: "docs-bot-red", head: "docs-bot-removed"}}},
	{name: "changed-grader", suites: []goldenSuite{{base: "docs-bot-good", head: "docs-bot-grader"}}},
	// every run reused from the run cache and regraded with one grader changed.
	{name: "reused", suites: []goldenSuite{{base: "cached", head: "cached-graders"}}},
	{
		name: "several-suites",
		suites: []goldenSuite{
			{head: "hello"}, {head: "checkout"}, {base: "api-service-good", head: "api-service-worse"},
			{head: "sql-review"}, {head: "pdf-tools"},
		},
		unaffected: []report.Unaffected{{Name: "billing", Reason: "no file of the suite or its skills changed"}},
	},
}

// TestGolden renders every report of every case and compares it byte for byte with its golden
// file; `go test ./report -run Golden -update` rewrites them, and the diff is the review of a
// report change.
func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			in := goldenInput(t, tc.suites, tc.unaffected)
			got := renderAll(t, in)
			dir := filepath.Join(goldenDir, tc.name)
			if *update {
				writeGolden(t, dir, got)
				return
			}
			compareGolden(t, dir, got)
		})
	}
}

// TestGoldenStreamed renders every case from results files read in passes, without their tasks
// held (results.OpenFile of a large file): every report is the golden one.
func TestGoldenStreamed(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			in := goldenInputWith(t, tc.suites, tc.unaffected, func(t *testing.T, name string) *results.SuiteResult {
				t.Helper()
				res, err := results.OpenFileWith(casePath(name), results.OpenOptions{Resident: -1})
				if err != nil {
					t.Fatal(err)
				}
				if !res.Streamed() {
					t.Fatalf("%s read whole", name)
				}
				return res
			})
			compareGolden(t, filepath.Join(goldenDir, tc.name), renderAll(t, in))
		})
	}
}

// goldenInput is a case's report input, decided as the pipeline decides it: every suite's
// comparison with its baseline and earlier base runs, then one family for the whole run.
func goldenInput(t *testing.T, suites []goldenSuite, unaffected []report.Unaffected) *report.Input {
	t.Helper()
	return goldenInputWith(t, suites, unaffected, readCase)
}

// goldenInputWith is goldenInput with the results files read by read.
func goldenInputWith(t *testing.T, suites []goldenSuite, unaffected []report.Unaffected, readCase func(*testing.T, string) *results.SuiteResult) *report.Input {
	t.Helper()
	in := &report.Input{Unaffected: unaffected, ToolVersion: "0.0.0-test"}
	for _, gs := range suites {
		head := readCase(t, gs.head)
		var base *results.SuiteResult
		opts := report.CompareOptions{MinEffect: report.DefaultMinEffect, HeadFile: casePath(gs.head)}
		if gs.base != "" {
			base = readCase(t, gs.base)
			opts.BaseFile = casePath(gs.base)
		}
		for _, h := range gs.history {
			opts.History = append(opts.History, results.RecordOf(readCase(t, h)))
		}
		s, err := report.NewSuite(head, base, opts)
		if err != nil {
			t.Fatal(err)
		}
		s.File = casePath(gs.head)
		in.Suites = append(in.Suites, s)
	}
	// One false-alarm rate for the whole run, as the pipeline decides it.
	var comps []*report.Comparison
	for _, s := range in.Suites {
		comps = append(comps, s.Comparison)
	}
	report.Decide(comps)
	return in
}

// renderAll renders every report of in, keyed by golden file name: the files `skillgate run`
// writes (report.WriteDir), the terminal table, and each comparison in every format of
// `skillgate compare`.
func renderAll(t *testing.T, in *report.Input) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	dir := t.TempDir()
	paths, err := report.WriteDir(dir, in)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(p)
		if name == report.HTMLFile {
			// Kept as report.html.golden: a rendered page to diff, not a source file of the tree.
			data, name = normalizeHTML(data), name+".golden"
		}
		out[name] = data
	}
	var term bytes.Buffer
	if err := report.Terminal(&term, in, report.TerminalOptions{}); err != nil {
		t.Fatal(err)
	}
	out["terminal.txt"] = term.Bytes()
	formats := []struct{ format, ext string }{{report.FormatTable, "txt"}, {report.FormatMarkdown, "md"}, {report.FormatJSON, "json"}}
	for _, s := range in.Suites {
		for _, c := range []struct {
			kind string
			cmp  *report.Comparison
		}{{"compare", s.Comparison}, {"uplift", s.Uplift}} {
			if c.cmp == nil {
				continue
			}
			for _, f := range formats {
				var buf bytes.Buffer
				if err := report.WriteComparison(&buf, c.cmp, f.format); err != nil {
					t.Fatal(err)
				}
				out[c.kind+"-"+s.Result.EvalName+"."+f.ext] = buf.Bytes()
			}
		}
	}
	return out
}

// normalizeHTML leaves out the page's inline styles and script, the same in every case, so
// the golden pages show what differs: the content. TestHTMLInChromium runs the script.
func normalizeHTML(data []byte) []byte {
	for _, tag := range []string{"style", "script"} {
		open, end := []byte("<"+tag+">"), []byte("</"+tag+">")
		i := bytes.Index(data, open)
		j := bytes.Index(data, end)
		if i < 0 || j < i {
			continue
		}
		data = slices.Concat(data[:i+len(open)], []byte("…"), data[j:])
	}
	return data
}

func compareGolden(t *testing.T, dir string, got map[string][]byte) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("%v (run `go test ./report -run Golden -update` to create the golden files)", err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for _, name := range sortedKeys(got) {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: no golden file (run `go test ./report -run Golden -update`)", filepath.Join(dir, name))
			continue
		}
		if !bytes.Equal(got[name], want) {
			t.Errorf("%s differs from its golden file (review the diff of `go test ./report -run Golden -update`):\n%s",
				filepath.Join(dir, name), linediff.Lines(string(want), string(got[name]), 1))
		}
	}
	for _, name := range names {
		if _, ok := got[name]; !ok {
			t.Errorf("%s: golden file of a report no longer rendered", filepath.Join(dir, name))
		}
	}
}

func writeGolden(t *testing.T, dir string, got map[string][]byte) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range got {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func casePath(name string) string { return casesDir + "/" + name + ".json" }

func readCase(t *testing.T, name string) *results.SuiteResult {
	t.Helper()
	res, err := results.ReadFile(casePath(name))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestGoldenCasesCover checks that the cases hold the states the golden reports are meant to
// show, so regenerating the cases cannot silently lose one.
func TestGoldenCasesCover(t *testing.T) {
	has := map[string]bool{}
	for _, tc := range goldenCases {
		for _, gs := range tc.suites {
			res := readCase(t, gs.head)
			has["incomplete"] = has["incomplete"] || res.Incomplete
			has["uplift"] = has["uplift"] || res.BaselineOutcome != nil
			has["trigger miss"] = has["trigger miss"] || res.TriggerMetrics != nil && res.TriggerMetrics.Accuracy < 1
			for _, task := range res.Tasks {
				has["task "+string(task.Status)] = true
				if task.ErrorMsg != "" {
					has["hook error"] = true
				}
				for _, run := range task.Runs {
					for _, v := range run.Validations {
						switch {
						case v.Deferred():
							has["deferred judge"] = true
						case v.Status == results.StatusPending:
							has["pending human"] = true
						}
					}
				}
			}
			if gs.base == "" {
				continue
			}
			opts := report.CompareOptions{MinEffect: report.DefaultMinEffect}
			for _, h := range gs.history {
				opts.History = append(opts.History, results.RecordOf(readCase(t, h)))
			}
			s, err := report.NewSuite(res, readCase(t, gs.base), opts)
			if err != nil {
				t.Fatal(err)
			}
			has["verdict "+string(s.Comparison.Verdict)] = true
		}
	}
	for _, want := range []string{
		"task passed", "task failed", "task error", "task skipped", "incomplete", "pending human",
		"deferred judge", "hook error", "trigger miss", "uplift",
		"verdict regressed", "verdict improved", "verdict inconclusive",
	} {
		if !has[want] {
			t.Errorf("no golden case has %s", want)
		}
	}
}
