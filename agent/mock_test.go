package agent

import (
	"context"
	"testing"
)

func TestMock(t *testing.T) {
	tests := []struct {
		name       string
		req        Request
		wantOutput string
		wantSkill  bool
	}{
		{"plain", Request{Prompt: "Explain this"}, "Mock response for: Explain this", false},
		{"untrimmed with files", Request{Prompt: "Review\n", InputFiles: []string{"a", "b"}}, "Mock response for: Review\n\nAnalyzed 2 file(s)", false},
		{"names the skill", Request{Prompt: "Use Code-Explainer here", Skill: "code-explainer", WithSkill: true}, "Mock response for: Use Code-Explainer here", true},
		{"skill not installed", Request{Prompt: "use code-explainer", Skill: "code-explainer", WithSkill: false}, "Mock response for: use code-explainer", false},
		{"other prompt", Request{Prompt: "sort a list", Skill: "code-explainer", WithSkill: true}, "Mock response for: sort a list", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			run, err := Mock{}.Run(context.Background(), &tc.req)
			if err != nil {
				t.Fatal(err)
			}
			if run.FinalOutput != tc.wantOutput {
				t.Errorf("output %q, want %q", run.FinalOutput, tc.wantOutput)
			}
			invoked := len(run.SessionDigest.SkillInvocations) == 1 && run.SessionDigest.SkillInvocations[0].Name == tc.req.Skill
			if invoked != tc.wantSkill {
				t.Errorf("skill invoked = %v, want %v (%+v)", invoked, tc.wantSkill, run.SessionDigest)
			}
			if run.SessionDigest.ToolCallCount != 0 || run.SessionDigest.ToolsUsed == nil || run.SessionDigest.Usage != nil {
				t.Errorf("mock digest: %+v", run.SessionDigest)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := (Mock{}).Run(ctx, &Request{}); err == nil {
		t.Error("a cancelled context must fail the run")
	}
}
