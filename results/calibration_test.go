package results

import (
	"math"
	"testing"
)

// calRun is one run with a judge verdict and a human_calibration result.
func calRun(judgePassed bool, judgeStatus Status, human *bool) *RunResult {
	v := Validations{
		{Name: "quality", Type: "llm", Passed: judgePassed, Score: b2f(judgePassed), Status: judgeStatus},
	}
	cal := &GraderResult{Name: "cal", Type: "human_calibration", Details: map[string]any{"calibrate_grader": "quality"}}
	if human == nil {
		cal.Status = StatusPending
	} else {
		cal.Passed, cal.Score = *human, b2f(*human)
		cal.Details["human_passed"] = *human
	}
	return &RunResult{Validations: append(v, cal)}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

func TestComputeCalibration(t *testing.T) {
	// 10 labeled runs: judge/human = pass/pass ×4, fail/fail ×3, pass/fail ×2, fail/pass ×1;
	// plus one pending run and one whose judge errored (both left out).
	var runs []*RunResult
	add := func(n int, judge bool, human *bool) {
		for i := 0; i < n; i++ {
			runs = append(runs, calRun(judge, "", human))
		}
	}
	add(4, true, yes())
	add(3, false, no())
	add(2, true, no())
	add(1, false, yes())
	runs = append(runs, calRun(true, "", nil), calRun(false, StatusError, yes()))
	s := &SuiteResult{Tasks: []*TaskResult{{ID: "t", Runs: runs}}}
	cals := ComputeCalibration(s)
	if len(cals) != 1 {
		t.Fatalf("%d calibrations", len(cals))
	}
	c := cals[0]
	if c.Grader != "cal" || c.Judge != "quality" || c.Labeled != 10 || c.Pending != 1 {
		t.Fatalf("%+v", c)
	}
	if c.BothPass != 4 || c.BothFail != 3 || c.FalsePasses != 2 || c.FalseFailures != 1 {
		t.Errorf("counts %+v", c)
	}
	// po = 0.7; judge passes 0.6, human passes 0.5: pe = 0.3 + 0.2 = 0.5; kappa = 0.4.
	if math.Abs(c.Agreement-0.7) > 1e-9 || c.Kappa == nil || math.Abs(*c.Kappa-0.4) > 1e-9 {
		t.Errorf("agreement %v kappa %v", c.Agreement, c.Kappa)
	}
	// false pass rate = 2 / (3+2); false fail rate = 1 / (4+1)
	if math.Abs(c.FalsePassRate-0.4) > 1e-9 || math.Abs(c.FalseFailRate-0.2) > 1e-9 {
		t.Errorf("rates %v %v", c.FalsePassRate, c.FalseFailRate)
	}
}

func TestCalibrationKappaUndefined(t *testing.T) {
	s := &SuiteResult{Tasks: []*TaskResult{{ID: "t", Runs: []*RunResult{calRun(true, "", yes()), calRun(true, "", yes())}}}}
	c := ComputeCalibration(s)[0]
	if c.Agreement != 1 || c.Kappa != nil || c.FalsePassRate != 0 {
		t.Errorf("%+v", c)
	}
	if ComputeCalibration(&SuiteResult{}) != nil {
		t.Error("no human_calibration grader: nil")
	}
}

func TestSummarizeComputesCalibration(t *testing.T) {
	s := &SuiteResult{Tasks: []*TaskResult{{ID: "t", Runs: []*RunResult{calRun(true, "", no())}}}}
	for _, task := range s.Tasks {
		task.Finish()
	}
	Summarize(s)
	if len(s.Calibration) != 1 || s.Calibration[0].FalsePasses != 1 {
		t.Errorf("%+v", s.Calibration)
	}
}
