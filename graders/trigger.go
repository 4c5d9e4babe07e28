package graders

import (
	"context"
	"fmt"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:    "trigger",
		Summary: "Checks that the agent invoked the skill under test exactly when the task says it should (expected.should_trigger); with skill_path and mode, scores how well the task's prompt matches the skill's SKILL.md (waza's trigger heuristic).",
		Config:  triggerConfigFor,
		Compile: compileTrigger,
	})
}

type triggerConfig struct {
	Skill         string `yaml:"skill"`
	ShouldTrigger *bool  `yaml:"should_trigger"`
}

type triggerGrader struct {
	def    *spec.Grader
	skill  string
	should bool
}

func compileTrigger(def *spec.Grader, env *Env) (Grader, spec.Diagnostics) {
	if _, heuristic := def.Config.(*triggerHeuristicConfig); heuristic {
		return compileTriggerHeuristic(def, env)
	}
	cfg := configOf[triggerConfig](def)
	var diags spec.Diagnostics
	skill := cfg.Skill
	if skill == "" && env != nil && env.Suite != nil {
		skill = env.Suite.Skill
	}
	if skill == "" {
		msg := fmt.Sprintf("grader %q: no skill to look for (the suite names none)", def.Name)
		return Failing(msg), spec.Diagnostics{spec.Warnf(def.ConfigPos(), "config.skill", "set `skill:` in eval.yaml (or config.skill on the grader)",
			"%s; it errors in every run", msg)}
	}
	if cfg.ShouldTrigger == nil {
		diags = append(diags, spec.Errorf(def.ConfigPos(), "config.should_trigger", "set should_trigger: true or false",
			"grader %q: should_trigger is not set", def.Name))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return &triggerGrader{def: def, skill: skill, should: *cfg.ShouldTrigger}, nil
}

func (g *triggerGrader) Grade(_ context.Context, in *Input) (*results.GraderResult, error) {
	invoked := skillsInvoked(runOf(in))
	did := false
	for _, name := range invoked {
		if name == g.skill {
			did = true
			break
		}
	}
	var feedback string
	switch {
	case did && g.should:
		feedback = fmt.Sprintf("Skill %s was invoked, as expected", g.skill)
	case !did && !g.should:
		feedback = fmt.Sprintf("Skill %s was not invoked, as expected", g.skill)
	case g.should:
		feedback = fmt.Sprintf("Skill %s should have been invoked but was not", g.skill)
	default:
		feedback = fmt.Sprintf("Skill %s was invoked but should not have been", g.skill)
	}
	score := 0.0
	if did == g.should {
		score = 1
	}
	return result(g.def, score, did == g.should, feedback, map[string]any{
		"skill":          g.skill,
		"should_trigger": g.should,
		"did_trigger":    did,
		"invoked_skills": invoked,
	}), nil
}
