package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

// FuzzReplay: whatever a recorded run file or results file holds, the replay executor serves a
// run or an error, never panics, and what it serves encodes (the runner writes it to results).
// The same bytes are read as a normalized run (<id>.json), a native transcript (<id>.jsonl) and
// a results file.
func FuzzReplay(f *testing.F) {
	for _, pattern := range []string{"testdata/replay/runs/*.json", "testdata/transcripts/claude-code/*.json", "testdata/transcripts/codex/*.jsonl"} {
		files, _ := filepath.Glob(pattern)
		for _, path := range files {
			if data, err := os.ReadFile(path); err == nil && len(data) < 64<<10 {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`{"eval_name":"demo","tasks":[{"test_id":"a","runs":[{"run_number":0,"status":"error","error_msg":"x"},null]},null],"baseline_outcome":{"tasks":[{"test_id":"a","runs":[{}]}]},"trigger_results":[{"trial":-1},{"id":"a"}]}`))
	f.Add([]byte(`{"final_output": 3, "transcript": [{"type": "tool_call"}, null]}`))
	requests := []*Request{
		{TaskID: "a", Trial: 1, WithSkill: true}, {TaskID: "a", Trial: 2}, {TaskID: "#1", Trial: 1, Trigger: true, WithSkill: true},
		{TaskID: "a", Trial: 1, Trigger: true, WithSkill: true},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		testtree.WriteSame(t, dir, data, "runs/a.json", "runs/a.noskill.2.jsonl", "runs/trigger-a.1.jsonl", "results.json")
		for _, from := range []string{filepath.Join(dir, "runs"), filepath.Join(dir, "results.json")} {
			e, err := New("replay", Options{ReplayFrom: from, Suite: "demo"})
			if err != nil {
				t.Fatal(err)
			}
			for _, req := range requests {
				run, err := e.Run(context.Background(), req)
				if run == nil {
					if err == nil {
						t.Fatalf("%s: no run and no error", from)
					}
					continue
				}
				if err == nil && run.AgentError != "" {
					t.Fatalf("%s: agent error %q served as a success", from, run.AgentError)
				}
				if _, err := json.Marshal(run); err != nil {
					t.Fatalf("%s: the run does not encode: %v", from, err)
				}
			}
		}
	})
}
