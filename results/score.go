package results

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// ScoreRun sets a run's score, weighted score and status from its grader results
// (docs/results.md#tasks-and-runs): score = mean of grader scores, weighted score =
// Σ score·w / Σ w; pending and skipped graders count as neither. A run already marked error stays error;
// otherwise it fails when any grader failed. A run with no graders passes with score 0, as waza
// scores it.
func ScoreRun(r *RunResult) {
	var sum, weighted, weights float64
	n := 0
	failed := false
	for _, v := range r.Validations {
		if v.Status == StatusPending || v.Status == StatusSkipped {
			continue
		}
		w := v.Weight
		if w <= 0 {
			w = 1
		}
		sum += v.Score
		weighted += v.Score * w
		weights += w
		n++
		if !v.Passed {
			failed = true
		}
	}
	r.Score, r.WeightedScore = 0, 0
	if n > 0 {
		r.Score = sum / float64(n)
		r.WeightedScore = weighted / weights
	}
	if r.PassThreshold != nil {
		failed = r.WeightedScore < *r.PassThreshold
	}
	switch {
	case r.Status == StatusError || r.Status == StatusSkipped:
	case failed:
		r.Status = StatusFailed
	default:
		r.Status = StatusPassed
	}
}

// TaskStatus is passed iff every trial passed, error if any trial errored, else failed
// (docs/results.md#tasks-and-runs). A task without runs is skipped.
func TaskStatus(runs []*RunResult) Status { return TaskStatusAt(runs, 1) }

// TaskStatusAt is TaskStatus with a task pass threshold (config.task_pass_threshold): passed
// iff no trial errored and at least that share of trials passed.
func TaskStatusAt(runs []*RunResult, threshold float64) Status {
	if len(runs) == 0 {
		return StatusSkipped
	}
	passed := 0
	for _, r := range runs {
		switch r.Status {
		case StatusError:
			return StatusError
		case StatusPassed:
			passed++
		}
	}
	if TaskPasses(passed, len(runs), threshold) {
		return StatusPassed
	}
	return StatusFailed
}

// TaskPasses is the task pass rule on counts: passed of trials reach the threshold (a threshold
// outside (0, 1] means every trial).
func TaskPasses(passed, trials int, threshold float64) bool {
	if trials <= 0 {
		return false
	}
	if !(threshold > 0 && threshold < 1) {
		return passed == trials
	}
	// A tolerance so 0.8 of 5 trials is 4, not 4.000000000000001.
	return float64(passed) >= threshold*float64(trials)-1e-9
}

// ComputeTaskStats computes the per-task statistics over the task's runs
// (docs/results.md#tasks-and-runs). It returns nil for a task without runs.
func ComputeTaskStats(runs []*RunResult) *TaskStats {
	n := len(runs)
	if n == 0 {
		return nil
	}
	st := &TaskStats{Trials: n, K: n, MinScore: math.Inf(1), MaxScore: math.Inf(-1)}
	scores := make([]float64, n)
	var weighted float64
	var duration int64
	for i, r := range runs {
		switch r.Status {
		case StatusPassed:
			st.PassedTrials++
		case StatusError:
			st.ErrorTrials++
		}
		scores[i] = r.Score
		weighted += r.WeightedScore
		duration += r.DurationMS
		st.MinScore = math.Min(st.MinScore, r.Score)
		st.MaxScore = math.Max(st.MaxScore, r.Score)
	}
	st.PassRate = float64(st.PassedTrials) / float64(n)
	st.AvgScore, st.ScoreVariance = meanVariance(scores)
	st.StdDevScore = math.Sqrt(st.ScoreVariance)
	st.AvgWeightedScore = weighted / float64(n)
	st.AvgDurationMS = duration / int64(n)
	st.Flaky = st.PassedTrials > 0 && st.PassedTrials < n
	st.PassAtK = PassAtK(n, st.PassedTrials, n)
	st.PassHatK = PassHatK(n, st.PassedTrials, n)
	st.PassRateCI = Wilson(float64(st.PassedTrials), float64(n))
	return st
}

// TrialStats are the task's statistics: the recorded ones, or computed from its runs when a
// caller built the task without finishing it. Nil for a task without runs.
func (t *TaskResult) TrialStats() *TaskStats {
	if t.Stats.finite() || len(t.Runs) == 0 {
		return t.Stats
	}
	return ComputeTaskStats(t.Runs)
}

// finite reports whether the statistics exist and every mean in them is a number in range.
func (st *TaskStats) finite() bool {
	if st == nil {
		return false
	}
	for _, x := range []float64{st.PassRate, st.AvgScore, st.AvgWeightedScore, st.ScoreVariance} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return st.PassRate >= 0 && st.PassRate <= 1 && st.ScoreVariance >= 0
}

// meanVariance returns the mean and the population variance.
func meanVariance(xs []float64) (mean, variance float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		d := x - mean
		variance += d * d
	}
	return mean, variance / float64(len(xs))
}

// PassAtK is the unbiased estimator of the probability that at least one of k trials passes,
// given c passes in n trials: 1 − C(n−c, k) / C(n, k).
func PassAtK(n, c, k int) float64 {
	if n <= 0 || k <= 0 || k > n {
		return 0
	}
	if n-c < k {
		return 1
	}
	// C(n−c, k)/C(n, k) = Π_{i=0}^{k−1} (n−c−i)/(n−i), stable for any n.
	ratio := 1.0
	for i := 0; i < k; i++ {
		ratio *= float64(n-c-i) / float64(n-i)
	}
	return 1 - ratio
}

// PassHatK is the unbiased estimator of the probability that all of k trials pass (pass^k),
// given c passes in n trials: C(c, k) / C(n, k).
func PassHatK(n, c, k int) float64 {
	if n <= 0 || k <= 0 || k > n || c < k {
		return 0
	}
	ratio := 1.0
	for i := 0; i < k; i++ {
		ratio *= float64(c-i) / float64(n-i)
	}
	return ratio
}

// z95 is the two-sided 95% normal quantile.
const z95 = 1.959963984540054

// Wilson is the 95% Wilson score interval for successes out of n (n may be a weighted count).
func Wilson(successes, n float64) Interval {
	if n <= 0 {
		return Interval{}
	}
	p := successes / n
	z2 := z95 * z95
	denom := 1 + z2/n
	center := (p + z2/(2*n)) / denom
	half := z95 * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / denom
	return Interval{Lower: clamp01(center - half), Upper: clamp01(center + half)}
}

func clamp01(x float64) float64 {
	return math.Max(0, math.Min(1, x))
}

// Finish recomputes every derived field of a task from its runs: each run's score and status,
// the task status and its statistics. A task without runs keeps its status (skipped, or error
// when a before_task hook failed).
func (t *TaskResult) Finish() { t.FinishAt(1) }

// FinishAt is Finish with a task pass threshold (RunConfig.TaskPassThreshold).
func (t *TaskResult) FinishAt(threshold float64) {
	if len(t.Runs) == 0 {
		t.Stats = nil
		if t.Status == "" {
			t.Status = StatusSkipped
		}
		return
	}
	for _, r := range t.Runs {
		ScoreRun(r)
	}
	t.Status = TaskStatusAt(t.Runs, threshold)
	t.Stats = ComputeTaskStats(t.Runs)
	if t.GradedByChecks && t.Status == StatusPassed {
		if why := notGraded(t.Runs); why != "" {
			t.Status, t.SkipReason = StatusSkipped, NotGradedPrefix+why
		}
	}
}

// NotGradedPrefix starts the skip_reason of a task whose checks were not decided
// (TaskResult.GradedByChecks).
const NotGradedPrefix = "not graded: "

// NotGraded reports whether a task was skipped because its checks were not decided.
func (t *TaskResult) NotGraded() bool {
	return t.GradedByChecks && t.Status == StatusSkipped && strings.HasPrefix(t.SkipReason, NotGradedPrefix)
}

// notGraded says why runs with no failed check leave a task's outcome unknown: no check at all,
// or a check still pending ("" when every check was decided).
func notGraded(runs []*RunResult) string {
	checks, pending := 0, 0
	note := ""
	for _, r := range runs {
		for _, v := range r.Validations {
			checks++
			if v.Status == StatusPending {
				pending++
				if note == "" {
					note = v.Feedback
				}
			}
		}
	}
	switch {
	case checks == 0:
		return "the eval has no checks (prompt-only); its answers are recorded"
	case pending == 0:
		return ""
	case note != "":
		return fmt.Sprintf("%d of %d checks pending: %s", pending, checks, note)
	}
	return fmt.Sprintf("%d of %d checks pending", pending, checks)
}

// Summarize recomputes the summary from the tasks (docs/results.md#summary). DurationMS is
// left as set by the runner (wall time of the suite). Every rate and score is over the tasks
// that ran (skipped tasks are counted but not in the denominators); a task that errored before
// its first trial (a failed before_task hook) ran and counts with pass rate and score 0, so one
// broken task can never raise a figure.
func Summarize(s *SuiteResult) {
	z := newSummarizer(s)
	s.eachTask(func(t *TaskResult) error {
		z.add(t)
		return nil
	})
	z.finish()
}

// summarizer computes Summarize's figures task by task, so a file read in passes (OpenFile)
// gets them without holding its tasks; each task's spend is set as it is added.
type summarizer struct {
	s          *SuiteResult
	sum        Summary
	avgScores  []float64
	weighted   float64
	passRates  float64
	groups     map[string]*Group
	groupOrder []string
	spend      spendAcc
	calib      calibrator
}

func newSummarizer(s *SuiteResult) *summarizer {
	return &summarizer{s: s, sum: Summary{DurationMS: s.Summary.DurationMS}, groups: map[string]*Group{}}
}

func (z *summarizer) add(t *TaskResult) {
	addTaskSpend(z.s, t, &z.spend)
	z.calib.add(t)
	sum := &z.sum
	sum.TotalTests++
	switch t.Status {
	case StatusPassed:
		sum.Succeeded++
	case StatusFailed:
		sum.Failed++
	case StatusError:
		sum.Errors++
	case StatusSkipped:
		sum.Skipped++
		return
	}
	for _, r := range t.Runs {
		sum.TotalRuns++
		switch r.Status {
		case StatusPassed:
			sum.PassedRuns++
		case StatusError:
			sum.ErrorRuns++
		}
		for _, v := range r.Validations {
			if v.Status == StatusPending {
				sum.Pending++
			}
		}
		sum.Usage = AddUsage(sum.Usage, r.SessionDigest.Usage)
	}
	var score, weightedScore, passRate float64
	if t.Stats != nil {
		score, weightedScore, passRate = t.Stats.AvgScore, t.Stats.AvgWeightedScore, t.Stats.PassRate
		if t.Stats.Flaky {
			sum.Flaky++
		}
	}
	z.avgScores = append(z.avgScores, score)
	z.weighted += weightedScore
	z.passRates += passRate
	if t.Group != "" {
		g := z.groups[t.Group]
		if g == nil {
			g = &Group{Name: t.Group}
			z.groups[t.Group] = g
			z.groupOrder = append(z.groupOrder, t.Group)
		}
		g.Total++
		if t.Status == StatusPassed {
			g.Passed++
		}
		g.AvgScore += score
	}
}

// finish sets the suite's summary and calibration.
func (z *summarizer) finish() {
	s, sum := z.s, z.sum
	if ran := sum.Ran(); ran > 0 {
		sum.SuccessRate = float64(sum.Succeeded) / float64(ran)
		sum.PassRate = z.passRates / float64(ran)
		var variance float64
		sum.AggregateScore, variance = meanVariance(z.avgScores)
		sum.StdDev = math.Sqrt(variance)
		sum.WeightedScore = z.weighted / float64(ran)
		sum.MinScore, sum.MaxScore = slices.Min(z.avgScores), slices.Max(z.avgScores)
	}
	for _, name := range z.groupOrder {
		g := z.groups[name]
		g.AvgScore /= float64(g.Total)
		sum.Groups = append(sum.Groups, *g)
	}
	sum.Spend = suiteSpend(s, &z.spend)
	s.Summary = sum
	s.Calibration = z.calib.result()
}

// Ran is the number of tasks that ran (every task but the skipped ones): the denominator of
// every rate and mean of the summary.
func (s Summary) Ran() int { return s.TotalTests - s.Skipped }

// Combine sums the summaries of several suites into one, as if their tasks were one suite:
// counts add up and every rate and mean is weighted by the tasks that ran. Spread figures
// (min, max, std dev), groups and calibration-like detail stay per suite.
func Combine(sums ...Summary) Summary {
	var out Summary
	var score, weighted, pass float64
	for _, s := range sums {
		out.TotalTests += s.TotalTests
		out.Succeeded += s.Succeeded
		out.Failed += s.Failed
		out.Errors += s.Errors
		out.Skipped += s.Skipped
		out.TotalRuns += s.TotalRuns
		out.PassedRuns += s.PassedRuns
		out.ErrorRuns += s.ErrorRuns
		out.Pending += s.Pending
		out.Flaky += s.Flaky
		out.DurationMS += s.DurationMS
		out.Usage = AddUsage(out.Usage, s.Usage)
		out.Spend = CombineSpend(out.Spend, s.Spend)
		n := float64(s.Ran())
		score += s.AggregateScore * n
		weighted += s.WeightedScore * n
		pass += s.PassRate * n
	}
	if ran := out.Ran(); ran > 0 {
		out.SuccessRate = float64(out.Succeeded) / float64(ran)
		out.AggregateScore = score / float64(ran)
		out.WeightedScore = weighted / float64(ran)
		out.PassRate = pass / float64(ran)
	}
	return out
}

// AddUsage returns a + b; nil when both are nil (no agent reported usage).
func AddUsage(a, b *Usage) *Usage {
	if b == nil {
		return a
	}
	if a == nil {
		a = &Usage{}
	}
	a.Turns += b.Turns
	a.InputTokens += b.InputTokens
	a.OutputTokens += b.OutputTokens
	a.CacheReadTokens += b.CacheReadTokens
	a.CacheWriteTokens += b.CacheWriteTokens
	a.ReasoningTokens += b.ReasoningTokens
	a.CostUSD += b.CostUSD
	a.PremiumRequests += b.PremiumRequests
	if len(b.ModelMetrics) > 0 {
		if a.ModelMetrics == nil {
			a.ModelMetrics = map[string]*ModelUsage{}
		}
		for model, m := range b.ModelMetrics {
			acc := a.ModelMetrics[model]
			if acc == nil {
				acc = &ModelUsage{}
				a.ModelMetrics[model] = acc
			}
			acc.InputTokens += m.InputTokens
			acc.OutputTokens += m.OutputTokens
			acc.CacheReadTokens += m.CacheReadTokens
			acc.CacheWriteTokens += m.CacheWriteTokens
			acc.RequestCount += m.RequestCount
			acc.RequestCost += m.RequestCost
			acc.CostUSD += m.CostUSD
		}
	}
	return a
}

// ComputeSkillImpact fills each task's skill_impact from the without-skill baseline outcome
// (docs/results.md#uplift-mode). Tasks are matched by id.
func ComputeSkillImpact(with, without *SuiteResult) {
	base := map[string]*TaskResult{}
	for _, t := range without.Tasks {
		base[t.ID] = t
	}
	for _, t := range with.Tasks {
		b := base[t.ID]
		// A task whose checks were not graded on either side has no effect to measure.
		if b == nil || t.Stats == nil || b.Stats == nil || t.NotGraded() || b.NotGraded() {
			continue
		}
		imp := &SkillImpact{
			PassRateWithSkills: t.Stats.PassRate,
			PassRateBaseline:   b.Stats.PassRate,
			Delta:              t.Stats.PassRate - b.Stats.PassRate,
			ScoreWithSkills:    t.Stats.AvgScore,
			ScoreBaseline:      b.Stats.AvgScore,
			ScoreDelta:         t.Stats.AvgScore - b.Stats.AvgScore,
		}
		imp.PercentChange = imp.Delta / math.Max(b.Stats.PassRate, 0.01) * 100
		ci := DiffInterval(float64(t.Stats.PassedTrials), float64(t.Stats.Trials), float64(b.Stats.PassedTrials), float64(b.Stats.Trials))
		imp.DeltaCI = &ci
		t.SkillImpact = imp
	}
}

// SortedMetricNames returns the metric names in a stable order.
func (s *SuiteResult) SortedMetricNames() []string {
	names := make([]string, 0, len(s.Metrics))
	for n := range s.Metrics {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DiffInterval is the 95% interval of the difference of two proportions, s1/n1 − s2/n2, by
// Newcombe's hybrid score method (built from each side's Wilson interval): sound with few trials
// and at 0 or 1, where the normal approximation fails. Zero trials on a side gives [−1, 1].
func DiffInterval(s1, n1, s2, n2 float64) Interval {
	if n1 <= 0 || n2 <= 0 {
		return Interval{Lower: -1, Upper: 1}
	}
	p1, p2 := s1/n1, s2/n2
	w1, w2 := Wilson(s1, n1), Wilson(s2, n2)
	d := p1 - p2
	lower := d - math.Sqrt((p1-w1.Lower)*(p1-w1.Lower)+(w2.Upper-p2)*(w2.Upper-p2))
	upper := d + math.Sqrt((w1.Upper-p1)*(w1.Upper-p1)+(p2-w2.Lower)*(p2-w2.Lower))
	return Interval{Lower: math.Max(-1, lower), Upper: math.Min(1, upper)}
}
