package action

import (
	"os"
	"strings"
	"testing"
)

// vally-results publishes a Vally results.jsonl: its eval is a suite of the summary and the
// outputs, and its failed stimulus fails the step.
func TestVallyResultsInput(t *testing.T) {
	h := newHarness(t, "push")
	data, err := os.ReadFile("../cmd/skillgate/testdata/vally-results/results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	h.write("vally/results.jsonl", string(data))
	h.input(InVallyResults, "vally/results.jsonl")
	if code := h.run(); code != ExitFailed {
		t.Fatalf("exit %d, want %d (a stimulus failed)", code, ExitFailed)
	}
	out := h.outputs()
	if out[OutSuitesRun] != `["aks-network-capture-agentic-eval"]` || out[OutPassed] != "false" {
		t.Errorf("outputs %v", out)
	}
	if s := h.summary(); !strings.Contains(s, "Routing: DNS resolution failure") {
		t.Errorf("summary lacks the stimulus:\n%s", s)
	}
	h2 := newHarness(t, "push")
	h2.input(InVallyResults, "missing.jsonl")
	if code := h2.run(); code != ExitUsage {
		t.Errorf("a missing file: exit %d", code)
	}
}
