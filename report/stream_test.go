package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillgate/skillgate/results"
)

// largeSuite is bigSuite with what else a task can be: a repeated id, a skipped task, a task
// whose hook failed, confirmation trials, a pairwise verdict and a grade awaiting a person.
func largeSuite(name string, tasks, shift int) *results.SuiteResult {
	s := bigSuite(name, tasks, 1, shift)
	s.Tasks[10].ID = s.Tasks[11].ID
	skipped := s.Tasks[20]
	skipped.Runs, skipped.Status, skipped.SkipReason = nil, results.StatusSkipped, "filtered"
	skipped.Finish()
	hook := s.Tasks[30]
	hook.Runs, hook.Status, hook.ErrorMsg = nil, results.StatusError, "before_task hook failed: exit 1"
	hook.Finish()
	for _, tk := range s.Tasks {
		if tk.Status == results.StatusFailed && len(tk.Confirmations) == 0 && tk.Pairwise == nil {
			tk.Confirmations = []*results.RunResult{{RunNumber: 2, Status: results.StatusFailed}, {RunNumber: 3, Status: results.StatusPassed}}
			tk.Pairwise = &results.Pairwise{Verdict: results.PairwiseWorse, Reason: "less precise", Judge: "model-j", Worse: 1}
			break
		}
	}
	run := s.Tasks[40].Runs[0]
	run.Validations = append(run.Validations, &results.GraderResult{Name: "review", Type: "human", Status: results.StatusPending, Feedback: "Awaiting human review"})
	s.Tasks[40].Finish()
	return finishSuite(s)
}

// The reports of results files read in passes (results.OpenFile of a large file: tasks not
// held, read again as the reports list them) are byte for byte those of the same files read
// whole, with a baseline and without.
func TestStreamedReportsEqualHeldOnes(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	dir := t.TempDir()
	headFile, baseFile := filepath.Join(dir, "head.json"), filepath.Join(dir, "base.json")
	for file, s := range map[string]*results.SuiteResult{headFile: largeSuite("large", n, 0), baseFile: largeSuite("large", n, 5)} {
		if err := results.WriteFile(file, s); err != nil {
			t.Fatal(err)
		}
	}
	read := func(streamed bool) (head, base *results.SuiteResult) {
		open := func(path string) *results.SuiteResult {
			limit := int64(1 << 40)
			if streamed {
				limit = -1
			}
			s, err := results.OpenFileWith(path, results.OpenOptions{Resident: limit})
			if err != nil {
				t.Fatal(err)
			}
			if s.Streamed() != streamed {
				t.Fatalf("%s: streamed %v", path, s.Streamed())
			}
			return s
		}
		return open(headFile), open(baseFile)
	}
	render := func(streamed, compare bool) map[string][]byte {
		head, base := read(streamed)
		if !compare {
			base = nil
		}
		s, err := NewSuite(head, base, CompareOptions{Resamples: 500, HeadFile: headFile, BaseFile: baseFile})
		if err != nil {
			t.Fatal(err)
		}
		Decide([]*Comparison{s.Comparison})
		in := &Input{Suites: []*Suite{s}, Key: "large", ToolVersion: "0.0.0-test"}
		out := map[string][]byte{}
		paths, err := WriteDir(t.TempDir(), in)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range paths {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			out[filepath.Base(p)] = data
		}
		var term bytes.Buffer
		if err := Terminal(&term, in, TerminalOptions{}); err != nil {
			t.Fatal(err)
		}
		out["terminal"] = term.Bytes()
		if c := s.Comparison; c != nil {
			var js bytes.Buffer
			if err := c.WriteJSON(&js); err != nil {
				t.Fatal(err)
			}
			out["comparison.json"] = js.Bytes()
		}
		out["findings"] = []byte(findingsText(in.Findings()))
		return out
	}
	for _, compare := range []bool{false, true} {
		held, streamed := render(false, compare), render(true, compare)
		if len(held) < 7 {
			t.Fatalf("%d reports", len(held))
		}
		for name, want := range held {
			if got := streamed[name]; !bytes.Equal(got, want) {
				t.Errorf("baseline %v: %s differs when the files are read in passes (%d bytes, want %d)", compare, name, len(got), len(want))
			}
		}
	}
}

func findingsText(fs []Finding) string {
	var b bytes.Buffer
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s %v %s %s %v: %s\n", f.Kind, f.Level, f.Blocking, f.Task, f.Title, f.Place(), f.Message)
	}
	return b.String()
}
