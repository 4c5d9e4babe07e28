package report

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"

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

var (
	//go:embed html.css
	htmlStyle string
	//go:embed html.js
	htmlScript string
)

// htmlEscaper escapes text for HTML element content and quoted attributes alike.
var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;")

// htmlWriter writes markup (raw) and text (escaped) to a buffered writer; the first write
// error is kept and returned by WriteHTML. It is hand-written rather than html/template, which
// took 1.6 CPU s for a 10,000-task file.
type htmlWriter struct {
	w   *bufio.Writer
	err error
}

func (h *htmlWriter) raw(parts ...string) {
	for _, s := range parts {
		if h.err == nil {
			_, h.err = h.w.WriteString(s)
		}
	}
}

func (h *htmlWriter) text(s string) {
	if h.err == nil {
		_, h.err = htmlEscaper.WriteString(h.w, s)
	}
}

// elem writes <name attrs>text</name>, the text escaped.
func (h *htmlWriter) elem(name, attrs, text string) {
	h.raw("<", name, attrs, ">")
	h.text(text)
	h.raw("</", name, ">")
}

// htmlControls are the filter box and status menu; html.js applies them.
const htmlControls = `<div id="controls">
<input id="filter" type="search" placeholder="Filter tasks by id, name or grader message" aria-label="Filter tasks">
<select id="status" aria-label="Show tasks">
<option value="all">all tasks</option>
<option value="failing">failing tasks</option>
<option value="changed">changed against the baseline</option>
<option value="passed">passed</option>
<option value="failed">failed</option>
<option value="error">errored</option>
<option value="skipped">skipped</option>
</select>
`

// WriteHTML writes the self-contained HTML report: the verdict, the suite table, and every task
// with its trials (prompt, output, tool calls, grader results), filterable by text and status.
// It loads nothing from the network: the styles and the script are inline, and every piece of
// agent or suite text is escaped.
func WriteHTML(w io.Writer, in *Input) error {
	sts := states(in)
	_, err := visitTasks(sts, newHTMLReport(w, in, sts))
	return err
}

// htmlReport writes report.html in a pass over the tasks: the head first (verdict, suites,
// spend), each suite's section around its tasks, then the footer.
type htmlReport struct {
	h   *htmlWriter
	in  *Input
	sts []*suiteState
	n   int // suites written
}

func newHTMLReport(w io.Writer, in *Input, sts []*suiteState) *htmlReport {
	h := &htmlWriter{w: bufio.NewWriterSize(w, 64<<10)}
	h.raw("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>skillgate report</title>\n<style>\n", htmlStyle, "</style>\n</head>\n<body>\n")
	h.raw("<h1 id=\"verdict\">", mdInlineHTML(verdict(in, sts)), "</h1>\n")
	ci := ciName(statesConfidence(sts))
	h.raw("<table id=\"suites\">\n<thead><tr><th>Suite</th><th>Tasks passing every trial</th><th>Score</th><th>Pass rate</th><th>Δ score (", ci, ")</th><th>Δ pass rate (", ci, ")</th><th>Triggers</th><th>Result</th></tr></thead>\n<tbody>\n")
	tasks := 0
	for i, st := range sts {
		p, n := st.passedTasks()
		dScore, dPass := suiteDeltas(st)
		h.raw(fmt.Sprintf("<tr><td><a href=\"#suite-%d\">", i+1))
		h.text(st.name)
		h.raw(fmt.Sprintf("</a></td><td class=\"n\">%d/%d</td><td class=\"n\">%s</td><td class=\"n\">%s</td>", p, n, num2(st.side.AggregateScore), pctCell(st.side.PassRate)))
		for _, cell := range []string{dScore, dPass, triggerCell(st.s.Result, st.s.Baseline), st.resultCell()} {
			h.elem("td", "", cell)
		}
		h.raw("</tr>\n")
		tasks += st.s.tasks().len()
	}
	h.raw("</tbody>\n</table>\n")
	htmlSpendSection(h, sts)
	h.raw(htmlControls)
	h.raw(fmt.Sprintf("<span id=\"shown\" class=\"muted\">%s</span>\n</div>\n", plural(tasks, "task")))
	return &htmlReport{h: h, in: in, sts: sts}
}

func (r *htmlReport) suiteStart(st *suiteState) {
	r.n++
	htmlSuiteStart(r.h, r.in, st, r.n)
}

func (r *htmlReport) task(st *suiteState, smp taskSample) {
	htmlTask(r.h, r.in, smp, st.s.deltas()[smp.key], st.s.verdictOf(smp))
}

func (r *htmlReport) suiteEnd(st *suiteState) { htmlSuiteEnd(r.h, r.in, st) }

func (r *htmlReport) finish() error {
	h := r.h
	var footer []string
	seen := map[string]bool{}
	for _, st := range r.sts {
		if line := provenanceLine(r.in.baselineSource(st.s), st.s); line != "" && !seen[line] {
			seen[line] = true
			footer = append(footer, mdInlineHTML(line))
		}
	}
	h.raw("<footer class=\"muted\"><hr>", strings.Join(footer, " · "))
	if v := r.in.toolVersion(); v != "" {
		h.raw(" · skillgate ")
		h.text(v)
	}
	h.raw("</footer>\n<script>\n", htmlScript, "</script>\n</body>\n</html>\n")
	if h.err == nil {
		h.err = h.w.Flush()
	}
	if h.err != nil {
		return fmt.Errorf("writing the HTML report: %w", h.err)
	}
	return nil
}

// htmlSpendSection is the comment's "Agent runs and cost" section: per suite the agent runs,
// how many were reused, tokens and cost with their change against the baseline, then the reuse
// notes. Nothing when no suite recorded a spend worth showing.
func htmlSpendSection(h *htmlWriter, sts []*suiteState) {
	rows := spendRows(sts)
	if len(rows) == 0 {
		return
	}
	h.raw("<h2>Agent runs and cost</h2>\n<table id=\"spend\">\n<thead><tr>")
	for _, col := range spendColumns {
		h.elem("th", "", col)
	}
	h.raw("</tr></thead>\n<tbody>\n")
	var notes []string
	for _, row := range rows {
		h.raw(fmt.Sprintf("<tr><td><a href=\"#suite-%d\">", row.index+1))
		h.text(row.suite)
		h.raw("</a></td>")
		for _, cell := range row.cells {
			h.elem("td", ` class="n"`, cell)
		}
		h.raw("</tr>\n")
		if row.note != "" {
			notes = append(notes, row.note)
		}
	}
	h.raw("</tbody>\n</table>\n")
	if len(notes) > 0 {
		h.raw("<ul>\n")
		for _, note := range notes {
			h.raw("<li>", mdInlineHTML(note), "</li>\n")
		}
		h.raw("</ul>\n")
	}
}

func suiteDeltas(st *suiteState) (score, pass string) {
	c := st.s.Comparison
	switch {
	case c == nil:
		return "—", "—"
	case c.NoBaseline:
		return "no baseline", "no baseline"
	}
	return deltaCell(c.Metric(MetricScore), false), deltaCell(c.Metric(MetricPassRate), true)
}

// htmlSuiteStart is a suite's section up to its tasks.
func htmlSuiteStart(h *htmlWriter, in *Input, st *suiteState, n int) {
	r := st.s.Result
	h.raw(fmt.Sprintf("<section class=\"suite\" id=\"suite-%d\">\n", n))
	h.elem("h2", "", st.name+" — "+st.resultCell())
	facts := []string{"executor " + orDash(executorOf(r))}
	if m := modelOf(r); m != "" {
		facts = append(facts, "model "+m)
	}
	facts = append(facts, plural(r.Config.RunsPerTest, "trial")+" per task", fmt.Sprintf("%.1fs", seconds(r.Summary.DurationMS)))
	if r.Provenance != nil && r.Provenance.GitCommit != "" {
		facts = append(facts, "commit "+shortCommit(r.Provenance.GitCommit))
	}
	h.elem("p", ` class="muted"`, strings.Join(facts, " · "))
	h.raw("\n")
	if len(st.gate.Reasons) > 0 {
		h.raw("<ul>")
		for _, reason := range st.gate.Reasons {
			h.elem("li", ` class="bad"`, "❌ "+reason)
		}
		h.raw("</ul>\n")
	}
	c := st.s.Comparison
	if c != nil {
		h.elem("p", "", c.Message)
		h.raw("\n")
		if len(c.NewTasks) > 0 {
			h.elem("p", "", "New tasks (not compared): "+taskIDs(c.NewTasks))
		}
		if len(c.RemovedTasks) > 0 {
			h.elem("p", ` class="bad"`, "Removed tasks (only on the baseline): "+taskIDs(c.RemovedTasks))
		}
	}
	if u := st.s.Uplift; u != nil {
		h.elem("p", "", "With the skill against without it: "+u.Message)
	}
	h.elem("h3", "", fmt.Sprintf("Tasks (%s)", thousands(st.s.tasks().len())))
	if c != nil && !c.NoBaseline {
		h.elem("p", ` class="legend muted"`, fmt.Sprintf("Bars: pass rate on %s; the black mark: on %s.", c.Head.Label, c.Base.Label))
	}
	h.raw("\n<div class=\"tasks\">\n")
}

// htmlSuiteEnd is a suite's section after its tasks: the trigger tests.
func htmlSuiteEnd(h *htmlWriter, in *Input, st *suiteState) {
	r := st.s.Result
	h.raw("</div>\n")
	if trs := sampleTriggers(r.TriggerResults); len(trs) > 0 {
		title := "Trigger tests"
		if tm := r.TriggerMetrics; tm != nil {
			title += fmt.Sprintf(" — accuracy %.1f%%, precision %.1f%%, recall %.1f%%, F1 %.2f", clean(tm.Accuracy)*100, clean(tm.Precision)*100, clean(tm.Recall)*100, clean(tm.F1))
		}
		h.elem("h3", "", title)
		h.raw("\n<table class=\"triggers\"><thead><tr><th>Prompt</th><th>Expected</th><th>Triggered</th><th>Correct</th><th>Source</th></tr></thead><tbody>\n")
		for _, t := range trs {
			class := ""
			if t.correct < t.trials {
				class = ` class="bad"`
			}
			h.raw("<tr", class, "><td>")
			h.elem("code", "", t.id)
			h.raw(" ")
			h.text(t.prompt)
			h.raw("</td>")
			h.elem("td", "", t.expectation())
			h.raw(fmt.Sprintf("<td class=\"n\">%d/%d</td><td class=\"n\">%d/%d</td>", t.triggered, t.trials, t.correct, t.trials))
			h.elem("td", "", sourceText(in, t.source))
			h.raw("</tr>\n")
		}
		h.raw("</tbody></table>\n")
	}
	h.raw("</section>\n")
}

func taskIDs(refs []TaskRef) string {
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.ID
	}
	return strings.Join(ids, ", ")
}

// htmlTask is one task: a summary row (status, name, trials, pass-rate bar with the baseline's
// mark, score, deltas) that opens on its prompt and trials; the worst trial starts open.
func htmlTask(h *htmlWriter, in *Input, smp taskSample, d *TaskComparison, v unitVerdict) {
	t := smp.task
	status := string(t.Status)
	if status == "" {
		status = "unknown"
	}
	failing := !smp.skipped && !smp.allPassed()
	compared := d != nil && d.ScoreDelta != nil && d.PassRateDelta != nil
	_, moved := changeRank[v.change]
	changed := moved || (compared && (*d.PassRateDelta != 0 || *d.ScoreDelta != 0))
	problemText := ""
	if p, ok := taskProblem(t); ok && failing {
		problemText = p.text()
	}
	h.raw(`<details class="task" data-task="`)
	h.text(smp.key)
	h.raw(`" data-status="`)
	h.text(status) // a results file can hold any status
	h.raw(fmt.Sprintf(`" data-failing="%t" data-changed="%t" data-search="`, failing, changed))
	h.text(strings.ToLower(t.ID + " " + taskName(t) + " " + cutRunes(collapseSpace(problemText), 300)))
	h.raw("\">\n<summary>")
	h.elem("span", "", statusCell(t.Status))
	h.elem("strong", "", taskName(t))
	trials, passRate, score, dPass, dScore := "—", "—", "—", "—", "—"
	if !smp.skipped {
		trials = fmt.Sprintf("%d/%d", smp.passed, smp.trials)
	}
	h.elem("span", "", trials)
	h.raw("<span>")
	if smp.ok {
		passRate, score = pctCell(&smp.passRate), num2(&smp.score)
		head := clean(smp.passRate) * 100
		if compared && d.Base.PassRate != nil {
			base := clean(*d.Base.PassRate) * 100
			h.raw(fmt.Sprintf(`<span class="bar" title="pass rate %.1f%%, %.1f%% on the baseline"><span class="head" style="width:%.1f%%"></span><span class="base" style="left:%.1f%%"></span></span> `, head, base, head, base))
		} else {
			h.raw(fmt.Sprintf(`<span class="bar" title="pass rate %.1f%%"><span class="head" style="width:%.1f%%"></span></span> `, head, head))
		}
	}
	h.text(passRate)
	h.raw("</span>")
	if compared {
		dPass, dScore = signedPoints(*d.PassRateDelta), signed(*d.ScoreDelta)
	}
	h.elem("span", "", score)
	h.elem("span", "", dPass)
	h.elem("span", "", strings.TrimSpace(dScore+" "+changeLabel(v.change)))
	h.raw("</summary>\n<div>\n")
	if v.why != "" {
		h.elem("p", "", changeWord(v.change)+": "+v.why)
		h.raw("\n")
	}
	h.raw("<p class=\"muted\">task ")
	h.elem("code", "", t.ID)
	if src := sourceText(in, t.Source); src != "" {
		h.raw(" · ")
		h.elem("code", "", src)
	}
	h.raw("</p>\n")
	if problemText != "" {
		h.elem("p", ` class="bad"`, problemText)
		h.raw("\n")
	}
	if t.SkipReason != "" {
		h.elem("p", ` class="muted"`, "Skipped: "+t.SkipReason)
	}
	if t.ErrorMsg != "" && problemText != t.ErrorMsg {
		h.elem("p", ` class="bad"`, "Task error: "+t.ErrorMsg)
	}
	if strings.TrimSpace(t.Prompt) != "" {
		h.raw("<h4>Prompt</h4>")
		h.elem("pre", "", plainText(t.Prompt))
		h.raw("\n")
	}
	worst := worstTrial(t)
	for i, r := range t.Runs {
		if r != nil {
			htmlTrial(h, in, r, i, len(t.Runs), r == worst)
		}
	}
	h.raw("</div>\n</details>\n")
}

// htmlTrial is one trial: its error, every grader's result, the output, the tool calls with
// their arguments and results, the skills it used, the files it changed and the agent's stderr.
func htmlTrial(h *htmlWriter, in *Input, r *results.RunResult, i, n int, worst bool) {
	open := ""
	if worst {
		open = " open"
	}
	h.raw(`<details class="trial" data-status="`)
	h.text(string(r.Status))
	h.raw(`"`, open, "><summary>")
	line := fmt.Sprintf("%s trial %d of %d: score %.2f, %s", statusCell(r.Status), r.Trial(i), n, clean(r.Score), durationText(r.DurationMS))
	if r.Attempts > 1 {
		line += fmt.Sprintf(", %d attempts", r.Attempts)
	}
	h.text(line)
	if worst {
		h.raw(` <span class="muted">(worst trial)</span>`)
	}
	h.raw("</summary>\n")
	if r.AgentError != "" {
		h.elem("p", ` class="bad"`, "Agent error: "+r.AgentError)
	} else if r.ErrorMsg != "" {
		h.elem("p", ` class="bad"`, "Error: "+r.ErrorMsg)
	}
	if len(r.Validations) > 0 {
		h.raw("<table class=\"graders\"><thead><tr><th></th><th>Grader</th><th>Type</th><th>Result</th><th>Score</th><th>Message</th></tr></thead><tbody>\n")
		for _, v := range r.Validations {
			if v == nil {
				continue
			}
			h.raw("<tr>")
			h.elem("td", "", graderIcon(v))
			h.raw("<td>")
			h.elem("code", "", v.Name)
			if src := sourceText(in, v.Source); src != "" {
				h.raw("<br>")
				h.elem("span", ` class="muted"`, src)
			}
			h.raw("</td>")
			h.elem("td", "", v.Type)
			h.elem("td", "", graderStatus(v))
			h.elem("td", ` class="n"`, fmt.Sprintf("%.2f", clean(v.Score)))
			h.elem("td", "", plainText(v.Feedback))
			h.raw("</tr>\n")
		}
		h.raw("</tbody></table>\n")
	}
	h.raw("<h4>Output</h4>")
	if out, cut := cutText(plainText(r.FinalOutput), htmlOutputLimit); strings.TrimSpace(out) != "" {
		if cut {
			out += "\n… (cut; the results file has the rest)"
		}
		h.elem("pre", ` class="output"`, out)
	} else {
		h.elem("p", ` class="muted"`, "The agent gave no output.")
	}
	h.raw("\n")
	if calls := r.SessionDigest.ToolCalls; len(calls) > 0 {
		h.raw(fmt.Sprintf("<h4>Tool calls (%d)</h4><ol class=\"calls\">", len(calls)))
		for _, c := range calls {
			htmlToolCall(h, c)
		}
		h.raw("</ol>\n")
	}
	if skills := r.SessionDigest.SkillInvocations; len(skills) > 0 {
		names := make([]string, len(skills))
		for i, s := range skills {
			names[i] = s.Name
		}
		h.elem("p", "", "Skills invoked: "+strings.Join(names, ", "))
	}
	if len(r.ChangedFiles) > 0 {
		h.raw("<h4>Changed files</h4><ul>")
		for _, f := range r.ChangedFiles {
			h.elem("li", "", fmt.Sprintf("%s %s (%d bytes)", f.Change, f.Path, f.Size))
		}
		h.raw("</ul>\n")
	}
	if stderr, cut := cutText(plainText(r.Stderr), htmlStderrLimit); strings.TrimSpace(stderr) != "" {
		if cut {
			stderr += "\n… (cut)"
		}
		h.raw("<h4>Agent stderr</h4>")
		h.elem("pre", "", stderr)
		h.raw("\n")
	}
	h.raw("</details>\n")
}

func htmlToolCall(h *htmlWriter, c results.ToolCall) {
	h.raw("<li>")
	h.elem("code", "", c.Name)
	if c.Kind != "" && c.Kind != c.Name {
		h.raw(" ")
		h.elem("span", ` class="muted"`, c.Kind)
	}
	if !c.Success {
		h.raw(` <span class="bad">failed</span>`)
	}
	detail := ""
	switch {
	case c.Command != "":
		detail = "$ " + c.Command
	case len(c.Arguments) > 0:
		args, _ := json.Marshal(c.Arguments)
		detail = string(args)
	}
	if detail != "" {
		detail, _ = cutText(plainText(detail), htmlArgsLimit)
		h.elem("pre", "", detail)
	}
	if c.Result != nil {
		res, ok := c.Result.(string)
		if !ok {
			data, _ := json.Marshal(c.Result)
			res = string(data)
		}
		res, _ = cutText(plainText(res), htmlArgsLimit)
		h.raw(`<details><summary class="muted">result</summary>`)
		h.elem("pre", "", res)
		h.raw("</details>")
	}
	h.raw("</li>")
}

func graderStatus(v *results.GraderResult) string {
	switch {
	case v.Status == results.StatusPending:
		return "pending"
	case v.Status == results.StatusSkipped:
		return "skipped"
	case v.Status == results.StatusError:
		return "error"
	case !v.Passed:
		return "failed"
	}
	return "passed"
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
func mdInlineHTML(s string) string {
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
	return b.String()
}

func isEntity(s string) bool { return s == "&lt;" || s == "&gt;" || s == "&amp;" }
