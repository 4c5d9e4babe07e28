package action

import (
	"strings"
	"testing"
)

// A run where no real agent ran (the default mock executor) says so in the check run's title,
// before the verdict, and in the comment's headline.
func TestCheckTitleSaysNoAgentRan(t *testing.T) {
	h := newHarness(t, "pull_request.synchronize")
	h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
	h.input(InCheckRun, "true")
	h.input(InBaseline, "none")
	h.run()
	if len(h.gh.checks) == 0 {
		t.Fatalf("no check run:\n%s", h.stdout.String())
	}
	out, _ := h.gh.checks[0].Body["output"].(map[string]any)
	title, _ := out["title"].(string)
	if !strings.HasPrefix(title, "mock executor: the suites were checked, no agent ran; ✅ All ") {
		t.Errorf("title %q", title)
	}
	if summary, _ := out["summary"].(string); !strings.Contains(summary, "**mock executor: the suites were checked, no agent ran.**\n\n### ") {
		t.Errorf("the comment's headline does not say it:\n%.400s", summary)
	}
}
