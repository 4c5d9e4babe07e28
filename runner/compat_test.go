package runner

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/results"
)

// TestCompatSuite runs testdata/compat — every deterministic grader type on hand-written
// recorded runs — through loading, the replay executor, grading and scoring, and compares every
// score with testdata/compat/expected.yaml, worked out by hand from docs/graders.md.
func TestCompatSuite(t *testing.T) {
	dir := filepath.Join("testdata", "compat")
	var want struct {
		Tasks map[string]struct {
			Status        results.Status
			Score         float64
			WeightedScore *float64 `yaml:"weighted_score"`
			Graders       map[string]struct {
				Score    float64
				Passed   bool
				Feedback string
			}
		}
		Summary struct {
			Succeeded, Failed int
			SuccessRate       float64 `yaml:"success_rate"`
		}
		Trigger struct {
			Precision, Recall, F1, Accuracy float64
			TP, FN, TN, FP                  int
		}
		Metrics map[string]struct {
			Value  float64
			Passed bool
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "expected.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}

	prepared, diags, err := LoadSuites([]string{dir}, "")
	if err != nil || diags.HasErrors() || len(prepared) != 1 {
		t.Fatalf("load: %v %v", err, diags)
	}
	p := prepared[0]
	exec, err := NewExecutor(p.Suite, ExecutorOptions{ReplayFrom: filepath.Join(dir, "runs")})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), p.Suite, Options{Executor: exec, Graders: p.Graders})
	if err != nil {
		t.Fatal(err)
	}

	near := func(got, want float64) bool { return math.Abs(got-want) < 5e-6 }
	seen := 0
	for _, task := range res.Tasks {
		w, ok := want.Tasks[task.ID]
		if !ok {
			t.Errorf("unexpected task %s", task.ID)
			continue
		}
		seen++
		run := task.Runs[0]
		if task.Status != w.Status || !near(run.Score, w.Score) {
			t.Errorf("%s: status %s score %.6f, want %s %.6f", task.ID, task.Status, run.Score, w.Status, w.Score)
		}
		if w.WeightedScore != nil && !near(run.WeightedScore, *w.WeightedScore) {
			t.Errorf("%s: weighted score %.6f, want %.6f", task.ID, run.WeightedScore, *w.WeightedScore)
		}
		if len(run.Validations) != len(w.Graders) {
			t.Errorf("%s: %d graders ran, want %d", task.ID, len(run.Validations), len(w.Graders))
		}
		for _, v := range run.Validations {
			g, ok := w.Graders[v.Name]
			if !ok {
				t.Errorf("%s: unexpected grader %s", task.ID, v.Name)
				continue
			}
			if !near(v.Score, g.Score) || v.Passed != g.Passed || (g.Feedback != "" && v.Feedback != g.Feedback) {
				t.Errorf("%s/%s: score %.6f passed %v feedback %q; want %.6f %v %q", task.ID, v.Name, v.Score, v.Passed, v.Feedback, g.Score, g.Passed, g.Feedback)
			}
		}
	}
	if seen != len(want.Tasks) {
		t.Errorf("saw %d of %d tasks", seen, len(want.Tasks))
	}
	s := res.Summary
	if s.Succeeded != want.Summary.Succeeded || s.Failed != want.Summary.Failed || !near(s.SuccessRate, want.Summary.SuccessRate) {
		t.Errorf("summary %+v", s)
	}
	tm, wt := res.TriggerMetrics, want.Trigger
	if tm == nil || tm.Precision != wt.Precision || tm.Recall != wt.Recall || tm.F1 != wt.F1 || tm.Accuracy != wt.Accuracy ||
		tm.TruePositives != wt.TP || tm.FalseNegatives != wt.FN || tm.TrueNegatives != wt.TN || tm.FalsePositives != wt.FP {
		t.Errorf("trigger metrics %+v, want %+v", tm, wt)
	}
	for name, wm := range want.Metrics {
		m := res.Metrics[name]
		if m == nil || !near(m.Value, wm.Value) || m.Passed != wm.Passed {
			t.Errorf("metric %s: %+v, want %+v", name, m, wm)
		}
	}
	if res.Gate.Passed {
		t.Error("the gate must fail")
	}
}
