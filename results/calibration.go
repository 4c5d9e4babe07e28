package results

import "sort"

// Calibration is how well an LLM grader agrees with human labels over a suite's runs (the
// human_calibration grader, docs/graders.md#human-review-and-calibration). Pass is the positive
// class: a false pass is a run the judge passed and the person failed.
type Calibration struct {
	// Grader is the human_calibration grader; Judge the LLM grader it calibrates.
	Grader string `json:"grader"`
	Judge  string `json:"judge"`
	// Labeled counts runs with both a human label and a judge verdict; Pending runs still
	// awaiting a label.
	Labeled int `json:"labeled"`
	Pending int `json:"pending"`

	BothPass      int `json:"both_pass"`
	BothFail      int `json:"both_fail"`
	FalsePasses   int `json:"false_passes"`   // judge passed, human failed
	FalseFailures int `json:"false_failures"` // judge failed, human passed

	// Agreement is the share of labeled runs where judge and human agree.
	Agreement float64 `json:"agreement"`
	// Kappa is Cohen's kappa; nil when undefined (every verdict of both raters is the same class).
	Kappa *float64 `json:"kappa,omitempty"`
	// FalsePassRate is false passes / runs the human failed; FalseFailRate false failures / runs
	// the human passed (each 0 when its denominator is).
	FalsePassRate float64 `json:"false_pass_rate"`
	FalseFailRate float64 `json:"false_fail_rate"`
}

// ComputeCalibration compares, for every human_calibration grader of the suite, the human label
// of each run with the verdict of the LLM grader it names in the same run. Runs where the judge
// could not run (error) are left out. Results are sorted by grader name.
func ComputeCalibration(s *SuiteResult) []*Calibration {
	var c calibrator
	s.eachTask(func(t *TaskResult) error {
		c.add(t)
		return nil
	})
	return c.result()
}

// calibrator computes ComputeCalibration task by task.
type calibrator struct {
	byName map[string]*Calibration
}

func (cal *calibrator) add(t *TaskResult) {
	for _, r := range t.Runs {
		for _, v := range r.Validations {
			if v.Type != "human_calibration" {
				continue
			}
			judgeName, _ := v.Details["calibrate_grader"].(string)
			c := cal.byName[v.Name]
			if c == nil {
				if cal.byName == nil {
					cal.byName = map[string]*Calibration{}
				}
				c = &Calibration{Grader: v.Name, Judge: judgeName}
				cal.byName[v.Name] = c
			}
			if v.Status == StatusPending {
				c.Pending++
				continue
			}
			if v.Status == StatusError {
				continue
			}
			human, ok := v.Details["human_passed"].(bool)
			if !ok {
				human = v.Passed
			}
			judge := r.Validations.Get(judgeName)
			if judge == nil || judge.Status == StatusError || judge.Status == StatusPending {
				continue
			}
			c.Labeled++
			switch {
			case judge.Passed && human:
				c.BothPass++
			case !judge.Passed && !human:
				c.BothFail++
			case judge.Passed:
				c.FalsePasses++
			default:
				c.FalseFailures++
			}
		}
	}
}

func (cal *calibrator) result() []*Calibration {
	if len(cal.byName) == 0 {
		return nil
	}
	out := make([]*Calibration, 0, len(cal.byName))
	for _, c := range cal.byName {
		c.finish()
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Grader < out[j].Grader })
	return out
}

func (c *Calibration) finish() {
	n := float64(c.Labeled)
	if n == 0 {
		return
	}
	agree := float64(c.BothPass + c.BothFail)
	c.Agreement = agree / n
	judgePass := float64(c.BothPass+c.FalsePasses) / n
	humanPass := float64(c.BothPass+c.FalseFailures) / n
	expected := judgePass*humanPass + (1-judgePass)*(1-humanPass)
	if expected < 1 {
		k := (c.Agreement - expected) / (1 - expected)
		c.Kappa = &k
	}
	if humanFail := c.BothFail + c.FalsePasses; humanFail > 0 {
		c.FalsePassRate = float64(c.FalsePasses) / float64(humanFail)
	}
	if humanPassed := c.BothPass + c.FalseFailures; humanPassed > 0 {
		c.FalseFailRate = float64(c.FalseFailures) / float64(humanPassed)
	}
}
