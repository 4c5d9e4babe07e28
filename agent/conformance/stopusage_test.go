package conformance

import (
	"testing"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/scriptedmodel"
)

// A trigger prompt stopped once the skill fired records the tokens the model served for it: Qwen
// Code reports each response's usage with the response, opencode after the step's tool calls
// (the executor records a step when it finishes, and stops there).
func TestConformanceStoppedRunUsage(t *testing.T) {
	for _, c := range clis {
		if c.executor != "opencode" && c.executor != "qwen-code" {
			continue
		}
		t.Run(c.executor, func(t *testing.T) {
			script := scriptedmodel.Script{
				Steps: []scriptedmodel.Step{
					{Skill: skillName, SkillFile: c.standin().SkillsDir + "/" + skillName + "/SKILL.md"},
					{Shell: "cat notes.txt"},
				},
				Final: finalAnswer, Usage: usage,
			}
			s := runCLIWith(t, c, script, "Please greet Ada.", 3*time.Minute, &agent.StopRule{SkillCall: skillName})
			defer s.logOnFailure(t)
			if s.err != nil || s.run.StoppedEarly != agent.StopSkillCall {
				t.Fatalf("error %v, stopped_early %q", s.err, s.run.StoppedEarly)
			}
			served, u := s.srv.Served(), s.run.SessionDigest.Usage
			if u == nil || u.InputTokens != served.Input || u.OutputTokens != served.Output || u.CacheReadTokens != served.Cached {
				t.Errorf("recorded usage %+v; the model served %+v", u, served)
			}
		})
	}
}
