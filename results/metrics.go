package results

import (
	"fmt"
	"math"
)

// Metric names that gate (docs/format.md#metrics).
const (
	MetricTriggerAccuracy  = "trigger_accuracy"
	MetricTriggerPrecision = "trigger_precision"
	MetricTriggerRecall    = "trigger_recall"
	MetricTriggerF1        = "trigger_f1"
	MetricTaskCompletion   = "task_completion"
	MetricAggregateScore   = "aggregate_score"
	MetricWeightedScore    = "weighted_score"
)

// KnownMetrics lists every metric name that gates.
var KnownMetrics = []string{
	MetricTriggerAccuracy, MetricTaskCompletion, MetricAggregateScore, MetricWeightedScore,
	MetricTriggerPrecision, MetricTriggerRecall, MetricTriggerF1,
}

// ConfidenceWeight is the weight of a trigger prompt: high (or empty) 1.0, medium 0.5.
func ConfidenceWeight(confidence string) float64 {
	if confidence == "medium" {
		return 0.5
	}
	return 1.0
}

// ComputeTriggerMetrics computes the weighted confusion counts and ratios over every prompt trial
// (docs/format.md#trigger-tests). An agent error counts as a misclassification (DidTrigger is
// expected to be set to !ShouldTrigger by the caller) and is counted in Errors.
func ComputeTriggerMetrics(trs []*TriggerResult) *TriggerMetrics {
	w := &WeightedCounts{}
	m := &TriggerMetrics{Weighted: w}
	for _, tr := range trs {
		weight := ConfidenceWeight(tr.Confidence)
		switch {
		case tr.ShouldTrigger && tr.DidTrigger:
			w.TP += weight
		case tr.ShouldTrigger:
			w.FN += weight
		case tr.DidTrigger:
			w.FP += weight
		default:
			w.TN += weight
		}
		if tr.ErrorMsg != "" {
			m.Errors++
		}
	}
	m.TruePositives = int(math.Round(w.TP))
	m.FalsePositives = int(math.Round(w.FP))
	m.TrueNegatives = int(math.Round(w.TN))
	m.FalseNegatives = int(math.Round(w.FN))
	precision := ratio(w.TP, w.TP+w.FP)
	recall := ratio(w.TP, w.TP+w.FN)
	f1 := ratio(2*precision*recall, precision+recall)
	all := w.TP + w.FP + w.TN + w.FN
	accuracy := ratio(w.TP+w.TN, all)
	m.Precision, m.Recall, m.F1, m.Accuracy = round4(precision), round4(recall), round4(f1), round4(accuracy)
	if all > 0 {
		ci := Wilson(w.TP+w.TN, all)
		ci.Lower, ci.Upper = round4(ci.Lower), round4(ci.Upper)
		m.AccuracyCI = &ci
	}
	return m
}

func ratio(num, den float64) float64 {
	if den == 0 {
		return 0
	}
	return num / den
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// MetricValue returns the current value of a gating metric, and false when the suite has no
// data for it (e.g. a trigger metric without trigger tests).
func MetricValue(s *SuiteResult, name string) (float64, bool) {
	switch name {
	case MetricTaskCompletion:
		return s.Summary.SuccessRate, true
	case MetricAggregateScore:
		return s.Summary.AggregateScore, true
	case MetricWeightedScore:
		return s.Summary.WeightedScore, true
	}
	if s.TriggerMetrics == nil {
		return 0, false
	}
	switch name {
	case MetricTriggerAccuracy:
		return s.TriggerMetrics.Accuracy, true
	case MetricTriggerPrecision:
		return s.TriggerMetrics.Precision, true
	case MetricTriggerRecall:
		return s.TriggerMetrics.Recall, true
	case MetricTriggerF1:
		return s.TriggerMetrics.F1, true
	}
	return 0, false
}

// IsTriggerMetric reports whether a gating metric is measured on the trigger tests.
func IsTriggerMetric(name string) bool {
	switch name {
	case MetricTriggerAccuracy, MetricTriggerPrecision, MetricTriggerRecall, MetricTriggerF1:
		return true
	}
	return false
}

// MetricPassed applies waza's rule: a threshold ≤ 0 always passes.
func MetricPassed(value, threshold float64) bool {
	return threshold <= 0 || value >= threshold
}

// ComputeGate decides the suite's pass/fail (docs/results.md#the-gate-and-exit-codes): every task
// passed and every gating metric met its threshold, and the run was complete.
func ComputeGate(s *SuiteResult) *Gate {
	g := &Gate{Passed: true}
	fail := func(format string, args ...any) {
		g.Passed = false
		g.Reasons = append(g.Reasons, fmt.Sprintf(format, args...))
	}
	if s.Summary.Failed > 0 || s.Summary.Errors > 0 {
		fail("%d task(s) failed and %d errored", s.Summary.Failed, s.Summary.Errors)
	}
	for _, name := range s.SortedMetricNames() {
		m := s.Metrics[name]
		if !m.Passed {
			fail("%s %.4g below threshold %.4g", name, m.Value, m.Threshold)
		}
	}
	if failed, errored := countQueries(s.TriggerQueries); failed+errored > 0 {
		fail("%d of %d trigger queries failed and %d errored", failed, len(s.TriggerQueries), errored)
	}
	if s.Incomplete {
		reason := s.IncompleteReason
		if reason == "" {
			reason = "interrupted"
		}
		fail("run incomplete: %s", reason)
	}
	return g
}

// countQueries counts the trigger queries that failed and errored.
func countQueries(qs []*TriggerQuery) (failed, errored int) {
	for _, q := range qs {
		switch q.Status {
		case StatusFailed:
			failed++
		case StatusError:
			errored++
		}
	}
	return failed, errored
}
