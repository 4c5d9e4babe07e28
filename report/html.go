package report

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"html/template"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/skillgate/skillgate/results"
)

// HTMLFile is the static report in the output directory.
const HTMLFile = "report.html"

// Bounds on the agent text copied into the HTML report per trial; the results file has it all.
const (
	htmlOutputLimit = 20000
	htmlStderrLimit = 4000
	htmlArgsLimit   = 1000
)

//go:embed html.tmpl
var htmlSource string

var htmlTemplate = template.Must(template.New(HTMLFile).Parse(htmlSource))

// The view the template renders: every figure comes from the same helpers as the markdown
// reports, so the page tells the comment's story with each trial in full.
type (
	htmlReport struct {
		Verdict template.HTML
		Suites  []htmlSuite
		Footer  []template.HTML
		Version string
		Tasks   int
	}
	htmlSuite struct {
		Name, Anchor, Result                     string
		Passed, Ran                              int
		Score, PassRate, DScore, DPass, Triggers string
		Reasons                                  []string
		Comparison                               string
		Added, Removed                           []string
		Tasks                                    []htmlTask
		TriggerRows                              []htmlTrigger
		HasBaseline                              bool
		TriggerHead                              string
		TrialsPerTask                            int
		Executor, Model                          string
		DurationSeconds                          float64
		BaseLabel, HeadLabel, CommitShort        string
	}
	htmlTask struct {
		Key, ID, Name, Status, StatusText, Source string
		Trials, PassRate, Score, DPass, DScore    string
		Flip, Problem, Error, Prompt              string
		Failing, Changed                          bool
		Bar                                       template.CSS
		BaseMark                                  template.CSS
		HasBase                                   bool
		BarTitle                                  string
		Runs                                      []htmlRun
	}
	htmlRun struct {
		Number, Attempts            int
		Status, Icon, Score         string
		Duration, Error             string
		Output, Stderr              string
		Open                        bool
		Graders                     []htmlGrader
		Calls                       []htmlCall
		Skills                      []string
		Files                       []string
		OutputCut, StderrCut, Worst bool
	}
	htmlGrader struct {
		Icon, Name, Type, Status, Score, Feedback, Source string
	}
	htmlCall struct {
		Name, Kind, Detail, Result string
		Failed                     bool
	}
	htmlTrigger struct {
		ID, Prompt, Expected, Source string
		Triggered, Correct, Trials   int
		Wrong                        bool
	}
)

// WriteHTML writes the self-contained HTML report: the verdict, the suite table, and every task
// with its trials (output, tool calls, grader results), filterable by text and status. It loads
// nothing from the network: the styles and the script are inline.
func WriteHTML(w io.Writer, in *Input) error {
	sts := states(in)
	v := htmlReport{Verdict: mdInlineHTML(verdict(in, sts)), Version: in.toolVersion()}
	seen := map[string]bool{}
	for i, st := range sts {
		hs := htmlSuiteView(in, st)
		hs.Anchor = fmt.Sprintf("suite-%d", i+1)
		v.Suites = append(v.Suites, hs)
		v.Tasks += len(st.samples)
		if line := provenanceLine(in.baselineSource(st.s), st.s); line != "" && !seen[line] {
			seen[line] = true
			v.Footer = append(v.Footer, mdInlineHTML(line))
		}
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := htmlTemplate.Execute(bw, v); err != nil {
		return fmt.Errorf("writing the HTML report: %w", err)
	}
	return bw.Flush()
}

func htmlSuiteView(in *Input, st *suiteState) htmlSuite {
	r := st.s.Result
	p, n := st.passedTasks()
	hs := htmlSuite{
		Name: st.name, Result: st.resultCell(), Passed: p, Ran: n,
		Score: num2(st.side.AggregateScore), PassRate: pctCell(st.side.PassRate), DScore: "—", DPass: "—",
		Triggers: triggerCell(r), Reasons: st.gate.Reasons, TrialsPerTask: r.Config.RunsPerTest,
		Executor: executorOf(r), Model: modelOf(r), DurationSeconds: seconds(r.Summary.DurationMS),
	}
	if r.Provenance != nil {
		hs.CommitShort = shortCommit(r.Provenance.GitCommit)
	}
	c := st.s.Comparison
	if c != nil {
		hs.Comparison = c.Message
		if c.NoBaseline {
			hs.DScore, hs.DPass = "no baseline", "no baseline"
		} else {
			hs.HasBaseline = true
			hs.BaseLabel, hs.HeadLabel = c.Base.Label, c.Head.Label
			hs.DScore = deltaCell(c.Metric(MetricScore), false)
			hs.DPass = deltaCell(c.Metric(MetricPassRate), true)
		}
		for _, t := range c.NewTasks {
			hs.Added = append(hs.Added, t.ID)
		}
		for _, t := range c.RemovedTasks {
			hs.Removed = append(hs.Removed, t.ID)
		}
	}
	deltas := taskComparisons(c)
	for _, smp := range st.samples {
		hs.Tasks = append(hs.Tasks, htmlTaskView(in, smp, deltas[smp.key]))
	}
	if tm := r.TriggerMetrics; tm != nil {
		hs.TriggerHead = fmt.Sprintf("accuracy %.1f%%, precision %.1f%%, recall %.1f%%, F1 %.2f", clean(tm.Accuracy)*100, clean(tm.Precision)*100, clean(tm.Recall)*100, clean(tm.F1))
	}
	for _, t := range sampleTriggers(r.TriggerResults) {
		hs.TriggerRows = append(hs.TriggerRows, htmlTrigger{ID: t.id, Prompt: t.prompt, Expected: t.expectation(), Source: sourceText(in, t.source),
			Triggered: t.triggered, Correct: t.correct, Trials: t.trials, Wrong: t.correct < t.trials})
	}
	return hs
}

func htmlTaskView(in *Input, smp taskSample, d *TaskComparison) htmlTask {
	t := smp.task
	ht := htmlTask{
		Key: smp.key, ID: t.ID, Name: taskName(t), Status: string(t.Status), StatusText: statusCell(t.Status),
		Source: sourceText(in, t.Source), Trials: "—", PassRate: "—", Score: "—", DPass: "—", DScore: "—",
		Error: t.ErrorMsg, Prompt: t.Prompt, Failing: !smp.skipped && !smp.allPassed(),
	}
	if ht.Status == "" {
		ht.Status = "unknown"
	}
	if !smp.skipped {
		ht.Trials = fmt.Sprintf("%d/%d", smp.passed, smp.trials)
	}
	if smp.ok {
		ht.PassRate, ht.Score = pctCell(&smp.passRate), num2(&smp.score)
		ht.Bar = template.CSS(fmt.Sprintf("width:%.1f%%", clean(smp.passRate)*100))
		ht.BarTitle = fmt.Sprintf("pass rate %.1f%%", clean(smp.passRate)*100)
	}
	if d != nil && d.ScoreDelta != nil {
		ht.DPass, ht.DScore, ht.Flip = signedPoints(*d.PassRateDelta), signed(*d.ScoreDelta), flipCell(d)
		ht.Changed = *d.PassRateDelta != 0 || *d.ScoreDelta != 0 || d.Flip != ""
		if d.Base.PassRate != nil {
			ht.HasBase = true
			ht.BaseMark = template.CSS(fmt.Sprintf("left:%.1f%%", clean(*d.Base.PassRate)*100))
			ht.BarTitle += fmt.Sprintf(", %.1f%% on the baseline", clean(*d.Base.PassRate)*100)
		}
	}
	if p, ok := taskProblem(t); ok && ht.Failing {
		ht.Problem = p.text()
	}
	worst := worstTrial(t)
	for i, r := range t.Runs {
		if r != nil {
			ht.Runs = append(ht.Runs, htmlRunView(in, r, i, r == worst))
		}
	}
	return ht
}

func htmlRunView(in *Input, r *results.RunResult, i int, worst bool) htmlRun {
	hr := htmlRun{
		Number: runNumber(r, i), Attempts: r.Attempts, Status: string(r.Status), Icon: statusCell(r.Status),
		Score: fmt.Sprintf("%.2f", clean(r.Score)), Duration: durationText(r.DurationMS), Error: runError(r),
		Worst: worst, Open: worst,
	}
	hr.Output, hr.OutputCut = cutText(plainText(r.FinalOutput), htmlOutputLimit)
	hr.Stderr, hr.StderrCut = cutText(plainText(r.Stderr), htmlStderrLimit)
	for _, v := range r.Validations {
		if v == nil {
			continue
		}
		status := "passed"
		switch {
		case v.Status == results.StatusPending:
			status = "pending"
		case v.Status == results.StatusSkipped:
			status = "skipped"
		case v.Status == results.StatusError:
			status = "error"
		case !v.Passed:
			status = "failed"
		}
		hr.Graders = append(hr.Graders, htmlGrader{Icon: graderIcon(v), Name: v.Name, Type: v.Type, Status: status,
			Score: fmt.Sprintf("%.2f", clean(v.Score)), Feedback: v.Feedback, Source: sourceText(in, v.Source)})
	}
	for _, c := range r.SessionDigest.ToolCalls {
		hc := htmlCall{Name: c.Name, Kind: c.Kind, Failed: !c.Success}
		switch {
		case c.Command != "":
			hc.Detail = "$ " + c.Command
		case len(c.Arguments) > 0:
			args, _ := json.Marshal(c.Arguments)
			hc.Detail = string(args)
		}
		hc.Detail, _ = cutText(plainText(hc.Detail), htmlArgsLimit)
		if c.Result != nil {
			res, _ := json.Marshal(c.Result)
			if s, ok := c.Result.(string); ok {
				res = []byte(s)
			}
			hc.Result, _ = cutText(plainText(string(res)), htmlArgsLimit)
		}
		hr.Calls = append(hr.Calls, hc)
	}
	for _, s := range r.SessionDigest.SkillInvocations {
		hr.Skills = append(hr.Skills, s.Name)
	}
	for _, f := range r.ChangedFiles {
		hr.Files = append(hr.Files, fmt.Sprintf("%s %s (%d bytes)", f.Change, f.Path, f.Size))
	}
	return hr
}

// cutText keeps the first n bytes of s, at a character boundary.
func cutText(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

func sourceText(in *Input, loc *results.Location) string {
	if loc == nil || loc.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", relPath(in.RepoRoot, loc.File), loc.Line)
}

// mdInlineHTML renders the inline markdown the reports write (mdCell's escapes and entities,
// **bold**, `code` spans from mdCode) as HTML, so the page says exactly what the comment says.
func mdInlineHTML(s string) template.HTML {
	var b strings.Builder
	bold := false
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			r, size := utf8.DecodeRuneInString(s[i+1:])
			b.WriteString(html.EscapeString(string(r)))
			i += 1 + size
		case strings.HasPrefix(s[i:], "**"):
			if bold {
				b.WriteString("</strong>")
			} else {
				b.WriteString("<strong>")
			}
			bold = !bold
			i += 2
		case c == '`':
			n := 0
			for i+n < len(s) && s[i+n] == '`' {
				n++
			}
			fence := s[i : i+n]
			end := strings.Index(s[i+n:], fence)
			if end < 0 {
				b.WriteString(html.EscapeString(fence))
				i += n
				continue
			}
			b.WriteString("<code>" + html.EscapeString(strings.TrimSpace(s[i+n:i+n+end])) + "</code>")
			i += n + end + n
		case c == '&':
			// mdCell writes &lt; &gt; &amp; itself; any other ampersand is text.
			if semi := strings.IndexByte(s[i:], ';'); semi > 0 && semi <= 5 && isEntity(s[i:i+semi+1]) {
				b.WriteString(s[i : i+semi+1])
				i += semi + 1
				continue
			}
			b.WriteString("&amp;")
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			b.WriteString(html.EscapeString(string(r)))
			i += size
		}
	}
	if bold {
		b.WriteString("</strong>")
	}
	return template.HTML(b.String())
}

func isEntity(s string) bool { return s == "&lt;" || s == "&gt;" || s == "&amp;" }
