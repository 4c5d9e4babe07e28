package results

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Vally writes results.jsonl: one `trial-result` record per trial and a `run-summary` record
// (docs/vally.md, "Importing Vally results"). ReadVally turns it into one SuiteResult per eval
// (spec), one task per stimulus and one run per trial, so skillgate's reports, comparison and
// gate work for teams that keep running Vally itself.

type vallyRecord struct {
	Type         string           `json:"type"`
	EvalName     string           `json:"evalName"`
	EvalFilePath string           `json:"evalFilePath"`
	Variant      string           `json:"variant"`
	Stimulus     json.RawMessage  `json:"stimulus"`
	Model        string           `json:"model"`
	Status       string           `json:"status"`
	DurationMS   float64          `json:"durationMs"`
	TrialIndex   *int             `json:"trialIndex"`
	Error        any              `json:"error"`
	SkipReason   string           `json:"skipReason"`
	GradeResult  *vallyGrade      `json:"gradeResult"`
	Trajectory   *vallyTrajectory `json:"trajectory"`
}

type vallyGrade struct {
	Name     string        `json:"name"`
	Passed   bool          `json:"passed"`
	Score    *float64      `json:"score"`
	Evidence any           `json:"evidence"`
	Details  []*vallyGrade `json:"details"`
	Status   string        `json:"status"`
}

type vallyTrajectory struct {
	Output string `json:"output"`
}

// The pass thresholds that carry Vally's verdict of an imported trial (scores are 0..1).
const (
	vallyPassed = 0.0
	vallyFailed = 2.0
)

// maxVallyLine bounds one record (trajectories can be large, but not unbounded).
const maxVallyLine = 64 << 20

// ReadVally reads a Vally results.jsonl. name labels errors (the file name).
func ReadVally(r io.Reader, name string) ([]*SuiteResult, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxVallyLine)
	suites := map[string]*SuiteResult{}
	tasks := map[string]*TaskResult{}
	var order []string
	line, bounded := 0, 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var rec vallyRecord
		if err := json.Unmarshal([]byte(text), &rec); err != nil {
			fixed, n := boundNumbers([]byte(text))
			if n == 0 || json.Unmarshal(fixed, &rec) != nil {
				return nil, &ReadError{Path: name, Msg: fmt.Sprintf("line %d: not a JSON record: %v", line, err)}
			}
			bounded += n
		}
		if rec.Type != "trial-result" {
			continue // run-summary and other records: skillgate computes its own verdicts
		}
		evalName := rec.EvalName
		if evalName == "" {
			evalName = "vally"
		}
		if rec.Variant != "" && rec.Variant != "main" {
			evalName += " [" + rec.Variant + "]"
		}
		s := suites[evalName]
		if s == nil {
			s = &SuiteResult{SchemaVersion: SchemaVersion, EvalID: evalName, EvalName: evalName, Metrics: map[string]*MetricResult{}}
			s.Config.EngineType = "vally"
			s.Config.ModelID = rec.Model
			suites[evalName] = s
			order = append(order, evalName)
		}
		stim := stimulusName(rec.Stimulus)
		if stim == "" {
			stim = fmt.Sprintf("stimulus-%d", len(s.Tasks)+1)
		}
		key := evalName + "\x00" + stim
		t := tasks[key]
		if t == nil {
			t = &TaskResult{ID: stim, Name: stim}
			tasks[key] = t
			s.Tasks = append(s.Tasks, t)
		}
		run := &RunResult{RunNumber: len(t.Runs) + 1, Attempts: 1, Validations: Validations{}}
		if rec.TrialIndex != nil {
			run.RunNumber = *rec.TrialIndex + 1
		}
		run.DurationMS = saturatingInt64(rec.DurationMS)
		if rec.Trajectory != nil {
			run.FinalOutput = rec.Trajectory.Output
		}
		if g := rec.GradeResult; g != nil {
			for _, d := range g.Details {
				v := &GraderResult{Name: d.Name, Type: "vally", Weight: 1, Passed: d.Passed, Feedback: evidenceText(d.Evidence)}
				if d.Score != nil {
					v.Score = *d.Score
				} else if d.Passed {
					v.Score = 1
				}
				if d.Status == "error" {
					v.Status = StatusError
				}
				run.Validations = append(run.Validations, v)
			}
			if len(g.Details) == 0 {
				v := &GraderResult{Name: "vally", Type: "vally", Weight: 1, Passed: g.Passed, Feedback: evidenceText(g.Evidence)}
				if g.Score != nil {
					v.Score = *g.Score
				} else if g.Passed {
					v.Score = 1
				}
				run.Validations = append(run.Validations, v)
			}
		}
		switch {
		case rec.SkipReason != "":
			run.Status = StatusSkipped
			run.ErrorMsg = rec.SkipReason
		case rec.Error != nil || (rec.Status != "" && rec.Status != "success"):
			run.Status = StatusError
			run.ErrorMsg = strings.TrimSpace(evidenceText(rec.Error) + " " + nonSuccess(rec.Status))
		}
		// Vally's own verdict decides the trial (its threshold and weights were applied): a
		// threshold every score reaches when Vally passed it, one no score reaches when it did
		// not, so recomputing the results keeps the verdict.
		if rec.GradeResult != nil && run.Status == "" {
			verdict := vallyFailed
			if rec.GradeResult.Passed {
				verdict = vallyPassed
			}
			run.PassThreshold = &verdict
		}
		t.Runs = append(t.Runs, run)
	}
	if err := sc.Err(); err != nil {
		return nil, &ReadError{Path: name, Msg: fmt.Sprintf("line %d: %v", line+1, err)}
	}
	if len(order) == 0 {
		return nil, &ReadError{Path: name, Msg: "no trial-result record: is this a Vally results.jsonl?"}
	}
	out := make([]*SuiteResult, 0, len(order))
	for _, n := range order {
		s := suites[n]
		if bounded > 0 {
			s.ReadWarnings = append(s.ReadWarnings, fmt.Sprintf("%d number(s) beyond the range of a 64-bit number read as the largest one", bounded))
		}
		clampFigures(s)
		for _, t := range s.Tasks {
			sort.SliceStable(t.Runs, func(i, j int) bool { return t.Runs[i].RunNumber < t.Runs[j].RunNumber })
			t.Finish()
		}
		s.Config.RunsPerTest = maxRuns(s.Tasks)
		Summarize(s)
		s.Gate = ComputeGate(s)
		out = append(out, s)
	}
	return out, nil
}

func maxRuns(tasks []*TaskResult) int {
	n := 0
	for _, t := range tasks {
		n = max(n, len(t.Runs))
	}
	return n
}

func nonSuccess(status string) string {
	if status == "" || status == "success" {
		return ""
	}
	return "(status " + status + ")"
}

// stimulusName reads a record's stimulus: a name, or an object with a name.
func stimulusName(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return obj.Name
	}
	return ""
}

// evidenceText renders evidence (text, or anything JSON) as one line of feedback.
func evidenceText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case map[string]any:
		if m, ok := x["message"].(string); ok {
			return m
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
