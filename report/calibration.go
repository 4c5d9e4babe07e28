package report

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// The calibration review sheet (`skillgate calibrate`) and the report lines about human review:
// grades awaiting a label and how LLM judges agree with the labels.

// SheetOptions control a review sheet.
type SheetOptions struct {
	// Sample is how many runs to sample (default 20): half passes, half failures of the grader,
	// the rest from the other group when one is short.
	Sample int
	// Seed makes the sample reproducible (the same results and seed give the same sheet).
	Seed uint64
	// Grader names the grader whose verdicts are reviewed; "" takes the first LLM grader found
	// (by name), else the runs' own status.
	Grader string
	// LabelsFile is the labels file name the sheet tells the reviewer to fill in.
	LabelsFile string
}

// Sheet is a review sheet and its labels-file skeleton.
type Sheet struct {
	Markdown string
	Labels   string
	Grader   string // the grader reviewed ("" for the run status)
	Sampled  int
	// Passes and Failures are the sizes of the two strata sampled from.
	Passes, Failures int
}

// sheetRun is one candidate run.
type sheetRun struct {
	suite   *results.SuiteResult
	task    *results.TaskResult
	run     *results.RunResult
	verdict *results.GraderResult // nil when the run status is reviewed
	passed  bool
	order   int
}

const (
	sheetOutputChars = 500
	sheetPromptChars = 1500
)

// CalibrationSheet samples runs of the suites for a person to label (peers' calibration
// workflow): passes and failures of the reviewed grader, stratified and seeded, each with its
// prompt, an output excerpt, a trajectory snippet and the grader's verdict.
func CalibrationSheet(suites []*results.SuiteResult, o SheetOptions) (*Sheet, error) {
	if o.Sample <= 0 {
		o.Sample = 20
	}
	if o.LabelsFile == "" {
		o.LabelsFile = "labels.yaml"
	}
	grader := o.Grader
	if grader == "" {
		grader = firstJudge(suites)
	}
	var passes, fails []*sheetRun
	found := false
	order := 0
	for _, s := range suites {
		for _, t := range s.Tasks {
			for _, r := range t.Runs {
				order++
				c := &sheetRun{suite: s, task: t, run: r, order: order}
				if grader != "" {
					v := r.Validations.Get(grader)
					if v == nil {
						continue
					}
					found = true
					if v.Status == results.StatusError || v.Status == results.StatusPending {
						continue
					}
					c.verdict, c.passed = v, v.Passed
				} else {
					if r.Status != results.StatusPassed && r.Status != results.StatusFailed {
						continue
					}
					c.passed = r.Status == results.StatusPassed
				}
				if c.passed {
					passes = append(passes, c)
				} else {
					fails = append(fails, c)
				}
			}
		}
	}
	if grader != "" && !found {
		return nil, fmt.Errorf("no run has a grader named %q", grader)
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x5eed))
	rng.Shuffle(len(passes), func(i, j int) { passes[i], passes[j] = passes[j], passes[i] })
	rng.Shuffle(len(fails), func(i, j int) { fails[i], fails[j] = fails[j], fails[i] })
	wantFails := min((o.Sample+1)/2, len(fails))
	wantPasses := min(o.Sample-wantFails, len(passes))
	wantFails = min(o.Sample-wantPasses, len(fails))
	sample := append(append([]*sheetRun{}, passes[:wantPasses]...), fails[:wantFails]...)
	sort.Slice(sample, func(i, j int) bool { return sample[i].order < sample[j].order })

	sh := &Sheet{Grader: grader, Sampled: len(sample), Passes: len(passes), Failures: len(fails)}
	sh.Markdown = sheetMarkdown(sample, grader, o, sh)
	sh.Labels = sheetLabels(sample, grader, o)
	return sh, nil
}

// firstJudge is the first LLM grader name (sorted) found in the results.
func firstJudge(suites []*results.SuiteResult) string {
	names := map[string]bool{}
	for _, s := range suites {
		for _, t := range s.Tasks {
			for _, r := range t.Runs {
				for _, v := range r.Validations {
					if results.IsJudge(v.Type) {
						names[v.Name] = true
					}
				}
			}
		}
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	if len(sorted) == 0 {
		return ""
	}
	return sorted[0]
}

func verdictWord(passed bool) string {
	if passed {
		return "PASS"
	}
	return "FAIL"
}

func sheetMarkdown(sample []*sheetRun, grader string, o SheetOptions, sh *Sheet) string {
	var b strings.Builder
	reviewed := "each run's status"
	if grader != "" {
		reviewed = "the verdicts of the grader `" + grader + "`"
	}
	fmt.Fprintf(&b, "# Calibration review sheet\n\n")
	fmt.Fprintf(&b, "This sheet samples %d runs (seed %d) to check %s against a person's judgement: %d from the %d the grader passed and %d from the %d it failed.\n\n",
		len(sample), o.Seed, reviewed, countPassed(sample, true), sh.Passes, countPassed(sample, false), sh.Failures)
	fmt.Fprintf(&b, "For each run, decide whether it should pass, and write your verdict into `%s` (`pass: true` or `pass: false`, or `score: 0–1`, and a note). "+
		"Judge the run itself, not the grader: when you disagree with the grader, that is what calibration is for. Leave `pass: null` to skip a run.\n\n", o.LabelsFile)
	fmt.Fprintf(&b, "Then regrade without re-running the agent:\n\n```sh\nskillgate run SUITE --from RESULTS --labels %s\n```\n\n", o.LabelsFile)
	b.WriteString("With a `human_calibration` grader naming the LLM grader, the results report agreement, Cohen's kappa and the false-pass and false-fail rates. Targets worth aiming for: agreement above 90%, false passes and false failures under 5%, and 30 or more labelled runs for a critical suite.\n\n")
	for i, c := range sample {
		fmt.Fprintf(&b, "## %d. `%s` trial %d — ", i+1, c.task.ID, c.run.RunNumber)
		if c.verdict != nil {
			fmt.Fprintf(&b, "%s says %s (score %.2f)\n\n", grader, verdictWord(c.passed), c.verdict.Score)
		} else {
			fmt.Fprintf(&b, "run %s\n\n", c.run.Status)
		}
		fmt.Fprintf(&b, "Suite %s · task %s · run status %s · run score %.2f", mdCode(c.suite.EvalName, 80), mdCell(c.task.Name, 100), c.run.Status, c.run.Score)
		if c.task.Source != nil {
			fmt.Fprintf(&b, " · %s:%d", c.task.Source.File, c.task.Source.Line)
		}
		b.WriteString("\n\n**Prompt**\n\n")
		if c.task.Prompt != "" {
			b.WriteString(quoteBlock(truncateText(c.task.Prompt, sheetPromptChars)))
		} else {
			b.WriteString("_(not recorded in this results file)_\n")
		}
		fmt.Fprintf(&b, "\n**Output** (first %d characters)\n\n", sheetOutputChars)
		b.WriteString(fenced(truncateText(c.run.FinalOutput, sheetOutputChars)))
		if steps := trajectorySnippet(c.run); len(steps) > 0 {
			b.WriteString("\n**Trajectory** (first two, middle and last two tool calls)\n\n")
			for _, s := range steps {
				b.WriteString(s)
			}
		}
		if len(c.run.ChangedFiles) > 0 {
			var files []string
			for _, f := range c.run.ChangedFiles {
				files = append(files, fmt.Sprintf("%s (%s)", f.Path, f.Change))
			}
			fmt.Fprintf(&b, "\n**Changed files:** %s\n", mdCell(strings.Join(files, ", "), 500))
		}
		if c.verdict != nil {
			fmt.Fprintf(&b, "\n**Verdict of `%s` (%s):** %s, score %.2f — %s\n", grader, c.verdict.Type, verdictWord(c.passed), c.verdict.Score, mdCell(c.verdict.Feedback, 600))
		}
		fmt.Fprintf(&b, "\n**Your label** → `%s`, task `%s`, trial `%d`: ☐ pass ☐ fail · note:\n\n---\n\n", o.LabelsFile, c.task.ID, c.run.RunNumber)
	}
	if len(sample) == 0 {
		b.WriteString("_No run could be sampled: every run errored, is pending, or lacks the grader._\n")
	}
	return b.String()
}

func countPassed(sample []*sheetRun, passed bool) int {
	n := 0
	for _, c := range sample {
		if c.passed == passed {
			n++
		}
	}
	return n
}

// sheetLabels is the labels-file skeleton of the sample: every entry `pass: null` (not labelled
// yet), with the grader's verdict as a comment.
func sheetLabels(sample []*sheetRun, grader string, o SheetOptions) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Human labels for the runs of the calibration review sheet (seed %d).\n", o.Seed)
	b.WriteString("# Set pass: true or false (or score: 0-1) and a note for each run; pass: null skips it.\n")
	fmt.Fprintf(&b, "# Then: skillgate run SUITE --from RESULTS --labels %s\n", o.LabelsFile)
	byTask := map[string][]*sheetRun{}
	var tasks []string
	for _, c := range sample {
		if _, ok := byTask[c.task.ID]; !ok {
			tasks = append(tasks, c.task.ID)
		}
		byTask[c.task.ID] = append(byTask[c.task.ID], c)
	}
	for _, id := range tasks {
		fmt.Fprintf(&b, "%s:\n", yamlKey(id))
		for _, c := range byTask[id] {
			what := "run " + string(c.run.Status)
			if c.verdict != nil {
				what = fmt.Sprintf("%s says %s (score %.2f)", grader, strings.ToLower(verdictWord(c.passed)), c.verdict.Score)
			}
			fmt.Fprintf(&b, "  %d:  # %s\n    pass: null\n    note: \"\"\n", c.run.RunNumber, what)
		}
	}
	return b.String()
}

// yamlKey quotes a task id when YAML would not read it back as the same string.
func yamlKey(s string) string {
	plain := s != "" && !strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`\n\t ") && !strings.HasPrefix(s, "-") && !strings.HasPrefix(s, "?")
	if plain {
		if _, err := strconv.ParseFloat(s, 64); err != nil {
			switch strings.ToLower(s) {
			case "true", "false", "yes", "no", "on", "off", "null", "~":
			default:
				return s
			}
		}
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// trajectorySnippet is the first two, the middle and the last two tool calls.
func trajectorySnippet(r *results.RunResult) []string {
	calls := r.Digest().ToolCalls
	idx := []int{}
	if len(calls) <= 5 {
		for i := range calls {
			idx = append(idx, i)
		}
	} else {
		idx = []int{0, 1, len(calls) / 2, len(calls) - 2, len(calls) - 1}
	}
	var out []string
	prev := -1
	for _, i := range idx {
		if prev >= 0 && i > prev+1 {
			out = append(out, "- …\n")
		}
		prev = i
		c := calls[i]
		args := ""
		if len(c.Arguments) > 0 {
			data, _ := json.Marshal(c.Arguments)
			args = " " + mdCode(truncateText(string(data), 200), 220)
		}
		out = append(out, fmt.Sprintf("- %d. `%s`%s → %s\n", i+1, strings.ReplaceAll(c.Name, "`", ""), args, outcomeWord(c)))
	}
	return out
}

func truncateText(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + " …"
}

func quoteBlock(s string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString("> " + line + "\n")
	}
	return b.String()
}

func fenced(s string) string {
	fence := "```"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + "text\n" + strings.TrimRight(s, "\n") + "\n" + fence + "\n"
}

// reviewLines are the terminal lines about human review of one suite: grades awaiting a label
// and each judge's agreement with the labels.
func reviewLines(r *results.SuiteResult) []string { return (&Suite{Result: r}).reviewLines() }

func (s *Suite) reviewLines() []string {
	var out []string
	f := s.taskFacts()
	if human := f.pendingHuman; human > 0 {
		out = append(out, fmt.Sprintf("%s awaiting human review (label them, then rerun with --from and --labels)", plural(human, "grade")))
	}
	if deferred := f.deferred; deferred > 0 {
		out = append(out, fmt.Sprintf("%s deferred to the report workflow (LLM judges do not run on fork pull requests)", plural(deferred, "grade")))
	}
	out = append(out, s.creatorLines()...)
	for _, c := range s.Result.Calibration {
		out = append(out, calibrationText(c))
	}
	return out
}

func calibrationText(c *results.Calibration) string {
	if c.Labeled == 0 {
		return fmt.Sprintf("judge %s: no labelled runs yet (%s pending)", c.Judge, plural(c.Pending, "run"))
	}
	kappa := "n/a"
	if c.Kappa != nil {
		kappa = fmt.Sprintf("%.2f", *c.Kappa)
	}
	return fmt.Sprintf("judge %s vs human labels: agreement %.0f%%, Cohen's kappa %s, false passes %.0f%%, false failures %.0f%% over %s",
		c.Judge, c.Agreement*100, kappa, c.FalsePassRate*100, c.FalseFailRate*100, plural(c.Labeled, "labelled run"))
}

// pendingCounts splits a suite's pending grades into those awaiting a human label and those
// deferred to the fork-safe report workflow.
func pendingCounts(r *results.SuiteResult) (human, deferred int) {
	f := (&Suite{Result: r}).taskFacts()
	return f.pendingHuman, f.deferred
}

// pendingItems are a task's grades awaiting a human label, one line each.
func pendingItems(t *results.TaskResult) []string {
	var items []string
	for _, run := range t.Runs {
		for _, v := range run.Validations {
			if v.Status == results.StatusPending && !v.Deferred() && !v.AwaitsJudge() {
				items = append(items, fmt.Sprintf("- ⏳ %s trial %d: %s (%s) — %s\n", mdCode(t.ID, 60), run.RunNumber, mdCode(v.Name, 60), mdCell(v.Type, 30), mdCell(v.Feedback, 200)))
			}
		}
	}
	return items
}

// reviewSection is the markdown section listing grades awaiting review and the judges'
// calibration; nil when there is neither.
func reviewSection(r *results.SuiteResult) *mdSection {
	pending := itemList{room: SummaryLimit}
	r.EachTask(func(t *results.TaskResult) error {
		for _, item := range pendingItems(t) {
			pending.add(item)
		}
		return nil
	})
	return reviewSectionOf(r, &pending)
}

// reviewSectionOf is reviewSection from the pending grades a pass gathered.
func reviewSectionOf(r *results.SuiteResult, pending *itemList) *mdSection {
	if pending.count == 0 && len(r.Calibration) == 0 {
		return nil
	}
	head := ""
	if len(r.Calibration) > 0 {
		head += "#### Judge calibration\n\n| Judge | Labelled runs | Agreement | Cohen's κ | False passes | False failures | Pending |\n|---|---:|---:|---:|---:|---:|---:|\n"
		for _, c := range r.Calibration {
			kappa := "—"
			if c.Kappa != nil {
				kappa = fmt.Sprintf("%.2f", *c.Kappa)
			}
			head += fmt.Sprintf("| %s | %d | %.0f%% | %s | %.0f%% (%d) | %.0f%% (%d) | %d |\n", mdCode(c.Judge, 60), c.Labeled, c.Agreement*100, kappa,
				c.FalsePassRate*100, c.FalsePasses, c.FalseFailRate*100, c.FalseFailures, c.Pending)
		}
		head += "\n"
	}
	if pending.count > 0 {
		head += fmt.Sprintf("#### Awaiting human review (%s)\n\nThese grades neither pass nor fail the run until a labels file gives them a verdict (`skillgate calibrate` writes a review sheet).\n\n", thousands(pending.count))
	}
	return pending.fill(&mdSection{priority: 5, head: head, tail: "\n", always: len(r.Calibration) > 0, what: "pending grades", moreNote: "- … and %d more\n"})
}

// outcomeWord is how a tool call ended, in a word or three (docs/agents.md#tool-call-outcomes).
func outcomeWord(c results.ToolCall) string {
	switch c.Outcome {
	case results.ToolSucceeded:
		return "ok"
	case results.ToolUnknown:
		return "no result recorded"
	}
	return "failed"
}
