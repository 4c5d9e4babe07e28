package report

import (
	"cmp"
	"fmt"
	"sort"

	"github.com/skillgate/skillgate/results"
)

// Findings are every fact of a run worth a reviewer's look, each with its level, its place in the
// repository and whether the default gate blocks on it: failing graders and run errors of
// failing tasks, tasks and trigger prompts confirmed worse or not confirmed, missed thresholds,
// regressions, interrupted runs. They are decided here once, from each unit's change word
// (Decide); annotations, SARIF, the check run and every list of the comment render them.

// Kinds of findings.
const (
	FindingRegression = "regression" // the suite's interval regressed
	FindingUnsettled  = "unsettled"  // a drop is likely but not shown
	FindingUplift     = "uplift"     // the suite does worse with the skill than without
	FindingIncomplete = "incomplete" // the run was interrupted
	FindingThreshold  = "threshold"  // a metric below its threshold
	FindingTaskDrop   = "task"       // a task confirmed worse, or looking worse and not confirmed
	FindingGrader     = "grader"     // a grader failed (or could not run) in some trials
	FindingRunError   = "run_error"  // the agent run failed
	FindingTrigger    = "trigger"    // a trigger prompt misclassified
	FindingRemoved    = "removed"    // a task that failed on the baseline was removed
)

// Finding is one finding; see the Kind constants.
type Finding struct {
	Kind     string
	Level    string // LevelError, LevelWarning or LevelNotice
	Blocking bool
	Suite    string
	// Task is the task's key or the trigger prompt's id; Change its word against the baseline
	// ("" without a baseline or for a suite-wide finding).
	Task, Change string
	// Grader and GraderType name a grader finding's grader; Metric a threshold's metric.
	Grader, GraderType, Metric string
	Title, Message             string
	// Location is where the finding points (a grader's line, a task, a prompt, a metric); nil
	// points at the suite file, SuiteFile.
	Location  *results.Location
	SuiteFile string
	// Identity is what keeps a finding's identity from run to run (SARIF fingerprints).
	Identity []string
	// Props are machine-readable details (SARIF properties).
	Props map[string]any
	rank  int
}

// Ranks within a level: what a reviewer should read first comes first.
const (
	rankRegression = iota
	rankTaskDrop
	rankThreshold
	rankIncomplete
	rankBlockingTask
	rankTask
	rankTrigger
	rankUnsettled
	rankOther
)

// levelOrder sorts errors before warnings before notices.
var levelOrder = map[string]int{LevelError: 0, LevelWarning: 1, LevelNotice: 2}

// Place is where a finding points: its location, else line 1 of its suite file (nil without one).
func (f Finding) Place() *results.Location {
	if f.Location != nil && f.Location.File != "" {
		return f.Location
	}
	if f.SuiteFile != "" {
		return &results.Location{File: f.SuiteFile, Line: 1}
	}
	return nil
}

// Findings lists the findings of every suite, most important first: by level, then by rank.
// It reads every task (a results file OpenFile did not hold, again).
func (in *Input) Findings() []Finding {
	sts := states(in)
	c := &findingsCollector{}
	visitTasks(sts, c)
	sortFindings(c.all)
	return c.all
}

// findingsCollector gathers every finding of every suite in a pass, each suite's sorted.
type findingsCollector struct {
	all, suite []Finding
}

func (c *findingsCollector) suiteStart(st *suiteState) { c.suite = st.s.suiteFindings() }

func (c *findingsCollector) task(st *suiteState, smp taskSample) {
	c.suite = append(c.suite, st.s.taskFindingsOf(smp)...)
}

func (c *findingsCollector) suiteEnd(st *suiteState) {
	out := append(c.suite, st.s.triggerFindings(c.suite)...)
	sortFindings(out)
	c.all = append(c.all, out...)
	c.suite = nil
}

func (c *findingsCollector) finish() error { return nil }

// sortFindings orders findings by level, then rank, keeping the order within each.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		if a, b := levelOrder[fs[i].Level], levelOrder[fs[j].Level]; a != b {
			return a < b
		}
		return fs[i].rank < fs[j].rank
	})
}

// unitVerdict is what one task or trigger prompt of a suite is against its baseline.
type unitVerdict struct {
	change, why, level string
	blocking           bool
}

// promptVerdicts are the words of a suite's trigger prompts by id.
func (s *Suite) promptVerdicts() map[string]unitVerdict {
	out := map[string]unitVerdict{}
	if c := s.Comparison; c != nil {
		for _, p := range c.Prompts {
			out[p.ID] = unitVerdict{change: p.Change, why: p.Why, level: p.Level, blocking: p.Blocking}
		}
	}
	return out
}

// failing: the task ran and did not pass (failed or errored).
func failing(smp taskSample) bool {
	if smp.skipped || smp.allPassed() {
		return false
	}
	status := smp.status()
	return smp.ok || status == results.StatusError || status == results.StatusFailed
}

// failingLevel is the level of a failing task's findings: its word's, and at least a notice.
func failingLevel(v unitVerdict) string {
	return cmp.Or(v.level, LevelNotice)
}

// suiteFile is the suite's file, where findings without a place of their own point.
func (s *Suite) suiteFile() string {
	if p := s.Result.Provenance; p != nil {
		return p.SuiteFile
	}
	return ""
}

// suiteFindings are the findings of a suite that come before its tasks' (the order findings
// of one rank keep): its regression, a likely drop, removed failing tasks, the skill hurting,
// missed thresholds and an interrupted run.
func (s *Suite) suiteFindings() []Finding {
	r := s.Result
	name, suiteFile := suiteName(r), s.suiteFile()
	var out []Finding
	add := func(f Finding) {
		f.Suite, f.SuiteFile = name, suiteFile
		out = append(out, f)
	}
	if c := s.Comparison; c != nil {
		for _, m := range c.Metrics {
			if m.Verdict == VerdictRegressed && m.Name != MetricTasks {
				add(Finding{Kind: FindingRegression, Level: LevelError, Blocking: true, rank: rankRegression, Title: fmt.Sprintf("%s regressed", name),
					Message: m.Message, Identity: []string{"suite"}})
				break
			}
		}
		if c.Unsettled() {
			add(Finding{Kind: FindingUnsettled, Level: LevelWarning, rank: rankUnsettled, Title: fmt.Sprintf("%s: drop likely, not shown", name), Message: c.Message, Identity: []string{"unsettled"}})
		}
		for _, t := range c.RemovedTasks {
			if !t.Passed {
				add(Finding{Kind: FindingRemoved, Level: LevelWarning, rank: rankOther, Task: t.ID, Change: ChangeRemoved,
					Title: fmt.Sprintf("%s · %s removed", name, t.ID), Message: fmt.Sprintf("task %s failed on the baseline and is gone: removing a failing task hides it", t.ID), Identity: []string{"removed", t.ID}})
			}
		}
	}
	if u := s.Uplift; u.Regressed() {
		add(Finding{Kind: FindingUplift, Level: LevelWarning, rank: rankRegression, Title: fmt.Sprintf("%s does worse with the skill", name), Message: u.Message, Identity: []string{"uplift"}})
	}
	out = append(out, s.thresholdFindings(name, suiteFile)...)
	if r.Incomplete {
		add(Finding{Kind: FindingIncomplete, Level: LevelError, Blocking: true, rank: rankIncomplete, Title: fmt.Sprintf("%s incomplete", name),
			Message: "the run was interrupted: " + r.IncompleteReason, Identity: []string{"incomplete"}})
	}
	return out
}

// taskFindingsOf are one task's findings (smp.task is the whole task): the change itself for a
// task that looks worse yet passes by its own rule, every failing grader and run error of a
// failing task.
func (s *Suite) taskFindingsOf(smp taskSample) []Finding {
	v := s.verdictOf(smp)
	name, suiteFile := suiteName(s.Result), s.suiteFile()
	var out []Finding
	switch v.change {
	case ChangeNewFailure, ChangeWorse, ChangeAddedFailing, ChangeUnconfirmed:
		if failing(smp) {
			break // its grader findings carry the word and why
		}
		// A task that passes by its own rule (a task pass threshold) yet less often than on
		// the base: the change itself, at the task.
		out = append(out, Finding{Kind: FindingTaskDrop, Level: v.level, Blocking: v.blocking, rank: rankTaskDrop, Task: smp.key, Change: v.change, Location: smp.task.Source,
			Title:   fmt.Sprintf("%s · %s: %s", name, taskName(smp.task), changeWord(v.change)),
			Message: fmt.Sprintf("task %s, %s: %s", taskName(smp.task), changeWord(v.change), v.why), Identity: []string{"drop", smp.key}})
	}
	if failing(smp) {
		out = append(out, taskFindings(name, smp, v)...)
	}
	for i := range out {
		out[i].Suite, out[i].SuiteFile = name, suiteFile
	}
	return out
}

// triggerFindings are the misclassified trigger prompts of a suite, after its other findings
// (before: those of the suite and its tasks, which say whether a trigger threshold blocks).
func (s *Suite) triggerFindings(before []Finding) []Finding {
	r := s.Result
	name, suiteFile := suiteName(r), s.suiteFile()
	var out []Finding
	prompts := s.promptVerdicts()
	trigBlocking := false
	for _, f := range before {
		if f.Kind == FindingThreshold && f.Blocking && isTriggerMetric(f.Metric) {
			trigBlocking = true
		}
	}
	for _, t := range sampleTriggers(r.TriggerResults) {
		if t.correct == t.trials {
			continue
		}
		v := prompts[t.id]
		level, blocking := failingLevel(v), v.blocking
		if s.Comparison == nil || s.Comparison.NoBaseline {
			level, blocking = LevelWarning, false
		}
		if trigBlocking && level != LevelError {
			// The prompt is part of a missed trigger threshold that blocks.
			level = LevelError
		}
		msg := fmt.Sprintf("%s, but %d of %d trials got it wrong: %s", t.expectation(), t.trials-t.correct, t.trials, truncate(collapseSpace(t.prompt), 300))
		if t.errs > 0 {
			msg += fmt.Sprintf(" (%d trials errored: %s)", t.errs, truncate(collapseSpace(t.firstError), 200))
		}
		if v.why != "" {
			msg += " — " + v.why
		}
		out = append(out, Finding{Kind: FindingTrigger, Level: level, Blocking: blocking, rank: rankTrigger, Task: t.id, Change: v.change, Location: t.source,
			Suite: name, SuiteFile: suiteFile,
			Title: fmt.Sprintf("%s · trigger prompt %s%s", name, t.id, wordSuffix(v.change)), Message: "trigger prompt " + t.id + wordSuffix(v.change) + " " + msg, Identity: []string{"trigger", t.id},
			Props: map[string]any{"should_trigger": t.should, "trials": t.trials, "correct": t.correct}})
	}
	return out
}

func isTriggerMetric(name string) bool {
	switch name {
	case results.MetricTriggerAccuracy, results.MetricTriggerPrecision, results.MetricTriggerRecall, results.MetricTriggerF1:
		return true
	}
	return false
}

// thresholdFindings are the suite's missed thresholds: blocking when this run brings the miss
// (the baseline met it and the evidence confirms the drop, or there is no baseline); a warning
// when the miss is within the noise or the baseline missed it too.
func (s *Suite) thresholdFindings(name, suiteFile string) []Finding {
	var out []Finding
	var fl []Floor
	if c := s.Comparison; c != nil {
		fl = c.Floors
	} else {
		fl = floors(nil, s.Result)
	}
	compared := s.Comparison != nil && !s.Comparison.NoBaseline
	for _, f := range fl {
		if f.Passed {
			continue
		}
		level, blocking, why := LevelError, true, ""
		switch {
		case compared && f.BasePassed != nil && !*f.BasePassed:
			level, blocking, why = LevelWarning, false, "; the baseline missed it too"
		case compared && f.Noise:
			level, blocking, why = LevelWarning, false, "; within the noise of the trials: no task or prompt it counts was confirmed worse"
		}
		out = append(out, Finding{Kind: FindingThreshold, Level: level, Blocking: blocking, rank: rankThreshold, Suite: name, SuiteFile: suiteFile, Metric: f.Name,
			Location: f.Source, Title: fmt.Sprintf("%s · %s below threshold", name, f.Name),
			Message: fmt.Sprintf("%s is %.4g, below its threshold %.4g%s", f.Name, f.Value, f.Threshold, why), Identity: []string{"metric", f.Name}})
	}
	return out
}

// graderOutcome aggregates one grader of one task over the task's trials.
type graderOutcome struct {
	name, typ                   string
	ran, failed, errored        int
	scoreSum                    float64
	firstFeedback, firstErrored string
	source                      *results.Location
}

// taskFindings are a failing task's findings at the level its word gives: one per failing
// grader (at the grader's line), and one for runs that errored before any grader.
func taskFindings(suite string, smp taskSample, v unitVerdict) []Finding {
	t := smp.task
	name := taskName(t)
	level := failingLevel(v)
	rank := rankTask
	if v.blocking {
		rank = rankBlockingTask
	}
	tag := wordSuffix(v.change)
	var order []string
	byName := map[string]*graderOutcome{}
	errorRuns := 0
	var firstRunError string
	for _, r := range t.Runs {
		graderError := false
		for _, val := range r.Validations {
			if val.Status == results.StatusPending {
				continue
			}
			g := byName[val.Name]
			if g == nil {
				g = &graderOutcome{name: val.Name, typ: val.Type}
				byName[val.Name] = g
				order = append(order, val.Name)
			}
			if g.source == nil {
				g.source = val.Source
			}
			g.ran++
			g.scoreSum += clean(val.Score)
			switch {
			case val.Status == results.StatusError:
				g.errored++
				graderError = true
				if g.firstErrored == "" {
					g.firstErrored = val.Feedback
				}
			case !val.Passed:
				g.failed++
				if g.firstFeedback == "" {
					g.firstFeedback = val.Feedback
				}
			}
		}
		if r.Status == results.StatusError && !graderError {
			errorRuns++
			if firstRunError == "" {
				firstRunError = runError(r)
			}
		}
	}
	var out []Finding
	for _, gname := range order {
		g := byName[gname]
		if g.failed == 0 && g.errored == 0 {
			continue
		}
		loc := cmp.Or(g.source, t.Source)
		var msg string
		if g.errored > 0 {
			msg = fmt.Sprintf("grader %s (%s) could not run in %d of %d trials of task %s%s: %s", g.name, g.typ, g.errored, g.ran, name, tag, truncate(collapseSpace(g.firstErrored), 500))
		} else {
			msg = fmt.Sprintf("grader %s (%s) failed in %d of %d trials of task %s%s (mean score %.2f): %s", g.name, g.typ, g.failed, g.ran, name, tag, g.scoreSum/float64(g.ran), truncate(collapseSpace(g.firstFeedback), 500))
		}
		if v.why != "" {
			msg += " — " + v.why
		}
		out = append(out, Finding{Kind: FindingGrader, Level: level, Blocking: v.blocking, rank: rank, Task: smp.key, Change: v.change,
			Grader: g.name, GraderType: g.typ, Location: loc, Title: fmt.Sprintf("%s · %s", suite, name), Message: msg,
			Identity: []string{"grader", smp.key, g.name},
			Props:    map[string]any{"task": smp.key, "grader": g.name, "trials": g.ran, "failed": g.failed, "errored": g.errored}})
	}
	if len(t.Runs) == 0 && t.Status == results.StatusError {
		errorRuns, firstRunError = 1, t.ErrorMsg // the task failed before any trial ran
	}
	if errorRuns > 0 || len(out) == 0 {
		msg := fmt.Sprintf("the agent run of task %s%s failed in %d of %d trials: %s", name, tag, errorRuns, len(t.Runs), truncate(collapseSpace(firstRunError), 500))
		switch {
		case len(t.Runs) == 0:
			msg = fmt.Sprintf("task %s%s errored before any trial ran: %s", name, tag, truncate(collapseSpace(firstRunError), 500))
		case errorRuns == 0:
			msg = fmt.Sprintf("task %s%s %s", name, tag, t.Status)
		}
		if v.why != "" {
			msg += " — " + v.why
		}
		out = append(out, Finding{Kind: FindingRunError, Level: level, Blocking: v.blocking, rank: rank, Task: smp.key, Change: v.change,
			Location: t.Source, Title: fmt.Sprintf("%s · %s", suite, name), Message: msg, Identity: []string{"run", smp.key},
			Props: map[string]any{"task": smp.key}})
	}
	for i := range out {
		out[i].Title = fmt.Sprintf("%s%s", out[i].Title, tag)
	}
	return out
}
