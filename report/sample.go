package report

import (
	"math"
	"strconv"

	"github.com/skillgate/skillgate/results"
)

// taskSample is what the reports read from one task: counts and means over its trials,
// recomputed from the runs when there are any (so a waza file's known miscounts and a missing
// or NaN stats block never reach a report), else taken from the stats block.
type taskSample struct {
	task *results.TaskResult
	key  string // the task id, made unique within its file

	skipped bool // the task did not run
	ok      bool // trials and means are known and finite

	trials, passed, errors int
	passRate, score        float64
	// passTrials and scoreTrials are the trials passRate and score are over: trials, or more
	// when earlier base runs with the same inputs are pooled (docs/statistics.md#remembering-the-base).
	passTrials, scoreTrials int
	scoreVariance           float64 // population variance of trial scores
	durationMS              int64
	passAtK                 float64
	threshold               float64 // the suite's task pass threshold (results.RunConfig)
}

// allPassed is the task status rule (docs/results.md#tasks-and-runs) seen from the counts: no
// errored trial and the suite's share of trials passed (every trial by default).
func (s taskSample) allPassed() bool {
	return s.ok && s.errors == 0 && results.TaskPasses(s.passed, s.trials, s.threshold)
}

// unanimous: every trial agreed (all passed, or none did), so a flip of the task cannot be
// trial noise visible in these trials.
func (s taskSample) unanimous() bool { return s.passed == 0 || s.passed == s.trials }

func sampleTask(t *results.TaskResult) taskSample {
	s := taskSample{task: t}
	// A skipped task with runs is one whose outcome is unknown (skill-creator checks no judge
	// graded, a prompt-only eval): its trials say nothing to compare.
	if t.Status == results.StatusSkipped || (len(t.Runs) == 0 && t.Stats == nil) {
		s.skipped = t.Status == results.StatusSkipped
		return s
	}
	st := t.TrialStats()
	if st == nil {
		return s
	}
	s.trials, s.passed, s.errors = st.Trials, st.PassedTrials, st.ErrorTrials
	s.passTrials, s.scoreTrials = s.trials, s.trials
	s.passRate, s.score, s.scoreVariance = st.PassRate, st.AvgScore, st.ScoreVariance
	s.durationMS, s.passAtK = st.AvgDurationMS, st.PassAtK
	s.ok = finite(s.passRate) && finite(s.score) && s.passRate >= 0 && s.passRate <= 1
	if !finite(s.scoreVariance) || s.scoreVariance < 0 {
		s.scoreVariance = 0
	}
	if !finite(s.passAtK) {
		s.passAtK = 0
	}
	return s
}

// sampleSuite samples every task of a suite, keyed by task id (the display name when a waza
// file has no id; a repeated id gets "#2", "#3"… in file order).
func sampleSuite(s *results.SuiteResult) []taskSample {
	if s == nil {
		return nil
	}
	seen := map[string]int{}
	out := make([]taskSample, 0, len(s.Tasks))
	for _, t := range s.Tasks {
		if t == nil {
			continue
		}
		ts := sampleTask(t)
		key := t.ID
		if key == "" {
			key = t.Name
		}
		seen[key]++
		if n := seen[key]; n > 1 {
			key += "#" + strconv.Itoa(n)
		}
		ts.key = key
		ts.threshold = s.Config.TaskPassThreshold
		out = append(out, ts)
	}
	return out
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// suiteName is the name a suite is reported under.
func suiteName(s *results.SuiteResult) string {
	switch {
	case s == nil:
		return ""
	case s.EvalName != "":
		return s.EvalName
	case s.Skill != "":
		return s.Skill
	}
	return "suite"
}

// taskName is the name a task is reported under.
func taskName(t *results.TaskResult) string {
	if t.Name != "" {
		return t.Name
	}
	return t.ID
}

// runError is why a run errored: the executor's or grader stage's message, else the agent's.
func runError(r *results.RunResult) string {
	if r.ErrorMsg != "" {
		return r.ErrorMsg
	}
	return r.AgentError
}
