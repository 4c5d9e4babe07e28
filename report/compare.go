package report

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/skillgate/skillgate/results"
)

// Verdict is the outcome of comparing a run with its baseline, for a suite or one metric.
type Verdict string

const (
	// VerdictRegressed: the whole 95% interval of the change lies below −min_effect (or a task
	// dropped significantly after correction for the number of tasks).
	VerdictRegressed Verdict = "regressed"
	// VerdictImproved: the whole interval lies above +min_effect.
	VerdictImproved Verdict = "improved"
	// VerdictInconclusive: anything else; MetricComparison.NoRegression tells "no drop beyond
	// min_effect" apart from "cannot tell yet".
	VerdictInconclusive Verdict = "inconclusive"
)

// Comparison modes.
const (
	ModeBaseline = "baseline" // this run against the base branch (or any earlier results file)
	ModeUplift   = "uplift"   // with the skill against without it (docs/statistics.md#uplift-mode)
)

// Interval methods (MetricComparison.IntervalMethod).
const (
	IntervalTasks  = "bootstrap over tasks"
	IntervalTrials = "over trials (tasks fixed)"
)

// Metric names of a comparison.
const (
	MetricScore    = "score"            // mean per-task score
	MetricPassRate = "pass_rate"        // mean per-task trial pass rate
	MetricTasks    = "task_regressions" // tasks whose own trials dropped significantly
)

// ComparisonSchemaVersion versions the JSON of a Comparison.
const ComparisonSchemaVersion = 1

// ErrDifferentSuites is returned (wrapped in a *SuiteMismatchError) when two results files
// belong to different suites; the CLI turns it into exit code 2.
var ErrDifferentSuites = errors.New("results files belong to different suites")

// SuiteMismatchError names the two suites that cannot be compared.
type SuiteMismatchError struct {
	Base, Head         string
	BaseFile, HeadFile string
}

func (e *SuiteMismatchError) Error() string {
	name := func(suite, file string) string {
		if file != "" {
			return fmt.Sprintf("%s (suite %q)", file, suite)
		}
		return fmt.Sprintf("suite %q", suite)
	}
	return fmt.Sprintf("cannot compare %s with %s: they are results of different suites; compare a suite's results with results of the same suite",
		name(e.Base, e.BaseFile), name(e.Head, e.HeadFile))
}

// Is makes errors.Is(err, ErrDifferentSuites) true.
func (e *SuiteMismatchError) Is(target error) bool { return target == ErrDifferentSuites }

// CompareOptions tune the analysis; zero values take the defaults.
type CompareOptions struct {
	// MinEffect is the smallest change that counts (default 0.02): a regression needs the whole
	// interval below −MinEffect.
	MinEffect float64
	// Confidence is the interval's level (default 0.95).
	Confidence float64
	// Resamples is the number of bootstrap resamples (default 10,000).
	Resamples int
	// Seed fixes the bootstrap; 0 derives it from the compared data, so the same files always
	// give the same result.
	Seed uint64
	// MinTasks is the fewest shared tasks for the bootstrap over tasks (default 5); with fewer,
	// the interval is over the trials of the tasks, taken as fixed.
	MinTasks int
	// BaseFile and HeadFile are the paths the results were read from, for messages.
	BaseFile, HeadFile string
	// Alpha is the family-wise false-alarm rate of the per-task decisions (default
	// DefaultAlpha), AddedAlpha that of calling a new task failing clearly (DefaultAddedAlpha).
	Alpha, AddedAlpha float64
	// MaxConfirm is how many confirmation trials one task or prompt may get (default
	// DefaultMaxConfirm); a unit that could still be decided within them is "unconfirmed".
	MaxConfirm int
	// History holds earlier runs of the suite on the base branch; a task whose inputs were the
	// same in them pools their trials with the baseline's (docs/statistics.md#remembering-the-base).
	History []*results.BaseRecord
}

// Defaults of CompareOptions.
const (
	DefaultMinEffect  = 0.02
	DefaultConfidence = 0.99
	DefaultResamples  = 10000
	DefaultMinTasks   = 5
)

func (o CompareOptions) withDefaults() CompareOptions {
	if o.MinEffect <= 0 || !finite(o.MinEffect) {
		o.MinEffect = DefaultMinEffect
	}
	if o.Confidence <= 0 || o.Confidence >= 1 || !finite(o.Confidence) {
		o.Confidence = DefaultConfidence
	}
	if o.Resamples <= 0 {
		o.Resamples = DefaultResamples
	}
	if o.MinTasks <= 0 {
		o.MinTasks = DefaultMinTasks
	}
	if o.MinTasks < 2 {
		o.MinTasks = 2
	}
	if o.Alpha <= 0 || o.Alpha >= 1 || !finite(o.Alpha) {
		o.Alpha = DefaultAlpha
	}
	if o.AddedAlpha <= 0 || o.AddedAlpha >= 1 || !finite(o.AddedAlpha) {
		o.AddedAlpha = DefaultAddedAlpha
	}
	if o.MaxConfirm < 0 {
		o.MaxConfirm = 0
	} else if o.MaxConfirm == 0 {
		o.MaxConfirm = DefaultMaxConfirm
	}
	return o
}

// options are the options the comparison was computed with, as Settings records them.
func (c *Comparison) options() CompareOptions {
	st := c.Settings
	return CompareOptions{MinEffect: st.MinEffect, Confidence: st.Confidence, Resamples: st.Resamples, Seed: st.Seed,
		MinTasks: st.MinTasks, Alpha: st.Alpha, AddedAlpha: st.AddedAlpha, MaxConfirm: st.MaxConfirm}
}

// Comparison is the result of comparing one suite's results with its baseline. Every number
// in it is finite; values that do not exist (no baseline, no data) are absent from the JSON.
type Comparison struct {
	SchemaVersion int     `json:"schema_version"`
	Mode          string  `json:"mode"`
	Suite         string  `json:"suite"`
	Skill         string  `json:"skill,omitempty"`
	Verdict       Verdict `json:"verdict"`
	// Words are the verdict as every report says it (VerdictWords): an inconclusive verdict is
	// "no change", "no regression", "no clear change"…, decided with the verdict.
	Words string `json:"verdict_words"`
	// Message says why, in one sentence.
	Message    string `json:"message"`
	NoBaseline bool   `json:"no_baseline,omitempty"`

	Base     Side                `json:"base"`
	Head     Side                `json:"head"`
	Settings Settings            `json:"settings"`
	Metrics  []*MetricComparison `json:"metrics"`
	// Floors are the head's metric thresholds (docs/format.md#metrics); a missed floor fails the run
	// whatever the comparison says.
	Floors   []Floor            `json:"floors,omitempty"`
	Flips    Flips              `json:"flips"`
	Triggers *TriggerComparison `json:"triggers,omitempty"`
	// Changes counts what this run changed, task by task (TaskComparison.Change).
	Changes Changes `json:"changes"`

	// waza's compare keys, kept for tools written for it.
	AggregateScoreDelta *float64 `json:"aggregate_score_delta,omitempty"`
	SuccessRateDelta    *float64 `json:"success_rate_delta,omitempty"`
	DurationDeltaMS     *int64   `json:"duration_delta_ms,omitempty"`

	Tasks        []*TaskComparison `json:"task_deltas"`
	NewTasks     []TaskRef         `json:"new_tasks"`
	RemovedTasks []TaskRef         `json:"removed_tasks"`
	// Prompts are the trigger prompts compared one by one, like tasks (a trial is "passed" when
	// the skill triggered as the prompt expects).
	Prompts []*TaskComparison `json:"prompt_deltas,omitempty"`
	// NotInBaseline lists head tasks the baseline lacks because its run was interrupted before
	// them: not new, just not compared.
	NotInBaseline []TaskRef `json:"not_in_baseline,omitempty"`
}

// Side describes one of the two compared results.
type Side struct {
	Label     string     `json:"label"`
	File      string     `json:"file,omitempty"`
	EvalID    string     `json:"eval_id,omitempty"`
	Timestamp *time.Time `json:"timestamp,omitempty"`
	Commit    string     `json:"commit,omitempty"`
	Executor  string     `json:"executor,omitempty"`
	Model     string     `json:"model,omitempty"`
	Tasks     int        `json:"tasks"`
	Trials    int        `json:"trials"`
	// SuccessRate is the fraction of tasks whose every trial passed (waza's success_rate).
	SuccessRate *float64 `json:"success_rate,omitempty"`
	// AggregateScore is the mean of task mean scores.
	AggregateScore *float64 `json:"aggregate_score,omitempty"`
	// PassRate is the mean of the tasks' trial pass rates.
	PassRate   *float64 `json:"pass_rate,omitempty"`
	DurationMS int64    `json:"duration_ms"`
	// Incomplete: the run was interrupted; only its finished tasks are compared.
	Incomplete bool `json:"incomplete,omitempty"`
	// Pooled lists the earlier base runs whose trials were pooled with the baseline's for at
	// least one task (docs/statistics.md#remembering-the-base).
	Pooled []PooledRun `json:"pooled,omitempty"`
}

// PooledRun is one earlier base run a comparison pooled trials from.
type PooledRun struct {
	EvalID    string    `json:"eval_id,omitempty"`
	Commit    string    `json:"commit,omitempty"`
	Timestamp time.Time `json:"timestamp"`
	// Tasks counts the tasks and trigger prompts whose trials were pooled from it.
	Tasks int `json:"tasks"`
}

// Settings records how the comparison was computed, so it can be reproduced.
type Settings struct {
	MinEffect  float64 `json:"min_effect"`
	Confidence float64 `json:"confidence"`
	Resamples  int     `json:"resamples"`
	Seed       uint64  `json:"seed"`
	MinTasks   int     `json:"min_tasks"`
	Method     string  `json:"method"`
	// Alpha and AddedAlpha are the per-task tests' family-wise rates; Family and AddedFamily the
	// number of units Tarone's correction counted (each unit is tested at Alpha/Family);
	// MaxConfirm the confirmation trials one unit may get.
	Alpha       float64 `json:"alpha"`
	AddedAlpha  float64 `json:"added_alpha"`
	Family      int     `json:"family"`
	AddedFamily int     `json:"added_family"`
	MaxConfirm  int     `json:"max_confirm"`
}

// MetricComparison is the verdict on one metric over the shared tasks.
type MetricComparison struct {
	Name string `json:"name"`
	// Tasks is the number of tasks the analysis used.
	Tasks    int               `json:"tasks"`
	Base     *float64          `json:"base,omitempty"`
	Head     *float64          `json:"head,omitempty"`
	Delta    *float64          `json:"delta,omitempty"`
	Interval *results.Interval `json:"interval,omitempty"`
	// IntervalMethod is how the interval was computed: IntervalTasks (a paired bootstrap over
	// the shared tasks) or IntervalTrials (over the trials of fewer tasks than MinTasks).
	IntervalMethod string `json:"interval_method,omitempty"`
	// PValue and Test: an exact test backing the metric (two-sided).
	PValue *float64 `json:"p_value,omitempty"`
	Test   string   `json:"test,omitempty"`
	// Dropped and Gained count tasks flagged by the per-task test (task_regressions only).
	Dropped int     `json:"dropped,omitempty"`
	Gained  int     `json:"gained,omitempty"`
	Verdict Verdict `json:"verdict"`
	// NoRegression is true when the interval rules out a drop larger than min_effect.
	NoRegression bool `json:"no_regression"`
	// LikelyDrop marks an inconclusive metric whose 80% interval already lies below
	// −min_effect: a drop is likely but not shown at the comparison's confidence. Only such a
	// metric warns; a change within the noise does not.
	LikelyDrop bool `json:"likely_drop,omitempty"`
	// TrialsToSettle estimates the trials per task and side that would likely (80% power)
	// settle an inconclusive interval; 0 when not applicable or not reachable by more trials.
	TrialsToSettle int    `json:"trials_to_settle,omitempty"`
	Message        string `json:"message"`
	confidence     float64
}

// Floor is one gating metric threshold of the head run.
type Floor struct {
	Name      string   `json:"name"`
	Value     float64  `json:"value"`
	Threshold float64  `json:"threshold"`
	Passed    bool     `json:"passed"`
	Base      *float64 `json:"base,omitempty"`
	Delta     *float64 `json:"delta,omitempty"`
	// BasePassed says whether the base met the same threshold (nil without a base value).
	BasePassed *bool             `json:"base_passed,omitempty"`
	Source     *results.Location `json:"source,omitempty"`
	// Noise: missed here and met on the base, but no evidence confirms the drop (no task or
	// prompt it counts confirmed worse, no regression): reported, not blocking.
	Noise bool `json:"noise,omitempty"`
}

// Flips counts shared tasks whose status changed: broke (passed → not passed) and fixed.
type Flips struct {
	Broke int `json:"broke"`
	Fixed int `json:"fixed"`
	// PValue is McNemar's exact test on the flips (two-sided).
	PValue float64 `json:"p_value"`
}

// Changes of a task between base and head (TaskComparison.Change, TaskRef.Change): what a
// reviewer asks first — what did this change do? docs/statistics.md#what-changed-one-word-per-task defines them.
const (
	ChangeNewFailure   = "new_failure"   // passed on base; fails here, confirmed beyond trial noise
	ChangeWorse        = "worse"         // failed on base too, but passes confirmed less often here (4/5 → 0/5)
	ChangeUnconfirmed  = "unconfirmed"   // looks worse; more trials could tell, none were run
	ChangeFixed        = "fixed"         // failed on base; passes here beyond trial noise
	ChangeBetter       = "better"        // fails on both sides, but passes more often here beyond noise
	ChangeFlaky        = "flaky"         // passed on one side only, within the noise of its trials
	ChangeStillFailing = "still_failing" // fails on both sides
	ChangeStillPassing = "still_passing" // passes on both sides
	ChangeAdded        = "added"         // only here
	ChangeAddedFailing = "added_failing" // only here, and fails clearly
	ChangeRemoved      = "removed"       // only on base
	ChangeYardstick    = "yardstick_changed"
	ChangeNotCompared  = "not_compared" // skipped on either side
)

// Changes counts the tasks of each change.
type Changes struct {
	NewFailures int `json:"new_failures"`
	// Worse counts tasks failing on both sides that pass confirmed less often here.
	Worse int `json:"worse"`
	// Unconfirmed counts tasks that look worse but were not confirmed (no reruns, budget spent).
	Unconfirmed  int `json:"unconfirmed"`
	Fixed        int `json:"fixed"`
	Better       int `json:"better"`
	Flaky        int `json:"flaky"`
	StillFailing int `json:"still_failing"`
	StillPassing int `json:"still_passing"`
	Added        int `json:"added"`
	Removed      int `json:"removed"`
	// YardstickChanged counts shared tasks whose definition or graders differ between the sides
	// (content hashes); GradersChanged those of them whose graders differ.
	YardstickChanged int `json:"yardstick_changed"`
	GradersChanged   int `json:"graders_changed"`
	NotCompared      int `json:"not_compared"`
	// AddedFailing counts added tasks that fail clearly; RemovedFailing removed tasks that did
	// not pass on base; YardstickFailing tasks with a changed yardstick that pass on base and
	// not here. Prompts* count trigger prompts by the same words.
	AddedFailing     int `json:"added_failing"`
	RemovedFailing   int `json:"removed_failing"`
	YardstickFailing int `json:"yardstick_failing"`
	// PromptsWorse counts trigger prompts confirmed worse (new_failure or worse);
	// PromptsUnconfirmed those that look worse, not confirmed.
	PromptsWorse       int `json:"prompts_worse,omitempty"`
	PromptsUnconfirmed int `json:"prompts_unconfirmed,omitempty"`
	// NotInBaseline counts tasks missing from an interrupted baseline (not compared, not new).
	NotInBaseline int `json:"not_in_baseline,omitempty"`
	// AddedUnconfirmed counts added tasks that failed every trial but are not yet clearly
	// failing: confirmation trials would decide them.
	AddedUnconfirmed int `json:"added_unconfirmed,omitempty"`
}

// Introduced counts the failures this change brings: new failures, tasks confirmed worse,
// added tasks failing clearly and tasks failing under a changed yardstick that passed on base.
// The default fail-on blocks on it.
func (ch Changes) Introduced() int {
	return ch.NewFailures + ch.Worse + ch.AddedFailing + ch.YardstickFailing
}

// TriggerComparison compares the trigger tests (informational; their thresholds gate).
type TriggerComparison struct {
	Base      *float64 `json:"base_accuracy,omitempty"`
	Head      *float64 `json:"head_accuracy,omitempty"`
	Delta     *float64 `json:"delta,omitempty"`
	Threshold *float64 `json:"threshold,omitempty"`

	BasePrecision  *float64 `json:"base_precision,omitempty"`
	HeadPrecision  *float64 `json:"head_precision,omitempty"`
	DeltaPrecision *float64 `json:"delta_precision,omitempty"`
	BaseRecall     *float64 `json:"base_recall,omitempty"`
	HeadRecall     *float64 `json:"head_recall,omitempty"`
	DeltaRecall    *float64 `json:"delta_recall,omitempty"`
}

// Task statuses in a comparison.
const (
	TaskPaired  = "paired"  // in the analysis
	TaskSkipped = "skipped" // skipped on either side
	TaskNoData  = "no_data" // no usable trials on either side
	// TaskYardstick: the task's or its graders' definition differs between the sides, so its
	// change says nothing about the skill; it is left out of the analysis.
	TaskYardstick = "yardstick_changed"
)

// Task flips.
const (
	FlipBroke = "broke" // passed on base, not on head
	FlipFixed = "fixed" // not passed on base, passed on head
)

// Significance of a task's own change.
const (
	SignificantDrop = "drop"
	SignificantGain = "gain"
)

// TaskComparison is one task present on both sides.
type TaskComparison struct {
	ID            string            `json:"task_id"`
	Name          string            `json:"display_name"`
	Status        string            `json:"status"`
	Source        *results.Location `json:"source,omitempty"`
	Base          TaskSide          `json:"base"`
	Head          TaskSide          `json:"head"`
	PassRateDelta *float64          `json:"pass_rate_delta,omitempty"`
	ScoreDelta    *float64          `json:"score_delta,omitempty"`
	Flip          string            `json:"flip,omitempty"`
	// Change is what this run changed for the task (ChangeNewFailure, …).
	Change string `json:"change"`
	// Yardstick says what differs when Change is yardstick_changed: "task", "graders" or
	// "task and graders".
	Yardstick string `json:"yardstick,omitempty"`
	// One-sided Fisher exact p-values on Evidence and their adjustments for the family
	// (Tarone–Bonferroni: p × Settings.Family); absent without a test.
	PDrop       *float64 `json:"p_drop,omitempty"`
	QDrop       *float64 `json:"q_drop,omitempty"`
	PGain       *float64 `json:"p_gain,omitempty"`
	QGain       *float64 `json:"q_gain,omitempty"`
	Significant string   `json:"significant,omitempty"`
	// Evidence is the table the decision read (pooled base, head with confirmations).
	Evidence *Evidence `json:"evidence,omitempty"`
	// Pairwise is the blind judge's verdict on a prompt-only eval's answer against the base's
	// (no checks, so no trials to test): a worse answer is a regression candidate.
	Pairwise *results.Pairwise `json:"pairwise,omitempty"`
	// Why says in one sentence why the unit got its Change; Level is its finding level
	// (error, warning, notice, or "" for nothing to report) and Blocking whether the default gate
	// fails on it. Decided once (Decide); every report renders them.
	Why      string `json:"why"`
	Level    string `json:"level,omitempty"`
	Blocking bool   `json:"blocking,omitempty"`
}

// TaskSide is a task's trials on one side.
type TaskSide struct {
	Status   results.Status `json:"status,omitempty"`
	Trials   int            `json:"trials"`
	Passed   int            `json:"passed"`
	Errors   int            `json:"errors,omitempty"`
	PassRate *float64       `json:"pass_rate,omitempty"`
	Score    *float64       `json:"score,omitempty"`
}

// TaskRef is a task present on one side only.
type TaskRef struct {
	ID       string            `json:"task_id"`
	Name     string            `json:"display_name"`
	Change   string            `json:"change"` // added, added_failing, removed or not_compared
	Passed   bool              `json:"passed"` // by the task pass rule of its side
	Status   results.Status    `json:"status,omitempty"`
	PassRate *float64          `json:"pass_rate,omitempty"`
	Score    *float64          `json:"score,omitempty"`
	Source   *results.Location `json:"source,omitempty"`
	// Evidence (added tasks): the head's trials with its confirmation trials.
	Evidence *Evidence `json:"evidence,omitempty"`
	// Open: an added task that more trials could show failing clearly (a confirmation candidate).
	Open     bool   `json:"open,omitempty"`
	Why      string `json:"why,omitempty"`
	Level    string `json:"level,omitempty"`
	Blocking bool   `json:"blocking,omitempty"`
}

// Regressed reports whether the comparison found a real regression.
func (c *Comparison) Regressed() bool { return c != nil && c.Verdict == VerdictRegressed }

// Metric returns the named metric, or nil.
func (c *Comparison) Metric(name string) *MetricComparison {
	if c == nil {
		return nil
	}
	for _, m := range c.Metrics {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// FloorsPassed reports whether every head metric threshold was met.
func (c *Comparison) FloorsPassed() bool {
	for _, f := range c.Floors {
		if !f.Passed {
			return false
		}
	}
	return true
}

// Compare compares head with base. base may be nil or empty ("no baseline"). Either may be a
// skillgate or a waza results file. The only error is *SuiteMismatchError.
func Compare(base, head *results.SuiteResult, opts CompareOptions) (*Comparison, error) {
	return compare(base, head, opts, ModeBaseline)
}

// CompareUplift compares a run with the skill against its own without-skill run
// (SuiteResult.BaselineOutcome, uplift mode) using the same analysis. It returns nil, nil when
// the results carry no without-skill run.
func CompareUplift(res *results.SuiteResult, opts CompareOptions) (*Comparison, error) {
	if res == nil || res.BaselineOutcome == nil {
		return nil, nil
	}
	opts.BaseFile, opts.HeadFile = "", ""
	return compare(res.BaselineOutcome, res, opts, ModeUplift)
}

func compare(base, head *results.SuiteResult, opts CompareOptions, mode string) (*Comparison, error) {
	if head == nil {
		head = &results.SuiteResult{}
	}
	if base != nil && base.EvalName != "" && head.EvalName != "" && base.EvalName != head.EvalName {
		return nil, &SuiteMismatchError{Base: base.EvalName, Head: head.EvalName, BaseFile: opts.BaseFile, HeadFile: opts.HeadFile}
	}
	opts = opts.withDefaults()
	c := &Comparison{
		SchemaVersion: ComparisonSchemaVersion,
		Mode:          mode,
		Suite:         suiteName(head),
		Skill:         head.Skill,
		Tasks:         []*TaskComparison{},
		NewTasks:      []TaskRef{},
		RemovedTasks:  []TaskRef{},
		Settings: Settings{
			MinEffect: opts.MinEffect, Confidence: opts.Confidence, Resamples: opts.Resamples, MinTasks: opts.MinTasks,
			Method: "paired bootstrap over shared tasks (expanded percentile interval); per task and trigger prompt, Fisher's exact test on the pooled base and the confirmed head with Tarone–Bonferroni across the pull request",
			Alpha:  opts.Alpha, AddedAlpha: opts.AddedAlpha, MaxConfirm: opts.MaxConfirm,
		},
	}
	baseLabel, headLabel := "base", "head"
	if mode == ModeUplift {
		baseLabel, headLabel = "without skill", "with skill"
	}
	headTasks := newSuiteTasks(head)
	baseTasks := newSuiteTasks(base)
	c.Head = describeSide(headLabel, opts.HeadFile, head)
	if base == nil {
		c.Base = Side{Label: baseLabel}
	} else {
		c.Base = describeSide(baseLabel, opts.BaseFile, base)
	}
	c.Floors = floors(base, head)
	c.Triggers = compareTriggers(base, head)

	if base == nil || baseTasks.len() == 0 {
		c.NoBaseline = true
		for i := range headTasks.len() {
			r := taskRef(headTasks.sample(i), ChangeAdded)
			r.Level, r.Blocking = changeLevel(ChangeAdded, false)
			c.NewTasks = append(c.NewTasks, r)
		}
		c.Verdict, c.Words = VerdictInconclusive, "no baseline"
		c.Message = "No baseline: nothing to compare with, so only the thresholds apply."
		if base != nil {
			c.Message = "No baseline: the baseline results hold no tasks, so only the thresholds apply."
		}
		c.Metrics = []*MetricComparison{}
		c.countChanges()
		return c, nil
	}
	c.AggregateScoreDelta = deltaPtr(c.Base.AggregateScore, c.Head.AggregateScore)
	c.SuccessRateDelta = deltaPtr(c.Base.SuccessRate, c.Head.SuccessRate)
	dur := c.Head.DurationMS - c.Base.DurationMS
	c.DurationDeltaMS = &dur

	pool := newPool(base, opts.History)
	deterministic := deterministicExecutor(base) && deterministicExecutor(head)
	baseByKey := make(map[string]int, baseTasks.len())
	for i := range baseTasks.len() {
		baseByKey[baseTasks.key(i)] = i
	}
	// The shared tasks' figures, the seed hashed from them as they come.
	pairs := make([][2]trialFigures, 0, min(headTasks.len(), baseTasks.len()))
	var paired []*TaskComparison
	seedHash := newSeedHasher()
	seedHash.str(c.Suite)
	matched := make([]bool, baseTasks.len())
	for i := range headTasks.len() {
		h := headTasks.sample(i)
		bi, ok := baseByKey[h.key]
		if ok {
			matched[bi] = true
		}
		if !ok {
			ev := addedEvidence(h, deterministic && h.unanimous())
			if pooled, runs := pool.task(h.d.ID(), h.d.PoolKey(head)); runs > 0 {
				// Absent from the baseline, but earlier base runs had it with the same inputs.
				tc := &TaskComparison{ID: h.key, Name: h.name(), Source: h.d.Source(), Head: taskSide(h), Status: TaskPaired}
				tc.Base = TaskSide{Trials: pooled.Trials, Passed: pooled.Passed, Status: pooledStatus(pooled)}
				tc.Evidence = &Evidence{BasePassed: pooled.Passed, BaseTrials: pooled.Trials, BaseRuns: runs, Deterministic: deterministic}
				headEvidence(tc.Evidence, h)
				c.Tasks = append(c.Tasks, tc)
				continue
			}
			r := taskRef(h, ChangeAdded)
			if base.Incomplete {
				r.Change = ChangeNotCompared
				r.Why = "not in the baseline, whose run was interrupted before it: not compared"
				c.NotInBaseline = append(c.NotInBaseline, r)
				continue
			}
			r.Evidence = &ev
			c.NewTasks = append(c.NewTasks, r)
			continue
		}
		b := baseTasks.sample(bi)
		tc := &TaskComparison{ID: h.key, Name: h.name(), Source: h.d.Source(), Base: taskSide(b), Head: taskSide(h)}
		tc.Yardstick = yardstick(b.d, h.d)
		switch {
		case b.skipped || h.skipped:
			tc.Status = TaskSkipped
			tc.Pairwise = h.d.Pairwise()
		case !b.ok || !h.ok:
			tc.Status = TaskNoData
		case tc.Yardstick != "":
			// A changed definition is a new task as far as the skill goes: it blocks only when it
			// fails clearly (and passed on the base).
			tc.Status = TaskYardstick
			tc.PassRateDelta = ptr(h.passRate - b.passRate)
			tc.ScoreDelta = ptr(h.score - b.score)
			ev := addedEvidence(h, deterministic && h.unanimous())
			tc.Evidence = &ev
		default:
			tc.Status = TaskPaired
			tc.PassRateDelta = ptr(h.passRate - b.passRate)
			tc.ScoreDelta = ptr(h.score - b.score)
			switch {
			case b.allPassed() && !h.allPassed():
				tc.Flip = FlipBroke
				c.Flips.Broke++
			case !b.allPassed() && h.allPassed():
				tc.Flip = FlipFixed
				c.Flips.Fixed++
			}
			ev := &Evidence{BasePassed: b.passed, BaseTrials: b.trials, BaseRuns: 1, Deterministic: deterministic && b.unanimous() && h.unanimous()}
			if extra, runs := pool.task(b.d.ID(), b.d.PoolKey(base)); runs > 0 {
				ev.BasePassed += extra.Passed
				ev.BaseTrials += extra.Trials
				ev.BaseRuns += runs
				// The suite's changes read the pooled base too: the same expectation, with less
				// noise.
				b.passRate, b.passTrials = float64(ev.BasePassed)/float64(ev.BaseTrials), ev.BaseTrials
				b.score = (b.score*float64(b.trials) + extra.ScoreSum) / float64(b.trials+extra.Trials)
				b.scoreTrials = b.trials + extra.Trials
			}
			headEvidence(ev, h)
			tc.Evidence = ev
			pairs = append(pairs, [2]trialFigures{b.trialFigures, h.trialFigures})
			seedHash.str(h.key)
			for _, s := range []taskSample{b, h} {
				seedHash.num(s.score)
				seedHash.num(s.passRate)
				seedHash.num(float64(s.trials))
			}
			paired = append(paired, tc)
		}
		c.Tasks = append(c.Tasks, tc)
	}
	for i := range baseTasks.len() {
		if !matched[i] {
			r := taskRef(baseTasks.sample(i), ChangeRemoved)
			r.Level, r.Blocking = changeLevel(ChangeRemoved, r.Passed)
			c.RemovedTasks = append(c.RemovedTasks, r)
		}
	}
	c.Prompts = comparePrompts(base, head, pool, deterministic)
	c.Base.Pooled = pool.used()
	c.Flips.PValue = signTest(c.Flips.Broke, c.Flips.Fixed)

	seed := opts.Seed
	if seed == 0 {
		// Derived from the compared data: the same files always give the same result.
		if seed = seedHash.sum(); seed == 0 {
			seed = 1
		}
	}
	c.Settings.Seed = seed
	c.Metrics = analyse(pairs, paired, opts, seed)
	Decide([]*Comparison{c})
	return c, nil
}

// deterministicExecutor: the results come from the mock executor, which gives the same run every
// time, so a difference between two such files is not trial noise (unless a unit's own trials
// disagree, say through an LLM judge: such a unit is tested like any other). A replay is not:
// it replays runs an agent recorded, which vary like the agent.
func deterministicExecutor(s *results.SuiteResult) bool {
	return executorOf(s) == "mock"
}

// headEvidence fills the head side of a unit's table: its trials and its confirmation trials.
func headEvidence(e *Evidence, h taskSample) {
	e.HeadPassed, e.HeadTrials = h.passed, h.trials
	e.ConfirmTrials, e.ConfirmPassed, e.ConfirmErrors = h.d.Confirmations()
	e.HeadPassed += e.ConfirmPassed
	e.HeadTrials += e.ConfirmTrials
}

func addedEvidence(h taskSample, deterministic bool) Evidence {
	e := Evidence{Added: true, Deterministic: deterministic}
	headEvidence(&e, h)
	return e
}

func pooledStatus(c results.TrialCounts) results.Status {
	if c.Passed == c.Trials {
		return results.StatusPassed
	}
	return results.StatusFailed
}

// yardstick says what differs between a task's two definitions ("" when nothing does or a
// side did not record its hashes).
func yardstick(b, h *results.TaskDigest) string {
	differs := func(x, y string) bool { return x != "" && y != "" && x != y }
	task, graders := differs(b.DefinitionHash(), h.DefinitionHash()), differs(b.GradersHash(), h.GradersHash())
	switch {
	case task && graders:
		return "task and graders"
	case task:
		return "task"
	case graders:
		return "graders"
	}
	return ""
}

// countChanges fills c.Changes from the units' words.
func (c *Comparison) countChanges() {
	ch := Changes{Added: len(c.NewTasks), Removed: len(c.RemovedTasks), NotInBaseline: len(c.NotInBaseline)}
	for _, t := range c.NewTasks {
		switch {
		case t.Change == ChangeAddedFailing || (c.NoBaseline && !t.Passed):
			ch.AddedFailing++
		case t.Open:
			ch.AddedUnconfirmed++
		}
	}
	for _, t := range c.RemovedTasks {
		if !t.Passed {
			ch.RemovedFailing++
		}
	}
	for _, t := range c.Tasks {
		switch t.Change {
		case ChangeNewFailure:
			ch.NewFailures++
		case ChangeWorse:
			ch.Worse++
		case ChangeUnconfirmed:
			ch.Unconfirmed++
		case ChangeFixed:
			ch.Fixed++
		case ChangeBetter:
			ch.Better++
		case ChangeFlaky:
			ch.Flaky++
		case ChangeStillFailing:
			ch.StillFailing++
		case ChangeStillPassing:
			ch.StillPassing++
		case ChangeNotCompared:
			ch.NotCompared++
		case ChangeYardstick:
			ch.YardstickChanged++
			if strings.Contains(t.Yardstick, "graders") {
				ch.GradersChanged++
			}
			if t.Blocking {
				ch.YardstickFailing++
			}
		}
	}
	for _, p := range c.Prompts {
		switch p.Change {
		case ChangeNewFailure, ChangeWorse:
			ch.PromptsWorse++
		case ChangeUnconfirmed:
			ch.PromptsUnconfirmed++
		}
	}
	c.Changes = ch
}

// finish derives what follows from the units' decisions: the counts, the per-task metric, which
// missed thresholds the evidence confirms, and the verdict.
func (c *Comparison) finish() {
	c.countChanges()
	kept := c.Metrics[:0]
	for _, m := range c.Metrics {
		if m.Name != MetricTasks {
			kept = append(kept, m)
		}
	}
	c.Metrics = append(kept, taskMetric(c))
	c.confirmFloors()
	c.Verdict, c.Message = suiteVerdict(c, c.options())
	c.Words = c.verdictWords()
}

// confirmFloors marks the thresholds missed here and met on the base that no evidence confirms:
// the drop comes with no task or trigger prompt confirmed worse and no regression of the suite,
// so it is within the noise of the trials and does not block.
func (c *Comparison) confirmFloors() {
	regressed := false
	for _, m := range c.Metrics {
		if m.Name != MetricTasks && m.Verdict == VerdictRegressed {
			regressed = true
		}
	}
	deterministic := false
	for _, t := range append(append([]*TaskComparison(nil), c.Tasks...), c.Prompts...) {
		if t.Evidence != nil && t.Evidence.Deterministic {
			deterministic = true
		}
	}
	for i := range c.Floors {
		f := &c.Floors[i]
		f.Noise = false
		if f.Passed || f.BasePassed == nil || !*f.BasePassed || regressed || deterministic {
			continue
		}
		confirmed := false
		if strings.HasPrefix(f.Name, "trigger_") {
			confirmed = c.Changes.PromptsWorse > 0
		} else {
			confirmed = c.Changes.NewFailures+c.Changes.Worse+c.Changes.AddedFailing+c.Changes.YardstickFailing > 0
		}
		f.Noise = !confirmed
	}
}

// taskMetric is the per-task test's metric: regressed when a task or trigger prompt is
// confirmed worse, improved when one is better beyond noise and none is worse.
func taskMetric(c *Comparison) *MetricComparison {
	m := &MetricComparison{Name: MetricTasks, Verdict: VerdictInconclusive, Test: "Fisher's exact test per task on the pooled base and confirmed head, Tarone–Bonferroni across the pull request"}
	var dropped, gained []string
	testable := 0
	for _, list := range [][]*TaskComparison{c.Tasks, c.Prompts} {
		for _, t := range list {
			if t.PDrop != nil {
				testable++
			}
			switch t.Change {
			case ChangeNewFailure, ChangeWorse:
				dropped = append(dropped, t.ID)
			case ChangeFixed, ChangeBetter:
				if t.Significant == SignificantGain {
					gained = append(gained, t.ID)
				}
			}
		}
	}
	m.Tasks = testable
	m.Dropped, m.Gained = len(dropped), len(gained)
	m.NoRegression = len(dropped) == 0
	switch {
	case len(dropped) > 0:
		m.Verdict = VerdictRegressed
		m.Message = fmt.Sprintf("%s confirmed worse beyond trial noise: %s", plural(len(dropped), "task"), listNames(dropped, 5))
	case len(gained) > 0:
		m.Verdict = VerdictImproved
		m.Message = fmt.Sprintf("%s better beyond trial noise: %s", plural(len(gained), "task"), listNames(gained, 5))
	case testable == 0:
		m.Message = "no task has trials to test"
	default:
		m.Message = fmt.Sprintf("no task confirmed worse (%d tested)", testable)
	}
	return m
}

// analyse runs the paired analysis over the shared tasks.
func analyse(pairs [][2]trialFigures, paired []*TaskComparison, opts CompareOptions, seed uint64) []*MetricComparison {
	n := len(pairs)
	dScore := make([]float64, n)
	dPass := make([]float64, n)
	var baseScore, headScore, basePass, headPass float64
	down, up := 0, 0
	for i, p := range pairs {
		b, h := p[0], p[1]
		dScore[i] = h.score - b.score
		dPass[i] = h.passRate - b.passRate
		baseScore += b.score
		headScore += h.score
		basePass += b.passRate
		headPass += h.passRate
		switch {
		case dPass[i] < 0:
			down++
		case dPass[i] > 0:
			up++
		}
	}
	score := &MetricComparison{Name: MetricScore, Tasks: n}
	pass := &MetricComparison{Name: MetricPassRate, Tasks: n}
	if n > 0 {
		fn := float64(n)
		score.Base, score.Head, score.Delta = ptr(baseScore/fn), ptr(headScore/fn), ptr((headScore-baseScore)/fn)
		pass.Base, pass.Head, pass.Delta = ptr(basePass/fn), ptr(headPass/fn), ptr((headPass-basePass)/fn)
		pass.PValue = ptr(signTest(down, up))
		pass.Test = "sign test on per-task pass-rate changes"
	}
	within := withinVariances(pairs)
	switch {
	case n >= opts.MinTasks:
		bootScore, bootPass := pairedBootstrap(dScore, dPass, opts.Resamples, seed)
		tail := expandedTail(n, opts.Confidence)
		for _, m := range []struct {
			metric *MetricComparison
			means  []float64
		}{{score, bootScore}, {pass, bootPass}} {
			lo := quantileSorted(m.means, tail)
			hi := quantileSorted(m.means, 1-tail)
			m.metric.Interval = &results.Interval{Lower: clean(lo), Upper: clean(hi)}
			m.metric.IntervalMethod = IntervalTasks
		}
		judgeMetric(score, func() int { return trialsToSettle(dScore, *score.Delta, within.score, within.trials, opts) }, opts)
		judgeMetric(pass, func() int { return trialsToSettle(dPass, *pass.Delta, within.pass, within.trials, opts) }, opts)
	case n > 0:
		for _, m := range []*MetricComparison{score, pass} {
			t := newTrialInterval(pairs, m.Name == MetricScore)
			m.Interval = t.interval(opts.Confidence)
			m.IntervalMethod = IntervalTrials
			judgeMetric(m, func() int { return t.trialsToSettle(*m.Delta, within.trials, opts) }, opts)
		}
	default:
		judgeMetric(score, nil, opts)
		judgeMetric(pass, nil, opts)
	}
	return []*MetricComparison{score, pass}
}

// judgeMetric turns a metric's interval into a verdict and a message; settle estimates the
// trials per task that would settle an inconclusive interval.
func judgeMetric(m *MetricComparison, settle func() int, opts CompareOptions) {
	m.confidence = opts.Confidence
	label := map[string]string{MetricScore: "mean score", MetricPassRate: "pass rate"}[m.Name]
	m.Verdict = VerdictInconclusive
	if m.Tasks == 0 || m.Interval == nil {
		m.Message = "no shared tasks to compare"
		return
	}
	iv := *m.Interval
	me := opts.MinEffect
	over := ""
	if m.IntervalMethod == IntervalTrials {
		over = fmt.Sprintf(" over the trials of %s", plural(m.Tasks, "task"))
	}
	span := fmt.Sprintf("%s (%.0f%% CI %s to %s%s)", signed(*m.Delta), opts.Confidence*100, signedBound(iv.Lower, me), signedBound(iv.Upper, me), over)
	m.NoRegression = iv.Lower >= -me
	switch {
	case iv.Upper < -me:
		m.Verdict = VerdictRegressed
		m.Message = fmt.Sprintf("%s regressed by %s, beyond the −%.2f minimum effect", label, span, me)
	case iv.Lower > me:
		m.Verdict = VerdictImproved
		m.Message = fmt.Sprintf("%s improved by %s", label, span)
	case m.NoRegression:
		m.Message = fmt.Sprintf("no regression: %s changed by %s; a drop larger than %.2f is ruled out", label, span, me)
	default:
		// The interval's half-width at 80% from its width at the comparison's confidence.
		se := (iv.Upper - iv.Lower) / (2 * normalQuantile(1-(1-opts.Confidence)/2))
		m.LikelyDrop = *m.Delta+normalQuantile(0.9)*se < -me
		m.TrialsToSettle = settle()
		how := "more trials are unlikely to settle it (the change is close to the minimum effect or differs a lot between tasks)"
		if m.TrialsToSettle > 0 {
			how = fmt.Sprintf("about %d trials per task would likely settle it", m.TrialsToSettle)
		}
		m.Message = fmt.Sprintf("inconclusive: %s changed by %s, which straddles −%.2f; %s", label, span, me, how)
	}
}

// trialInterval is the interval of a metric's mean change over few tasks, taken as fixed: the
// uncertainty is that of each task's trials only. It is centred on the observed change; each
// side's variance is m̃(1−m̃)/trials with m̃ the side's mean after one pseudo-pass and one
// pseudo-fail (as in Agresti–Caffo), so a side whose trials all agreed still counts as uncertain.
// A trial score in [0, 1] with mean m has a variance of at most m(1−m), so the same form bounds
// the score's interval.
type trialInterval struct {
	n     int
	delta float64 // the observed mean change
	unit  float64 // Σ m̃(1−m̃) over tasks and sides, ÷ n²: the variance at one trial per side
	vari  float64 // the variance of delta at the actual trial counts
}

func newTrialInterval(pairs [][2]trialFigures, score bool) trialInterval {
	t := trialInterval{n: len(pairs)}
	for _, p := range pairs {
		for side, s := range p {
			trials := float64(s.passTrials)
			mean := s.passRate
			if score {
				trials, mean = float64(s.scoreTrials), s.score
			}
			if side == 0 {
				t.delta -= mean
			} else {
				t.delta += mean
			}
			m := (mean*trials + 1) / (trials + 2)
			t.unit += m * (1 - m)
			t.vari += m * (1 - m) / trials
		}
	}
	fn := float64(t.n)
	t.delta /= fn
	t.unit /= fn * fn
	t.vari /= fn * fn
	return t
}

func (t trialInterval) interval(confidence float64) *results.Interval {
	half := normalQuantile(1-(1-confidence)/2) * math.Sqrt(t.vari)
	return &results.Interval{Lower: clean(math.Max(-1, t.delta-half)), Upper: clean(math.Min(1, t.delta+half))}
}

// trialsToSettle is the trials per task and side at which the interval would no longer
// straddle −min_effect with 80% probability, if the observed change held.
func (t trialInterval) trialsToSettle(observed float64, trials int, opts CompareOptions) int {
	gap := math.Abs(observed + opts.MinEffect)
	z := normalQuantile(1-(1-opts.Confidence)/2) + normalQuantile(0.8)
	if gap == 0 || t.unit <= 0 {
		return 0
	}
	need := math.Ceil(t.unit * z * z / (gap * gap))
	if need <= float64(trials) {
		need = float64(trials) + 1
	}
	if need > 1000 || !finite(need) {
		return 0
	}
	return int(need)
}

// within holds the average within-task variance of a task's delta at the current trial counts.
type within struct {
	score, pass float64
	trials      int // typical trials per task and side (the median of the smaller side)
}

func withinVariances(pairs [][2]trialFigures) within {
	var w within
	if len(pairs) == 0 {
		return w
	}
	var counts []int
	known := 0
	for _, p := range pairs {
		b, h := p[0], p[1]
		counts = append(counts, min(b.trials, h.trials))
		if b.trials < 2 || h.trials < 2 {
			continue
		}
		known++
		unbias := func(v float64, n int) float64 { return v * float64(n) / float64(n-1) }
		w.score += unbias(b.scoreVariance, b.trials)/float64(b.scoreTrials) + unbias(h.scoreVariance, h.trials)/float64(h.scoreTrials)
		w.pass += unbias(b.passRate*(1-b.passRate), b.passTrials)/float64(b.passTrials) + unbias(h.passRate*(1-h.passRate), h.passTrials)/float64(h.passTrials)
	}
	sort.Ints(counts)
	w.trials = counts[len(counts)/2]
	if known > 0 {
		w.score /= float64(known)
		w.pass /= float64(known)
	} else {
		w.score, w.pass = -1, -1 // unknown: one trial per task
	}
	return w
}

// trialsToSettle estimates the trials per task and side at which an interval of the same centre
// would exclude −min_effect with 80% probability. The spread of task deltas splits into
// trial noise (shrinks with more trials) and real differences between tasks (does not).
func trialsToSettle(deltas []float64, mean, withinVar float64, trials int, opts CompareOptions) int {
	n := len(deltas)
	if n < 2 || trials < 1 {
		return 0
	}
	var ss float64
	for _, d := range deltas {
		ss += (d - mean) * (d - mean)
	}
	total := ss / float64(n-1)
	if withinVar < 0 { // one trial per task: all the spread is treated as trial noise
		withinVar = total
	}
	between := math.Max(0, total-withinVar)
	gap := math.Abs(mean + opts.MinEffect)
	z := normalQuantile(1-(1-opts.Confidence)/2) + normalQuantile(0.8)
	den := float64(n)*(gap/z)*(gap/z) - between
	if den <= 0 || withinVar <= 0 {
		return 0
	}
	need := math.Ceil(float64(trials) * withinVar / den)
	if need <= float64(trials) {
		need = float64(trials) + 1
	}
	if need > 1000 || !finite(need) {
		return 0
	}
	return int(need)
}

func listNames(names []string, limit int) string {
	if len(names) <= limit {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:limit], ", ") + fmt.Sprintf(" and %d more", len(names)-limit)
}

// suiteVerdict combines the metric verdicts: regressed if any metric regressed, improved if
// any improved and none regressed, else inconclusive, with a message that tells "no drop
// beyond min_effect" (ruled out, or not even seen) from "a drop is seen but not settled".
func suiteVerdict(c *Comparison, opts CompareOptions) (Verdict, string) {
	var regressed, improved []*MetricComparison
	for _, m := range c.Metrics {
		switch m.Verdict {
		case VerdictRegressed:
			regressed = append(regressed, m)
		case VerdictImproved:
			improved = append(improved, m)
		}
	}
	what := "this run"
	if c.Mode == ModeUplift {
		what = "the skill"
	}
	switch {
	case len(regressed) > 0:
		return VerdictRegressed, fmt.Sprintf("Regressed: %s.", regressed[0].Message)
	case len(improved) > 0:
		return VerdictImproved, fmt.Sprintf("Improved: %s.", improved[0].Message)
	}
	score, pass := c.Metric(MetricScore), c.Metric(MetricPassRate)
	if score == nil || score.Tasks == 0 {
		if c.Changes.YardstickChanged > 0 {
			return VerdictInconclusive, fmt.Sprintf("Nothing to compare: the definitions of %s changed, so their results are not comparable.", plural(c.Changes.YardstickChanged, "shared task"))
		}
		return VerdictInconclusive, "Inconclusive: no shared tasks to compare."
	}
	for _, m := range []*MetricComparison{score, pass} {
		if m.LikelyDrop {
			return VerdictInconclusive, "Inconclusive: " + strings.TrimPrefix(m.Message, "inconclusive: ") + "."
		}
	}
	if c.identical() {
		return VerdictInconclusive, fmt.Sprintf("No change: every shared task has the same pass rate and score on both sides (%s).", plural(score.Tasks, "task"))
	}
	if score.NoRegression && pass.NoRegression {
		return VerdictInconclusive, fmt.Sprintf("No regression of %s: %s.", what, strings.TrimPrefix(score.Message, "no regression: "))
	}
	// No likely drop beyond min_effect, but the trials are too few to rule one out.
	loose := score
	if score.NoRegression {
		loose = pass
	}
	msg := fmt.Sprintf("No clear change: mean score %s, pass rate %s, within the noise of these trials", signed(*score.Delta), signedPoints(*pass.Delta))
	if loose.Interval != nil {
		lower := -loose.Interval.Lower
		if loose.Name == MetricPassRate {
			msg += fmt.Sprintf("; these trials cannot rule out a pass-rate drop up to %.0f pp", lower*100)
		} else {
			msg += fmt.Sprintf("; these trials cannot rule out a score drop up to %.2f", lower)
		}
		if loose.TrialsToSettle > 0 {
			msg += fmt.Sprintf(" (about %d trials per task would)", loose.TrialsToSettle)
		}
	}
	return VerdictInconclusive, msg + "."
}

// identical: every compared task has the same pass rate and score on both sides.
func (c *Comparison) identical() bool {
	compared := 0
	for _, t := range c.Tasks {
		if t.Status != TaskPaired {
			continue
		}
		compared++
		if *t.PassRateDelta != 0 || *t.ScoreDelta != 0 {
			return false
		}
	}
	return compared > 0
}

// Unsettled reports a comparison whose drop is likely (MetricComparison.LikelyDrop) but not
// shown: the one inconclusive case that deserves a warning. Identical results, or changes within
// the noise of the trials, are not unsettled however few the trials.
func (c *Comparison) Unsettled() bool {
	if c == nil || c.NoBaseline || c.Verdict != VerdictInconclusive {
		return false
	}
	for _, name := range []string{MetricScore, MetricPassRate} {
		if m := c.Metric(name); m != nil && m.LikelyDrop {
			return true
		}
	}
	return false
}

func describeSide(label, file string, s *results.SuiteResult) Side {
	side := Side{Label: label, File: file, EvalID: s.EvalID, Model: s.Config.ModelID, Executor: s.Config.EngineType, DurationMS: s.Summary.DurationMS, Incomplete: s.Incomplete}
	if !s.Timestamp.IsZero() {
		ts := s.Timestamp
		side.Timestamp = &ts
	}
	if p := s.Provenance; p != nil {
		side.Commit = p.GitCommit
		if p.Executor != "" {
			side.Executor = p.Executor
		}
		if p.Model != "" {
			side.Model = p.Model
		}
	}
	// The side's figures are the suite's own summary (docs/results.md#summary), so the
	// comparison, JUnit and every report show what the results file says.
	sum := s.Summary
	side.Tasks, side.Trials = sum.TotalTests, sum.TotalRuns
	if sum.Ran() > 0 {
		side.AggregateScore = ptr(sum.AggregateScore)
		side.PassRate = ptr(sum.PassRate)
		side.SuccessRate = ptr(sum.SuccessRate)
	}
	return side
}

func floors(base, head *results.SuiteResult) []Floor {
	var out []Floor
	for _, name := range head.SortedMetricNames() {
		m := head.Metrics[name]
		if m == nil {
			continue
		}
		f := Floor{Name: name, Value: clean(m.Value), Threshold: clean(m.Threshold), Passed: m.Passed, Source: m.Source}
		if base != nil {
			if bm := base.Metrics[name]; bm != nil {
				f.Base = ptr(bm.Value)
				f.Delta = deltaPtr(f.Base, ptr(m.Value))
				passed := results.MetricPassed(bm.Value, m.Threshold)
				f.BasePassed = &passed
			}
		}
		out = append(out, f)
	}
	return out
}

func compareTriggers(base, head *results.SuiteResult) *TriggerComparison {
	if head.TriggerMetrics == nil && (base == nil || base.TriggerMetrics == nil) {
		return nil
	}
	t := &TriggerComparison{}
	if tm := head.TriggerMetrics; tm != nil {
		t.Head, t.HeadPrecision, t.HeadRecall = ptr(tm.Accuracy), ptr(tm.Precision), ptr(tm.Recall)
	}
	if base != nil && base.TriggerMetrics != nil {
		tm := base.TriggerMetrics
		t.Base, t.BasePrecision, t.BaseRecall = ptr(tm.Accuracy), ptr(tm.Precision), ptr(tm.Recall)
	}
	t.Delta = deltaPtr(t.Base, t.Head)
	t.DeltaPrecision = deltaPtr(t.BasePrecision, t.HeadPrecision)
	t.DeltaRecall = deltaPtr(t.BaseRecall, t.HeadRecall)
	if m := head.Metrics[results.MetricTriggerAccuracy]; m != nil {
		t.Threshold = ptr(m.Threshold)
	}
	return t
}

func taskSide(s taskSample) TaskSide {
	ts := TaskSide{Status: s.status(), Trials: s.trials, Passed: s.passed, Errors: s.errors}
	if s.ok {
		ts.PassRate, ts.Score = ptr(s.passRate), ptr(s.score)
	}
	return ts
}

func taskRef(s taskSample, change string) TaskRef {
	r := TaskRef{ID: s.key, Name: s.name(), Change: change, Status: s.status(), Source: s.d.Source()}
	r.Passed = s.allPassed() || (!s.ok && s.status() == results.StatusPassed) || s.skipped
	if s.ok {
		r.PassRate, r.Score = ptr(s.passRate), ptr(s.score)
	}
	return r
}

// ptr returns a pointer to x, or nil when x is not a finite number (so NaN never reaches JSON).
func ptr(x float64) *float64 {
	if !finite(x) {
		return nil
	}
	return &x
}

func deltaPtr(base, head *float64) *float64 {
	if base == nil || head == nil {
		return nil
	}
	return ptr(*head - *base)
}

// clean maps a non-finite number to 0 for fields that must always be present.
func clean(x float64) float64 {
	if !finite(x) {
		return 0
	}
	return x
}

// signedBound formats an interval bound, with more decimals when two would make it look equal
// to ±minEffect while it is not (so "−0.02 straddles −0.02" never appears).
func signedBound(x, minEffect float64) string {
	for prec := 2; prec <= 6; prec++ {
		s := signedPrec(x, prec)
		if x == minEffect || x == -minEffect || (s != signedPrec(minEffect, prec) && s != signedPrec(-minEffect, prec)) {
			return s
		}
	}
	return signedPrec(x, 6)
}

func signedPrec(x float64, prec int) string {
	if math.Abs(x) < 0.5*math.Pow(10, -float64(prec)) {
		x = 0
	}
	s := strconv.FormatFloat(x, 'f', prec, 64)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	} else {
		s = "−" + s[1:]
	}
	return s
}

// signed formats a change with an explicit sign and a true minus sign.
func signed(x float64) string {
	if math.Abs(x) < 0.005 {
		x = 0
	}
	s := fmt.Sprintf("%+.2f", x)
	if strings.HasPrefix(s, "-") {
		s = "−" + s[1:]
	}
	return s
}
