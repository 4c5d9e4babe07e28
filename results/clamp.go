package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A results file may come from anywhere (a baseline artifact, a fork's bundle, a file edited by
// hand) and JSON numbers have no bounds: a score of 1e308 is a valid number, but two of them
// sum to +Inf, and Inf − Inf is NaN, which reaches every mean, delta and chart. Readers
// therefore clamp every figure into the range it can take (docs/results.md#figures-out-of-range)
// and say so in SuiteResult.ReadWarnings.

// Bounds of the figures that have no natural range.
const (
	maxWeight     = 1e6
	maxDurationMS = int64(1e12) // about 31 years
	maxTokens     = int64(1e12) // per run: a million runs still sum within int64
	maxCostUSD    = 1e9         // per run, and per million tokens in a price table
	maxPercent    = 1e6         // a percent change
)

// figureClamps counts, per field, the figures a reader clamped.
type figureClamps struct {
	counts map[string]int
	ranges map[string]string
	order  []string
}

func (c *figureClamps) note(field, rng string) {
	if c.counts == nil {
		c.counts, c.ranges = map[string]int{}, map[string]string{}
	}
	if c.counts[field] == 0 {
		c.order = append(c.order, field)
		c.ranges[field] = rng
	}
	c.counts[field]++
}

// float clamps *x into [lo, hi]; NaN becomes lo.
func (c *figureClamps) float(x *float64, lo, hi float64, field string) {
	if *x >= lo && *x <= hi {
		return
	}
	c.note(field, fmt.Sprintf("clamped to %s–%s", formatBound(lo), formatBound(hi)))
	switch {
	case *x > hi:
		*x = hi
	default: // below lo, or NaN
		*x = lo
	}
}

func (c *figureClamps) unit(x *float64, field string) { c.float(x, 0, 1, field) }

func (c *figureClamps) int64(x *int64, lo, hi int64, field string) {
	if *x >= lo && *x <= hi {
		return
	}
	c.note(field, fmt.Sprintf("clamped to %s–%s", formatBound(float64(lo)), formatBound(float64(hi))))
	*x = min(max(*x, lo), hi)
}

func (c *figureClamps) int(x *int, lo, hi int, field string) {
	v := int64(*x)
	c.int64(&v, int64(lo), int64(hi), field)
	*x = int(v)
}

func formatBound(f float64) string {
	if f != 0 && (math.Abs(f) >= 1e6) {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// merge adds the clamps noted in d (a later part of the same reading) to c.
func (c *figureClamps) merge(d *figureClamps) {
	for _, f := range d.order {
		if c.counts == nil {
			c.counts, c.ranges = map[string]int{}, map[string]string{}
		}
		if c.counts[f] == 0 {
			c.order = append(c.order, f)
			c.ranges[f] = d.ranges[f]
		}
		c.counts[f] += d.counts[f]
	}
}

func (c *figureClamps) warnings() []string {
	var out []string
	for _, f := range c.order {
		out = append(out, fmt.Sprintf("%s: %d value(s) out of range or not finite, %s", f, c.counts[f], c.ranges[f]))
	}
	return out
}

// clampFigures clamps every figure of s (and of its uplift baseline) into its range and records
// a warning per field in s.ReadWarnings. Figures derived from others (task statistics, the
// summary) are recomputed by the reader afterwards; task statistics out of range are dropped here
// so that they are.
func clampFigures(s *SuiteResult) {
	var c figureClamps
	c.suite(s)
	if s.BaselineOutcome != nil {
		c.suite(s.BaselineOutcome)
	}
	s.ReadWarnings = append(s.ReadWarnings, c.warnings()...)
}

func (c *figureClamps) suite(s *SuiteResult) {
	c.suiteHead(s)
	for _, t := range s.Tasks {
		c.task(t)
	}
	c.suiteTail(s)
}

// suiteHead clamps the figures of a suite that come before its tasks' (the order of the
// warnings), suiteTail those after them.
func (c *figureClamps) suiteHead(s *SuiteResult) {
	c.unit(&s.Config.TaskPassThreshold, "config.task_pass_threshold")
	for model, p := range s.Config.Pricing {
		for _, x := range []*float64{&p.Input, &p.Output, &p.CacheRead, &p.CacheWrite} {
			c.float(x, 0, maxCostUSD, "config.pricing prices")
		}
		s.Config.Pricing[model] = p
	}
	c.int64(&s.Summary.DurationMS, 0, maxDurationMS, "summary.duration_ms")
}

func (c *figureClamps) suiteTail(s *SuiteResult) {
	for _, m := range s.Metrics {
		if m == nil {
			continue
		}
		c.unit(&m.Value, "metrics' value")
		c.unit(&m.Threshold, "metrics' threshold")
		c.float(&m.Weight, -maxWeight, maxWeight, "metrics' weight")
	}
	if tm := s.TriggerMetrics; tm != nil {
		for _, x := range []*float64{&tm.Precision, &tm.Recall, &tm.F1, &tm.Accuracy} {
			c.unit(x, "trigger_metrics ratios")
		}
		if tm.AccuracyCI != nil {
			c.unit(&tm.AccuracyCI.Lower, "trigger_metrics ratios")
			c.unit(&tm.AccuracyCI.Upper, "trigger_metrics ratios")
		}
		if w := tm.Weighted; w != nil {
			for _, x := range []*float64{&w.TP, &w.FP, &w.TN, &w.FN} {
				c.float(x, 0, float64(maxTokens), "trigger_metrics.weighted counts")
			}
		}
	}
	for _, tr := range s.TriggerResults {
		if tr == nil {
			continue
		}
		c.int64(&tr.DurationMS, 0, maxDurationMS, "trigger_results' duration_ms")
		c.usage(tr.Usage)
	}
	for _, cal := range s.Calibration {
		if cal == nil {
			continue
		}
		for _, x := range []*float64{&cal.Agreement, &cal.FalsePassRate, &cal.FalseFailRate} {
			c.unit(x, "calibration rates")
		}
		if cal.Kappa != nil {
			c.float(cal.Kappa, -1, 1, "calibration kappa")
		}
	}
}

func (c *figureClamps) task(t *TaskResult) {
	if t == nil {
		return
	}
	for _, r := range t.Runs {
		c.run(r)
	}
	if st := t.Stats; st != nil && !st.inRange() {
		c.note("tasks' stats", "recomputed from their runs")
		if len(t.Runs) > 0 {
			t.Stats = ComputeTaskStats(t.Runs)
		} else {
			t.Stats = nil
		}
	}
	if si := t.SkillImpact; si != nil {
		for _, x := range []*float64{&si.PassRateWithSkills, &si.PassRateBaseline, &si.ScoreWithSkills, &si.ScoreBaseline} {
			c.unit(x, "skill_impact rates and scores")
		}
		c.float(&si.Delta, -1, 1, "skill_impact deltas")
		c.float(&si.ScoreDelta, -1, 1, "skill_impact deltas")
		c.float(&si.PercentChange, -maxPercent, maxPercent, "skill_impact.percent_change")
	}
}

func (c *figureClamps) run(r *RunResult) {
	if r == nil {
		return
	}
	c.unit(&r.Score, "runs' score")
	c.unit(&r.WeightedScore, "runs' weighted_score")
	if r.PassThreshold != nil {
		c.unit(r.PassThreshold, "runs' pass_threshold")
	}
	c.int64(&r.DurationMS, 0, maxDurationMS, "runs' duration_ms")
	c.usage(r.SessionDigest.Usage)
	for _, v := range r.Validations {
		if v == nil {
			continue
		}
		c.unit(&v.Score, "graders' score")
		c.float(&v.Weight, -maxWeight, maxWeight, "graders' weight")
		c.int64(&v.DurationMS, 0, maxDurationMS, "graders' duration_ms")
	}
	for i := range r.ChangedFiles {
		c.int64(&r.ChangedFiles[i].Size, 0, math.MaxInt64/2, "changed files' size")
	}
}

func (c *figureClamps) usage(u *Usage) {
	if u == nil {
		return
	}
	c.int(&u.Turns, 0, 1<<30, "usage figures")
	for _, x := range []*int64{&u.InputTokens, &u.OutputTokens, &u.CacheReadTokens, &u.CacheWriteTokens, &u.ReasoningTokens} {
		c.int64(x, 0, maxTokens, "usage figures")
	}
	c.float(&u.CostUSD, 0, maxCostUSD, "usage figures")
	c.float(&u.PremiumRequests, 0, maxCostUSD, "usage figures")
	for _, m := range u.ModelMetrics {
		if m == nil {
			continue
		}
		for _, x := range []*int64{&m.InputTokens, &m.OutputTokens, &m.CacheReadTokens, &m.CacheWriteTokens} {
			c.int64(x, 0, maxTokens, "usage figures")
		}
		c.int(&m.RequestCount, 0, 1<<30, "usage figures")
		c.float(&m.RequestCost, 0, maxCostUSD, "usage figures")
		c.float(&m.CostUSD, 0, maxCostUSD, "usage figures")
	}
}

// inRange reports whether every figure of the statistics lies in its range.
func (st *TaskStats) inRange() bool {
	for _, x := range []float64{st.PassRate, st.AvgScore, st.AvgWeightedScore, st.MinScore, st.MaxScore,
		st.StdDevScore, st.ScoreVariance, st.PassAtK, st.PassHatK, st.PassRateCI.Lower, st.PassRateCI.Upper} {
		if !(x >= 0 && x <= 1) {
			return false
		}
	}
	return st.AvgDurationMS >= 0 && st.AvgDurationMS <= maxDurationMS &&
		st.Trials >= 0 && st.PassedTrials >= 0 && st.ErrorTrials >= 0 && st.K >= 0
}

// boundNumbers returns data with every JSON number that no 64-bit field can hold (1e999,
// 99999999999999999999) replaced by the largest one of its sign that both float64 and int64
// fields accept, and how many it replaced. Strings are left alone.
func boundNumbers(data []byte) ([]byte, int) {
	var out []byte
	n, last := 0, 0
	for i := 0; i < len(data); {
		switch c := data[i]; {
		case c == '"':
			i = skipString(data, i)
		case c == '-' || c >= '0' && c <= '9':
			j := i + 1
			for j < len(data) && isNumberByte(data[j]) {
				j++
			}
			if repl, ok := boundedNumber(string(data[i:j])); ok {
				out = append(append(out, data[last:i]...), repl...)
				last = j
				n++
			}
			i = j
		default:
			i++
		}
	}
	if n == 0 {
		return data, 0
	}
	return append(out, data[last:]...), n
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// skipString returns the index after the string starting at data[i] (a '"').
func skipString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// boundedNumber is the replacement of a number token no 64-bit field can hold.
func boundedNumber(tok string) (string, bool) {
	neg := tok[0] == '-'
	if _, err := strconv.ParseInt(tok, 10, 64); err == nil {
		return "", false
	}
	f, err := strconv.ParseFloat(tok, 64)
	integer := !strings.ContainsAny(tok, ".eE")
	switch {
	case err != nil && !math.IsInf(f, 0):
		return "", false // not a number the decoder would take: its error says where
	case !integer && err == nil:
		return "", false // a float64 field holds it
	case neg:
		return "-9223372036854775807", true
	}
	return "9223372036854775807", true
}

// saturatingInt64 converts f to int64, saturating (a plain conversion of an out-of-range float
// is undefined); NaN becomes -1, which the clamps then report.
func saturatingInt64(f float64) int64 {
	switch {
	case f != f:
		return -1
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}
