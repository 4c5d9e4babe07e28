package pipeline

import (
	"fmt"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"

	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// Verdicts of a run beyond report's regressed | improved | inconclusive.
const (
	VerdictNoBaseline = "no-baseline" // nothing was compared
	VerdictSkipped    = "skipped"     // no suite ran (none affected)
)

// Vars are the variables of a fail-on expression: the whole run (every suite that ran) at the
// top level, each suite under `suites`. docs/action.md documents every field; a test checks the
// two agree.
type Vars struct {
	Figures
	Improved bool `expr:"improved"`
	// FlakyTasks counts tasks whose trials disagreed.
	FlakyTasks int `expr:"flaky_tasks"`
	// StillFailing counts tasks failing here and on the baseline.
	StillFailing int `expr:"still_failing"`
	// Fixed counts tasks failing on the baseline and passing here.
	Fixed int `expr:"fixed"`
	// RemovedTasks counts baseline tasks no longer in the suite; RemovedFailing those that
	// failed on the baseline.
	RemovedTasks   int `expr:"removed_tasks"`
	RemovedFailing int `expr:"removed_failing"`
	// DefinitionsChanged counts shared tasks whose definition or graders differ from the baseline's.
	DefinitionsChanged int `expr:"definitions_changed"`
	// NewMissedThresholds counts metric thresholds missed here that the baseline met (every
	// missed threshold of a suite without a baseline).
	NewMissedThresholds int `expr:"new_missed_thresholds"`
	// SetupFailed: a suite could not start.
	SetupFailed bool       `expr:"setup_failed"`
	SuitesRun   int        `expr:"suites_run"`
	Unaffected  int        `expr:"unaffected"`
	Incomplete  bool       `expr:"incomplete"`
	Suites      []SuiteVar `expr:"suites"`
	// Event is the workflow event (pull_request, push, …).
	Event string `expr:"event"`
}

// Figures are the variables the whole run and each suite have alike; at the top level they
// cover every suite that ran.
type Figures struct {
	// Verdict is the comparison's verdict. At the top level: "regressed" if any suite regressed,
	// else "improved" if any improved, else "inconclusive" if any suite was compared, else
	// "no-baseline"; "skipped" when no suite ran.
	Verdict string `expr:"verdict"`
	// Passed: the suite met its gate (no failed or errored task, every metric at or above its
	// threshold, no interrupted run); at the top level, every suite did and every suite could
	// start.
	Passed    bool `expr:"passed"`
	Regressed bool `expr:"regressed"`
	// HasBaseline: compared with a baseline (at the top level: at least one suite was).
	HasBaseline bool `expr:"has_baseline"`
	// Score is the mean task score over every task that ran; SuccessRate the fraction of tasks
	// whose every trial passed; PassRate the mean trial pass rate.
	Score       float64 `expr:"score"`
	SuccessRate float64 `expr:"success_rate"`
	PassRate    float64 `expr:"pass_rate"`
	// DeltaScore and DeltaPassRate are the changes against the baseline (at the top level over
	// the compared suites, weighted by shared tasks); 0 without a baseline.
	DeltaScore    float64 `expr:"delta_score"`
	DeltaPassRate float64 `expr:"delta_pass_rate"`
	// TriggerAccuracy is the trigger accuracy (at the top level the mean over the suites with
	// trigger tests; 0 if none).
	TriggerAccuracy float64 `expr:"trigger_accuracy"`
	Tasks           int     `expr:"tasks"`
	FailedTasks     int     `expr:"failed_tasks"`
	ErroredTasks    int     `expr:"errored_tasks"`
	// NewFailures counts failing tasks this run brings: new failures against the baseline
	// (beyond trial noise), failing added tasks and tasks failing under a changed definition;
	// every failing task of a suite without a baseline. Tasks that fail on the baseline too are
	// not counted.
	NewFailures int `expr:"new_failures"`
	// Metrics holds every known gating metric; over several suites the value is the lowest and
	// passed is false if any suite missed it. A metric no suite declares has present == false
	// and passed == true, so `metrics.trigger_accuracy.passed == false` is always safe to write.
	Metrics map[string]MetricVar `expr:"metrics"`
}

// MetricVar is one gating metric in a fail-on expression.
type MetricVar struct {
	Value     float64 `expr:"value"`
	Threshold float64 `expr:"threshold"`
	Passed    bool    `expr:"passed"`
	Present   bool    `expr:"present"`
}

// SuiteVar is one suite in a fail-on expression.
type SuiteVar struct {
	Figures
	Name     string `expr:"name"`
	Baseline string `expr:"baseline"` // artifact | file | rerun | none
	// UpliftVerdict is the with-skill against without-skill verdict in uplift mode, else "".
	UpliftVerdict string `expr:"uplift_verdict"`
}

// DefaultFailOn fails on what this run brings: a task failing that did not fail on the baseline,
// a metric threshold missed that the baseline met, an interrupted run, a suite that could not
// start, or a real regression. Failures the baseline already has do not block, so a red main
// branch does not keep every pull request red. Without a baseline every failure is new, so it
// then equals FailOnAnyFailure. The CLI and the Action both default to it.
const DefaultFailOn = `new_failures > 0 || new_missed_thresholds > 0 || incomplete || setup_failed || verdict == "regressed"`

// FailOnAnyFailure blocks on any failing task or missed threshold, including those the baseline
// already has (the default before baselines could tell them apart).
const FailOnAnyFailure = `!passed || verdict == "regressed"`

// CompileFailOn compiles a fail-on expression over Vars.
func CompileFailOn(src string) (*vm.Program, error) {
	if strings.TrimSpace(src) == "" {
		return nil, fmt.Errorf("empty expression")
	}
	prog, err := expr.Compile(src, expr.Env(Vars{}), expr.AsBool())
	if err != nil {
		return nil, fmt.Errorf("does not compile: %s", oneLine(err.Error()))
	}
	return prog, nil
}

// EvalFailOn runs a compiled fail-on expression.
func EvalFailOn(prog *vm.Program, v *Vars) (bool, error) {
	out, err := expr.Run(prog, v)
	if err != nil {
		return false, err
	}
	b, ok := out.(bool)
	if !ok {
		return false, fmt.Errorf("the expression gave %T, not a boolean", out)
	}
	return b, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// NewVars computes the fail-on variables of a run from its report input: every figure is read
// from the suites' results (results.Summary, results.Combine) and comparisons, never recomputed.
// setupFailed says a suite could not start.
func NewVars(in *report.Input, setupFailed bool, event string) *Vars {
	v := &Vars{Figures: Figures{Passed: !setupFailed, Metrics: emptyMetrics()}, SetupFailed: setupFailed, Unaffected: len(in.Unaffected), Event: event}
	var sums []results.Summary
	var dScoreSum, dPassSum, trigSum float64
	var dTasks, trigSuites int
	compared, improved := false, false
	for _, s := range in.Suites {
		if s == nil || s.Result == nil {
			continue
		}
		sv := suiteVars(s)
		v.Suites = append(v.Suites, sv)
		v.SuitesRun++
		r := s.Result
		sums = append(sums, r.Summary)
		v.Passed = v.Passed && sv.Passed
		v.Incomplete = v.Incomplete || r.Incomplete
		v.Regressed = v.Regressed || sv.Regressed
		improved = improved || sv.Verdict == string(report.VerdictImproved)
		newFailures, newMissed := s.Introduced()
		v.NewFailures += newFailures
		v.NewMissedThresholds += newMissed + newMissedQueries(s)
		if c := s.Comparison; c != nil && !c.NoBaseline {
			v.StillFailing += c.Changes.StillFailing
			v.Fixed += c.Changes.Fixed
			v.RemovedTasks += c.Changes.Removed
			v.RemovedFailing += c.Changes.RemovedFailing
			v.DefinitionsChanged += c.Changes.YardstickChanged
		}
		if sv.HasBaseline {
			compared = true
			n := sharedTasks(s.Comparison)
			dScoreSum += sv.DeltaScore * float64(n)
			dPassSum += sv.DeltaPassRate * float64(n)
			dTasks += n
		}
		if r.TriggerMetrics != nil {
			trigSum += sv.TriggerAccuracy
			trigSuites++
		}
		for name, m := range sv.Metrics {
			if !m.Present {
				continue
			}
			cur := v.Metrics[name]
			if !cur.Present || m.Value < cur.Value {
				cur.Value, cur.Threshold = m.Value, m.Threshold
			}
			cur.Passed = (cur.Passed || !cur.Present) && m.Passed
			cur.Present = true
			v.Metrics[name] = cur
		}
	}
	total := results.Combine(sums...)
	v.Tasks, v.FailedTasks, v.ErroredTasks, v.FlakyTasks = total.Ran(), total.Failed, total.Errors, total.Flaky
	v.Score, v.PassRate, v.SuccessRate = total.AggregateScore, total.PassRate, total.SuccessRate
	if dTasks > 0 {
		v.DeltaScore, v.DeltaPassRate = dScoreSum/float64(dTasks), dPassSum/float64(dTasks)
	}
	if trigSuites > 0 {
		v.TriggerAccuracy = trigSum / float64(trigSuites)
	}
	v.HasBaseline = compared
	v.Improved = improved && !v.Regressed
	switch {
	case v.SuitesRun == 0:
		v.Verdict = VerdictSkipped
	case v.Regressed:
		v.Verdict = string(report.VerdictRegressed)
	case v.Improved:
		v.Verdict = string(report.VerdictImproved)
	case compared:
		v.Verdict = string(report.VerdictInconclusive)
	default:
		v.Verdict = VerdictNoBaseline
	}
	return v
}

func emptyMetrics() map[string]MetricVar {
	m := make(map[string]MetricVar, len(results.KnownMetrics))
	for _, name := range results.KnownMetrics {
		m[name] = MetricVar{Passed: true}
	}
	return m
}

func suiteVars(s *report.Suite) SuiteVar {
	r := s.Result
	gate := r.Gate
	if gate == nil {
		gate = results.ComputeGate(r)
	}
	sv := SuiteVar{
		Figures: Figures{
			Passed:      gate.Passed && !r.Incomplete,
			Metrics:     emptyMetrics(),
			SuccessRate: r.Summary.SuccessRate,
			Score:       r.Summary.AggregateScore,
		},
		Name:     r.EvalName,
		Baseline: results.BaselineNone,
	}
	if r.Provenance != nil && r.Provenance.Baseline != nil && r.Provenance.Baseline.Method != "" {
		sv.Baseline = r.Provenance.Baseline.Method
	}
	sum := r.Summary
	sv.Tasks, sv.FailedTasks, sv.ErroredTasks, sv.PassRate = sum.Ran(), sum.Failed, sum.Errors, sum.PassRate
	if r.TriggerMetrics != nil {
		sv.TriggerAccuracy = r.TriggerMetrics.Accuracy
	}
	for name, m := range r.Metrics {
		if m == nil {
			continue
		}
		sv.Metrics[name] = MetricVar{Value: m.Value, Threshold: m.Threshold, Passed: m.Passed, Present: true}
	}
	sv.NewFailures, _ = s.Introduced()
	sv.Verdict = VerdictNoBaseline
	if c := s.Comparison; c != nil && !c.NoBaseline {
		sv.HasBaseline = true
		sv.Verdict = string(c.Verdict)
		sv.Regressed = c.Regressed()
		if m := c.Metric(report.MetricScore); m != nil && m.Delta != nil {
			sv.DeltaScore = *m.Delta
		}
		if m := c.Metric(report.MetricPassRate); m != nil && m.Delta != nil {
			sv.DeltaPassRate = *m.Delta
		}
	}
	if s.Uplift != nil {
		sv.UpliftVerdict = string(s.Uplift.Verdict)
	}
	return sv
}

// sharedTasks is the number of tasks a comparison's score metric used (at least 1).
func sharedTasks(c *report.Comparison) int {
	if m := c.Metric(report.MetricScore); m != nil && m.Tasks > 0 {
		return m.Tasks
	}
	return 1
}

// Facts names the values of the default fail-on's variables that can make it true, and
// the verdict, so a failing gate says why (a suite that could not start, not "no-baseline").
func (v *Vars) Facts() string {
	var facts []string
	if v.NewFailures > 0 {
		facts = append(facts, fmt.Sprintf("new_failures %d", v.NewFailures))
	}
	if v.NewMissedThresholds > 0 {
		facts = append(facts, fmt.Sprintf("new_missed_thresholds %d", v.NewMissedThresholds))
	}
	if v.Incomplete {
		facts = append(facts, "incomplete")
	}
	if v.SetupFailed {
		facts = append(facts, "setup_failed")
	}
	return strings.Join(append(facts, "verdict "+v.Verdict), ", ")
}
