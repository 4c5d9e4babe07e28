package graders

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/results"
)

// TestToolCallsAgreeWithDigest parses every recorded agent transcript (real CLI streams), whole
// and cut after each of its lines as a killed agent leaves it, and checks that graders see the
// tool calls, their outcomes, the tools used and the skills exactly as the executor's digest
// records them: from the digest, from the transcript alone (a run recorded without a digest) and
// from the run read back from results JSON (as reports read it).
func TestToolCallsAgreeWithDigest(t *testing.T) {
	paths, err := filepath.Glob("../agent/testdata/transcripts/*/*")
	if err != nil {
		t.Fatal(err)
	}
	outcomes := map[results.ToolOutcome]int{}
	for _, path := range paths {
		if filepath.Ext(path) == ".md" {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		format := filepath.Base(filepath.Dir(path))
		cuts := []int{len(data)}
		for i, b := range data {
			if b == '\n' {
				cuts = append(cuts, i+1)
			}
		}
		for _, cut := range cuts {
			name := fmt.Sprintf("%s/%s/%d", format, filepath.Base(path), cut)
			run, _ := agent.ParseTranscript(format, bytes.NewReader(data[:cut]))
			if run == nil {
				continue // a cut inside a pretty-printed JSON document parses to nothing
			}
			d := run.SessionDigest
			for _, c := range d.ToolCalls {
				outcomes[c.Outcome]++
				if c.Success != (c.Outcome == results.ToolSucceeded) {
					t.Errorf("%s: call %s: success %v with outcome %q", name, c.ID, c.Success, c.Outcome)
				}
			}
			var readBack results.AgentRun
			encoded, _ := json.Marshal(run)
			if err := json.Unmarshal(encoded, &readBack); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, view := range []struct {
				what string
				run  *results.AgentRun
			}{
				{"digest", run},
				{"transcript only", &results.AgentRun{Transcript: run.Transcript}},
				{"results JSON", &readBack},
			} {
				assertRunData(t, name+" ("+view.what+")", view.run, d)
			}
		}
	}
	// The cuts must exercise every outcome, the unknown one above all.
	for _, o := range []results.ToolOutcome{results.ToolSucceeded, results.ToolFailed, results.ToolUnknown} {
		if outcomes[o] == 0 {
			t.Errorf("no recorded transcript yields a tool call with outcome %q: %v", o, outcomes)
		}
	}
}

func assertRunData(t *testing.T, name string, run *results.AgentRun, d results.SessionDigest) {
	t.Helper()
	if got := toolCalls(run); !sameCalls(got, d.ToolCalls) {
		t.Errorf("%s: tool calls\n%+v\nwant\n%+v", name, got, d.ToolCalls)
	}
	if got := toolsUsed(run); !reflect.DeepEqual(got, d.ToolsUsed) {
		t.Errorf("%s: tools used %q, want %q", name, got, d.ToolsUsed)
	}
	if got := toolCallCount(run); got != d.ToolCallCount {
		t.Errorf("%s: tool call count %d, want %d", name, got, d.ToolCallCount)
	}
	want := []string{}
	for _, s := range d.SkillInvocations {
		want = append(want, s.Name)
	}
	if got := skillsInvoked(run); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: skills %q, want %q", name, got, want)
	}
}

// sameCalls compares tool calls as their JSON, the form results files keep (a number in a
// result reads back as float64).
func sameCalls(a, b []results.ToolCall) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return bytes.Equal(ja, jb)
}
