package results

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func journalTask(id string, passed bool) *TaskResult {
	status := StatusPassed
	if !passed {
		status = StatusFailed
	}
	score := 0.0
	if passed {
		score = 1
	}
	g := &GraderResult{Name: "g", Type: "text", Score: score, Weight: 1, Passed: passed}
	return &TaskResult{ID: id, Name: id, Status: status, Runs: []*RunResult{{RunNumber: 1, Status: status, Validations: Validations{g}}}}
}

// journalFile is what a journal of suite "s" holds after tasks were appended and it was closed.
func journalFile(tb testing.TB, tasks ...*TaskResult) []byte {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "j")
	j, err := CreateJournal(path, &SuiteResult{EvalName: "s"})
	if err != nil {
		tb.Fatal(err)
	}
	for _, task := range tasks {
		if err := j.Append(task); err != nil {
			tb.Fatal(err)
		}
	}
	j.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func TestJournalRecovery(t *testing.T) {
	path := filepath.Join(t.TempDir(), "suite.json.journal")
	j, err := CreateJournal(path, &SuiteResult{EvalName: "suite", Tasks: []*TaskResult{journalTask("ignored", true)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range []*TaskResult{journalTask("a", true), journalTask("b", false)} {
		if err := j.Append(task); err != nil {
			t.Fatal(err)
		}
	}
	// While the writer holds it, the journal is not recovered.
	if _, err := RecoverJournal(path); !errors.Is(err, ErrJournalInUse) {
		t.Errorf("recovering a journal in use: %v", err)
	}
	j.Close()
	res, err := RecoverJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if res.EvalName != "suite" || len(res.Tasks) != 2 || res.Tasks[0].ID != "a" || res.Tasks[1].ID != "b" {
		t.Fatalf("recovered %+v", res)
	}
	if !res.Incomplete || !strings.Contains(res.IncompleteReason, "2 finished task(s)") || res.Gate == nil || res.Gate.Passed {
		t.Errorf("incomplete %v %q, gate %+v", res.Incomplete, res.IncompleteReason, res.Gate)
	}
	if res.Summary.TotalTests != 2 || res.Summary.Succeeded != 1 {
		t.Errorf("summary %+v", res.Summary)
	}
}

func TestReadJournalTornAndBad(t *testing.T) {
	data := journalFile(t, journalTask("a", true))
	var buf bytes.Buffer
	buf.Write(data)
	buf.WriteString(`{"test_id": "b", "status": "pas`) // the crash came mid-line
	res, err := ReadJournal(&buf)
	if err != nil || len(res.Tasks) != 1 {
		t.Fatalf("torn last line: %v %v", res, err)
	}
	for _, bad := range []string{"", "{}\n", "not json\n", string(data) + "garbage\n", string(data) + "{\"status\": \"passed\"}\n"} {
		if _, err := ReadJournal(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func FuzzReadJournal(f *testing.F) {
	data := journalFile(f, journalTask("a", true), journalTask("b", false))
	f.Add(data)
	f.Add(data[:len(data)-7])
	f.Add([]byte(`{"skillgate_journal":1,"suite":{}}` + "\n" + `{"test_id":"x","runs":null}` + "\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		res, err := ReadJournal(bytes.NewReader(in))
		if err != nil {
			return
		}
		if !res.Incomplete || res.Gate == nil {
			t.Fatalf("recovered results must be incomplete and gated: %+v", res)
		}
		for _, task := range res.Tasks {
			if task.ID == "" || task.Runs == nil {
				t.Fatalf("task %+v", task)
			}
		}
	})
}

// A finished task reaches the disk within journalSync: at once when the last sync is older, by
// a due sync otherwise; a journal closed first leaves no sync behind.
func TestJournalSyncsWithinInterval(t *testing.T) {
	defer func(d time.Duration) { journalSync = d }(journalSync)
	journalSync = 50 * time.Millisecond
	j, err := CreateJournal(filepath.Join(t.TempDir(), "j"), &SuiteResult{EvalName: "s"})
	if err != nil {
		t.Fatal(err)
	}
	state := func() (time.Time, bool) {
		j.mu.Lock()
		defer j.mu.Unlock()
		return j.lastSync, j.syncing != nil
	}
	created, _ := state()
	if err := j.Append(journalTask("a", true)); err != nil {
		t.Fatal(err)
	}
	if last, due := state(); last != created || !due {
		t.Fatalf("a task right after the start: synced %v, due %v; want no sync yet and one due", last != created, due)
	}
	deadline := time.Now().Add(5 * time.Second)
	for last, _ := state(); last == created; last, _ = state() {
		if time.Now().After(deadline) {
			t.Fatal("the due sync never came")
		}
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(journalSync)
	before, _ := state()
	if err := j.Append(journalTask("b", true)); err != nil {
		t.Fatal(err)
	}
	if last, due := state(); last == before || due {
		t.Fatalf("a task after a quiet interval: synced %v, due %v; want synced at once", last != before, due)
	}
	if err := j.Append(journalTask("c", true)); err != nil {
		t.Fatal(err)
	}
	if err := j.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, due := state(); due {
		t.Error("a removed journal still has a sync due")
	}
}
