package report_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// unitWords are the change words of every unit of an input: suite → task or prompt id → word.
func unitWords(in *report.Input) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, s := range in.Suites {
		c := s.Comparison
		if c == nil || c.NoBaseline {
			continue
		}
		words := map[string]string{}
		for _, t := range c.Tasks {
			words[t.ID] = t.Change
		}
		for _, t := range c.NewTasks {
			words[t.ID] = t.Change
		}
		out[s.Result.EvalName] = words
	}
	return out
}

// wordLabels is how every report writes each word (the table of report/words.go, read back
// through the reports themselves: a change of label shows here).
var wordLabels = map[string]string{
	report.ChangeNewFailure: "new failure", report.ChangeWorse: "worse", report.ChangeAddedFailing: "new task, failing",
	report.ChangeUnconfirmed: "looks worse, unconfirmed", report.ChangeFlaky: "within noise", report.ChangeFixed: "fixed",
	report.ChangeBetter: "better", report.ChangeStillFailing: "still failing", report.ChangeStillPassing: "still passing",
	report.ChangeAdded: "added", report.ChangeYardstick: "definition changed",
}

// TestOneWordPerTask renders every surface of every golden case and checks that each task
// reads the same word everywhere it is named — the comment, the job summary, `compare`, JUnit —
// and that SARIF and the findings (which the annotations and the check run render) give each
// finding the same level.
func TestOneWordPerTask(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			in := goldenInput(t, tc.suites, tc.unaffected)
			words := unitWords(in)
			comment, summary := report.Comment(in), report.Summary(in)
			for _, s := range in.Suites {
				suite := s.Result.EvalName
				for id, word := range words[suite] {
					label := wordLabels[word]
					if label == "" {
						continue
					}
					task := taskOf(s.Result, id)
					if task == nil {
						continue
					}
					name := task.Name
					if name == "" {
						name = task.ID
					}
					for surface, md := range map[string]string{"comment": comment, "summary": summary} {
						for _, line := range strings.Split(md, "\n") {
							if !strings.Contains(line, " · "+escapeCell(name)+" ") && !strings.Contains(line, " · "+escapeCell(name)+" (") {
								continue
							}
							for other, otherLabel := range wordLabels {
								if other != word && strings.Contains(line, "("+otherLabel+")") {
									t.Errorf("%s: task %s is %q, but a line says (%s): %s", surface, id, word, otherLabel, line)
								}
							}
						}
					}
					if c := s.Comparison; c != nil {
						var table bytes.Buffer
						if err := c.WriteTable(&table); err != nil {
							t.Fatal(err)
						}
						for _, line := range strings.Split(table.String(), "\n") {
							f := strings.Fields(line)
							if len(f) > 0 && f[0] == cut(name, 25) && !strings.HasSuffix(line, label) && word != report.ChangeAdded {
								t.Errorf("compare table: task %s is %q, its row says: %s", id, word, line)
							}
						}
					}
				}
			}
			checkJUnitWords(t, in, words)
			checkSARIFLevels(t, in)
		})
	}
}

func escapeCell(s string) string {
	return strings.NewReplacer("|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`).Replace(s)
}

func cut(name string, n int) string {
	if r := []rune(name); len(r) > n {
		return string(r[:n-3]) + "..."
	}
	return name
}

func taskOf(r *results.SuiteResult, id string) *results.TaskResult {
	for _, t := range r.Tasks {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// checkJUnitWords: each testcase's `change` property is its task's word.
func checkJUnitWords(t *testing.T, in *report.Input, words map[string]map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	if err := report.WriteJUnit(&buf, in); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name  string `xml:"name,attr"`
				Props []struct {
					Name  string `xml:"name,attr"`
					Value string `xml:"value,attr"`
				} `xml:"properties>property"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, s := range in.Suites {
		byName := map[string]string{}
		for _, task := range s.Result.Tasks {
			name := task.Name
			if name == "" {
				name = task.ID
			}
			byName[name] = words[s.Result.EvalName][task.ID]
		}
		for _, js := range doc.Suites {
			if js.Name != s.Result.EvalName {
				continue
			}
			for _, c := range js.Cases {
				want, ok := byName[c.Name]
				if !ok {
					continue
				}
				got := ""
				for _, p := range c.Props {
					if p.Name == "change" {
						got = p.Value
					}
				}
				if got != want {
					t.Errorf("JUnit: %s/%s change %q, want %q", js.Name, c.Name, got, want)
				}
			}
		}
	}
}

// checkSARIFLevels: SARIF's results have the findings' levels, finding for finding.
func checkSARIFLevels(t *testing.T, in *report.Input) {
	t.Helper()
	var buf bytes.Buffer
	if err := report.WriteSARIF(&buf, in); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Runs []struct {
			Results []struct {
				Level   string `json:"level"`
				Message struct {
					Text string `json:"text"`
				} `json:"message"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, r := range doc.Runs {
		for _, res := range r.Results {
			got = append(got, res.Level+" "+res.Message.Text)
		}
	}
	sarif := map[string]string{report.LevelError: "error", report.LevelWarning: "warning", report.LevelNotice: "note"}
	for _, f := range in.Findings() {
		if f.Place() != nil {
			want = append(want, sarif[f.Level]+" "+f.Message)
		}
	}
	sort.Strings(got)
	sort.Strings(want)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("SARIF levels and messages differ from the findings:\n got %q\nwant %q", got, want)
	}
}
