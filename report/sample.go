package report

import (
	"math"

	"github.com/skillgate/skillgate/results"
)

// taskSample is what the reports read from one task: counts and means over its trials,
// recomputed from the runs when there are any (so a waza file's known miscounts and a missing
// or NaN stats block never reach a report), else taken from the stats block. Its figures come
// from the task's digest (results.TaskDigest); task is the whole task during a pass over the
// tasks (Suite.eachTask), nil otherwise.
type taskSample struct {
	d    *results.TaskDigest
	task *results.TaskResult
	key  string // the task id, made unique within its file

	skipped bool // the task did not run
	ok      bool // trials and means are known and finite

	trialFigures
	durationMS int64
	passAtK    float64
	threshold  float64 // the suite's task pass threshold (results.RunConfig)
}

// trialFigures are a task's counts and means over its trials: what the paired analysis reads.
type trialFigures struct {
	trials, passed, errors int
	passRate, score        float64
	// passTrials and scoreTrials are the trials passRate and score are over: trials, or more
	// when earlier base runs with the same inputs are pooled (docs/statistics.md#remembering-the-base).
	passTrials, scoreTrials int
	scoreVariance           float64 // population variance of trial scores
}

// allPassed is the task status rule (docs/results.md#tasks-and-runs) seen from the counts: no
// errored trial and the suite's share of trials passed (every trial by default).
func (s taskSample) allPassed() bool {
	return s.ok && s.errors == 0 && results.TaskPasses(s.passed, s.trials, s.threshold)
}

// unanimous: every trial agreed (all passed, or none did), so a flip of the task cannot be
// trial noise visible in these trials.
func (s taskSample) unanimous() bool { return s.passed == 0 || s.passed == s.trials }

// status is the task's status.
func (s taskSample) status() results.Status { return s.d.Status() }

// name is the name the task is reported under.
func (s taskSample) name() string {
	if n := s.d.Name(); n != "" {
		return n
	}
	return s.d.ID()
}

func sampleDigest(d *results.TaskDigest) taskSample {
	s := taskSample{d: d}
	// A skipped task with runs is one whose outcome is unknown (skill-creator checks no judge
	// graded, a prompt-only eval): its trials say nothing to compare.
	if d.Status() == results.StatusSkipped || (d.Runs() == 0 && !d.HasStats()) {
		s.skipped = d.Status() == results.StatusSkipped
		return s
	}
	if !d.HasStats() {
		return s
	}
	f := d.Figures()
	s.trials, s.passed, s.errors = f.Trials, f.PassedTrials, f.ErrorTrials
	s.passTrials, s.scoreTrials = s.trials, s.trials
	s.passRate, s.score, s.scoreVariance = f.PassRate, f.AvgScore, f.ScoreVariance
	s.durationMS, s.passAtK = f.AvgDurationMS, f.PassAtK
	s.ok = finite(s.passRate) && finite(s.score) && s.passRate >= 0 && s.passRate <= 1
	if !finite(s.scoreVariance) || s.scoreVariance < 0 {
		s.scoreVariance = 0
	}
	if !finite(s.passAtK) {
		s.passAtK = 0
	}
	return s
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
