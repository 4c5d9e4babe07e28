package results

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

// openCases are the files OpenFile must read exactly as ReadFile does when it reads them in
// passes: every results file of the tree and edge cases written here.
func openCases(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"testdata/*.json", "testdata/*/*.json", "../report/testdata/*/*.json", "../cmd/skillgate/testdata/*/*.json", "../action/testdata/*.json"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	written := string(writtenResults(t))
	calibrated := calibratedSuite()
	uplift := sharedSuite()
	uplift.IsBaseline, uplift.BaselineOutcome = true, sharedSuite()
	inline := map[string]string{
		"escapes":      `{"schema_version":1,"eval_name":"a\"b\\","tasks":[{"id":"t\\\"1","name":"x\u00e9","runs":[{"run_number":1,"final_output":"}]\\\\","validations":{"g":{"identifier":"g","score":1,"details":{"k":[1,2,{"x":null}]}}}}]},null],"metrics":{}}`,
		"null runs":    `{"schema_version":1,"eval_name":"n","tasks":[null,{"test_id":"a","runs":[null,{"run_number":1,"status":"passed","validations":{}}],"confirmations":[null]},null]}`,
		"tasks first":  `{"tasks":[{"test_id":"a","status":"failed","runs":[{"run_number":1,"score":7,"validations":{"g":{"identifier":"g","score":1,"passed":true}}}]}],"config":{"task_pass_threshold":3,"model_id":"m","pricing":{"m":{"input":-1,"output":2e20}}},"summary":{"duration_ms":-5},"eval_name":"late","schema_version":1}`,
		"waza order":   `{"tasks":[{"test_id":"a","runs":[{"attempts":0,"transcript":[{"type":"tool_call","tool_name":"bash","tool_call_id":"1"}],"validations":{"g":{"identifier":"g","score":0.5,"passed":false}}}]}],"eval_name":"waza","config":{"task_pass_threshold":0.5}}`,
		"scalar last":  `{"eval_name":"w","tasks":[],"x":1}`,
		"tasks null":   `{"schema_version":1,"eval_name":"n","tasks":null}`,
		"two tasks":    `{"schema_version":1,"eval_name":"n","tasks":[{"test_id":"a"}],"tasks":[{"test_id":"b"}]}`,
		"no tasks":     `{"schema_version":1,"eval_name":"n"}`,
		"truncated":    `{"schema_version":1,"eval_name":"t","tasks":[{"id":"a"`,
		"trailing":     `{"schema_version":1,"eval_name":"t","tasks":[]} x`,
		"bad task":     `{"schema_version":1,"eval_name":"t","tasks":[{"test_id":5}]}`,
		"huge number":  `{"schema_version":1,"eval_name":"t","tasks":[{"test_id":"a","runs":[{"run_number":1,"duration_ms":1e999}]}]}`,
		"newer":        `{"schema_version":99,"eval_name":"t","tasks":[]}`,
		"not object":   `[1]`,
		"empty":        ``,
		"shared":       string(mustMarshal(t, sharedSuite())),
		"calibrated":   string(mustMarshal(t, calibrated)),
		"uplift":       string(mustMarshal(t, uplift)),
		"clamped":      strings.Replace(strings.Replace(written, `"avg_score":1,`, `"avg_score":1.7e308,`, 1), `"duration_ms":10`, `"duration_ms":-10`, 1),
		"stats absent": strings.ReplaceAll(written, `"stats":{`, `"stats_gone":{`),
	}
	dir := t.TempDir()
	for name, content := range inline {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	return files
}

// calibratedSuite has a human_calibration grader whose config (the judge it calibrates) every
// run repeats, so the file shares it (grader_details) and calibration needs it restored.
func calibratedSuite() *SuiteResult {
	s := bigSuite(4, 2)
	for i, tk := range s.Tasks {
		for j, r := range tk.Runs {
			r.Validations = append(r.Validations,
				&GraderResult{Name: "judge", Type: "llm", Score: 1, Weight: 1, Passed: (i+j)%2 == 0},
				&GraderResult{Name: "human", Type: "human_calibration", Score: 1, Passed: i%2 == 0, Details: map[string]any{"calibrate_grader": "judge"}})
		}
		tk.Finish()
	}
	Summarize(s)
	return s
}

// OpenFile reads every file in passes (a resident limit below every size) exactly as ReadFile
// reads it whole: the same results, figures, warnings and errors, and its tasks read back the
// same each time.
func TestOpenFileReadsAsReadFile(t *testing.T) {
	streamed := 0
	for _, f := range openCases(t) {
		want, wantErr := ReadFile(f)
		got, gotErr := OpenFileWith(f, OpenOptions{Resident: -1})
		if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
			t.Errorf("%s: error %v, want %v", f, gotErr, wantErr)
			continue
		}
		if wantErr != nil {
			continue
		}
		if got.Streamed() {
			streamed++
			if got.Tasks != nil {
				t.Errorf("%s: tasks held", f)
			}
		}
		if g, w := mustMarshal(t, got), mustMarshal(t, want); !bytes.Equal(g, w) {
			t.Errorf("%s: read in passes differs from ReadFile:\n%s\nwant:\n%s", f, g, w)
			continue
		}
		if !reflect.DeepEqual(got.ReadWarnings, want.ReadWarnings) {
			t.Errorf("%s: warnings %q, want %q", f, got.ReadWarnings, want.ReadWarnings)
		}
		if g, w := got.TaskDigests(), want.TaskDigests(); !reflect.DeepEqual(g, w) || got.TaskCount() != len(want.Tasks) {
			t.Errorf("%s: %d digests, want %d", f, len(g), len(w))
		}
		var ids []string
		if err := got.EachTask(func(tk *TaskResult) error {
			ids = append(ids, tk.ID)
			return nil
		}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if len(ids) != len(want.Tasks) {
			t.Errorf("%s: %d tasks read again, want %d", f, len(ids), len(want.Tasks))
		}
	}
	if streamed < 20 {
		t.Errorf("only %d files read in passes", streamed)
	}
}

// A file up to the resident limit is read whole; a larger one is not held.
func TestOpenFileResidentLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteFile(path, bigSuite(50, 2)); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(path)
	for _, tc := range []struct {
		limit    int64
		streamed bool
	}{{0, false}, {info.Size(), false}, {info.Size() - 1, true}, {-1, true}} {
		s, err := OpenFileWith(path, OpenOptions{Resident: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		if s.Streamed() != tc.streamed || (len(s.Tasks) == 50) == tc.streamed || s.TaskCount() != 50 {
			t.Errorf("limit %d: streamed %v, %d tasks held, %d counted", tc.limit, s.Streamed(), len(s.Tasks), s.TaskCount())
		}
	}
}

// A file replaced or changed after it was opened is not read again: its tasks would not be
// the ones the figures were computed from.
func TestEachTaskRefusesAChangedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	if err := WriteFile(path, bigSuite(20, 1)); err != nil {
		t.Fatal(err)
	}
	s, err := OpenFileWith(path, OpenOptions{Resident: -1})
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	for name, change := range map[string]func() error{
		"rewritten": func() error { return WriteFile(path, bigSuite(20, 1)) },
		"touched":   func() error { return os.Chtimes(path, later, later) },
	} {
		if err := change(); err != nil {
			t.Fatal(err)
		}
		err := s.EachTask(func(*TaskResult) error { return nil })
		var re *ReadError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "changed") {
			t.Errorf("%s: error %v", name, err)
		}
		// A results file written from the opened suite (merge, a baseline's source recorded)
		// cannot lose its tasks either: the write fails.
		if err := WriteFile(filepath.Join(dir, "copy.json"), s); err == nil {
			t.Errorf("%s: written from a file that changed", name)
		}
	}
}

// A suite read in passes writes the same results file as one read whole.
func TestWriteFileOfAnOpenedFile(t *testing.T) {
	for _, name := range []string{"shared", "uplift"} {
		var s *SuiteResult
		switch name {
		case "shared":
			s = sharedSuite()
		default:
			s = sharedSuite()
			s.IsBaseline, s.BaselineOutcome = true, sharedSuite()
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "r.json")
		if err := WriteFile(path, s); err != nil {
			t.Fatal(err)
		}
		opened, err := OpenFileWith(path, OpenOptions{Resident: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, pretty := range []bool{false, true} {
			a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
			whole, _ := ReadFile(path)
			if err := WriteFileAs(a, whole, pretty); err != nil {
				t.Fatal(err)
			}
			if err := WriteFileAs(b, opened, pretty); err != nil {
				t.Fatal(err)
			}
			da, _ := os.ReadFile(a)
			db, _ := os.ReadFile(b)
			if !bytes.Equal(da, db) || !bytes.Contains(db, []byte(`"grader_details"`)) {
				t.Errorf("%s, pretty %v: written differently", name, pretty)
			}
		}
	}
}

// FuzzOpenFile: whatever the bytes, reading them in passes gives what ReadFile gives.
func FuzzOpenFile(f *testing.F) {
	for _, seed := range []string{
		`{"schema_version":1,"eval_name":"t","tasks":[{"test_id":"a","runs":[{"run_number":1,"validations":{"g":{"identifier":"g","score":1,"passed":true,"details":{"k":1}}}}]},null],"grader_details":{"g":{"x":[1]}}}`,
		`{"tasks":[{"test_id":"a","runs":[{"attempts":0}]}],"eval_name":"w"}`,
		`{"schema_version":1,"eval_name":"t","tasks":[{"test_id":"a","stats":{"pass_rate":7}}]}`,
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "r.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, wantErr := ReadFile(path)
		got, gotErr := OpenFileWith(path, OpenOptions{Resident: -1})
		if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
			t.Fatalf("error %v, want %v", gotErr, wantErr)
		}
		if wantErr != nil {
			return
		}
		g, err := Marshal(got)
		if err != nil {
			return // what ReadFile read does not encode either (checked below)
		}
		w, err := Marshal(want)
		if err != nil || !bytes.Equal(g, w) || !reflect.DeepEqual(got.ReadWarnings, want.ReadWarnings) {
			t.Fatalf("read in passes:\n%s\nwhole:\n%s (%v)", g, w, err)
		}
	})
}

// Reading the tasks of a file holds a bounded number of batches besides what the caller keeps,
// however slowly the caller takes them: the file is never held whole.
func TestEachTaskHoldsFewBatches(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if err := WriteFile(path, bigSuite(5000, 1)); err != nil {
		t.Fatal(err)
	}
	s, err := OpenFileWith(path, OpenOptions{Resident: -1})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.file.batches) < 50 {
		t.Fatalf("only %d batches", len(s.file.batches))
	}
	s.file.mostAhead.Store(0)
	n := 0
	if err := s.EachTask(func(*TaskResult) error {
		n++
		if n%batchTasks == 0 {
			time.Sleep(time.Millisecond) // a slow reader: the decoders run ahead as far as they may
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if most, bound := s.file.mostAhead.Load(), int64(2*runtime.GOMAXPROCS(0)+1); most < 1 || most > bound {
		t.Errorf("%d batches decoded ahead of the reader at once, bound %d", most, bound)
	}
}
