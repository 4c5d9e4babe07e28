package report

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/skillgate/skillgate/results"
)

// SARIF 2.1.0, the subset skillgate writes (GitHub code scanning reads these fields).
type sarifLog struct {
	Schema  string      `json:"$schema"`
	Version string      `json:"version"`
	Runs    []*sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                        `json:"tool"`
	AutomationDetails  *sarifAutomation                 `json:"automationDetails,omitempty"`
	OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds,omitempty"`
	Invocations        []sarifInvocation                `json:"invocations,omitempty"`
	Results            []*sarifResult                   `json:"results"`
	Properties         map[string]any                   `json:"properties,omitempty"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string       `json:"name"`
	Version        string       `json:"version,omitempty"`
	InformationURI string       `json:"informationUri,omitempty"`
	Rules          []*sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	Name                 string            `json:"name"`
	ShortDescription     sarifText         `json:"shortDescription"`
	FullDescription      sarifText         `json:"fullDescription"`
	Help                 sarifHelp         `json:"help"`
	DefaultConfiguration sarifRuleConfig   `json:"defaultConfiguration"`
	Properties           sarifRuleProperty `json:"properties"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifHelp struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifRuleConfig struct {
	Level string `json:"level"`
}

type sarifRuleProperty struct {
	Tags []string `json:"tags,omitempty"`
}

type sarifAutomation struct {
	ID string `json:"id"`
}

type sarifInvocation struct {
	ExecutionSuccessful bool `json:"executionSuccessful"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifText         `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]any    `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI         string     `json:"uri,omitempty"`
	URIBaseID   string     `json:"uriBaseId,omitempty"`
	Description *sarifText `json:"description,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// sarifMaxResults is GitHub's limit of results per run (more is rejected); a variable so tests
// can exercise the cut without writing 25,000 results.
var sarifMaxResults = 25000

const (
	sarifSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"
	srcRoot        = "%SRCROOT%"
	levelError     = "error"
	levelWarning   = "warning"
)

// Rule ids.
const (
	ruleGraderPrefix = "grader/"
	ruleMetricPrefix = "metric/"
	ruleTrigger      = "trigger/misclassified"
	ruleRunError     = "run/error"
	ruleTaskDrop     = "regression/task"
	ruleSuiteDrop    = "regression/suite"
)

// WriteSARIF writes a SARIF 2.1.0 log with one run per suite (automationDetails.id
// "skillgate/<suite>/" gives each suite its own code-scanning category). Results point at the
// exact line of the failing grader, missed metric, misclassified trigger prompt or regressed
// task; their partialFingerprints depend on suite, task and grader only, so an alert keeps its
// identity from run to run.
func WriteSARIF(w io.Writer, in *Input) error {
	sts := states(in)
	_, err := visitTasks(sts, newSARIFReport(w, in))
	return err
}

// sarifReport makes the SARIF log in a pass over the tasks: each suite's findings are gathered
// by level and rank as far as a run can hold them (sarifMaxResults), the log written at the end.
type sarifReport struct {
	w    io.Writer
	in   *Input
	runs []*sarifRun
	cur  *sarifFindings
}

func newSARIFReport(w io.Writer, in *Input) *sarifReport {
	return &sarifReport{w: w, in: in, runs: []*sarifRun{}}
}

func (r *sarifReport) suiteStart(st *suiteState) {
	r.cur = &sarifFindings{max: sarifMaxResults}
	r.cur.head = st.s.suiteFindings()
	for _, f := range r.cur.head {
		r.cur.add(f)
	}
}

func (r *sarifReport) task(st *suiteState, smp taskSample) {
	r.cur.facts.add(smp.task)
	for _, f := range st.s.taskFindingsOf(smp) {
		r.cur.add(f)
	}
}

func (r *sarifReport) suiteEnd(st *suiteState) {
	for _, f := range st.s.triggerFindings(r.cur.head) {
		r.cur.add(f)
	}
	r.runs = append(r.runs, sarifSuite(r.in, st.s, r.cur))
	r.cur = nil
}

// finish writes the log. Its skeleton, every run without its results, is encoded first; each
// run's results are encoded one at a time into their place, so the log is never held whole.
func (r *sarifReport) finish() error {
	results := make([][]*sarifResult, len(r.runs))
	for i, run := range r.runs {
		results[i], run.Results = run.Results, []*sarifResult{}
	}
	log := &sarifLog{Schema: sarifSchemaURI, Version: "2.1.0", Runs: r.runs}
	skeleton, err := sarifJSON(log, "")
	if err != nil {
		return fmt.Errorf("writing SARIF: %w", err)
	}
	bw := bufio.NewWriterSize(r.w, 64<<10)
	// A run's "results" key, at its depth: in a string a quote is escaped, so these bytes are
	// markup.
	const empty = "\n      \"results\": []"
	for _, res := range results {
		cut := bytes.Index(skeleton, []byte(empty))
		if cut < 0 {
			return fmt.Errorf("writing SARIF: results key not found")
		}
		bw.Write(skeleton[:cut+len(empty)-1])
		for j, result := range res {
			if j > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString("\n        ")
			data, err := sarifJSON(result, "        ")
			if err != nil {
				return fmt.Errorf("writing SARIF: %w", err)
			}
			bw.Write(bytes.TrimRight(data, "\n"))
		}
		if len(res) > 0 {
			bw.WriteString("\n      ")
		}
		skeleton = skeleton[cut+len(empty)-1:]
	}
	bw.Write(skeleton)
	return bw.Flush()
}

// sarifJSON is v's JSON as the log is written: indented by two spaces under prefix, HTML left
// as it is, with a final newline.
func sarifJSON(v any, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// sarifFindings gathers one suite's findings in the order Findings sorts them (by level, then
// rank, then as found), keeping the first max that have a place: GitHub takes no more results
// per run. Every finding's rule is kept, in the order of its first finding.
type sarifFindings struct {
	max      int
	head     []Finding // the suite's findings before its tasks'
	buckets  [3 * rankCount]sarifBucket
	kept     int // findings kept
	placed   int // findings with a place, kept or not
	unplaced int
	facts    taskFacts // the grader types used
}

// rankCount is the number of ranks of findings.
const rankCount = rankOther + 1

type sarifBucket struct {
	findings []Finding
	rules    []*sarifRule
	ruleIDs  map[string]bool
}

func (g *sarifFindings) add(f Finding) {
	i := levelOrder[f.Level]*rankCount + f.rank
	bk := &g.buckets[i]
	if id, rule := findingRule(f); !bk.ruleIDs[id] {
		if bk.ruleIDs == nil {
			bk.ruleIDs = map[string]bool{}
		}
		bk.ruleIDs[id] = true
		bk.rules = append(bk.rules, rule)
	}
	if f.Place() == nil {
		g.unplaced++ // GitHub rejects results without a location
		return
	}
	g.placed++
	bk.findings = append(bk.findings, f)
	g.kept++
	for j := len(g.buckets) - 1; g.kept > g.max && j >= 0; j-- {
		if n := len(g.buckets[j].findings); n > 0 {
			g.buckets[j].findings = g.buckets[j].findings[:n-1]
			g.kept--
			j++ // the same bucket again, if still too many
		}
	}
}

// sarifBuilder collects one run's rules and results.
type sarifBuilder struct {
	in        *Input
	suite     string
	rules     []*sarifRule
	ruleIndex map[string]int
	results   []*sarifResult
	unplaced  int
}

func sarifSuite(in *Input, s *Suite, g *sarifFindings) *sarifRun {
	r := s.Result
	b := &sarifBuilder{in: in, suite: suiteName(r), ruleIndex: map[string]int{}, rules: []*sarifRule{}, results: []*sarifResult{}}

	// A rule for every grader type and metric the suite uses, failing or not, so the rule set
	// does not change between runs.
	types := make([]string, 0, len(g.facts.graderTypes))
	for t := range g.facts.graderTypes {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, typ := range types {
		b.rule(graderRule(typ))
	}
	for _, name := range r.SortedMetricNames() {
		b.rule(metricRule(name))
	}
	for i := range g.buckets {
		for _, rule := range g.buckets[i].rules {
			b.rule(rule)
		}
	}
	for i := range g.buckets {
		for _, f := range g.buckets[i].findings {
			id, _ := findingRule(f)
			b.add(id, sarifLevels[f.Level], f.Message, f.Place(), f.Identity, f.Props)
		}
	}

	run := &sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name: "skillgate", Version: in.toolVersion(), InformationURI: "https://github.com/skillgate/skillgate", Rules: b.rules,
		}},
		AutomationDetails:  &sarifAutomation{ID: "skillgate/" + categoryName(b.suite) + "/"},
		OriginalURIBaseIDs: map[string]sarifArtifactLocation{srcRoot: srcRootLocation(in.RepoRoot)},
		Invocations:        []sarifInvocation{{ExecutionSuccessful: !r.Incomplete}},
		Results:            b.results,
	}
	props := map[string]any{"suite": b.suite}
	if g.placed > g.max {
		// GitHub rejects a run with more results than this; the errors come first.
		props["omitted_results"] = g.placed - g.max
	}
	if g.unplaced > 0 {
		props["unplaced_results"] = g.unplaced
	}
	run.Properties = props
	return run
}

// findingRule is the rule of a finding: its id and its description (decided once, in Findings).
func findingRule(f Finding) (string, *sarifRule) {
	switch f.Kind {
	case FindingGrader:
		return ruleGraderPrefix + ruleTypeName(f.GraderType), graderRule(f.GraderType)
	case FindingRunError:
		return ruleRunError, runErrorRule()
	case FindingThreshold:
		return ruleMetricPrefix + f.Metric, metricRule(f.Metric)
	case FindingTrigger:
		return ruleTrigger, triggerRule()
	case FindingTaskDrop:
		return ruleTaskDrop, taskDropRule()
	case FindingRegression:
		return ruleSuiteDrop, suiteDropRule()
	}
	id := "skillgate/" + f.Kind
	return id, errorRule(id, camel(f.Kind), f.Kind, f.Title, f.Title, f.Title, f.Title)
}

// sarifLevels maps a finding's level to SARIF's.
var sarifLevels = map[string]string{LevelError: levelError, LevelWarning: levelWarning, LevelNotice: "note"}

func (b *sarifBuilder) rule(r *sarifRule) {
	if _, ok := b.ruleIndex[r.ID]; ok {
		return
	}
	b.ruleIndex[r.ID] = len(b.rules)
	b.rules = append(b.rules, r)
}

// add appends a result. identity (with the rule and suite) makes the fingerprint: never scores.
func (b *sarifBuilder) add(ruleID, level, msg string, loc *results.Location, identity []string, props map[string]any) {
	pl, ok := b.physical(loc)
	if !ok {
		// GitHub rejects results without a location; count them instead.
		b.unplaced++
		return
	}
	idx, ok := b.ruleIndex[ruleID]
	if !ok {
		b.rule(&sarifRule{ID: ruleID, Name: camel(ruleID), ShortDescription: sarifText{Text: ruleID},
			FullDescription: sarifText{Text: ruleID}, Help: sarifHelp{Text: ruleID}, DefaultConfiguration: sarifRuleConfig{Level: level}})
		idx = b.ruleIndex[ruleID]
	}
	fp := fingerprint(append([]string{ruleID, b.suite}, identity...))
	b.results = append(b.results, &sarifResult{
		RuleID: ruleID, RuleIndex: idx, Level: level, Message: sarifText{Text: msg},
		Locations:           []sarifLocation{{PhysicalLocation: pl}},
		PartialFingerprints: map[string]string{"primaryLocationLineHash": fp[:32] + ":1", "skillgate/v1": fp},
		Properties:          props,
	})
}

func (b *sarifBuilder) physical(loc *results.Location) (sarifPhysical, bool) {
	if loc == nil || loc.File == "" {
		return sarifPhysical{}, false
	}
	p := sarifPhysical{}
	file := relPath(b.in.RepoRoot, loc.File)
	if isAbs(file) {
		p.ArtifactLocation.URI = (&url.URL{Scheme: "file", Path: file}).String()
	} else {
		p.ArtifactLocation.URI = (&url.URL{Path: file}).EscapedPath()
		p.ArtifactLocation.URIBaseID = srcRoot
	}
	line := loc.Line
	if line < 1 {
		line = 1
	}
	p.Region = &sarifRegion{StartLine: line}
	if loc.Col > 0 {
		p.Region.StartColumn = loc.Col
	}
	return p, true
}

func fingerprint(parts []string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func srcRootLocation(root string) sarifArtifactLocation {
	loc := sarifArtifactLocation{Description: &sarifText{Text: "The root of the repository that holds the eval suites."}}
	if root != "" && isAbs(root) {
		p := filepath.ToSlash(root)
		if !strings.HasSuffix(p, "/") {
			p += "/"
		}
		loc.URI = (&url.URL{Scheme: "file", Path: p}).String()
	}
	return loc
}

// relPath makes file repository-relative with forward slashes when it lies under root.
func relPath(root, file string) string {
	if root != "" && filepath.IsAbs(file) {
		if rel, err := filepath.Rel(root, file); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			file = rel
		}
	}
	file = filepath.ToSlash(file)
	if !isAbs(file) {
		file = strings.TrimPrefix(path.Clean(file), "./")
	}
	return file
}

func isAbs(p string) bool { return strings.HasPrefix(p, "/") || filepath.IsAbs(p) }

// categoryName keeps a suite name usable inside automationDetails.id.
func categoryName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r < 0x20 {
			return '-'
		}
		return r
	}, s)
}

func ruleTypeName(t string) string {
	if t == "" {
		return "unknown"
	}
	return categoryName(t)
}

// GraderSummary is the one-line help of a grader type: the registered type's own Summary (every
// documented type is registered), else a generic line for a type this build does not know.
func GraderSummary(typ string) string {
	if t, ok := results.LookupGraderType(typ); ok && t.Summary != "" {
		return t.Summary
	}
	return fmt.Sprintf("A grader of type %q judged the agent's run.", typ)
}

var metricHelp = map[string]string{
	results.MetricTriggerAccuracy:  "Accuracy of the skill's triggering on the trigger-test prompts (weighted by confidence).",
	results.MetricTriggerPrecision: "Precision of the skill's triggering on the trigger-test prompts.",
	results.MetricTriggerRecall:    "Recall of the skill's triggering on the trigger-test prompts.",
	results.MetricTriggerF1:        "F1 score of the skill's triggering on the trigger-test prompts.",
	results.MetricTaskCompletion:   "Fraction of tasks whose every trial passed.",
	results.MetricAggregateScore:   "Mean task score of the suite.",
	results.MetricWeightedScore:    "Mean weighted task score of the suite.",
}

func graderRule(typ string) *sarifRule {
	summary := GraderSummary(typ)
	id := ruleGraderPrefix + ruleTypeName(typ)
	return &sarifRule{
		ID:               id,
		Name:             "Grader" + camel(typ),
		ShortDescription: sarifText{Text: fmt.Sprintf("A %s grader failed", typ)},
		FullDescription:  sarifText{Text: limit1024(summary)},
		Help: sarifHelp{
			Text:     limit1024(summary + " The result points at the grader's declaration; the message names the task, the trials it failed in and the grader's feedback."),
			Markdown: fmt.Sprintf("**%s grader.** %s\n\nThe result points at the grader's declaration (in the task file, or in eval.yaml for a global grader). The message names the task, how many trials failed, the grader's feedback and the task's change against the baseline. The level is the task's: `error` when the change brings the failure (a new failure confirmed beyond trial noise, or any failure without a baseline), `warning` when it looks worse but is not confirmed, `note` when it fails as on the baseline or within the noise.", typ, summary),
		},
		DefaultConfiguration: sarifRuleConfig{Level: levelError},
		Properties:           sarifRuleProperty{Tags: []string{"skillgate", "grader", typ}},
	}
}

func metricRule(name string) *sarifRule {
	help, ok := metricHelp[name]
	if !ok {
		help = fmt.Sprintf("The suite metric %q.", name)
	}
	return &sarifRule{
		ID:               ruleMetricPrefix + name,
		Name:             "Metric" + camel(name),
		ShortDescription: sarifText{Text: fmt.Sprintf("Metric %s below its threshold", name)},
		FullDescription:  sarifText{Text: limit1024(help + " A value below the threshold set in eval.yaml fails the run.")},
		Help: sarifHelp{
			Text:     limit1024(help + " The threshold is set under `metrics:` in eval.yaml; a value below it fails the run whatever the baseline comparison says."),
			Markdown: fmt.Sprintf("**%s.** %s\n\nThe threshold is set under `metrics:` in eval.yaml. A value below it fails the run, whatever the baseline comparison says.", name, help),
		},
		DefaultConfiguration: sarifRuleConfig{Level: levelError},
		Properties:           sarifRuleProperty{Tags: []string{"skillgate", "metric"}},
	}
}

func triggerRule() *sarifRule {
	return errorRule(ruleTrigger, "TriggerMisclassified", "trigger",
		"A trigger-test prompt was misclassified",
		"The agent invoked the skill for a prompt that should not trigger it, or did not invoke it for a prompt that should.",
		"The result points at the prompt in trigger_tests.yaml. Adjust the skill's description (SKILL.md frontmatter) so the agent recognises when to use it, or fix the prompt's expectation.",
		"The result points at the prompt in `trigger_tests.yaml`. Adjust the skill's description (the `SKILL.md` frontmatter) so the agent recognises when to use it, or fix the prompt's expectation. The level is the prompt's: `error` when the change brings the miss (confirmed, or a trigger threshold it counts in is newly missed), else `warning` or `note`.")
}

func runErrorRule() *sarifRule {
	return errorRule(ruleRunError, "RunError", "error",
		"The agent run failed",
		"The agent did not produce a run for the task: it crashed, timed out or wrote output that could not be read.",
		"The result points at the task definition. The message carries the executor's error; check the agent's installation, credentials and the task's timeout.",
		"The result points at the task definition. The message carries the executor's error; check the agent's installation, credentials and the task's `timeout_seconds`.")
}

func taskDropRule() *sarifRule {
	return errorRule(ruleTaskDrop, "TaskRegressed", "regression",
		"A task passes less often than on the baseline",
		"The task passes less often than on the baseline: confirmed beyond trial noise (an error: Fisher's exact test on the pooled base and the head with its confirmation trials, corrected for the number of tasks of the pull request), or looking worse without confirmation (a warning).",
		"The change made this task pass significantly less often than on the baseline. Compare the task's transcripts on both sides (skillgate compare BASE HEAD) to find what the agent now does differently.",
		"The change made this task pass significantly less often than on the baseline. Compare the task's transcripts on both sides (`skillgate compare BASE HEAD`) to find what the agent now does differently.")
}

func suiteDropRule() *sarifRule {
	return errorRule(ruleSuiteDrop, "SuiteRegressed", "regression",
		"The suite regressed against the baseline",
		"The paired analysis over the tasks shared with the baseline found a drop larger than the minimum effect: the whole confidence interval (99% by default) lies below it.",
		"The whole confidence interval of the change in mean score or pass rate lies below the minimum effect. See the PR comment or job summary for the tasks that changed most.",
		"The whole confidence interval of the change in mean score or pass rate lies below the minimum effect. See the PR comment or job summary for the tasks that changed most.")
}

// errorRule is a rule whose results are errors by default: its id and name, a tag after
// "skillgate", the short and full descriptions, and the help as text and as markdown.
func errorRule(id, name, tag, short, full, text, markdown string) *sarifRule {
	return &sarifRule{
		ID: id, Name: name,
		ShortDescription:     sarifText{Text: short},
		FullDescription:      sarifText{Text: full},
		Help:                 sarifHelp{Text: text, Markdown: markdown},
		DefaultConfiguration: sarifRuleConfig{Level: levelError},
		Properties:           sarifRuleProperty{Tags: []string{"skillgate", tag}},
	}
}

func camel(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '_' || r == '-' || r == ' ' || r == '/' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// limit1024 keeps a description within GitHub's 1,024-character limit, cutting at a rune.
func limit1024(s string) string {
	if len(s) <= 1024 {
		return s
	}
	cut := 1020
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func pct(p *float64) string {
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", *p*100)
}

func derefOr(p *float64, def float64) float64 {
	if p == nil {
		return def
	}
	return *p
}
