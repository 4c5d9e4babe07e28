package graders

import (
	"context"
	"fmt"
	"strings"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:    "skill_invocation",
		Summary: "Compares the skills the agent invoked with the required ones (score = F1; the mode decides pass or fail).",
		Compile: compileSkillInvocation,
	})
}

type skillInvocationConfig struct {
	RequiredSkills []string `yaml:"required_skills"`
	Mode           string   `yaml:"mode"`
	AllowExtra     *bool    `yaml:"allow_extra"`
}

var skillModes = map[string]seqMode{
	"exact_match": seqExact,
	"in_order":    seqInOrder,
	"any_order":   seqAnyOrder,
}

type skillInvocationGrader struct {
	def        *spec.Grader
	required   []string
	modeName   string
	mode       seqMode
	allowExtra bool
}

func compileSkillInvocation(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	var cfg skillInvocationConfig
	if diags := decodeConfig(def, &cfg); diags.HasErrors() {
		return nil, diags
	}
	var diags spec.Diagnostics
	mode, ok := skillModes[cfg.Mode]
	if !ok {
		diags = append(diags, badMode(def, "mode", cfg.Mode, "exact_match", "in_order", "any_order"))
	}
	if len(cfg.RequiredSkills) == 0 {
		diags = append(diags, noChecks(def, "required_skills"))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	g := &skillInvocationGrader{def: def, required: cfg.RequiredSkills, modeName: cfg.Mode, mode: mode, allowExtra: true}
	if cfg.AllowExtra != nil {
		g.allowExtra = *cfg.AllowExtra
	}
	return g, nil
}

func (g *skillInvocationGrader) Grade(_ context.Context, in *Input) (*results.GraderResult, error) {
	actual := skillsInvoked(runOf(in))
	precision, recall, f1 := precisionRecall(g.required, actual)
	score := f1
	extra := !g.allowExtra && len(actual) > len(g.required)
	if extra {
		// The penalty depends on how many more invocations there were, not on which skills.
		penalty := float64(len(actual)-len(g.required)) / float64(len(actual))
		score = f1 * (1 - 0.6*penalty)
	}
	passed := sequenceMatches(g.mode, g.required, actual)

	var feedback string
	switch {
	case passed && extra:
		feedback = fmt.Sprintf("Skill invocation sequence matched but had extra invocations (got %d, expected %d)", len(actual), len(g.required))
	case passed:
		feedback = "Skill invocation sequence matched"
	default:
		var parts []string
		switch g.mode {
		case seqExact:
			parts = append(parts, fmt.Sprintf("Exact match failed: expected %d skills %s, got %d skills %s",
				len(g.required), goList(g.required), len(actual), goList(actual)))
		case seqInOrder:
			parts = append(parts, fmt.Sprintf("In-order match failed: not all required skills %s appeared in order within actual %s",
				goList(g.required), goList(actual)))
		default:
			parts = append(parts, "Any-order match failed: missing or insufficient skills: "+strings.Join(shortfalls(g.required, actual), ", "))
		}
		if extra {
			parts = append(parts, fmt.Sprintf("Extra invocations not allowed (got %d, expected %d)", len(actual), len(g.required)))
		}
		feedback = strings.Join(parts, "; ")
	}
	return result(g.def, score, passed, feedback, map[string]any{
		"mode":            g.modeName,
		"required_skills": g.required,
		"actual_skills":   actual,
		"allow_extra":     g.allowExtra,
		"precision":       precision,
		"recall":          recall,
		"f1":              f1,
	}), nil
}
