package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

func mustCompare(t *testing.T, base, head *results.SuiteResult, opts CompareOptions) *Comparison {
	t.Helper()
	c, err := Compare(base, head, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCompareFixtures(t *testing.T) {
	c := mustCompare(t, readFixture(t, "base.json"), readFixture(t, "head.json"), CompareOptions{BaseFile: "base.json", HeadFile: "head.json"})
	if c.Suite != "code-explainer" || c.Mode != ModeBaseline || c.NoBaseline {
		t.Fatalf("header: %+v", c)
	}
	// Each shared task's status and change.
	got := map[string][2]string{}
	for _, tc := range c.Tasks {
		got[tc.ID] = [2]string{tc.Status, tc.Change}
	}
	for id, want := range map[string][2]string{
		"explain-py": {TaskPaired, ChangeStillPassing},
		"explain-js": {TaskPaired, ChangeFlaky},
		// 3/3 → 0/3 could be a flaky task's bad luck: without confirmation trials (compare runs
		// no agent) it is reported, not blocked.
		"broken": {TaskPaired, ChangeUnconfirmed},
		"later":  {TaskSkipped, ChangeNotCompared},
	} {
		if got[id] != want {
			t.Errorf("task %s: status and change %q, want %q (all %v)", id, got[id], want, got)
		}
	}
	if len(c.NewTasks) != 1 || c.NewTasks[0].ID != "crash" || len(c.RemovedTasks) != 1 || c.RemovedTasks[0].ID != "legacy" {
		t.Errorf("new %+v removed %+v", c.NewTasks, c.RemovedTasks)
	}
	if c.Flips.Broke != 2 || c.Flips.Fixed != 0 {
		t.Errorf("flips %+v", c.Flips)
	}
	// Three shared tasks: the interval is over their trials; at 99% it still reaches above −0.02
	// (one task went from 3/3 to 0/3, another to 2/3), and no task is confirmed worse.
	if c.Verdict != VerdictInconclusive || !strings.Contains(c.Message, "over the trials of 3 tasks") {
		t.Errorf("verdict %s: %s", c.Verdict, c.Message)
	}
	// The added task "crash" errored in one of its trials (2 of 3 passed): it is not clearly
	// failing, so it does not block.
	if c.Changes.Introduced() != 0 || c.Changes.Unconfirmed != 1 || c.Changes.Removed != 1 || c.NewTasks[0].Change != ChangeAdded || c.RemovedTasks[0].Change != ChangeRemoved {
		t.Errorf("changes %+v", c.Changes)
	}
	if c.NewTasks[0].Open || c.NewTasks[0].Blocking {
		t.Errorf("added task %+v: want neither open to confirmation nor blocking", c.NewTasks[0])
	}
	score := c.Metric(MetricScore)
	if score == nil || score.Tasks != 3 || !near(*score.Delta, (0+(11.0/12-1)+(-1))/3, 1e-9) {
		t.Errorf("score metric %+v", score)
	}
	if c.Floors[0].Name != "trigger_accuracy" || c.Floors[0].Passed || c.FloorsPassed() {
		t.Errorf("floors %+v", c.Floors)
	}
	if c.Triggers == nil || c.Triggers.Head == nil || c.Triggers.Base != nil || c.Triggers.Threshold == nil {
		t.Errorf("triggers %+v", c.Triggers)
	}

	var buf bytes.Buffer
	if err := c.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["verdict"] != "inconclusive" {
		t.Errorf("suite verdict in JSON: %v", doc["verdict"])
	}
	for _, m := range doc["metrics"].([]any) {
		if v := m.(map[string]any)["verdict"]; v == nil || v == "" {
			t.Errorf("metric without verdict: %v", m)
		}
	}
	if _, ok := doc["task_deltas"].([]any)[0].(map[string]any)["score_delta"]; !ok {
		t.Errorf("waza key score_delta missing: %v", doc["task_deltas"])
	}
}

func TestCompareWazaBaseline(t *testing.T) {
	c := mustCompare(t, readFixture(t, "waza-base.json"), readFixture(t, "head.json"), CompareOptions{})
	var paired []string
	for _, tc := range c.Tasks {
		if tc.Status == TaskPaired {
			paired = append(paired, tc.ID)
		}
	}
	if strings.Join(paired, ",") != "explain-py,explain-js" {
		t.Errorf("paired %v", paired)
	}
	if len(c.RemovedTasks) != 1 || c.RemovedTasks[0].ID != "legacy" || len(c.NewTasks) != 3 {
		t.Errorf("new %+v removed %+v", c.NewTasks, c.RemovedTasks)
	}
	// waza counted the errored run of "legacy" as a pass; read with skillgate's rules it is 0%.
	if r := c.RemovedTasks[0]; r.PassRate == nil || *r.PassRate != 0 {
		t.Errorf("legacy pass rate %v", r.PassRate)
	}
	if c.Base.Executor != "copilot-sdk" || c.Head.Executor != "replay" {
		t.Errorf("executors %q %q", c.Base.Executor, c.Head.Executor)
	}
}

func TestCompareDifferentSuites(t *testing.T) {
	a := suiteOf("alpha", repeat(counts{1, 1}, 3))
	b := suiteOf("beta", repeat(counts{1, 1}, 3))
	_, err := Compare(a, b, CompareOptions{BaseFile: "a.json", HeadFile: "b.json"})
	if !errors.Is(err, ErrDifferentSuites) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"a.json", "b.json", `"alpha"`, `"beta"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if _, err := NewSuite(b, a, CompareOptions{}); !errors.Is(err, ErrDifferentSuites) {
		t.Errorf("NewSuite: %v", err)
	}
}

func TestCompareNoBaseline(t *testing.T) {
	head := suiteOf("alpha", repeat(counts{2, 3}, 4))
	for name, base := range map[string]*results.SuiteResult{"nil": nil, "empty": {EvalName: "alpha"}} {
		t.Run(name, func(t *testing.T) {
			c := mustCompare(t, base, head, CompareOptions{})
			if !c.NoBaseline || c.Verdict != VerdictInconclusive || !strings.Contains(c.Message, "No baseline") || len(c.NewTasks) != 4 {
				t.Fatalf("%+v", c)
			}
			var buf bytes.Buffer
			if err := c.WriteJSON(&buf); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(buf.String(), "NaN") || !json.Valid(buf.Bytes()) {
				t.Errorf("JSON: %s", buf.String())
			}
			for _, f := range CompareFormats {
				var out bytes.Buffer
				if err := WriteComparison(&out, c, f); err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(strings.ToLower(out.String()), "no baseline") {
					t.Errorf("%s does not say no baseline:\n%s", f, out.String())
				}
			}
		})
	}
}

// waza's compare crashes with "json: unsupported value: NaN" when stats are missing; NaN or
// missing stats must never reach skillgate's JSON.
func TestCompareNaNAndMissingStats(t *testing.T) {
	nan := math.NaN()
	mk := func(name string) *results.SuiteResult {
		s := suiteOf(name, repeat(counts{1, 2}, 2))
		s.Tasks = append(s.Tasks,
			&results.TaskResult{ID: "nan", Name: "Broken stats", Status: results.StatusFailed, Stats: &results.TaskStats{PassRate: nan, AvgScore: nan, ScoreVariance: math.Inf(1)}},
			&results.TaskResult{ID: "nostats", Name: "No stats", Status: results.StatusFailed},
		)
		s.Metrics["aggregate_score"] = &results.MetricResult{Name: "aggregate_score", Value: nan, Threshold: 0.5}
		s.TriggerMetrics = &results.TriggerMetrics{Accuracy: nan}
		return s
	}
	c := mustCompare(t, mk("alpha"), mk("alpha"), CompareOptions{})
	var buf bytes.Buffer
	if err := c.WriteJSON(&buf); err != nil {
		t.Fatalf("JSON with NaN input: %v", err)
	}
	if strings.Contains(buf.String(), "NaN") || strings.Contains(buf.String(), "Inf") {
		t.Errorf("non-finite value in JSON:\n%s", buf.String())
	}
	for _, tc := range c.Tasks {
		if (tc.ID == "nan" || tc.ID == "nostats") && tc.Status != TaskNoData {
			t.Errorf("task %s: status %s", tc.ID, tc.Status)
		}
	}
	if m := c.Metric(MetricScore); m.Tasks != 2 {
		t.Errorf("NaN tasks must stay out of the analysis: %d tasks", m.Tasks)
	}
	for _, render := range []func() string{
		func() string { return c.Markdown() },
		func() string { var b bytes.Buffer; c.WriteTable(&b); return b.String() },
		func() string { return Comment(&Input{Suites: []*Suite{{Result: mk("alpha"), Comparison: c}}}) },
	} {
		if out := render(); strings.Contains(out, "NaN") {
			t.Errorf("NaN rendered:\n%s", out)
		}
	}
}

func TestCompareDeterministic(t *testing.T) {
	tasks := make([]counts, 30)
	headTasks := make([]counts, 30)
	for i := range tasks {
		tasks[i] = counts{i % 5, 5}
		headTasks[i] = counts{(i + 2) % 5, 5}
	}
	base, head := suiteOf("alpha", tasks), suiteOf("alpha", headTasks)
	render := func(c *Comparison) string {
		var b bytes.Buffer
		if err := c.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	a, b := mustCompare(t, base, head, CompareOptions{}), mustCompare(t, base, head, CompareOptions{})
	if render(a) != render(b) || a.Settings.Seed == 0 {
		t.Fatal("the same files must give the same comparison")
	}
	other := mustCompare(t, head, base, CompareOptions{})
	if other.Settings.Seed == a.Settings.Seed {
		t.Error("different data must derive a different seed")
	}
	fixed := mustCompare(t, base, head, CompareOptions{Seed: 7})
	if fixed.Settings.Seed != 7 {
		t.Errorf("explicit seed ignored: %d", fixed.Settings.Seed)
	}
}

func TestCompareVerdicts(t *testing.T) {
	noisyBase := make([]counts, 30)
	noisyHead := make([]counts, 30)
	for i := range noisyBase {
		// A drop of about 0.04 with a lot of spread: the interval straddles −0.02.
		noisyBase[i] = counts{[]int{3, 4, 2, 5, 3}[i%5], 5}
		noisyHead[i] = counts{[]int{4, 3, 2, 4, 2}[i%5], 5}
	}
	oneBroken := repeat(counts{10, 10}, 50)
	oneBrokenHead := repeat(counts{10, 10}, 50)
	oneBrokenHead[17] = counts{0, 10}
	tests := []struct {
		name         string
		base, head   []counts
		opts         CompareOptions
		verdict      Verdict
		metric       string // the metric whose verdict decides
		noRegression bool
		message      string
	}{
		// 5/5 → 0/5 on each of three tasks: the suite's interval over their trials regresses; no task
		// alone is confirmed without confirmation trials (p = 1/252 each, among three).
		{"three tasks broke outright", repeat(counts{5, 5}, 3), repeat(counts{0, 5}, 3), CompareOptions{}, VerdictRegressed, MetricScore, false, "over the trials of 3 tasks"},
		{"everything broke", repeat(counts{10, 10}, 20), repeat(counts{0, 10}, 20), CompareOptions{}, VerdictRegressed, MetricScore, false, "regressed"},
		{"identical", repeat(counts{3, 5}, 20), repeat(counts{3, 5}, 20), CompareOptions{}, VerdictInconclusive, MetricScore, true, "No change"},
		{"everything improved", repeat(counts{1, 5}, 20), repeat(counts{5, 5}, 20), CompareOptions{}, VerdictImproved, MetricScore, true, "improved"},
		{"one task broke outright", oneBroken, oneBrokenHead, CompareOptions{}, VerdictRegressed, MetricTasks, false, "t17"},
		{"noisy small drop", noisyBase, noisyHead, CompareOptions{}, VerdictInconclusive, MetricScore, false, "trials per task"},
		{"few tasks, clear drop", repeat(counts{3, 3}, 3), repeat(counts{0, 3}, 3), CompareOptions{}, VerdictRegressed, MetricScore, false, "over the trials of 3 tasks"},
		{"few tasks, identical", repeat(counts{3, 3}, 3), repeat(counts{3, 3}, 3), CompareOptions{}, VerdictInconclusive, MetricScore, false, "No change"},
		{"few tasks, one trial lost", repeat(counts{10, 10}, 4), append(repeat(counts{10, 10}, 3), counts{9, 10}), CompareOptions{}, VerdictInconclusive, MetricScore, false, "No clear change"},
		{"few tasks, half the trials lost", repeat(counts{10, 10}, 4), repeat(counts{5, 10}, 4), CompareOptions{}, VerdictRegressed, MetricPassRate, false, "regressed"},
		{"drop smaller than min_effect", repeat(counts{10, 10}, 20), append(repeat(counts{10, 10}, 15), repeat(counts{7, 10}, 5)...), CompareOptions{MinEffect: 0.2}, VerdictInconclusive, MetricScore, true, "No regression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustCompare(t, suiteOf("s", tt.base), suiteOf("s", tt.head), tt.opts)
			if c.Verdict != tt.verdict || !strings.Contains(c.Message, tt.message) {
				t.Errorf("verdict %s, message %q; want %s containing %q", c.Verdict, c.Message, tt.verdict, tt.message)
			}
			m := c.Metric(tt.metric)
			if tt.verdict != VerdictInconclusive && m.Verdict != tt.verdict {
				t.Errorf("metric %s verdict %s", tt.metric, m.Verdict)
			}
			if m.NoRegression != tt.noRegression {
				t.Errorf("metric %s no_regression %v: %s", tt.metric, m.NoRegression, m.Message)
			}
		})
	}
}

func TestCompareFlagsBrokenTaskByName(t *testing.T) {
	base := repeat(counts{10, 10}, 50)
	head := repeat(counts{10, 10}, 50)
	head[17] = counts{0, 10}
	c := mustCompare(t, suiteOf("s", base), suiteOf("s", head), CompareOptions{})
	// The suite mean moves by exactly min_effect, which the interval alone cannot call.
	if m := c.Metric(MetricScore); m.Verdict == VerdictRegressed {
		t.Errorf("score metric should not decide this: %s", m.Message)
	}
	tasks := c.Metric(MetricTasks)
	if tasks.Dropped != 1 || tasks.Verdict != VerdictRegressed {
		t.Fatalf("task metric %+v", tasks)
	}
	for _, tc := range c.Tasks {
		flagged := tc.Significant == SignificantDrop
		if flagged != (tc.ID == "t17") {
			t.Errorf("task %s flagged=%v", tc.ID, flagged)
		}
		if tc.ID == "t17" && (tc.QDrop == nil || *tc.QDrop > 0.025) {
			t.Errorf("t17 q = %v", tc.QDrop)
		}
	}
}

func TestCompareUplift(t *testing.T) {
	with := suiteOf("s", repeat(counts{5, 5}, 10))
	if c, err := CompareUplift(with, CompareOptions{}); c != nil || err != nil {
		t.Fatalf("no without-skill run: %v %v", c, err)
	}
	with.BaselineOutcome = suiteOf("s", repeat(counts{1, 5}, 10))
	with.IsBaseline = true
	c, err := CompareUplift(with, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != ModeUplift || c.Base.Label != "without skill" || c.Head.Label != "with skill" || c.Verdict != VerdictImproved {
		t.Errorf("%s %q %q %s: %s", c.Mode, c.Base.Label, c.Head.Label, c.Verdict, c.Message)
	}
	s, err := NewSuite(with, nil, CompareOptions{})
	if err != nil || s.Uplift == nil || s.Comparison != nil {
		t.Errorf("NewSuite uplift: %+v %v", s, err)
	}
}

func TestTrialsToSettleShrinksWithEffect(t *testing.T) {
	// More trials settle a change that sits further from −min_effect sooner.
	deltas := []float64{-0.2, 0.1, -0.1, 0, -0.3, 0.2, -0.1, 0, -0.2, 0.1}
	opts := CompareOptions{}.withDefaults()
	near := trialsToSettle(deltas, -0.05, 0.05, 5, opts)
	far := trialsToSettle(deltas, -0.08, 0.05, 5, opts)
	if !(far > 5 && near > far) {
		t.Errorf("near %d far %d", near, far)
	}
	if got := trialsToSettle(deltas, -0.02, 0.05, 5, opts); got != 0 {
		t.Errorf("a change exactly at −min_effect cannot be settled: %d", got)
	}
}

func TestWriteComparisonUnknownFormat(t *testing.T) {
	c := mustCompare(t, nil, suiteOf("s", repeat(counts{1, 1}, 1)), CompareOptions{})
	var fe *UnknownFormatError
	if err := WriteComparison(&bytes.Buffer{}, c, "xml"); !errors.As(err, &fe) || !strings.Contains(err.Error(), "markdown, json, table") {
		t.Errorf("err = %v", err)
	}
}

func TestSignedBound(t *testing.T) {
	tests := []struct {
		x, me float64
		want  string
	}{
		{-0.13999, 0.02, "−0.14"},
		{-0.01999999999999997, 0.02, "−0.020000"},
		{-0.0195, 0.02, "−0.019"},
		{-0.02, 0.02, "−0.02"},
		{0.021, 0.02, "+0.021"},
		{0, 0.02, "+0.00"},
	}
	for _, tt := range tests {
		if got := signedBound(tt.x, tt.me); got != tt.want {
			t.Errorf("signedBound(%v) = %q, want %q", tt.x, got, tt.want)
		}
	}
}
