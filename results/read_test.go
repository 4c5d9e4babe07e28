package results

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// The streaming reader must read every file exactly as Decode does, whatever the read sizes.
func TestStreamReadsAsDecode(t *testing.T) {
	var files []string
	for _, pattern := range []string{"testdata/*.json", "testdata/*/*.json", "../report/testdata/*/*.json", "../cmd/skillgate/testdata/*/*.json", "../action/testdata/*.json"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	inline := map[string]string{
		"escapes":     `{"schema_version":1,"eval_name":"a\"b\\","tasks":[{"id":"t\\\"1","name":"x\u00e9","runs":[{"run_number":1,"final_output":"}]\\\\","validations":{"g":{"identifier":"g","score":1,"details":{"k":[1,2,{"x":null}]}}}}]},null],"metrics":{}}`,
		"scalar last": `{"eval_name":"w","tasks":[],"x":1}`,
		"tasks null":  `{"schema_version":1,"eval_name":"n","tasks":null}`,
		"spaces":      " \n{ \"schema_version\" : 1 , \"eval_name\" : \"s\" , \"tasks\" : [ { \"id\" : \"a\" } , { \"id\" : \"b\" } ] } \n",
		"truncated":   `{"schema_version":1,"eval_name":"t","tasks":[{"id":"a"`,
		"trailing":    `{"schema_version":1,"eval_name":"t","tasks":[]} x`,
		"bad task":    `{"schema_version":1,"eval_name":"t","tasks":[{"id":5}]}`,
		"newer":       `{"schema_version":99,"eval_name":"t","tasks":[]}`,
		"not object":  `[1]`,
		"empty":       ``,
		"shared":      string(mustMarshal(t, sharedSuite())),
	}
	dir := t.TempDir()
	for name, content := range inline {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".json")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if len(files) < len(inline)+3 {
		t.Fatalf("only %d files found", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, wantErr := Decode(data, f)
		got, gotErr := ReadFile(f)
		if _, _, streamed := decodeStream(bytes.NewReader(data)); wantErr == nil && !streamed {
			t.Errorf("%s: read by the fallback, not the stream", f)
		}
		if (wantErr == nil) != (gotErr == nil) || (wantErr != nil && wantErr.Error() != gotErr.Error()) {
			t.Errorf("%s: error %v, want %v", f, gotErr, wantErr)
			continue
		}
		if wantErr != nil {
			continue
		}
		if g, w := mustMarshal(t, got), mustMarshal(t, want); !bytes.Equal(g, w) {
			t.Errorf("%s: stream read differs from Decode", f)
		}
		// One byte per read: every value crosses buffer boundaries.
		s, v, ok := decodeStream(iotest.OneByteReader(bytes.NewReader(data)))
		if !ok {
			t.Errorf("%s: one byte at a time: not read", f)
			continue
		}
		one, err := finishDecode(s, v, f)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := mustMarshal(t, one), mustMarshal(t, want); !bytes.Equal(g, w) {
			t.Errorf("%s: one byte at a time: differs from Decode", f)
		}
	}
}

func mustMarshal(t *testing.T, s *SuiteResult) []byte {
	t.Helper()
	data, err := Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func sharedSuite() *SuiteResult {
	s := bigSuite(3, 3)
	for _, tr := range s.Tasks {
		for _, r := range tr.Runs {
			r.Validations[0].Details = map[string]any{"contains": []any{"a"}, "failures": nil}
		}
	}
	return s
}

// Fields the results model gained after the compact writer and the streaming reader (run cache,
// early stop, hashes, spend, tool call outcomes, pass rate) must survive a write and a read, in
// both layouts, with details shared.
func TestRoundTripKeepsEveryField(t *testing.T) {
	s := sharedSuite()
	recorded := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s.Config.Pricing = map[string]Price{"m": {Input: 3, Output: 15}}
	s.Config.TaskPassThreshold = 0.5
	s.Config.SkipTriggers = true
	for i, tr := range s.Tasks {
		tr.DefinitionHash, tr.GradersHash = fmt.Sprintf("def%d", i), fmt.Sprintf("gr%d", i)
		for _, r := range tr.Runs {
			r.RunKey = "key-" + tr.ID
			r.StoppedEarly = "skill_call"
			r.Reused = &Reuse{Key: r.RunKey, Commit: "abc", RecordedAt: recorded}
			r.SessionDigest.Usage = &Usage{InputTokens: 10, OutputTokens: 5}
			r.SessionDigest.ToolCalls = []ToolCall{{Name: "bash", Outcome: ToolFailed}, {Name: "read", Success: true, Outcome: ToolSucceeded}}
		}
	}
	s.TriggerResults = []*TriggerResult{{ID: "p1", Prompt: "x", ShouldTrigger: true, DidTrigger: true, RunKey: "tk", StoppedEarly: "skill_call",
		Reused: &Reuse{Key: "tk", RecordedAt: recorded}, Usage: &Usage{InputTokens: 1}, ToolCalls: []ToolCall{{Name: "skill", Outcome: ToolUnknown}}}}
	for _, tr := range s.Tasks {
		tr.FinishAt(s.Config.TaskPassThreshold)
	}
	Summarize(s)
	if s.Summary.Spend == nil || s.Summary.Spend.Reused == 0 || s.Summary.PassRate == 0 {
		t.Fatalf("the test suite must have spend and a pass rate: %+v", s.Summary)
	}
	want := mustMarshal(t, s)
	for _, pretty := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "r.json")
		if err := WriteFileAs(path, s, pretty); err != nil {
			t.Fatal(err)
		}
		raw, _ := os.ReadFile(path)
		for _, key := range []string{`"spend"`, `"run_key"`, `"reused"`, `"stopped_early"`, `"definition_hash"`, `"graders_hash"`, `"outcome"`, `"pass_rate"`, `"grader_details"`} {
			if !bytes.Contains(raw, []byte(key)) {
				t.Errorf("pretty %v: %s not written", pretty, key)
			}
		}
		got, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if g := mustMarshal(t, got); !bytes.Equal(g, want) {
			t.Errorf("pretty %v: read back differs:\n%s\nwant:\n%s", pretty, g, want)
		}
		r := got.Tasks[1].Runs[0]
		if r.Reused == nil || !r.Reused.RecordedAt.Equal(recorded) || r.RunKey != "key-task-00001" || r.StoppedEarly != "skill_call" ||
			r.SessionDigest.ToolCalls[0].Outcome != ToolFailed || got.Tasks[1].GradersHash != "gr1" || got.Summary.Spend == nil ||
			got.TriggerResults[0].Reused == nil || got.Config.TaskPassThreshold != 0.5 {
			t.Errorf("pretty %v: fields lost: %+v", pretty, r)
		}
	}
}
