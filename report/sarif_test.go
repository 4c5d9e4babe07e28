package report

import (
	"bytes"
	"encoding/json"
	"github.com/skillgate/skillgate/graders"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/skillgate/skillgate/results"
)

var (
	sarifSchemaOnce sync.Once
	sarifSchema     *jsonschema.Schema
	sarifSchemaErr  error
)

// validateSARIF checks a log against the official SARIF 2.1.0 schema, with formats asserted
// and uri-reference as strict as upload-sarif (no spaces or control characters).
func validateSARIF(t *testing.T, data []byte) map[string]any {
	t.Helper()
	sarifSchemaOnce.Do(func() {
		f, err := os.Open("testdata/sarif-2.1.0.json")
		if err != nil {
			sarifSchemaErr = err
			return
		}
		defer f.Close()
		jsonschema.Formats["uri-reference"] = func(v any) bool {
			s, ok := v.(string)
			if !ok {
				return true
			}
			if strings.ContainsAny(s, " \\\t\n\r") {
				return false
			}
			_, err := url.Parse(s)
			return err == nil
		}
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		c.AssertFormat = true
		if err := c.AddResource("sarif.json", f); err != nil {
			sarifSchemaErr = err
			return
		}
		sarifSchema, sarifSchemaErr = c.Compile("sarif.json")
	})
	if sarifSchemaErr != nil {
		t.Fatal(sarifSchemaErr)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("SARIF is not JSON: %v", err)
	}
	if err := sarifSchema.Validate(v); err != nil {
		t.Fatalf("SARIF does not validate: %#v", err)
	}
	return v.(map[string]any)
}

type sarifDoc struct {
	Runs []struct {
		Tool struct {
			Driver struct {
				Name  string `json:"name"`
				Rules []struct {
					ID   string `json:"id"`
					Help struct {
						Text string `json:"text"`
					} `json:"help"`
				} `json:"rules"`
			} `json:"driver"`
		} `json:"tool"`
		AutomationDetails struct {
			ID string `json:"id"`
		} `json:"automationDetails"`
		Results []struct {
			RuleID    string `json:"ruleId"`
			RuleIndex int    `json:"ruleIndex"`
			Level     string `json:"level"`
			Message   struct {
				Text string `json:"text"`
			} `json:"message"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine   int `json:"startLine"`
						StartColumn int `json:"startColumn"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
			PartialFingerprints map[string]string `json:"partialFingerprints"`
		} `json:"results"`
		Properties map[string]any `json:"properties"`
	} `json:"runs"`
}

func writeSARIF(t *testing.T, in *Input) sarifDoc {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteSARIF(&buf, in); err != nil {
		t.Fatal(err)
	}
	validateSARIF(t, buf.Bytes())
	var doc sarifDoc
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestSARIFFixture(t *testing.T) {
	doc := writeSARIF(t, fixtureInput(t))
	if len(doc.Runs) != 1 {
		t.Fatalf("runs: %d", len(doc.Runs))
	}
	run := doc.Runs[0]
	if run.Tool.Driver.Name != "skillgate" || run.AutomationDetails.ID != "skillgate/code-explainer/" {
		t.Errorf("driver %q automation %q", run.Tool.Driver.Name, run.AutomationDetails.ID)
	}
	for i, r := range run.Tool.Driver.Rules {
		if r.Help.Text == "" {
			t.Errorf("rule %s has no help text (GitHub GH2012)", r.ID)
		}
		_ = i
	}
	type want struct {
		rule, level, uri string
		line, col        int
		msg              string
	}
	// In the order of the findings: errors first (the new missed threshold; the trigger prompts
	// it counts), then warnings (the likely drop, the task that looks worse without
	// confirmation), then notes (within noise, an added task not failing clearly).
	wants := []want{
		{"metric/trigger_accuracy", "error", "evals/code-explainer/eval.yaml", 20, 7, "below its threshold 0.8"},
		{"trigger/misclassified", "error", "evals/code-explainer/trigger_tests.yaml", 9, 5, "should-not-1 should not trigger"},
		{"trigger/misclassified", "error", "evals/code-explainer/trigger_tests.yaml", 5, 5, "agent crashed"},
		{"grader/code", "warning", "evals/code-explainer/eval.yaml", 14, 5, "grader has_output (code) failed in 3 of 3 trials of task Broken task (looks worse, unconfirmed)"},
		{"skillgate/unsettled", "warning", "evals/code-explainer/eval.yaml", 1, 0, "Inconclusive"},
		{"grader/text", "note", "evals/code-explainer/tasks/explain-js.yaml", 9, 7, "failed in 1 of 3 trials of task Explain | JavaScript `closures` (within noise)"},
		{"run/error", "note", "evals/code-explainer/tasks/crash.yaml", 1, 1, "agent timed out"},
	}
	if len(run.Results) != len(wants) {
		t.Fatalf("%d results, want %d: %+v", len(run.Results), len(wants), run.Results)
	}
	for i, w := range wants {
		r := run.Results[i]
		loc := r.Locations[0].PhysicalLocation
		if r.RuleID != w.rule || r.Level != w.level || loc.ArtifactLocation.URI != w.uri || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" ||
			loc.Region.StartLine != w.line || loc.Region.StartColumn != w.col || !strings.Contains(r.Message.Text, w.msg) {
			t.Errorf("result %d: %+v, want %+v", i, r, w)
		}
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result %d: ruleIndex %d points at %s", i, r.RuleIndex, run.Tool.Driver.Rules[r.RuleIndex].ID)
		}
		if fp := r.PartialFingerprints["primaryLocationLineHash"]; len(fp) != 34 || !strings.HasSuffix(fp, ":1") {
			t.Errorf("fingerprint %q", fp)
		}
	}
}

// An alert must keep its identity when scores and feedback change, and differ between tasks.
func TestSARIFFingerprintsStable(t *testing.T) {
	mk := func(score float64, feedback string) *results.SuiteResult {
		s := suiteOf("s", []counts{{0, 2}, {0, 2}})
		for _, task := range s.Tasks {
			for _, r := range task.Runs {
				r.Validations[0].Score = score
				r.Validations[0].Feedback = feedback
			}
		}
		return s
	}
	a := writeSARIF(t, &Input{Suites: []*Suite{{Result: mk(0.1, "first")}}})
	b := writeSARIF(t, &Input{Suites: []*Suite{{Result: mk(0.4, "second wording")}}})
	ra, rb := a.Runs[0].Results, b.Runs[0].Results
	if len(ra) != 2 || len(rb) != 2 {
		t.Fatalf("results %d %d", len(ra), len(rb))
	}
	for i := range ra {
		if ra[i].PartialFingerprints["primaryLocationLineHash"] != rb[i].PartialFingerprints["primaryLocationLineHash"] {
			t.Errorf("result %d: fingerprint changed with the score", i)
		}
	}
	if ra[0].PartialFingerprints["primaryLocationLineHash"] == ra[1].PartialFingerprints["primaryLocationLineHash"] {
		t.Error("two tasks share a fingerprint")
	}
}

func TestSARIFPathsAndLimits(t *testing.T) {
	s := suiteOf("my suite/v2", []counts{{0, 1}, {0, 1}, {0, 1}, {0, 1}})
	s.Tasks[0].Runs[0].Validations[0].Source = &results.Location{File: "/repo/evals/my suite/tasks/a b.yaml", Line: 3}
	s.Tasks[1].Runs[0].Validations[0].Source = &results.Location{File: "/elsewhere/x.yaml", Line: 0}
	s.Tasks[2].Runs[0].Validations[0].Source = nil
	s.Tasks[2].Source = nil // no location at all: cannot be uploaded, counted instead
	doc := writeSARIF(t, &Input{Suites: []*Suite{{Result: s}}, RepoRoot: "/repo"})
	run := doc.Runs[0]
	if run.AutomationDetails.ID != "skillgate/my-suite-v2/" {
		t.Errorf("automation id %q", run.AutomationDetails.ID)
	}
	if len(run.Results) != 3 || run.Properties["unplaced_results"] != float64(1) {
		t.Fatalf("results %d properties %v", len(run.Results), run.Properties)
	}
	loc := run.Results[0].Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != "evals/my%20suite/tasks/a%20b.yaml" || loc.ArtifactLocation.URIBaseID != "%SRCROOT%" {
		t.Errorf("relative uri %+v", loc.ArtifactLocation)
	}
	loc = run.Results[1].Locations[0].PhysicalLocation
	if loc.ArtifactLocation.URI != "file:///elsewhere/x.yaml" || loc.ArtifactLocation.URIBaseID != "" || loc.Region.StartLine != 1 {
		t.Errorf("absolute uri %+v line %d", loc.ArtifactLocation, loc.Region.StartLine)
	}

	defer func(n int) { sarifMaxResults = n }(sarifMaxResults)
	sarifMaxResults = 2
	doc = writeSARIF(t, &Input{Suites: []*Suite{{Result: suiteOf("s", []counts{{1, 2}, {0, 2}, {1, 2}, {0, 2}})}}})
	run = doc.Runs[0]
	if len(run.Results) != 2 || run.Properties["omitted_results"] != float64(2) || run.Results[0].Level != "error" || run.Results[1].Level != "error" {
		t.Errorf("cut: %d results, %v, levels %s %s", len(run.Results), run.Properties, run.Results[0].Level, run.Results[1].Level)
	}
}

func TestSARIFRunPerSuiteAndRegressions(t *testing.T) {
	base := repeat(counts{10, 10}, 20)
	head := repeat(counts{10, 10}, 20)
	head[3] = counts{0, 10}
	headRes := suiteOf("alpha", head)
	headRes.Provenance = &results.Provenance{SuiteFile: "evals/alpha/eval.yaml"}
	a, err := NewSuite(headRes, suiteOf("alpha", base), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := &Suite{Result: suiteOf("beta", []counts{{1, 1}})}
	doc := writeSARIF(t, &Input{Suites: []*Suite{a, b}, ToolVersion: "1.2.3"})
	if len(doc.Runs) != 2 || doc.Runs[1].AutomationDetails.ID != "skillgate/beta/" || len(doc.Runs[1].Results) != 0 {
		t.Fatalf("runs: %+v", doc.Runs)
	}
	var rules []string
	for _, r := range doc.Runs[0].Results {
		rules = append(rules, r.RuleID)
	}
	// Task 3 went from 10/10 to 0/10: confirmed worse among 20 tasks (p = 5e-6), an error at its
	// grader; the suite's mean moved by 0.05 only, which its 99% interval does not call a
	// regression.
	if strings.Join(rules, ",") != "grader/text" || doc.Runs[0].Results[0].Level != "error" || !strings.Contains(doc.Runs[0].Results[0].Message.Text, "(new failure)") {
		t.Errorf("rules of results: %v", rules)
	}
}

func TestSARIFEmpty(t *testing.T) {
	doc := writeSARIF(t, &Input{})
	if len(doc.Runs) != 0 {
		t.Errorf("%+v", doc)
	}
}

func TestGraderSummaryFallback(t *testing.T) {
	if typ, _ := graders.Lookup("text"); GraderSummary("text") != typ.Summary {
		t.Errorf("text: %q, want the registry's summary", GraderSummary("text"))
	}
	if got := GraderSummary("no-such-type"); !strings.Contains(got, `"no-such-type"`) {
		t.Errorf("unknown: %q", got)
	}
}
