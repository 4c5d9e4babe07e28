package pipeline

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// trial is one run: its status and its one grader's score.
type trial struct {
	status results.Status
	score  float64
}

// task builds a finished task the way the runner does: runs scored from their graders, then
// statistics and status. No trials and an error message is a task whose before_task hook failed.
func task(id string, errMsg string, trials ...trial) *results.TaskResult {
	t := &results.TaskResult{ID: id, Name: id, ErrorMsg: errMsg}
	if errMsg != "" && len(trials) == 0 {
		t.Status = results.StatusError
	}
	for i, tr := range trials {
		run := &results.RunResult{RunNumber: i + 1, Attempts: 1}
		if tr.status == results.StatusError {
			run.Status, run.ErrorMsg = results.StatusError, "agent timed out"
		} else {
			run.Validations = results.Validations{{
				Name: "check", Type: "text", Score: tr.score, Passed: tr.status == results.StatusPassed, Weight: 1,
				Status: tr.status,
			}}
		}
		t.Runs = append(t.Runs, run)
	}
	if len(trials) == 0 && errMsg == "" {
		t.Status = results.StatusSkipped
	}
	t.Finish()
	return t
}

func suite(name string, tasks ...*results.TaskResult) *results.SuiteResult {
	s := &results.SuiteResult{SchemaVersion: results.SchemaVersion, EvalName: name, Tasks: tasks, Config: results.RunConfig{RunsPerTest: 3}}
	results.Summarize(s)
	s.Gate = results.ComputeGate(s)
	return s
}

var (
	pass = trial{results.StatusPassed, 1}
	fail = trial{results.StatusFailed, 0.25}
	boom = trial{status: results.StatusError}
)

// TestFiguresAgree: every place a suite's figures appear (the results file as written and read
// back, the comparison's sides, the JUnit properties, the comment and summary table, the
// terminal table, the gate's variables that become the Action's outputs) shows the same numbers,
// over the edge cases that used to disagree.
func TestFiguresAgree(t *testing.T) {
	tests := []struct {
		name       string
		head, base *results.SuiteResult
	}{
		{"one passing task and one whose before_task hook failed",
			suite("hooked", task("ok", "", pass, pass, pass), task("hook", "before_task hook failed: exit 1")), nil},
		{"skipped, flaky, failed and errored trials",
			suite("mixed", task("flaky", "", pass, fail, pass), task("bad", "", fail, fail, fail), task("skip", ""), task("err", "", pass, boom, pass)),
			suite("mixed", task("flaky", "", pass, pass, pass), task("bad", "", pass, fail, fail), task("skip", "", pass), task("err", "", pass, pass, pass))},
		{"every task passing against a hook failure on the base",
			suite("clean", task("a", "", pass, pass), task("b", "", pass, pass)),
			suite("clean", task("a", "", pass, pass), task("b", "setup failed"))},
		{"nothing ran", suite("empty", task("skip", "")), nil},
		{"agent runs with tokens, half of them priced, against a base that spent less",
			spent(suite("costly", task("a", "", pass, pass), task("b", "", fail, pass)), 1000, 200, 50, 0.05),
			spent(suite("costly", task("a", "", pass, pass), task("b", "", pass, pass)), 800, 0, 40, 0.04)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			head := Head{Result: tt.head, File: results.PathIn(dir, tt.head.EvalName)}
			if err := results.WriteFile(head.File, tt.head); err != nil {
				t.Fatal(err)
			}
			if tt.base != nil {
				head.Base = &Baseline{Result: tt.base, File: filepath.Join(dir, "base.json")}
			}
			ev, err := Publish([]Head{head}, Options{OutDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.head.Summary
			reread, err := results.ReadFile(head.File)
			if err != nil {
				t.Fatal(err)
			}
			sameSummary(t, "results file read back", reread.Summary, want)

			ran := want.Ran() > 0
			sides := []struct {
				where string
				side  report.Side
				want  results.Summary
			}{}
			if c := ev.Input.Suites[0].Comparison; c != nil {
				sides = append(sides, struct {
					where string
					side  report.Side
					want  results.Summary
				}{"comparison head", c.Head, want}, struct {
					where string
					side  report.Side
					want  results.Summary
				}{"comparison base", c.Base, tt.base.Summary})
			}
			for _, s := range sides {
				if s.side.Tasks != s.want.TotalTests || s.side.Trials != s.want.TotalRuns {
					t.Errorf("%s: tasks %d trials %d, want %d %d", s.where, s.side.Tasks, s.side.Trials, s.want.TotalTests, s.want.TotalRuns)
				}
				if s.want.Ran() > 0 {
					for _, f := range []struct {
						name      string
						got       *float64
						wantValue float64
					}{{"score", s.side.AggregateScore, s.want.AggregateScore}, {"pass rate", s.side.PassRate, s.want.PassRate}, {"success rate", s.side.SuccessRate, s.want.SuccessRate}} {
						if f.got == nil || *f.got != f.wantValue {
							t.Errorf("%s: %s %v, want %v", s.where, f.name, f.got, f.wantValue)
						}
					}
				}
			}

			props := junitProps(t, filepath.Join(dir, report.JUnitFile))
			for name, v := range map[string]float64{"score": want.AggregateScore, "pass_rate": want.PassRate, "success_rate": want.SuccessRate} {
				got, ok := props[name]
				switch {
				case ran && got != fmt.Sprintf("%.4f", v):
					t.Errorf("JUnit property %s = %q, want %.4f", name, got, v)
				case !ran && ok:
					t.Errorf("JUnit property %s = %q for a suite where nothing ran", name, got)
				}
			}

			var baseSpend *results.Spend
			if tt.base != nil {
				baseSpend = tt.base.Summary.Spend
			}
			spendPage := sameSpendProps(t, props, want.Spend, baseSpend)
			page, err := os.ReadFile(filepath.Join(dir, report.HTMLFile))
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(page), `<table id="spend">`); got != spendPage {
				t.Errorf("report.html has the spend table: %t, want %t", got, spendPage)
			}
			if sp := want.Spend; spendPage && sp.Priced > 0 {
				cost := fmt.Sprintf("$%.2f (%d of %d runs priced)", sp.CostUSD, sp.Priced, sp.Runs)
				for _, file := range []string{report.CommentFile, report.HTMLFile} {
					if data, _ := os.ReadFile(filepath.Join(dir, file)); !strings.Contains(string(data), cost) {
						t.Errorf("%s lacks the cost %q", file, cost)
					}
				}
			}

			row := fmt.Sprintf("| %s | %d/%d | %s | %s |", tt.head.EvalName, want.Succeeded, want.Ran(), "—", "—")
			if ran {
				row = fmt.Sprintf("| %s | %d/%d | %.2f | %.1f%% |", tt.head.EvalName, want.Succeeded, want.Ran(), want.AggregateScore, want.PassRate*100)
			}
			for _, file := range []string{report.CommentFile, report.SummaryFile} {
				data, err := os.ReadFile(filepath.Join(dir, file))
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(data), row) {
					t.Errorf("%s has no row %q:\n%s", file, row, data)
				}
			}
			var term strings.Builder
			if err := report.Terminal(&term, ev.Input, report.TerminalOptions{}); err != nil {
				t.Fatal(err)
			}
			if cells := fmt.Sprintf("%d/%d", want.Succeeded, want.Ran()); !strings.Contains(term.String(), cells) {
				t.Errorf("terminal table has no %q:\n%s", cells, term.String())
			}

			v := ev.Vars
			if v.Tasks != want.Ran() || v.FailedTasks != want.Failed || v.ErroredTasks != want.Errors || v.FlakyTasks != want.Flaky {
				t.Errorf("gate tasks %d failed %d errored %d flaky %d, want %+v", v.Tasks, v.FailedTasks, v.ErroredTasks, v.FlakyTasks, want)
			}
			if v.Score != want.AggregateScore || v.PassRate != want.PassRate || v.SuccessRate != want.SuccessRate {
				t.Errorf("gate score %v pass %v success %v, want %v %v %v", v.Score, v.PassRate, v.SuccessRate, want.AggregateScore, want.PassRate, want.SuccessRate)
			}
			sv := v.Suites[0]
			if sv.Score != v.Score || sv.PassRate != v.PassRate || sv.SuccessRate != v.SuccessRate || sv.Tasks != v.Tasks {
				t.Errorf("the suite's gate variables %+v differ from the run's %+v", sv, v)
			}
		})
	}
}

// TestHookErrorCounts pins the example: a passing task and one whose hook failed are
// half a success, everywhere.
func TestHookErrorCounts(t *testing.T) {
	s := suite("hooked", task("ok", "", pass, pass, pass), task("hook", "before_task hook failed"))
	if s.Summary.SuccessRate != 0.5 || s.Summary.PassRate != 0.5 || s.Summary.AggregateScore != 0.5 {
		t.Errorf("summary %+v, want success, pass rate and score 0.5", s.Summary)
	}
}

// TestCombinedFigures: the run's figures over several suites are those of one suite holding
// all their tasks.
func TestCombinedFigures(t *testing.T) {
	a := suite("a", task("ok", "", pass, pass), task("hook", "failed"))
	b := suite("b", task("x", "", pass, fail), task("y", "", fail, fail), task("z", ""))
	all := suite("all", append(append([]*results.TaskResult{}, a.Tasks...), b.Tasks...)...)
	v := NewVars(&report.Input{Suites: []*report.Suite{{Result: a}, {Result: b}}}, false, "")
	want := all.Summary
	if v.Tasks != want.Ran() || v.SuccessRate != want.SuccessRate || !close(v.PassRate, want.PassRate) || !close(v.Score, want.AggregateScore) {
		t.Errorf("combined: tasks %d success %v pass %v score %v; one suite: %+v", v.Tasks, v.SuccessRate, v.PassRate, v.Score, want)
	}
}

func close(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

func sameSummary(t *testing.T, where string, got, want results.Summary) {
	t.Helper()
	if got.TotalTests != want.TotalTests || got.Succeeded != want.Succeeded || got.Failed != want.Failed || got.Errors != want.Errors ||
		got.Skipped != want.Skipped || got.TotalRuns != want.TotalRuns || got.SuccessRate != want.SuccessRate ||
		got.PassRate != want.PassRate || got.AggregateScore != want.AggregateScore || got.Flaky != want.Flaky {
		t.Errorf("%s: summary %+v, want %+v", where, got, want)
	}
}

// spent gives every run of s the usage of an agent that reported in, cached and out tokens, and
// the cost on every other run (the rest go unpriced), then summarizes s again.
func spent(s *results.SuiteResult, in, cached, out int64, cost float64) *results.SuiteResult {
	for _, t := range s.Tasks {
		for i, r := range t.Runs {
			u := &results.Usage{InputTokens: in, CacheReadTokens: cached, OutputTokens: out}
			if i%2 == 0 {
				u.CostUSD = cost
			}
			r.SessionDigest.Usage = u
		}
	}
	results.Summarize(s)
	return s
}

// sameSpendProps checks the JUnit spend properties against the suite's spend and the change
// against the base's; it reports whether the suite reported tokens or ran agents that reported
// none, so the reports show a spend. Runs whose tokens are unknown are named, never summed as 0.
func sameSpendProps(t *testing.T, props map[string]string, sp, base *results.Spend) bool {
	t.Helper()
	names := []string{"agent_runs", "reused_runs", "tokens_in", "tokens_cached", "tokens_out", "tokens_unknown", "cost_usd", "priced_runs", "tokens_delta", "cost_usd_delta"}
	want := map[string]string{}
	shown := sp != nil && (sp.Tokens() > 0 || !sp.TokensComplete())
	if shown {
		want["agent_runs"] = fmt.Sprint(sp.Runs)
		want["reused_runs"] = fmt.Sprint(sp.Reused)
		if sp.UnknownTokenRuns+sp.UnknownInputRuns < sp.Runs {
			want["tokens_in"] = fmt.Sprint(sp.InputTokens)
			want["tokens_cached"] = fmt.Sprint(sp.CachedTokens)
		}
		if sp.UnknownTokenRuns < sp.Runs {
			want["tokens_out"] = fmt.Sprint(sp.OutputTokens)
		}
		if n := sp.UnknownTokenRuns; n > 0 {
			want["tokens_unknown"] = fmt.Sprintf("tokens: unknown for %d runs", n)
		}
		if sp.Priced > 0 {
			want["cost_usd"] = fmt.Sprintf("%.6f", sp.CostUSD)
			want["priced_runs"] = fmt.Sprint(sp.Priced)
		}
		if base != nil {
			if sp.TokensComplete() && base.TokensComplete() {
				want["tokens_delta"] = fmt.Sprintf("%+d", sp.Tokens()-base.Tokens())
			}
			if sp.Priced > 0 && base.Priced > 0 {
				want["cost_usd_delta"] = fmt.Sprintf("%+.6f", sp.CostUSD-base.CostUSD)
			}
		}
	}
	for _, name := range names {
		got, ok := props[name]
		w, wok := want[name]
		if got != w || ok != wok {
			t.Errorf("JUnit property %s = %q (present %t), want %q (present %t)", name, got, ok, w, wok)
		}
	}
	return shown
}

// junitProps reads the first test suite's properties.
func junitProps(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Props []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"properties>property"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Suites) == 0 {
		t.Fatalf("%s has no test suite", path)
	}
	props := map[string]string{}
	for _, p := range doc.Suites[0].Props {
		props[p.Name] = p.Value
	}
	return props
}
