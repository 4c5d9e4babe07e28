package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// One decision per task (docs/statistics.md#one-decision-per-task). Every task and trigger
// prompt compared with its baseline is a unit with a two-by-two table: passed and failed trials
// on the base (the baseline's, pooled with earlier base runs whose inputs were the same) and on
// the head (its trials, then any confirmation trials). Whether the head is worse is Fisher's
// exact test on that table, one-sided; the false-alarm rate is held across every unit of the
// pull request by Tarone's Bonferroni correction: only units whose margins could reach
// significance count in the family. The unit's change word, its level and whether it blocks are
// decided here, once; every report renders them.

// Defaults of the per-unit decision.
const (
	// DefaultAlpha is the family-wise false-alarm rate of the per-unit decisions across a pull
	// request: the chance that a change that did nothing blocks through a task called worse.
	DefaultAlpha = 0.005
	// DefaultAddedAlpha is the family-wise rate at which a task new in the pull request (or a
	// prompt) is called failing clearly while it passes at least half of the time.
	DefaultAddedAlpha = 0.05
	// DefaultMaxConfirm is how many confirmation trials one unit may get: enough to confirm a
	// task that passed 80% of the time on the base and now always fails, among 200 tasks run
	// once each (docs/statistics.md#measured-verdicts).
	DefaultMaxConfirm = 16
)

// Evidence is the table of a unit's test: the base side pooled over the baseline and earlier
// base runs with unchanged inputs (BaseRuns results files), the head side with its
// confirmation trials.
type Evidence struct {
	BasePassed int `json:"base_passed"`
	BaseTrials int `json:"base_trials"`
	// BaseRuns counts the results files the base side pools (1: the baseline alone).
	BaseRuns   int `json:"base_runs"`
	HeadPassed int `json:"head_passed"`
	HeadTrials int `json:"head_trials"`
	// ConfirmPassed of ConfirmTrials are the head's confirmation trials (part of HeadPassed and
	// HeadTrials).
	ConfirmPassed int `json:"confirm_passed,omitempty"`
	ConfirmTrials int `json:"confirm_trials,omitempty"`
	// ConfirmErrors counts confirmation trials that errored: an error says nothing about the
	// skill, so they are not counted, and confirmation stops (the unit stays unconfirmed).
	ConfirmErrors int `json:"confirm_errors,omitempty"`
	// Added: no base side (a task new in the pull request); the head is tested against a pass
	// rate of one half.
	Added bool `json:"added,omitempty"`
	// Deterministic: the executor gives the same run every time (mock, replay), so any
	// difference is real and no test is needed.
	Deterministic bool `json:"deterministic,omitempty"`
}

// pDrop is the one-sided p-value of "the head passes less often than the base" (for an added
// unit: less often than half the time).
func (e Evidence) pDrop() float64 {
	if e.Added {
		return binomialLowerHalf(e.HeadTrials, e.HeadPassed)
	}
	return fisherExact(e.BasePassed, e.BaseTrials, e.HeadPassed, e.HeadTrials).drop
}

// pGain is the one-sided p-value of "the head passes more often than the base".
func (e Evidence) pGain() float64 {
	if e.Added {
		return 1
	}
	return fisherExact(e.BasePassed, e.BaseTrials, e.HeadPassed, e.HeadTrials).gain
}

// pReach is the smallest p-value of a drop the unit could reach: its base as it is, and every
// head trial failing, the planned ones and every confirmation trial it may get. It depends on the
// base side and the trial counts only, never on how the head's trials went, so choosing the
// family by it (Tarone's idea) keeps the false-alarm rate: a unit that could never be
// significant does not count, whatever its head did.
func (e Evidence) pReach(maxConfirm int) float64 {
	n := e.HeadTrials - e.ConfirmTrials + max(maxConfirm, e.ConfirmTrials)
	if e.Added {
		return binomialLowerHalf(n, 0)
	}
	return fisherExact(e.BasePassed, e.BaseTrials, 0, n).drop
}

func (e Evidence) pMinGain() float64 {
	if e.Added {
		return 1
	}
	return fisherExact(e.BasePassed, e.BaseTrials, e.HeadPassed, e.HeadTrials).minGain
}

// pBest is the p-value of a drop if extra more head trials all failed: the most the
// confirmation trials still allowed could show.
func (e Evidence) pBest(extra int) float64 {
	e.HeadTrials += extra
	return e.pDrop()
}

// worse: the head passes less often than the base (for an added unit: fails at all).
func (e Evidence) worse() bool {
	if e.HeadTrials == 0 {
		return false
	}
	if e.Added {
		return e.HeadPassed < e.HeadTrials
	}
	if e.BaseTrials == 0 {
		return false
	}
	return float64(e.HeadPassed)/float64(e.HeadTrials) < float64(e.BasePassed)/float64(e.BaseTrials)
}

// binomialLowerHalf is P(X ≤ k) for X ~ Binomial(n, 1/2).
func binomialLowerHalf(n, k int) float64 {
	if n <= 0 {
		return 1
	}
	return binomialUpperTail(n, n-k)
}

// taroneFamily is the size K of the family under Tarone's correction: the smallest K with at
// most K units whose smallest possible p-value is at most alpha/K. Each unit is then tested at
// alpha/K.
func taroneFamily(pMins []float64, alpha float64) int {
	sorted := append([]float64(nil), pMins...)
	sort.Float64s(sorted)
	for k := 1; k <= len(sorted); k++ {
		if sort.SearchFloat64s(sorted, math.Nextafter(alpha/float64(k), 2)) <= k {
			return k
		}
	}
	return max(1, len(sorted))
}

// A unit is worth confirmation trials when it looks newly failing: it usually passes on the
// base (a pooled pass rate of at least usualPass), or its own trials already point to a drop
// (p ≤ screenP). A task that passes half the time and failed once is not worth a run: it fails
// as often as it did.
var (
	usualPass = 0.7
	screenP   = 0.25
)

func (e Evidence) worthConfirming() bool {
	if e.Added {
		return true
	}
	return float64(e.BasePassed) >= usualPass*float64(e.BaseTrials) || e.pDrop() <= screenP
}

// unitState is where a unit stands in confirmation.
type unitState int

const (
	stateClear     unitState = iota // nothing to confirm: the head is not worse, or the decision is made
	stateConfirmed                  // significantly worse
	stateOpen                       // not significant, but more head trials could make it so
	stateNoise                      // looks worse, yet no number of allowed trials could show it
	stateStuck                      // looks worse, and a confirmation trial errored: it cannot be decided
)

// family is one pull request's thresholds: the drop test of shared units and the "fails
// clearly" test of added ones, each with its own Tarone family.
type family struct {
	alpha, addedAlpha float64
	k, kAdded, kGain  int
	maxConfirm        int
}

func (f family) threshold(e Evidence) float64 {
	if e.Added {
		return f.addedAlpha / float64(f.kAdded)
	}
	return f.alpha / float64(f.k)
}

// state says where a unit stands: significant, open to confirmation (its pBest with the
// confirmation trials it may still get reaches the threshold), noise, or clear.
func (f family) state(e Evidence) unitState {
	if e.Deterministic || e.HeadTrials == 0 || (!e.Added && e.BaseTrials == 0) {
		return stateClear
	}
	t := f.threshold(e)
	switch {
	case e.pDrop() <= t:
		return stateConfirmed
	case !e.worse():
		return stateClear
	case e.ConfirmErrors > 0:
		return stateStuck
	case e.HeadPassed == 0 && e.pBest(max(0, f.maxConfirm-e.ConfirmTrials)) <= t && e.worthConfirming():
		// Only a unit that failed every trial so far is confirmed, and the first trial that
		// passes ends it (noise). So a unit can cross its threshold on one path only — every
		// trial failing — and the chance of that under no change is at most its p-value: the
		// trials taken one at a time cost no false alarms.
		return stateOpen
	}
	return stateNoise
}

// newFamily computes the family sizes over every unit of the comparisons.
func newFamily(units []*TaskComparison, opts CompareOptions) family {
	f := family{alpha: opts.Alpha, addedAlpha: opts.AddedAlpha, maxConfirm: opts.MaxConfirm}
	var drops, added, gains []float64
	for _, u := range units {
		e := u.Evidence
		if e == nil || e.Deterministic || e.HeadTrials == 0 || (!e.Added && e.BaseTrials == 0) {
			continue
		}
		if e.Added {
			added = append(added, e.pReach(f.maxConfirm))
			continue
		}
		drops = append(drops, e.pReach(f.maxConfirm))
		gains = append(gains, e.pMinGain())
	}
	f.k = taroneFamily(drops, f.alpha)
	f.kAdded = taroneFamily(added, f.addedAlpha)
	f.kGain = taroneFamily(gains, f.alpha)
	return f
}

// units lists every unit of the comparisons that has evidence: shared tasks, tasks new in the
// run, trigger prompts.
func units(comps []*Comparison) []*TaskComparison {
	var out []*TaskComparison
	for _, c := range comps {
		if c == nil {
			continue
		}
		for _, list := range [][]*TaskComparison{c.Tasks, c.Prompts} {
			for _, u := range list {
				if u.Evidence != nil {
					out = append(out, u)
				}
			}
		}
	}
	return out
}

// Decide makes the per-unit decisions of one pull request's comparisons with one family: every
// unit's change word, level and reason, the per-task metric, the counts, which missed thresholds
// the evidence confirms, and each suite's verdict. Compare decides each comparison alone; the
// pipeline decides again over every suite of the run, so the false-alarm rate holds across them.
func Decide(comps []*Comparison) {
	var all []*Comparison
	for _, c := range comps {
		if c != nil && !c.NoBaseline {
			all = append(all, c)
		}
	}
	if len(all) == 0 {
		return
	}
	opts := all[0].options()
	f := newFamily(units(all), opts)
	for _, c := range all {
		c.Settings.Family, c.Settings.AddedFamily = f.k, f.kAdded
		for _, u := range c.Tasks {
			f.decideTask(u)
		}
		for _, u := range c.Prompts {
			f.decideTask(u)
		}
		for i := range c.NewTasks {
			f.decideAdded(&c.NewTasks[i])
		}
		c.finish()
	}
}

// decideTask sets a shared unit's p-values, significance, change, level and reason.
func (f family) decideTask(u *TaskComparison) {
	u.PDrop, u.QDrop, u.PGain, u.QGain, u.Significant = nil, nil, nil, nil, ""
	e := u.Evidence
	state := stateClear
	if e != nil && u.Status == TaskPaired {
		state = f.state(*e)
		if !e.Deterministic && e.BaseTrials > 0 && e.HeadTrials > 0 {
			p, g := e.pDrop(), e.pGain()
			u.PDrop, u.QDrop = ptr(p), ptr(math.Min(1, p*float64(f.k)))
			u.PGain, u.QGain = ptr(g), ptr(math.Min(1, g*float64(f.kGain)))
			switch {
			case state == stateConfirmed:
				u.Significant = SignificantDrop
			case g <= f.alpha/float64(f.kGain):
				u.Significant = SignificantGain
			}
		}
	}
	if e != nil && u.Status == TaskYardstick {
		state = f.state(*e)
	}
	u.Change = classifyUnit(u, state)
	u.Level, u.Blocking = changeLevel(u.Change, u.Base.Status == results.StatusPassed)
	if u.Change == ChangeYardstick && u.Base.Status == results.StatusPassed && u.Head.Status != results.StatusPassed {
		// Failing under its new definition where it passed under the old: it blocks when it
		// fails clearly, as a new task does.
		clearly := state == stateConfirmed || (e != nil && e.Deterministic)
		u.Level, u.Blocking = LevelNotice, clearly
		if clearly {
			u.Level = LevelError
		}
	}
	u.Why = unitWhy(u, state, f)
}

// decideAdded decides a task new in the run: it blocks only when it fails clearly.
func (f family) decideAdded(r *TaskRef) {
	r.Change = ChangeAdded
	e := r.Evidence
	if e == nil {
		r.Level, r.Blocking = changeLevel(r.Change, false)
		return
	}
	state := f.state(*e)
	clearly := state == stateConfirmed || (e.Deterministic && !r.Passed)
	if clearly {
		r.Change = ChangeAddedFailing
	}
	r.Open = state == stateOpen
	r.Level, r.Blocking = changeLevel(r.Change, false)
	if !r.Passed && !clearly {
		r.Level = LevelNotice
	}
	r.Why = addedWhy(r, state, f)
}

// classifyUnit is a shared unit's change from its statuses and the test. A drop blocks only when
// the test confirms it; a unit that looks worse but is not confirmed is "unconfirmed" while more
// trials could decide it, and "flaky" (within the noise) when none could.
func classifyUnit(u *TaskComparison, state unitState) string {
	switch u.Status {
	case TaskSkipped:
		// A prompt-only eval: one blind judge's preference, never a confirmed change.
		switch u.Pairwise.Said() {
		case results.PairwiseWorse:
			return ChangeUnconfirmed
		case results.PairwiseBetter:
			return ChangeBetter
		}
		return ChangeNotCompared
	case TaskYardstick:
		return ChangeYardstick
	}
	e := u.Evidence
	bPass, hPass := u.Base.Status == results.StatusPassed, u.Head.Status == results.StatusPassed
	if u.Status == TaskNoData || e == nil || e.Deterministic {
		// No trials to be noisy (an error before any trial), or an executor that gives the same
		// run every time: a flip is a real change.
		switch {
		case bPass && !hPass:
			return ChangeNewFailure
		case !bPass && hPass:
			return ChangeFixed
		case bPass:
			return ChangeStillPassing
		}
		return ChangeStillFailing
	}
	switch state {
	case stateConfirmed:
		if bPass {
			return ChangeNewFailure
		}
		return ChangeWorse
	case stateOpen, stateStuck:
		return ChangeUnconfirmed
	}
	switch {
	case bPass && hPass:
		return ChangeStillPassing
	case bPass:
		return ChangeFlaky
	case hPass && (u.Significant == SignificantGain || (e.BasePassed == 0 && e.HeadPassed == e.HeadTrials)):
		return ChangeFixed
	case hPass:
		return ChangeFlaky
	case u.Significant == SignificantGain:
		return ChangeBetter
	}
	return ChangeStillFailing
}

// Levels of a change (Finding.Level): an error blocks the default gate, a warning needs a look,
// a notice is for the record.
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

// changeLevel is the level of a change and whether it blocks the default gate. basePassed tells a
// removed task that passed from one that failed (removing a failing task hides it).
func changeLevel(change string, basePassed bool) (level string, blocking bool) {
	switch change {
	case ChangeNewFailure, ChangeWorse, ChangeAddedFailing:
		return LevelError, true
	case ChangeUnconfirmed, ChangeYardstick:
		return LevelWarning, false
	case ChangeRemoved:
		if basePassed {
			return LevelNotice, false
		}
		return LevelWarning, false
	case ChangeFlaky, ChangeStillFailing:
		return LevelNotice, false
	}
	return "", false
}

// unitWhy is the one sentence that says why a unit got its word, with the table behind it.
func unitWhy(u *TaskComparison, state unitState, f family) string {
	e := u.Evidence
	switch {
	case u.Status == TaskSkipped && u.Pairwise.Said() != "":
		p := u.Pairwise
		side := map[string]string{results.PairwiseWorse: "the base branch's answer", results.PairwiseBetter: "this answer"}[p.Verdict]
		if side == "" {
			return fmt.Sprintf("prompt-only eval: a blind judge found the answers even (%d better, %d worse, %d tie)", p.Better, p.Worse, p.Tie)
		}
		return fmt.Sprintf("prompt-only eval: a blind judge preferred %s (%d better, %d worse, %d tie), one judge's view, not a confirmed change", side, p.Better, p.Worse, p.Tie)
	case u.Status == TaskSkipped:
		return "skipped on one side: not compared"
	case u.Status == TaskYardstick && u.Blocking:
		return fmt.Sprintf("its %s changed, so it is compared with nothing; %s — fails clearly", u.Yardstick, headCounts(*e))
	case u.Status == TaskYardstick:
		return fmt.Sprintf("its %s changed, so this is not a skill change: not compared", u.Yardstick)
	case e == nil || u.Status == TaskNoData:
		return "no trials to compare"
	}
	base := baseCounts(*e)
	head := headCounts(*e)
	if e.Deterministic {
		return fmt.Sprintf("%s, %s with the mock executor, which gives the same run every time", base, head)
	}
	switch state {
	case stateConfirmed:
		return fmt.Sprintf("%s, %s: worse beyond trial noise (p = %s, %s)", base, head, pValue(derefOr(u.PDrop, 1)), familyNote(f.k, f.alpha))
	case stateOpen:
		return fmt.Sprintf("%s, %s: looks worse, not confirmed (p = %s; up to %s would decide it)", base, head, pValue(derefOr(u.PDrop, 1)), plural(f.maxConfirm-e.ConfirmTrials, "more trial"))
	case stateStuck:
		return fmt.Sprintf("%s, %s: looks worse, not confirmed — %s errored", base, head, plural(e.ConfirmErrors, "confirmation trial"))
	case stateNoise:
		if e.BaseTrials < 3 {
			return fmt.Sprintf("%s, %s: within the noise — %s cannot tell a drop from chance (keep earlier base runs or run more trials)", base, head, plural(e.BaseTrials, "base trial"))
		}
		return fmt.Sprintf("%s, %s: within the noise of these trials", base, head)
	}
	switch u.Change {
	case ChangeFixed:
		return fmt.Sprintf("%s, %s", base, head)
	case ChangeBetter:
		return fmt.Sprintf("%s, %s: better beyond trial noise", base, head)
	case ChangeFlaky:
		return fmt.Sprintf("%s, %s: within the noise of these trials", base, head)
	}
	return fmt.Sprintf("%s, %s", base, head)
}

func addedWhy(r *TaskRef, state unitState, f family) string {
	e := r.Evidence
	head := headCounts(*e)
	switch {
	case r.Passed:
		return "new: " + head
	case e.Deterministic:
		return "new: " + head + " with a deterministic executor"
	case state == stateConfirmed:
		return fmt.Sprintf("new: %s — fails clearly (p = %s that it passes half the time or more, %s)", head, pValue(e.pDrop()), familyNote(f.kAdded, f.addedAlpha))
	case state == stateOpen:
		return fmt.Sprintf("new: %s — not confirmed (up to %s would decide it)", head, plural(f.maxConfirm-e.ConfirmTrials, "more trial"))
	}
	return "new: " + head + " — not clearly failing"
}

func baseCounts(e Evidence) string {
	s := fmt.Sprintf("base passed %d of %d", e.BasePassed, e.BaseTrials)
	if e.BaseRuns > 1 {
		s += fmt.Sprintf(" (%d base runs)", e.BaseRuns)
	}
	return s
}

// headCounts is "failed 1 of 1, then passed 3 of 3 reruns".
func headCounts(e Evidence) string {
	planned, passed := e.HeadTrials-e.ConfirmTrials, e.HeadPassed-e.ConfirmPassed
	s := countWords(passed, planned)
	if e.ConfirmTrials > 0 {
		s += ", then " + countWords(e.ConfirmPassed, e.ConfirmTrials)
		if e.ConfirmTrials == 1 {
			s += " rerun"
		} else {
			s += " reruns"
		}
	}
	return "head " + s
}

// countWords says passed of trials the way a reviewer reads it: "passed 3 of 3", "failed 1 of
// 1", "passed 2 of 5".
func countWords(passed, trials int) string {
	if passed == 0 && trials > 0 {
		return fmt.Sprintf("failed %d of %d", trials, trials)
	}
	return fmt.Sprintf("passed %d of %d", passed, trials)
}

func familyNote(k int, alpha float64) string {
	if k <= 1 {
		return fmt.Sprintf("at %s", pctWord(alpha))
	}
	return fmt.Sprintf("at %s across %d testable units", pctWord(alpha), k)
}

func pctWord(x float64) string {
	s := fmt.Sprintf("%.1f", x*100)
	return strings.TrimSuffix(s, ".0") + "%"
}

// pValue formats a p-value with two significant digits.
func pValue(p float64) string {
	if p < 0.0001 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.2g", p)
}
