package conformance

import (
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/scriptedmodel"
)

// turns counts the model turns a session cost: requests the script answered with a tool call or
// text (auxiliary requests, such as a title, left out).
func turns(srv *scriptedmodel.Server) int {
	n := 0
	for _, r := range srv.ModelRequests() {
		if r.Reply == "text" || strings.HasPrefix(r.Reply, "tool:") {
			n++
		}
	}
	return n
}

// TestEarlyStopTriggerPrompts runs trigger prompts as the runner does (trigger_early_stop's
// default: the skill under test, or 3 tool calls without it) and without early stop, and
// compares the model turns and tokens each cost. A should-trigger prompt whose first turn invokes
// the skill costs one model turn.
func TestEarlyStopTriggerPrompts(t *testing.T) {
	skillStep := func(c cli) scriptedmodel.Step {
		return scriptedmodel.Step{Skill: skillName, SkillFile: c.standin().SkillsDir + "/" + skillName + "/SKILL.md"}
	}
	shell := func(cmd string) scriptedmodel.Step { return scriptedmodel.Step{Shell: cmd} }
	rule := &agent.StopRule{SkillCall: skillName, ToolCallCount: 3}
	for _, c := range clis {
		t.Run(c.executor, func(t *testing.T) {
			cases := []struct {
				name      string
				steps     []scriptedmodel.Step
				wantStop  string
				maxTurns  int // with early stop
				fullTurns int // without
			}{
				{"should trigger", []scriptedmodel.Step{skillStep(c), shell("cat notes.txt"), shell("ls"), shell("pwd")}, agent.StopSkillCall, 1, 5},
				{"should not trigger", []scriptedmodel.Step{shell("ls"), shell("cat notes.txt"), shell("pwd"), shell("echo hi"), shell("date")}, agent.StopToolCallCount, 3, 6},
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					script := scriptedmodel.Script{Steps: tc.steps, Final: finalAnswer, Usage: usage}
					stopped := runCLIWith(t, c, script, "Please greet Ada.", 3*time.Minute, rule)
					defer stopped.logOnFailure(t)
					full := runCLIWith(t, c, script, "Please greet Ada.", 3*time.Minute, nil)
					defer full.logOnFailure(t)
					if stopped.err != nil || full.err != nil {
						t.Fatalf("errors: stopped %v, full %v", stopped.err, full.err)
					}
					if stopped.run.StoppedEarly != tc.wantStop {
						t.Errorf("stopped_early %q, want %q", stopped.run.StoppedEarly, tc.wantStop)
					}
					st, ft := turns(stopped.srv), turns(full.srv)
					if st > tc.maxTurns || ft != tc.fullTurns {
						t.Errorf("model turns: %d with early stop (at most %d), %d without (want %d)", st, tc.maxTurns, ft, tc.fullTurns)
					}
					ss, fs := stopped.srv.Served(), full.srv.Served()
					// A stopped run's tokens are what the model served (Claude Code, interrupted,
					// reports them) or unknown (the others report usage only at the end): never
					// a smaller number passed off as the run's.
					switch u := stopped.run.SessionDigest.Usage; {
					case c.executor == "claude-code" && (u == nil || u.InputTokens != ss.Input || u.OutputTokens != ss.Output):
						t.Errorf("stopped run's usage %+v, the model served %+v", u, ss)
					case c.executor != "claude-code" && u != nil && u.InputTokens != ss.Input:
						t.Errorf("stopped run's usage %+v, the model served %+v: a partial count", u, ss)
					}
					t.Logf("FIGURE %s %s: turns %d→%d, input tokens %d→%d, output tokens %d→%d, duration %dms→%dms",
						c.executor, tc.name, ft, st, fs.Input, ss.Input, fs.Output, ss.Output, full.run.DurationMS, stopped.run.DurationMS)
				})
			}
		})
	}
}
