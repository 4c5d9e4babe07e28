package results

import (
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-4 }

func gr(name string, score, weight float64, passed bool) *GraderResult {
	return &GraderResult{Name: name, Type: "text", Score: score, Weight: weight, Passed: passed}
}

func TestScoreRun(t *testing.T) {
	tests := []struct {
		name         string
		status       Status
		vals         Validations
		wantStatus   Status
		wantScore    float64
		wantWeighted float64
	}{
		{"all pass", "", Validations{gr("a", 1, 1, true), gr("b", 1, 2, true)}, StatusPassed, 1, 1},
		// The seeds' worked example: weights 3, 0.5, 1 with scores 1, 0, 1 → 4/4.5.
		{"weighted composite", "", Validations{gr("critical", 1, 3, true), gr("nice", 0, 0.5, false), gr("basic", 1, 0, true)}, StatusFailed, 2.0 / 3, 4 / 4.5},
		{"weight <= 0 means 1", "", Validations{gr("a", 0.5, -2, false), gr("b", 1, 0, true)}, StatusFailed, 0.75, 0.75},
		{"no graders passes with 0", "", nil, StatusPassed, 0, 0},
		{"pending counts as neither", "", Validations{gr("a", 1, 1, true), {Name: "h", Type: "human", Status: StatusPending}}, StatusPassed, 1, 1},
		{"skipped counts as neither", "", Validations{gr("a", 0.5, 1, false), {Name: "b", Type: "behavior", Status: StatusSkipped, Passed: true}}, StatusFailed, 0.5, 0.5},
		{"error stays error", StatusError, Validations{gr("a", 1, 1, true)}, StatusError, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &RunResult{Status: tc.status, Validations: tc.vals}
			ScoreRun(r)
			if r.Status != tc.wantStatus || !near(r.Score, tc.wantScore) || !near(r.WeightedScore, tc.wantWeighted) {
				t.Errorf("got status %s score %.4f weighted %.4f; want %s %.4f %.4f", r.Status, r.Score, r.WeightedScore, tc.wantStatus, tc.wantScore, tc.wantWeighted)
			}
		})
	}
}

func TestTaskStatus(t *testing.T) {
	run := func(s Status) *RunResult { return &RunResult{Status: s} }
	tests := []struct {
		runs []*RunResult
		want Status
	}{
		{[]*RunResult{run(StatusPassed), run(StatusPassed)}, StatusPassed},
		{[]*RunResult{run(StatusPassed), run(StatusFailed)}, StatusFailed},
		{[]*RunResult{run(StatusFailed), run(StatusError), run(StatusPassed)}, StatusError},
		{nil, StatusSkipped},
	}
	for i, tc := range tests {
		if got := TaskStatus(tc.runs); got != tc.want {
			t.Errorf("case %d: got %s, want %s", i, got, tc.want)
		}
	}
}

func TestPassAtKAndPassHatK(t *testing.T) {
	tests := []struct {
		n, c, k   int
		atK, hatK float64
	}{
		{5, 2, 2, 0.7, 0.1},
		{10, 3, 5, 1 - 21.0/252, 0},
		{3, 0, 3, 0, 0},
		{3, 3, 3, 1, 1},
		{3, 1, 3, 1, 0},
		{4, 2, 1, 0.5, 0.5},
		{0, 0, 1, 0, 0},
	}
	for _, tc := range tests {
		if got := PassAtK(tc.n, tc.c, tc.k); !near(got, tc.atK) {
			t.Errorf("PassAtK(%d,%d,%d) = %.4f, want %.4f", tc.n, tc.c, tc.k, got, tc.atK)
		}
		if got := PassHatK(tc.n, tc.c, tc.k); !near(got, tc.hatK) {
			t.Errorf("PassHatK(%d,%d,%d) = %.4f, want %.4f", tc.n, tc.c, tc.k, got, tc.hatK)
		}
	}
}

func TestWilson(t *testing.T) {
	tests := []struct {
		s, n         float64
		lower, upper float64
	}{
		{5, 10, 0.2366, 0.7634},
		{0, 2, 0, 0.6576},
		{10, 10, 0.7225, 1},
		{0, 0, 0, 0},
	}
	for _, tc := range tests {
		got := Wilson(tc.s, tc.n)
		if !near(got.Lower, tc.lower) || !near(got.Upper, tc.upper) {
			t.Errorf("Wilson(%v,%v) = %+v, want [%v, %v]", tc.s, tc.n, got, tc.lower, tc.upper)
		}
	}
}

func TestComputeTaskStats(t *testing.T) {
	runs := []*RunResult{
		{Status: StatusPassed, Score: 1, WeightedScore: 1, AgentRun: AgentRun{DurationMS: 100}},
		{Status: StatusFailed, Score: 0.5, WeightedScore: 0.25, AgentRun: AgentRun{DurationMS: 200}},
		{Status: StatusError, Score: 0, WeightedScore: 0, AgentRun: AgentRun{DurationMS: 301}},
	}
	st := ComputeTaskStats(runs)
	if st.Trials != 3 || st.PassedTrials != 1 || st.ErrorTrials != 1 {
		t.Fatalf("counts: %+v", st)
	}
	checks := map[string][2]float64{
		"pass_rate":    {st.PassRate, 1.0 / 3},
		"avg_score":    {st.AvgScore, 0.5},
		"avg_weighted": {st.AvgWeightedScore, 1.25 / 3},
		"min":          {st.MinScore, 0},
		"max":          {st.MaxScore, 1},
		"variance":     {st.ScoreVariance, (0.25 + 0 + 0.25) / 3},
		"std_dev":      {st.StdDevScore, math.Sqrt(0.5 / 3)},
		"pass_at_k":    {st.PassAtK, 1},
		"pass_hat_k":   {st.PassHatK, 0},
		"wilson_lower": {st.PassRateCI.Lower, 0.0615},
		"wilson_upper": {st.PassRateCI.Upper, 0.7923},
		"avg_duration": {float64(st.AvgDurationMS), 200},
	}
	for name, c := range checks {
		if !near(c[0], c[1]) {
			t.Errorf("%s = %.4f, want %.4f", name, c[0], c[1])
		}
	}
	if !st.Flaky {
		t.Error("a task with 1 of 3 trials passing is flaky")
	}
	if ComputeTaskStats(nil) != nil {
		t.Error("no runs → nil stats")
	}
}

func TestSummarize(t *testing.T) {
	s := &SuiteResult{Summary: Summary{DurationMS: 42}, Tasks: []*TaskResult{
		{ID: "a", Status: StatusPassed, Stats: &TaskStats{AvgScore: 1, AvgWeightedScore: 1}, Runs: []*RunResult{{Status: StatusPassed, AgentRun: AgentRun{SessionDigest: SessionDigest{Usage: &Usage{InputTokens: 10, OutputTokens: 5}}}}}},
		{ID: "b", Status: StatusFailed, Stats: &TaskStats{AvgScore: 0.5, AvgWeightedScore: 0.25, Flaky: true}, Runs: []*RunResult{{Status: StatusFailed}, {Status: StatusPassed, AgentRun: AgentRun{SessionDigest: SessionDigest{Usage: &Usage{InputTokens: 1, CostUSD: 0.5}}}}}},
		{ID: "c", Status: StatusError, Stats: &TaskStats{AvgScore: 0}, Runs: []*RunResult{{Status: StatusError}}},
		{ID: "d", Status: StatusSkipped},
	}}
	Summarize(s)
	sum := s.Summary
	if sum.TotalTests != 4 || sum.Succeeded != 1 || sum.Failed != 1 || sum.Errors != 1 || sum.Skipped != 1 {
		t.Fatalf("counts: %+v", sum)
	}
	if !near(sum.SuccessRate, 1.0/3) || !near(sum.AggregateScore, 0.5) || !near(sum.WeightedScore, 1.25/3) {
		t.Errorf("rates: %+v", sum)
	}
	if sum.MinScore != 0 || sum.MaxScore != 1 || !near(sum.StdDev, math.Sqrt(((0.25)+0+0.25)/3)) {
		t.Errorf("spread: %+v", sum)
	}
	if sum.TotalRuns != 4 || sum.PassedRuns != 2 || sum.ErrorRuns != 1 || sum.Flaky != 1 || sum.DurationMS != 42 {
		t.Errorf("runs: %+v", sum)
	}
	if sum.Usage == nil || sum.Usage.InputTokens != 11 || sum.Usage.OutputTokens != 5 || sum.Usage.CostUSD != 0.5 {
		t.Errorf("usage: %+v", sum.Usage)
	}

	empty := &SuiteResult{}
	Summarize(empty)
	if empty.Summary.SuccessRate != 0 || empty.Summary.Usage != nil {
		t.Errorf("empty suite: %+v", empty.Summary)
	}
}

func TestComputeSkillImpact(t *testing.T) {
	with := &SuiteResult{Tasks: []*TaskResult{{ID: "a", Stats: &TaskStats{PassRate: 1, AvgScore: 0.9}}, {ID: "b", Stats: &TaskStats{PassRate: 0.5}}}}
	without := &SuiteResult{Tasks: []*TaskResult{{ID: "a", Stats: &TaskStats{PassRate: 0.5, AvgScore: 0.4}}, {ID: "b", Stats: &TaskStats{PassRate: 0}}}}
	ComputeSkillImpact(with, without)
	a, b := with.Tasks[0].SkillImpact, with.Tasks[1].SkillImpact
	if !near(a.Delta, 0.5) || !near(a.PercentChange, 100) || !near(a.ScoreDelta, 0.5) {
		t.Errorf("a: %+v", a)
	}
	// A baseline pass rate of 0 is floored at 0.01 so the percentage stays finite, as waza does.
	if !near(b.PercentChange, 5000) {
		t.Errorf("b: %+v", b)
	}
}

func TestFileText(t *testing.T) {
	long := strings.Repeat("a", ChangedFileContentLimit-1) + "é" + "tail"
	tests := []struct {
		name string
		data []byte
		want string
		ok   bool
	}{
		{"short", []byte("hello\n"), "hello\n", true},
		{"cut inside a character", []byte(long), strings.Repeat("a", ChangedFileContentLimit-1), true},
		{"binary", []byte("a\x00b"), "", false},
		{"invalid utf-8", []byte{0xff, 0xfe}, "", false},
	}
	for _, tc := range tests {
		got, ok := FileText(tc.data)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: got %d bytes, %v", tc.name, len(got), ok)
		}
	}
}

func TestTaskStatusAtThreshold(t *testing.T) {
	runs := func(statuses ...Status) []*RunResult {
		var out []*RunResult
		for _, s := range statuses {
			out = append(out, &RunResult{Status: s})
		}
		return out
	}
	p, f, e := StatusPassed, StatusFailed, StatusError
	for _, tc := range []struct {
		runs      []*RunResult
		threshold float64
		want      Status
	}{
		{runs(p, p, p, p, f), 1, f},
		{runs(p, p, p, p, f), 0, f}, // 0 means the default, every trial
		{runs(p, p, p, p, f), 0.8, p},
		{runs(p, p, p, f, f), 0.8, f},
		{runs(p, p, p, p, e), 0.8, e},
		{runs(p, p, p), 0.8, p},
		{nil, 0.8, StatusSkipped},
	} {
		if got := TaskStatusAt(tc.runs, tc.threshold); got != tc.want {
			t.Errorf("%d runs at %.1f: %s, want %s", len(tc.runs), tc.threshold, got, tc.want)
		}
	}
}

func TestRunTrial(t *testing.T) {
	for _, tc := range []struct{ runNumber, i, want int }{
		{3, 0, 3}, // recorded
		{0, 0, 1}, // left out: the position
		{0, 4, 5},
	} {
		if got := (&RunResult{RunNumber: tc.runNumber}).Trial(tc.i); got != tc.want {
			t.Errorf("RunNumber %d at %d: trial %d, want %d", tc.runNumber, tc.i, got, tc.want)
		}
	}
}
