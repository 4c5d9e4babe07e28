package report

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"

	"github.com/skillgate/skillgate/results"
)

// The JUnit document. Property, Result and Output are go-junit-report's; the containers are
// our own because that package's Testcase has no file/line attributes or properties, and its
// Testsuites writes testsuites@skipped, which the Jenkins schemas reject.
type junitTestsuites struct {
	XMLName  xml.Name          `xml:"testsuites"`
	Name     string            `xml:"name,attr,omitempty"`
	Time     string            `xml:"time,attr"`
	Tests    int               `xml:"tests,attr"`
	Failures int               `xml:"failures,attr"`
	Errors   int               `xml:"errors,attr"`
	Suites   []*junitTestsuite `xml:"testsuite"`
}

type junitTestsuite struct {
	Name       string            `xml:"name,attr"`
	Tests      int               `xml:"tests,attr"`
	Failures   int               `xml:"failures,attr"`
	Errors     int               `xml:"errors,attr"`
	ID         int               `xml:"id,attr"`
	Skipped    int               `xml:"skipped,attr,omitempty"`
	Time       string            `xml:"time,attr"`
	Timestamp  string            `xml:"timestamp,attr,omitempty"`
	File       string            `xml:"file,attr,omitempty"`
	Properties *[]junit.Property `xml:"properties>property,omitempty"`
	Testcases  []*junitTestcase  `xml:"testcase"`
	SystemOut  *junit.Output     `xml:"system-out,omitempty"`
}

type junitTestcase struct {
	Name       string            `xml:"name,attr"`
	Classname  string            `xml:"classname,attr"`
	Time       string            `xml:"time,attr"`
	File       string            `xml:"file,attr,omitempty"`
	Line       int               `xml:"line,attr,omitempty"`
	Properties *[]junit.Property `xml:"properties>property,omitempty"`
	Skipped    *junit.Result     `xml:"skipped,omitempty"`
	Error      *junit.Result     `xml:"error,omitempty"`
	Failure    *junit.Result     `xml:"failure,omitempty"`
	SystemOut  *junit.Output     `xml:"system-out,omitempty"`
}

func (ts *junitTestsuite) add(tc *junitTestcase) {
	ts.Testcases = append(ts.Testcases, tc)
	ts.Tests++
	switch {
	case tc.Error != nil:
		ts.Errors++
	case tc.Failure != nil:
		ts.Failures++
	case tc.Skipped != nil:
		ts.Skipped++
	}
}

func (ts *junitTestsuite) prop(name, value string) { addProp(&ts.Properties, name, value) }

func (tc *junitTestcase) prop(name, value string) { addProp(&tc.Properties, name, value) }

// addProp appends a property to a testsuite's or testcase's list, which is absent (nil) until
// the first one.
func addProp(props **[]junit.Property, name, value string) {
	list := []junit.Property{}
	if *props != nil {
		list = **props
	}
	list = append(list, junit.Property{Name: name, Value: xmlText(value)})
	*props = &list
}

// Bounds on the agent text copied into the XML, so a 10,000-task file stays readable.
const (
	junitOutputExcerpt   = 500
	junitFeedbackExcerpt = 1000
)

// WriteJUnit writes JUnit XML: per suite one <testsuite> for its tasks and one for its trigger
// tests; one <testcase> per task (classname = skill, name = task name, file/line of the task
// definition). It is written whether or not tests failed.
func WriteJUnit(w io.Writer, in *Input) error {
	sts := states(in)
	v, err := newJUnitWriter(w, in, sts)
	if err != nil {
		return err
	}
	_, err = visitTasks(sts, v)
	return err
}

// junitWriter writes the JUnit document in a pass over the tasks. Everything but the tasks'
// test cases (the shell) is encoded first, with each suite's counts taken from its digests; the
// tasks' test cases are encoded one at a time into their place, after their suite's properties.
type junitWriter struct {
	in    *Input
	bw    *bufio.Writer
	shell []byte
	cuts  []int // where each suite's task test cases go in shell
	done  int   // bytes of shell written
	enc   *xml.Encoder
	suite int // the suite being written
	err   error
}

func newJUnitWriter(w io.Writer, in *Input, sts []*suiteState) (*junitWriter, error) {
	doc := &junitTestsuites{Name: "skillgate"}
	var total float64
	id := 0
	var taskSuites []int // the position of each suite's <testsuite> among the document's
	for _, st := range sts {
		ts := junitTasks(in, st)
		ts.ID = id
		id++
		taskSuites = append(taskSuites, len(doc.Suites))
		doc.add(ts)
		total += seconds(st.s.Result.Summary.DurationMS)
		if tr := junitTriggers(in, st.s); tr != nil {
			tr.ID = id
			id++
			doc.add(tr)
		}
	}
	for _, u := range in.Unaffected {
		ts := &junitTestsuite{Name: xmlText(u.Name), ID: id, Time: "0.000"}
		id++
		reason := u.Reason
		if reason == "" {
			reason = "not affected by this change"
		}
		ts.add(&junitTestcase{Name: "(suite)", Classname: xmlText(u.Name), Time: "0.000",
			Skipped: &junit.Result{Message: xmlText("suite skipped: " + reason)}})
		doc.add(ts)
	}
	doc.Time = fmt.Sprintf("%.3f", total)

	var shell bytes.Buffer
	shell.WriteString(xml.Header)
	enc := xml.NewEncoder(&shell)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("writing JUnit XML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	shell.WriteString("\n")
	// Markup never appears in text (it is escaped), so the tags can be found by their bytes:
	// a suite's task test cases go right after its own properties, which come first in it.
	v := &junitWriter{in: in, bw: bufio.NewWriterSize(w, 64<<10), shell: shell.Bytes()}
	at, n := 0, 0
	for _, pos := range taskSuites {
		for ; n <= pos; n++ {
			at += bytes.Index(v.shell[at:], []byte("<testsuite ")) + 1
		}
		end := bytes.Index(v.shell[at:], []byte("</properties>"))
		v.cuts = append(v.cuts, at+end+len("</properties>"))
	}
	return v, nil
}

func (v *junitWriter) write(p []byte) {
	if v.err == nil {
		_, v.err = v.bw.Write(p)
	}
}

func (v *junitWriter) suiteStart(st *suiteState) {
	v.write(v.shell[v.done:v.cuts[v.suite]])
	v.done = v.cuts[v.suite]
	v.suite++
	v.enc = nil
}

func (v *junitWriter) task(st *suiteState, smp taskSample) {
	if v.err != nil {
		return
	}
	r := st.s.Result
	classname := r.Skill
	if classname == "" {
		classname = st.name
	}
	tc := junitTask(v.in, smp, classname, executorOf(r), modelOf(r), st.s.deltas()[smp.key], st.s.verdictOf(smp))
	if v.enc == nil {
		// The document's indentation at the depth of a test case.
		v.write([]byte("\n"))
		v.enc = xml.NewEncoder(v.bw)
		v.enc.Indent("    ", "  ")
	}
	if err := v.enc.EncodeElement(tc, xml.StartElement{Name: xml.Name{Local: "testcase"}}); err != nil && v.err == nil {
		v.err = fmt.Errorf("writing JUnit XML: %w", err)
	}
}

func (v *junitWriter) suiteEnd(*suiteState) {}

func (v *junitWriter) finish() error {
	v.write(v.shell[v.done:])
	if v.err != nil {
		return v.err
	}
	return v.bw.Flush()
}

func (d *junitTestsuites) add(ts *junitTestsuite) {
	d.Suites = append(d.Suites, ts)
	d.Tests += ts.Tests
	d.Failures += ts.Failures
	d.Errors += ts.Errors
}

// junitTasks is a suite's <testsuite> without its tasks' test cases, which the pass writes,
// but with their counts.
func junitTasks(in *Input, st *suiteState) *junitTestsuite {
	s := st.s
	r := s.Result
	name := suiteName(r)
	ts := &junitTestsuite{Name: xmlText(name), Time: fmt.Sprintf("%.3f", seconds(r.Summary.DurationMS))}
	if !r.Timestamp.IsZero() {
		ts.Timestamp = r.Timestamp.UTC().Format("2006-01-02T15:04:05Z07:00")
	}
	if r.Provenance != nil && r.Provenance.SuiteFile != "" {
		ts.File = xmlText(relPath(in.RepoRoot, r.Provenance.SuiteFile))
	}
	suiteProps(ts, r, s.Comparison)
	spendProps(ts, s)
	classname := r.Skill
	if classname == "" {
		classname = name
	}
	s.eachSample(func(smp taskSample) {
		ts.Tests++
		switch junitOutcome(smp) {
		case junitError:
			ts.Errors++
		case junitFailure:
			ts.Failures++
		case junitSkipped:
			ts.Skipped++
		}
	})
	for _, tc := range junitGates(in, s, classname) {
		ts.add(tc)
	}
	var out []string
	if r.Incomplete {
		out = append(out, "Run incomplete: "+r.IncompleteReason)
	}
	if r.Gate != nil {
		for _, reason := range r.Gate.Reasons {
			out = append(out, "Gate: "+reason)
		}
	}
	if c := s.Comparison; c != nil {
		out = append(out, "Baseline: "+c.Message)
	}
	if c := s.Uplift; c != nil {
		out = append(out, "Skill uplift: "+c.Message)
	}
	if len(out) > 0 {
		ts.SystemOut = &junit.Output{Data: xmlText(strings.Join(out, "\n"))}
	}
	return ts
}

func suiteProps(ts *junitTestsuite, r *results.SuiteResult, c *Comparison) {
	side := describeSide("", "", r)
	ts.prop("skill", r.Skill)
	ts.prop("executor", executorOf(r))
	ts.prop("model", modelOf(r))
	ts.prop("trials_per_task", strconv.Itoa(r.Config.RunsPerTest))
	if side.AggregateScore != nil {
		ts.prop("score", fmt.Sprintf("%.4f", *side.AggregateScore))
		ts.prop("pass_rate", fmt.Sprintf("%.4f", *side.PassRate))
		ts.prop("success_rate", fmt.Sprintf("%.4f", *side.SuccessRate))
	}
	for _, name := range r.SortedMetricNames() {
		if m := r.Metrics[name]; m != nil {
			ts.prop("metric."+name, fmt.Sprintf("%.4f (threshold %.4f, %s)", clean(m.Value), clean(m.Threshold), passWord(m.Passed)))
		}
	}
	if r.Gate != nil {
		ts.prop("gate", passWord(r.Gate.Passed))
	}
	if c != nil {
		ts.prop("baseline_verdict", string(c.Verdict))
		if m := c.Metric(MetricScore); m != nil && m.Delta != nil {
			ts.prop("score_delta", fmt.Sprintf("%+.4f", *m.Delta))
		}
	}
}

// spendProps are the suite's agent runs, tokens and cost (results.Spend, for tasks and trigger
// prompts together) when the comment would show them: the cost only when some run was priced,
// the changes only against a baseline that recorded a spend (results.CompareSpend).
func spendProps(ts *junitTestsuite, s *Suite) {
	sp := s.Result.Summary.Spend
	if !worthShowing(sp) {
		return
	}
	ts.prop("agent_runs", strconv.Itoa(sp.Runs))
	ts.prop("reused_runs", strconv.Itoa(sp.Reused))
	// No 0 standing for runs that reported nothing.
	if reportedInput(sp) {
		ts.prop("tokens_in", strconv.FormatInt(sp.InputTokens, 10))
		ts.prop("tokens_cached", strconv.FormatInt(sp.CachedTokens, 10))
	}
	if reportedOutput(sp) {
		ts.prop("tokens_out", strconv.FormatInt(sp.OutputTokens, 10))
	}
	if unknown := unknownTokens(sp, executorOf(s.Result)); unknown != "" {
		ts.prop("tokens_unknown", unknown)
	}
	if sp.Priced > 0 {
		ts.prop("cost_usd", fmt.Sprintf("%.6f", sp.CostUSD))
		ts.prop("priced_runs", strconv.Itoa(sp.Priced))
	}
	var base *results.Spend
	if s.Baseline != nil {
		base = s.Baseline.Summary.Spend
	}
	if d, ok := results.CompareSpend(base, sp); ok {
		if d.Counted {
			ts.prop("tokens_delta", fmt.Sprintf("%+d", d.Tokens))
		}
		if d.Costed {
			ts.prop("cost_usd_delta", fmt.Sprintf("%+.6f", d.CostUSD))
		}
	}
}

func passWord(ok bool) string {
	if ok {
		return "passed"
	}
	return "failed"
}

func junitTask(in *Input, smp taskSample, classname, exec, model string, delta *TaskComparison, v unitVerdict) *junitTestcase {
	t := smp.task
	name := taskName(t)
	tc := &junitTestcase{Name: xmlText(name), Classname: xmlText(classname), Time: fmt.Sprintf("%.3f", seconds(trialsDurationMS(smp)))}
	if t.Source != nil {
		tc.File, tc.Line = xmlText(relPath(in.RepoRoot, t.Source.File)), t.Source.Line
	}
	if smp.ok {
		tc.prop("score", fmt.Sprintf("%.4f", smp.score))
		tc.prop("pass_rate", fmt.Sprintf("%.4f", smp.passRate))
		tc.prop("pass_at_k", fmt.Sprintf("%.4f", smp.passAtK))
	}
	tc.prop("trials", strconv.Itoa(smp.trials))
	tc.prop("executor", exec)
	tc.prop("model", model)
	if delta != nil && delta.ScoreDelta != nil {
		tc.prop("score_delta", fmt.Sprintf("%+.4f", *delta.ScoreDelta))
		tc.prop("pass_rate_delta", fmt.Sprintf("%+.4f", *delta.PassRateDelta))
	}
	if v.change != "" {
		tc.prop("change", v.change)
	}

	n := len(t.Runs)
	switch junitOutcome(smp) {
	case junitSkipped:
		msg := t.SkipReason
		if msg == "" {
			msg = "skipped"
		}
		tc.Skipped = &junit.Result{Message: xmlText(msg)}
	case junitError:
		msg := fmt.Sprintf("%s: %d of %d trials errored", name, smp.errors, n)
		if n == 0 {
			msg = name + ": the task errored before any trial ran"
		}
		body := failureBody(t.Runs)
		if t.ErrorMsg != "" {
			body = strings.TrimSpace("[ERROR] " + truncate(collapseSpace(t.ErrorMsg), junitFeedbackExcerpt) + "\n" + body)
		}
		tc.Error = &junit.Result{Message: xmlText(msg + wordSuffix(v.change) + junitReason(t)), Type: "RunError", Data: xmlText(body)}
	case junitFailure:
		msg := fmt.Sprintf("%s: %d of %d trials failed", name, smp.trials-smp.passed, smp.trials)
		tc.Failure = &junit.Result{Message: xmlText(msg + wordSuffix(v.change) + junitReason(t)), Type: "GraderFailure", Data: xmlText(failureBody(t.Runs))}
	}
	tc.SystemOut = &junit.Output{Data: xmlText(trialDetails(smp, delta, v))}
	return tc
}

// A task's outcome in JUnit: which of <skipped>, <error> or <failure> its test case has.
const (
	junitPassed = iota
	junitSkipped
	junitError
	junitFailure
)

// junitOutcome is a task's outcome, from its status and its trials (a status that says passed
// does not hide failed trials).
func junitOutcome(smp taskSample) int {
	switch status := smp.status(); {
	case status == results.StatusSkipped || smp.skipped:
		return junitSkipped
	case status == results.StatusError || smp.errors > 0:
		return junitError
	case status == results.StatusFailed || (smp.ok && !smp.allPassed()):
		return junitFailure
	}
	return junitPassed
}

// junitReason is the first reason a task failed, for the <failure> or <error> message that
// test-report UIs show: the agent's error, else the first failing grader with its message.
func junitReason(t *results.TaskResult) string {
	p, ok := taskProblem(t)
	if !ok {
		return ""
	}
	return " — " + truncate(collapseSpace(p.text()), 300)
}

// trialsDurationMS is the time a task took: the sum over its trials.
func trialsDurationMS(smp taskSample) int64 {
	if len(smp.task.Runs) == 0 {
		return smp.durationMS * int64(smp.trials)
	}
	var total int64
	for _, r := range smp.task.Runs {
		if r != nil {
			total += r.DurationMS
		}
	}
	return total
}

// junitGates are the suite-level checks a run can fail while every task passes — each gating
// metric's threshold, an incomplete run, a regression against the baseline or without the
// skill — as test cases, so a test-report UI is not green when the gate is red.
func junitGates(in *Input, s *Suite, classname string) []*junitTestcase {
	r := s.Result
	var out []*junitTestcase
	gate := func(name string, failure string, source *results.Location, detail string) {
		tc := &junitTestcase{Name: xmlText("gate: " + name), Classname: xmlText(classname), Time: "0.000"}
		if source != nil {
			tc.File, tc.Line = xmlText(relPath(in.RepoRoot, source.File)), source.Line
		}
		switch {
		case failure != "":
			tc.Failure = &junit.Result{Message: xmlText(failure), Type: "GateFailure", Data: xmlText(detail)}
		case detail != "":
			tc.SystemOut = &junit.Output{Data: xmlText(detail)}
		}
		out = append(out, tc)
	}
	// A missed threshold fails its gate when the findings say it blocks; a miss the baseline
	// had too, or one within the noise, is told in the case's output.
	missed := map[string]Finding{}
	for _, f := range s.thresholdFindings(suiteName(r), "") {
		missed[f.Metric] = f
	}
	for _, name := range r.SortedMetricNames() {
		m := r.Metrics[name]
		if m == nil {
			continue
		}
		detail := fmt.Sprintf("%s is %.4g, threshold %.4g", name, clean(m.Value), clean(m.Threshold))
		failure := ""
		if f, ok := missed[name]; ok {
			if f.Blocking {
				failure = f.Message
			} else {
				detail = f.Message
			}
		}
		gate(fmt.Sprintf("%s ≥ %.4g", name, clean(m.Threshold)), failure, m.Source, detail)
	}
	if r.Incomplete {
		reason := r.IncompleteReason
		if reason == "" {
			reason = "interrupted"
		}
		gate("run complete", "the run is incomplete: "+reason+"; only finished tasks are reported", nil, "")
	}
	for _, c := range s.comparisons() {
		if c.NoBaseline {
			continue
		}
		name := "no regression against the baseline"
		if c.Mode == ModeUplift {
			name = "no regression with the skill against without it"
		}
		failure := ""
		if c.Regressed() {
			failure = c.Message
		}
		gate(name, failure, nil, c.Message)
	}
	return out
}

// failureBody keeps waza's lines, `[FAIL] name (type): score=0.00 — feedback`, for every
// trial that did not pass; with several trials each trial gets a header line.
func failureBody(runs []*results.RunResult) string {
	var b strings.Builder
	for i, r := range runs {
		if r.Status == results.StatusPassed {
			continue
		}
		if len(runs) > 1 {
			fmt.Fprintf(&b, "Run %d/%d: %s\n", r.Trial(i), len(runs), r.Status)
		}
		if msg := runError(r); msg != "" && r.Status == results.StatusError {
			fmt.Fprintf(&b, "[ERROR] %s\n", truncate(collapseSpace(msg), junitFeedbackExcerpt))
		}
		for _, v := range r.Validations {
			mark := junitMark(v)
			if mark != "ERROR" && mark != "FAIL" {
				continue
			}
			fmt.Fprintf(&b, "[%s] %s (%s): score=%.2f — %s\n", mark, v.Name, v.Type, clean(v.Score), truncate(collapseSpace(v.Feedback), junitFeedbackExcerpt))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// junitMarks spell graderStatus's words in the JUnit texts. A skipped grader counts in no score
// and fails nothing (results.ScoreRun), so it reads as a pass.
var junitMarks = map[string]string{"pending": "PENDING", "error": "ERROR", "failed": "FAIL", "passed": "PASS", "skipped": "PASS"}

func junitMark(v *results.GraderResult) string { return junitMarks[graderStatus(v)] }

// trialDetails is the per-trial record in <system-out>.
func trialDetails(smp taskSample, delta *TaskComparison, v unitVerdict) string {
	t := smp.task
	var b strings.Builder
	fmt.Fprintf(&b, "Task %s", smp.key)
	if t.Source != nil {
		fmt.Fprintf(&b, " (%s:%d)", t.Source.File, t.Source.Line)
	}
	b.WriteByte('\n')
	if t.ErrorMsg != "" {
		fmt.Fprintf(&b, "Task error: %s\n", truncate(collapseSpace(t.ErrorMsg), junitFeedbackExcerpt))
	}
	if smp.ok {
		fmt.Fprintf(&b, "Trials: %d, passed %d, errors %d, pass rate %.1f%%, pass@%d %.2f, mean score %.2f\n",
			smp.trials, smp.passed, smp.errors, smp.passRate*100, smp.trials, smp.passAtK, smp.score)
	}
	if delta != nil && delta.ScoreDelta != nil {
		fmt.Fprintf(&b, "Baseline: pass rate %.1f%% → %.1f%%, score %.2f → %.2f",
			*delta.Base.PassRate*100, *delta.Head.PassRate*100, *delta.Base.Score, *delta.Head.Score)
		b.WriteByte('\n')
	}
	if v.change != "" {
		fmt.Fprintf(&b, "Change: %s", changeWord(v.change))
		if v.why != "" {
			fmt.Fprintf(&b, " — %s", v.why)
		}
		b.WriteByte('\n')
	}
	for i, r := range t.Runs {
		fmt.Fprintf(&b, "Run %d/%d: %s, score=%.2f, %.3fs", r.Trial(i), len(t.Runs), r.Status, clean(r.Score), seconds(r.DurationMS))
		if r.Attempts > 1 {
			fmt.Fprintf(&b, ", %d attempts", r.Attempts)
		}
		b.WriteByte('\n')
		if msg := runError(r); msg != "" {
			fmt.Fprintf(&b, "  error: %s\n", truncate(collapseSpace(msg), junitFeedbackExcerpt))
		}
		for _, v := range r.Validations {
			fmt.Fprintf(&b, "  [%s] %s (%s): score=%.2f — %s\n", junitMark(v), v.Name, v.Type, clean(v.Score), truncate(collapseSpace(v.Feedback), 300))
		}
		if r.Status != results.StatusPassed && r.FinalOutput != "" {
			fmt.Fprintf(&b, "  output: %s\n", truncate(r.FinalOutput, junitOutputExcerpt))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// triggerSample aggregates one trigger prompt over its trials.
type triggerSample struct {
	id, prompt, confidence string
	should                 bool
	trials, correct, errs  int
	triggered              int
	durationMS             int64
	firstError             string
	source                 *results.Location
}

func sampleTriggers(trs []*results.TriggerResult) []*triggerSample {
	var out []*triggerSample
	byID := map[string]*triggerSample{}
	for _, tr := range trs {
		if tr == nil {
			continue
		}
		key := tr.ID
		if key == "" {
			key = tr.Prompt
		}
		ts := byID[key]
		if ts == nil {
			ts = &triggerSample{id: key, prompt: tr.Prompt, confidence: tr.Confidence, should: tr.ShouldTrigger, source: tr.Source}
			byID[key] = ts
			out = append(out, ts)
		}
		ts.trials++
		ts.durationMS += tr.DurationMS
		if tr.DidTrigger {
			ts.triggered++
		}
		if tr.ErrorMsg != "" {
			ts.errs++
			if ts.firstError == "" {
				ts.firstError = tr.ErrorMsg
			}
		} else if tr.DidTrigger == tr.ShouldTrigger {
			ts.correct++
		}
	}
	return out
}

func (t *triggerSample) expectation() string {
	if t.should {
		return "should trigger"
	}
	return "should not trigger"
}

func junitTriggers(in *Input, s *Suite) *junitTestsuite {
	r := s.Result
	if len(r.TriggerResults) == 0 {
		return nil
	}
	name := suiteName(r) + " (trigger tests)"
	classname := r.Skill
	if classname == "" {
		classname = suiteName(r)
	}
	ts := &junitTestsuite{Name: xmlText(name)}
	if !r.Timestamp.IsZero() {
		ts.Timestamp = r.Timestamp.UTC().Format("2006-01-02T15:04:05Z07:00")
	}
	if tm := r.TriggerMetrics; tm != nil {
		ts.prop("accuracy", fmt.Sprintf("%.4f", clean(tm.Accuracy)))
		ts.prop("precision", fmt.Sprintf("%.4f", clean(tm.Precision)))
		ts.prop("recall", fmt.Sprintf("%.4f", clean(tm.Recall)))
		ts.prop("f1", fmt.Sprintf("%.4f", clean(tm.F1)))
	}
	if m := r.Metrics[results.MetricTriggerAccuracy]; m != nil {
		ts.prop("accuracy_threshold", fmt.Sprintf("%.4f", clean(m.Threshold)))
	}
	var total int64
	for _, t := range sampleTriggers(r.TriggerResults) {
		total += t.durationMS
		tc := &junitTestcase{
			Name:      xmlText(t.id + " — " + truncate(collapseSpace(t.prompt), 60)),
			Classname: xmlText(classname),
			Time:      fmt.Sprintf("%.3f", seconds(t.durationMS)),
		}
		if t.source != nil {
			tc.File, tc.Line = xmlText(relPath(in.RepoRoot, t.source.File)), t.source.Line
		}
		tc.prop("should_trigger", strconv.FormatBool(t.should))
		if t.confidence != "" {
			tc.prop("confidence", t.confidence)
		}
		tc.prop("trials", strconv.Itoa(t.trials))
		tc.prop("correct", strconv.Itoa(t.correct))
		summary := fmt.Sprintf("%s: %s, triggered in %d of %d trials", t.id, t.expectation(), t.triggered, t.trials)
		switch {
		case t.errs > 0:
			tc.Error = &junit.Result{Message: xmlText(summary), Type: "TriggerError", Data: xmlText(fmt.Sprintf("%d of %d trials errored: %s", t.errs, t.trials, truncate(t.firstError, junitFeedbackExcerpt)))}
		case t.correct < t.trials:
			tc.Failure = &junit.Result{Message: xmlText(summary), Type: "TriggerMisclassified", Data: xmlText("Prompt: " + truncate(t.prompt, junitFeedbackExcerpt))}
		}
		tc.SystemOut = &junit.Output{Data: xmlText(fmt.Sprintf("Prompt: %s\n%s; %d of %d trials correct", truncate(t.prompt, junitFeedbackExcerpt), summary, t.correct, t.trials))}
		ts.add(tc)
	}
	ts.Time = fmt.Sprintf("%.3f", seconds(total))
	return ts
}

func seconds(ms int64) float64 { return float64(ms) / 1000 }
