package results

import "testing"

func trig(should, did bool, conf string) *TriggerResult {
	return &TriggerResult{ShouldTrigger: should, DidTrigger: did, Confidence: conf}
}

func TestComputeTriggerMetrics(t *testing.T) {
	// waza's code-explainer shape: 6 high + 2 medium prompts on each side, all correct.
	var perfect []*TriggerResult
	for i := 0; i < 6; i++ {
		perfect = append(perfect, trig(true, true, "high"), trig(false, false, ""))
	}
	for i := 0; i < 2; i++ {
		perfect = append(perfect, trig(true, true, "medium"), trig(false, false, "medium"))
	}
	m := ComputeTriggerMetrics(perfect)
	if m.TruePositives != 7 || m.TrueNegatives != 7 || m.FalsePositives != 0 || m.FalseNegatives != 0 {
		t.Errorf("counts: %+v", m)
	}
	if m.Accuracy != 1 || m.Precision != 1 || m.Recall != 1 || m.F1 != 1 {
		t.Errorf("ratios: %+v", m)
	}

	errored := trig(false, true, "high")
	errored.ErrorMsg = "agent crashed"
	mixed := []*TriggerResult{trig(true, true, "high"), trig(true, false, "medium"), errored, trig(false, false, "medium")}
	m = ComputeTriggerMetrics(mixed)
	// TP 1, FN 0.5, FP 1, TN 0.5 → counts rounded half away from zero.
	if m.TruePositives != 1 || m.FalseNegatives != 1 || m.FalsePositives != 1 || m.TrueNegatives != 1 || m.Errors != 1 {
		t.Errorf("counts: %+v", m)
	}
	if m.Precision != 0.5 || m.Recall != 0.6667 || m.F1 != 0.5714 || m.Accuracy != 0.5 {
		t.Errorf("ratios: %+v", m)
	}
	if m.Weighted.FN != 0.5 || m.AccuracyCI == nil || m.AccuracyCI.Lower >= 0.5 || m.AccuracyCI.Upper <= 0.5 {
		t.Errorf("weighted/ci: %+v %+v", m.Weighted, m.AccuracyCI)
	}

	none := ComputeTriggerMetrics(nil)
	if none.Accuracy != 0 || none.Precision != 0 || none.AccuracyCI != nil {
		t.Errorf("empty: %+v", none)
	}
	// Nothing triggered: precision's denominator is empty → 0, not NaN.
	m = ComputeTriggerMetrics([]*TriggerResult{trig(false, false, "high")})
	if m.Precision != 0 || m.Recall != 0 || m.F1 != 0 || m.Accuracy != 1 {
		t.Errorf("no positives: %+v", m)
	}
}

func TestMetricValueAndGate(t *testing.T) {
	s := &SuiteResult{
		Summary:        Summary{TotalTests: 2, Succeeded: 1, Failed: 1, SuccessRate: 0.5, AggregateScore: 0.75, WeightedScore: 0.7},
		TriggerMetrics: &TriggerMetrics{Accuracy: 0.8, Precision: 0.9, Recall: 0.7, F1: 0.79},
		Metrics:        map[string]*MetricResult{},
	}
	for name, want := range map[string]float64{
		MetricTaskCompletion: 0.5, MetricAggregateScore: 0.75, MetricWeightedScore: 0.7,
		MetricTriggerAccuracy: 0.8, MetricTriggerPrecision: 0.9, MetricTriggerRecall: 0.7, MetricTriggerF1: 0.79,
	} {
		if got, ok := MetricValue(s, name); !ok || got != want {
			t.Errorf("%s = %v,%v want %v", name, got, ok, want)
		}
	}
	if _, ok := MetricValue(&SuiteResult{}, MetricTriggerAccuracy); ok {
		t.Error("trigger metric without trigger tests must be unavailable")
	}
	if !MetricPassed(0.1, 0) || MetricPassed(0.89, 0.9) || !MetricPassed(0.9, 0.9) {
		t.Error("MetricPassed")
	}

	g := ComputeGate(s)
	if g.Passed || len(g.Reasons) != 1 {
		t.Errorf("a failed task fails the gate: %+v", g)
	}
	s.Summary.Failed = 0
	s.Metrics[MetricTriggerAccuracy] = &MetricResult{Name: MetricTriggerAccuracy, Value: 0.8, Threshold: 0.9, Passed: false}
	g = ComputeGate(s)
	if g.Passed || len(g.Reasons) != 1 || g.Reasons[0] != "trigger_accuracy 0.8 below threshold 0.9" {
		t.Errorf("a missed threshold fails the gate: %+v", g)
	}
	s.Metrics[MetricTriggerAccuracy].Passed = true
	if g = ComputeGate(s); !g.Passed {
		t.Errorf("all good: %+v", g)
	}
	s.Incomplete, s.IncompleteReason = true, "interrupted by signal"
	if g = ComputeGate(s); g.Passed {
		t.Error("an incomplete run never passes")
	}
}
