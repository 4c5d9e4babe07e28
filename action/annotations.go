package action

import (
	"cmp"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"

	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// Annotation levels (workflow commands); check runs call an error a "failure".
const (
	LevelError   = "error"
	LevelWarning = "warning"
	LevelNotice  = "notice"
)

// stepAnnotationLimit is GitHub's limit of workflow-command annotations per level and step;
// extras are dropped silently, so the action picks the most important ones itself.
const stepAnnotationLimit = 10

// Annotation is one finding at a file and line of the repository.
type Annotation struct {
	Level   string
	File    string // repository-relative, slash-separated; "" for findings without a place
	Line    int
	Col     int
	Title   string
	Message string
	// rank orders findings of one level: lower comes first (regressions before threshold
	// misses before failing graders before trigger prompts).
	rank int
}

// Ranks of findings.
const (
	rankRegression = iota
	rankTaskDrop
	rankThreshold
	rankIncomplete
	rankNewlyFailing
	rankFailing
	rankTrigger
	rankInconclusive
	rankOther
)

// collectAnnotations turns reports' findings into annotations, most important first within
// each level. Locations come from the results (grader, metric, task and trigger sources).
func collectAnnotations(in *report.Input, repoRoot string) []Annotation {
	var out []Annotation
	add := func(a Annotation, loc *results.Location) {
		if loc != nil && loc.File != "" {
			a.File = repoPath(repoRoot, loc.File)
			a.Line, a.Col = max(loc.Line, 1), loc.Col
		}
		a.Message = clip(a.Message, 4000)
		out = append(out, a)
	}
	for _, s := range in.Suites {
		if s == nil || s.Result == nil {
			continue
		}
		r := s.Result
		name := r.EvalName
		suiteLoc := suiteLocation(r)
		if c := s.Comparison; c.Regressed() {
			add(Annotation{Level: LevelError, rank: rankRegression, Title: fmt.Sprintf("skillgate: %s regressed", name), Message: c.Message}, suiteLoc)
		} else if c.Unsettled() {
			add(Annotation{Level: LevelWarning, rank: rankInconclusive, Title: fmt.Sprintf("skillgate: %s: drop likely, not shown", name), Message: c.Message}, suiteLoc)
		}
		if u := s.Uplift; u.Regressed() {
			add(Annotation{Level: LevelWarning, rank: rankRegression, Title: fmt.Sprintf("skillgate: %s does worse with the skill", name), Message: u.Message}, suiteLoc)
		}
		broke := map[string]bool{}
		if c := s.Comparison; c != nil {
			for _, t := range c.Tasks {
				if t.Change == report.ChangeNewFailure {
					broke[t.ID] = true
				}
				if t.Significant == report.SignificantDrop {
					add(Annotation{Level: LevelError, rank: rankTaskDrop, Title: fmt.Sprintf("skillgate: %s · %s dropped", name, t.ID),
						Message: fmt.Sprintf("pass rate %s → %s against the baseline (significant after correction for the number of tasks)", pctOf(t.Base.PassRate), pctOf(t.Head.PassRate))}, t.Source)
				}
			}
		}
		for _, mname := range r.SortedMetricNames() {
			m := r.Metrics[mname]
			if m != nil && !m.Passed {
				add(Annotation{Level: LevelError, rank: rankThreshold, Title: fmt.Sprintf("skillgate: %s · %s below threshold", name, mname),
					Message: fmt.Sprintf("%s is %.4g, below its threshold %.4g", mname, m.Value, m.Threshold)}, m.Source)
			}
		}
		if r.Incomplete {
			add(Annotation{Level: LevelError, rank: rankIncomplete, Title: fmt.Sprintf("skillgate: %s incomplete", name),
				Message: "the run was interrupted: " + r.IncompleteReason}, suiteLoc)
		}
		for _, t := range r.Tasks {
			out = append(out, taskAnnotations(t, name, broke[t.ID], repoRoot)...)
		}
		trigFailed := false
		for _, mname := range []string{results.MetricTriggerAccuracy, results.MetricTriggerPrecision, results.MetricTriggerRecall, results.MetricTriggerF1} {
			if m := r.Metrics[mname]; m != nil && !m.Passed {
				trigFailed = true
			}
		}
		for _, tr := range triggerMisses(r.TriggerResults) {
			level := LevelWarning
			if trigFailed {
				level = LevelError
			}
			want := "should trigger the skill"
			if !tr.should {
				want = "should not trigger the skill"
			}
			add(Annotation{Level: level, rank: rankTrigger, Title: fmt.Sprintf("skillgate: %s · trigger prompt %s", name, tr.id),
				Message: fmt.Sprintf("%s, but %d of %d trials got it wrong: %s", want, tr.wrong, tr.trials, clip(tr.prompt, 300))}, tr.source)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].rank < out[j].rank })
	return out
}

// taskAnnotations are a failed or errored task's findings: one per failing grader (at the
// grader's line), else the task's own error (at the task).
func taskAnnotations(t *results.TaskResult, suite string, newlyFailing bool, repoRoot string) []Annotation {
	if t == nil || (t.Status != results.StatusFailed && t.Status != results.StatusError) {
		return nil
	}
	rank, tag := rankFailing, ""
	if newlyFailing {
		rank, tag = rankNewlyFailing, " (newly failing)"
	}
	type graderAgg struct {
		res            *results.GraderResult
		failed, errors int
		feedback       string
	}
	var order []string
	byName := map[string]*graderAgg{}
	trials := 0
	var runErr string
	for _, run := range t.Runs {
		if run == nil {
			continue
		}
		trials++
		if run.Status == results.StatusError && runErr == "" {
			runErr = cmp.Or(run.ErrorMsg, run.AgentError)
		}
		for _, v := range run.Validations {
			if v == nil || v.Status == results.StatusPending || (v.Passed && v.Status != results.StatusError) {
				continue
			}
			g := byName[v.Name]
			if g == nil {
				g = &graderAgg{res: v, feedback: v.Feedback}
				byName[v.Name] = g
				order = append(order, v.Name)
			}
			if v.Status == results.StatusError {
				g.errors++
			} else {
				g.failed++
			}
		}
	}
	var out []Annotation
	place := func(a Annotation, loc *results.Location) Annotation {
		if loc != nil && loc.File != "" {
			a.File = repoPath(repoRoot, loc.File)
			a.Line, a.Col = max(loc.Line, 1), loc.Col
		}
		a.Message = clip(a.Message, 4000)
		return a
	}
	taskName := cmp.Or(t.Name, t.ID)
	for _, name := range order {
		g := byName[name]
		what := fmt.Sprintf("failed in %d of %d trials", g.failed, trials)
		if g.errors > 0 {
			what = fmt.Sprintf("could not run in %d of %d trials", g.errors, trials)
		}
		msg := fmt.Sprintf("grader %s (%s) %s of task %s%s", name, g.res.Type, what, taskName, tag)
		if g.feedback != "" {
			msg += ": " + g.feedback
		}
		loc := g.res.Source
		if loc == nil {
			loc = t.Source
		}
		out = append(out, place(Annotation{Level: LevelError, rank: rank, Title: fmt.Sprintf("skillgate: %s · %s", suite, taskName), Message: msg}, loc))
	}
	if len(out) == 0 {
		msg := cmp.Or(t.ErrorMsg, runErr)
		if msg == "" {
			msg = fmt.Sprintf("task %s %s", taskName, t.Status)
		} else {
			msg = fmt.Sprintf("task %s errored%s: %s", taskName, tag, msg)
		}
		out = append(out, place(Annotation{Level: LevelError, rank: rank, Title: fmt.Sprintf("skillgate: %s · %s", suite, taskName), Message: msg}, t.Source))
	}
	return out
}

type triggerMiss struct {
	id, prompt    string
	should        bool
	wrong, trials int
	source        *results.Location
}

// triggerMisses groups trigger results by prompt and keeps the prompts with a wrong trial.
func triggerMisses(trs []*results.TriggerResult) []*triggerMiss {
	var order []string
	by := map[string]*triggerMiss{}
	for _, tr := range trs {
		if tr == nil {
			continue
		}
		m := by[tr.ID]
		if m == nil {
			m = &triggerMiss{id: tr.ID, prompt: tr.Prompt, should: tr.ShouldTrigger, source: tr.Source}
			by[tr.ID] = m
			order = append(order, tr.ID)
		}
		m.trials++
		if tr.DidTrigger != tr.ShouldTrigger || tr.ErrorMsg != "" {
			m.wrong++
		}
	}
	var out []*triggerMiss
	for _, id := range order {
		if by[id].wrong > 0 {
			out = append(out, by[id])
		}
	}
	return out
}

// suiteLocation points at the suite's eval.yaml.
func suiteLocation(r *results.SuiteResult) *results.Location {
	if r.Provenance != nil && r.Provenance.SuiteFile != "" {
		return &results.Location{File: r.Provenance.SuiteFile, Line: 1}
	}
	return nil
}

// repoPath makes a results location repository-relative (results already are when the suite
// sat in a git checkout).
func repoPath(root, file string) string {
	if filepath.IsAbs(file) && root != "" {
		if rel, err := filepath.Rel(root, file); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(file)
}

func pctOf(p *float64) string {
	if p == nil {
		return "—"
	}
	return fmt.Sprintf("%.0f%%", *p*100)
}

// emitAnnotations prints the most important annotations as workflow commands, at most
// stepAnnotationLimit per level, and says how many more the check run and summary hold.
func emitAnnotations(w *commands, anns []Annotation) {
	count := map[string]int{}
	dropped := map[string]int{}
	for _, a := range anns {
		if count[a.Level] >= stepAnnotationLimit {
			dropped[a.Level]++
			continue
		}
		count[a.Level]++
		w.annotate(a)
	}
	var parts []string
	for _, level := range []string{LevelError, LevelWarning, LevelNotice} {
		if n := dropped[level]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d more %s(s)", n, level))
		}
	}
	if len(parts) > 0 {
		w.infof("skillgate: GitHub shows %d annotations per level and step; %s are in the job summary (and in the check run with check-run: true)", stepAnnotationLimit, strings.Join(parts, ", "))
	}
}

// checkRunAnnotations converts annotations with a place for the checks API (which requires a
// path and line).
func checkRunAnnotations(anns []Annotation) []*github.CheckRunAnnotation {
	var out []*github.CheckRunAnnotation
	for _, a := range anns {
		if a.File == "" || filepath.IsAbs(a.File) {
			continue
		}
		level := a.Level
		if level == LevelError {
			level = "failure"
		}
		out = append(out, &github.CheckRunAnnotation{
			Path: github.String(a.File), StartLine: github.Int(a.Line), EndLine: github.Int(a.Line),
			AnnotationLevel: github.String(level), Title: github.String(clip(a.Title, 255)), Message: github.String(clip(a.Message, 64000)),
		})
	}
	return out
}
