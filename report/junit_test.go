package report

import (
	"bytes"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

// Parse-back types: only what consumers read, decoded with encoding/xml (strict about the
// characters XML 1.0 forbids).
type xSuites struct {
	XMLName  xml.Name `xml:"testsuites"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Time     string   `xml:"time,attr"`
	Suites   []xSuite `xml:"testsuite"`
}

type xSuite struct {
	Name       string      `xml:"name,attr"`
	Tests      int         `xml:"tests,attr"`
	Failures   int         `xml:"failures,attr"`
	Errors     int         `xml:"errors,attr"`
	Skipped    int         `xml:"skipped,attr"`
	Time       string      `xml:"time,attr"`
	Properties []xProperty `xml:"properties>property"`
	Cases      []xCase     `xml:"testcase"`
	SystemOut  string      `xml:"system-out"`
}

type xProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type xResult struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

type xCase struct {
	Name       string      `xml:"name,attr"`
	Classname  string      `xml:"classname,attr"`
	Time       string      `xml:"time,attr"`
	File       string      `xml:"file,attr"`
	Line       int         `xml:"line,attr"`
	Properties []xProperty `xml:"properties>property"`
	Failure    *xResult    `xml:"failure"`
	Error      *xResult    `xml:"error"`
	Skipped    *xResult    `xml:"skipped"`
	SystemOut  string      `xml:"system-out"`
}

func (c xCase) prop(name string) string {
	for _, p := range c.Properties {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

func parseJUnit(t *testing.T, data []byte) xSuites {
	t.Helper()
	var doc xSuites
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("JUnit does not parse: %v\n%s", err, data)
	}
	return doc
}

func fixtureInput(t *testing.T) *Input {
	t.Helper()
	s, err := NewSuite(readFixture(t, "head.json"), readFixture(t, "base.json"), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return &Input{Suites: []*Suite{s}, Key: "evals", Unaffected: []Unaffected{{Name: "docs-writer", Reason: "no file under evals/docs-writer changed"}}}
}

func TestJUnitFixture(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, fixtureInput(t)); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(buf.Bytes(), []byte(xml.Header)) {
		t.Error("missing XML header")
	}
	root := regexp.MustCompile(`<testsuites[^>]*>`).Find(buf.Bytes())
	if bytes.Contains(root, []byte("skipped=")) {
		t.Errorf("testsuites@skipped is rejected by the Jenkins schemas: %s", root)
	}
	doc := parseJUnit(t, buf.Bytes())
	if len(doc.Suites) != 3 || doc.Suites[0].Name != "code-explainer" || doc.Suites[1].Name != "code-explainer (trigger tests)" || doc.Suites[2].Name != "docs-writer" {
		t.Fatalf("suites: %+v", doc.Suites)
	}
	tasks := doc.Suites[0]
	// Five tasks, then the gates: the trigger_accuracy threshold (missed, and the base had no
	// value: new) and the baseline (no regression: one shared task went from 3/3 to 0/3,
	// another to 2/3, which three trials cannot tell from noise).
	if tasks.Tests != 7 || tasks.Failures != 3 || tasks.Errors != 1 || tasks.Skipped != 1 || tasks.Time != "24.000" {
		t.Errorf("suite counts %d/%d/%d/%d time %s", tasks.Tests, tasks.Failures, tasks.Errors, tasks.Skipped, tasks.Time)
	}
	if doc.Tests != 7+3+1 || doc.Failures != 3+1 || doc.Errors != 1+1 {
		t.Errorf("totals %d/%d/%d", doc.Tests, doc.Failures, doc.Errors)
	}
	cases := map[string]xCase{}
	for _, c := range tasks.Cases {
		cases[c.Name] = c
		if strings.HasPrefix(c.Name, "gate: ") {
			continue
		}
		if c.Classname != "code-explainer" || c.Time == "" || c.File == "" || c.Line != 1 {
			t.Errorf("case %q: classname %q time %q file %q line %d", c.Name, c.Classname, c.Time, c.File, c.Line)
		}
	}
	js := cases["Explain | JavaScript `closures`"]
	if js.Failure == nil || js.Failure.Type != "GraderFailure" || !strings.HasPrefix(js.Failure.Message, "Explain | JavaScript `closures`: 1 of 3 trials failed (within noise) — mentions (text): Missing expected substring: `closure` | see") {
		t.Fatalf("failure: %+v", js.Failure)
	}
	if !strings.Contains(js.Failure.Body, "[FAIL] mentions (text): score=0.50 — Missing expected substring: `closure`") {
		t.Errorf("failure body: %q", js.Failure.Body)
	}
	if js.File != "evals/code-explainer/tasks/explain-js.yaml" || js.Time != "6.000" {
		t.Errorf("file %q time %q", js.File, js.Time)
	}
	for prop, want := range map[string]string{"score": "0.9167", "pass_rate": "0.6667", "pass_at_k": "1.0000", "trials": "3", "executor": "replay", "model": "claude-sonnet-4", "pass_rate_delta": "-0.3333"} {
		if got := js.prop(prop); got != want {
			t.Errorf("property %s = %q, want %q", prop, got, want)
		}
	}
	if !strings.Contains(js.SystemOut, "Run 2/3: failed, score=0.75") || !strings.Contains(js.SystemOut, "output: agent said \\x1b[1mbold") {
		t.Errorf("system-out: %s", js.SystemOut)
	}
	if c := cases["Crashing task"]; c.Error == nil || c.Error.Type != "RunError" || !strings.Contains(c.Error.Message, "agent timed out") || c.Failure != nil {
		t.Errorf("crash: %+v", c)
	}
	if c := cases["Skipped by fail-fast"]; c.Skipped == nil || !strings.Contains(c.Skipped.Message, "fail_fast") {
		t.Errorf("skipped: %+v", c)
	}
	if c := cases["gate: trigger_accuracy ≥ 0.8"]; c.Failure == nil || c.Failure.Type != "GateFailure" || c.Failure.Message != "trigger_accuracy is 0.6364, below its threshold 0.8" || c.File != "evals/code-explainer/eval.yaml" || c.Line != 20 {
		t.Errorf("threshold gate: %+v %+v", c, c.Failure)
	}
	if c := cases["gate: no regression against the baseline"]; c.Failure != nil || c.SystemOut == "" || !strings.Contains(c.SystemOut, "Inconclusive") {
		t.Errorf("baseline gate: %+v", c)
	}
	if c := cases["Explain Python"]; c.Failure != nil || c.Error != nil || c.Skipped != nil {
		t.Errorf("passing case has a result element: %+v", c)
	}

	trig := doc.Suites[1]
	if trig.Tests != 3 || trig.Failures != 1 || trig.Errors != 1 {
		t.Errorf("trigger suite counts %d/%d/%d", trig.Tests, trig.Failures, trig.Errors)
	}
	for _, c := range trig.Cases {
		switch {
		case strings.HasPrefix(c.Name, "should-not-1"):
			if c.Failure == nil || c.Failure.Type != "TriggerMisclassified" || c.File != "evals/code-explainer/trigger_tests.yaml" || c.Line != 9 {
				t.Errorf("should-not-1: %+v", c)
			}
		case strings.HasPrefix(c.Name, "should-2"):
			if c.Error == nil || c.Error.Type != "TriggerError" {
				t.Errorf("should-2: %+v", c)
			}
		}
	}
	if un := doc.Suites[2]; un.Skipped != 1 || un.Cases[0].Skipped == nil || !strings.Contains(un.Cases[0].Skipped.Message, "evals/docs-writer") {
		t.Errorf("unaffected suite: %+v", un)
	}
}

// Agent output holds anything: every character XML 1.0 forbids must come out escaped, in
// element text, CDATA and attributes alike.
func TestJUnitControlCharacters(t *testing.T) {
	var nasty strings.Builder
	for c := 0; c < 0x20; c++ {
		nasty.WriteByte(byte(c))
	}
	nasty.WriteString("\x7f ]]> <tag> & \"q\" \uFFFE \xff\xfe end")
	bad := nasty.String()
	s := suiteOf("suite"+bad, []counts{{0, 2}})
	task := s.Tasks[0]
	task.Name = "task " + bad
	for _, r := range task.Runs {
		r.FinalOutput = bad
		r.ErrorMsg = bad
		r.Validations[0].Feedback = bad
		r.Validations[0].Name = "grader" + bad
	}
	s.Tasks = append(s.Tasks, &results.TaskResult{ID: "skip", Status: results.StatusSkipped, SkipReason: bad})
	s.TriggerResults = []*results.TriggerResult{{ID: "should-1", Prompt: bad, ShouldTrigger: true, ErrorMsg: bad}}
	s.Skill = "skill" + bad

	var buf bytes.Buffer
	if err := WriteJUnit(&buf, &Input{Suites: []*Suite{{Result: s}}, Unaffected: []Unaffected{{Name: bad, Reason: bad}}}); err != nil {
		t.Fatal(err)
	}
	doc := parseJUnit(t, buf.Bytes())
	c := doc.Suites[0].Cases[0]
	if !strings.Contains(c.Name, `\x01`) || !strings.Contains(c.Name, `\x1b`) || !strings.Contains(c.Name, `\ufffe`) || !strings.Contains(c.Name, `\xff`) {
		t.Errorf("escapes not visible in %q", c.Name)
	}
	if !strings.Contains(c.Name, "\t") || !strings.Contains(c.Name, "]]> <tag> & \"q\"") {
		t.Errorf("allowed characters lost: %q", c.Name)
	}
	if !strings.Contains(c.Failure.Body, "]]> <tag>") || !strings.Contains(c.SystemOut, `\x00`) {
		t.Errorf("CDATA content: %q / %q", c.Failure.Body, c.SystemOut)
	}
}

func TestJUnitEmptyInput(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, &Input{}); err != nil {
		t.Fatal(err)
	}
	if doc := parseJUnit(t, buf.Bytes()); doc.Tests != 0 || len(doc.Suites) != 0 || doc.Time != "0.000" {
		t.Errorf("%+v", doc)
	}
}

func TestXMLText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"tab\tnl\ncr\r\ncrlf\r", "tab\tnl\ncr\ncrlf\n"},
		{"esc\x1b[0m", `esc\x1b[0m`},
		{"nul\x00", `nul\x00`},
		{"é ü 日本", "é ü 日本"},
		{"bad\xffutf8", `bad\xffutf8`},
		{"nonchar\uFFFF", `nonchar\uffff`},
		{"astral 😀", "astral 😀"},
	}
	for _, tt := range tests {
		if got := xmlText(tt.in); got != tt.want {
			t.Errorf("xmlText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func FuzzXMLText(f *testing.F) {
	for _, seed := range []string{"", "plain", "\x00\x01\x1b[31m", "]]>", "\xff\xfe", "\uFFFE\uFFFF", "<a href='x'>&amp;</a>"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		tc := struct {
			XMLName xml.Name `xml:"c"`
			Attr    string   `xml:"a,attr"`
			Data    string   `xml:",cdata"`
		}{Attr: xmlText(s), Data: xmlText(s)}
		if err := xml.NewEncoder(&buf).Encode(tc); err != nil {
			t.Fatal(err)
		}
		var back struct {
			Attr string `xml:"a,attr"`
			Data string `xml:",chardata"`
		}
		if err := xml.Unmarshal(buf.Bytes(), &back); err != nil {
			t.Fatalf("%q does not parse back: %v", s, err)
		}
		if back.Data != xmlText(s) || back.Attr != xmlText(s) {
			t.Fatalf("round trip of %q: cdata %q attr %q", xmlText(s), back.Data, back.Attr)
		}
	})
}

// A task can error before any trial runs (a before_task hook failed), and a run's error can be
// recorded as the agent's own (AgentRun.AgentError) only: both must reach every report.
func TestTaskAndAgentErrors(t *testing.T) {
	s := suiteOf("s", []counts{{1, 1}, {0, 1}})
	s.Tasks = append(s.Tasks, &results.TaskResult{ID: "hooked", Name: "Hooked", Status: results.StatusError,
		ErrorMsg: "before_task hook failed: exit status 3", Source: &results.Location{File: "evals/s/tasks/hooked.yaml", Line: 2}})
	agent := s.Tasks[1].Runs[0]
	agent.Status, agent.Validations, agent.AgentError = results.StatusError, nil, "claude exited with status 137"
	s.Tasks[1].Finish()
	in := &Input{Suites: []*Suite{{Result: s}}}

	var buf bytes.Buffer
	if err := WriteJUnit(&buf, in); err != nil {
		t.Fatal(err)
	}
	doc := parseJUnit(t, buf.Bytes())
	cases := doc.Suites[0].Cases
	if c := cases[2]; c.Error == nil || !strings.Contains(c.Error.Message, "errored before any trial ran — before_task hook failed") {
		t.Errorf("hooked task: %+v", c.Error)
	}
	if c := cases[1]; c.Error == nil || !strings.Contains(c.Error.Message, "claude exited with status 137") || !strings.Contains(c.SystemOut, "error: claude exited") {
		t.Errorf("agent error: %+v %q", c.Error, c.SystemOut)
	}

	sarif := writeSARIF(t, in)
	var msgs []string
	for _, r := range sarif.Runs[0].Results {
		if r.RuleID == "run/error" {
			msgs = append(msgs, r.Message.Text)
		}
	}
	if len(msgs) != 2 || !strings.Contains(msgs[0], "claude exited") || !strings.Contains(msgs[1], "errored before any trial ran: before_task hook") {
		t.Errorf("SARIF run errors: %q", msgs)
	}

	md := Comment(in)
	if !strings.Contains(md, "Hooked `evals/s/tasks/hooked.yaml:2`: errored before any trial ran — before\\_task hook failed") ||
		!strings.Contains(md, "1 of 1 trials errored — agent error: claude exited with status 137") {
		t.Errorf("comment:\n%s", md)
	}
}
