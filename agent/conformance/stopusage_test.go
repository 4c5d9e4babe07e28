package conformance

import (
	"testing"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/scriptedmodel"
)

// A trigger prompt stopped once the skill fired records the tokens the model served for the steps
// the CLI reported: Qwen Code reports each response's usage with the response, opencode after
// the step's tool calls (the executor records a step when it finishes, and stops there).
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
			// The usage of the steps the CLI reported before the stop: every request served
			// `usage`, and one the CLI sent after the decision (a loaded machine kills it a
			// little later) was never reported, so it is not in the run's figures.
			u := s.run.SessionDigest.Usage
			requests := len(s.srv.ModelRequests())
			if u == nil || u.Turns < 1 || u.Turns > requests {
				t.Fatalf("recorded usage %+v over %d model requests", u, requests)
			}
			want := scriptedmodel.Usage{}
			for range u.Turns {
				want = want.Add(usage)
			}
			if u.InputTokens != want.Input || u.OutputTokens != want.Output || u.CacheReadTokens != want.Cached {
				t.Errorf("recorded usage %+v; the model served %+v over the %d reported step(s)", u, want, u.Turns)
			}
		})
	}
}
