package graders

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:    "skill_invocation",
		Summary: "Compares the skills the agent invoked with the required ones (score = F1; the mode decides pass or fail).",
		Config:  newConfig[skillInvocationConfig],
		Compile: compileSkillInvocation,
	})
}

type skillInvocationConfig struct {
	RequiredSkills []string `yaml:"required_skills"`
	// ForbiddenSkills must not be invoked (waza ignores the key; suites use it to catch a
	// neighbouring skill answering instead): any one invoked fails the grader with score 0.
	ForbiddenSkills []string `yaml:"forbidden_skills"`
	Mode            string   `yaml:"mode"`
	AllowExtra      *bool    `yaml:"allow_extra"`
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
	forbidden  []string
}

func compileSkillInvocation(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[skillInvocationConfig](def)
	var diags spec.Diagnostics
	mode, ok := skillModes[cfg.Mode]
	if !ok && !(cfg.Mode == "" && len(cfg.RequiredSkills) == 0) {
		diags = append(diags, badMode(def, "mode", cfg.Mode, "exact_match", "in_order", "any_order"))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	if len(cfg.RequiredSkills) == 0 && len(cfg.ForbiddenSkills) == 0 {
		return nothingToCheck(def, "required_skills", "forbidden_skills")
	}
	g := &skillInvocationGrader{def: def, required: cfg.RequiredSkills, modeName: cfg.Mode, mode: mode, allowExtra: true, forbidden: cfg.ForbiddenSkills}
	if cfg.AllowExtra != nil {
		g.allowExtra = *cfg.AllowExtra
	}
	return g, nil
}

func (g *skillInvocationGrader) Grade(_ context.Context, in *Input) (*results.GraderResult, error) {
	actual := skillsInvoked(runOf(in))
	var invokedForbidden []string
	for _, f := range g.forbidden {
		if slices.Contains(actual, f) && !slices.Contains(invokedForbidden, f) {
			invokedForbidden = append(invokedForbidden, f)
		}
	}
	if len(g.required) == 0 {
		// Only forbidden skills: one check, passed when none was invoked.
		// waza reports precision, recall and F1 as 1 when no skill is required.
		if len(invokedForbidden) > 0 {
			return result(g.def, 0, false, "Forbidden skills invoked: "+strings.Join(invokedForbidden, ", "), g.details(actual, invokedForbidden, 1, 1, 1)), nil
		}
		return result(g.def, 1, true, "Forbidden skills were not invoked", g.details(actual, invokedForbidden, 1, 1, 1)), nil
	}
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
	if len(invokedForbidden) > 0 {
		// As waza words it: the sequence's failures first, then the forbidden skills; a sequence
		// that matched adds nothing.
		forbidden := "Forbidden skills invoked: " + strings.Join(invokedForbidden, ", ")
		if passed {
			feedback = forbidden
		} else {
			feedback += "; " + forbidden
		}
		score, passed = 0, false
	}
	return result(g.def, score, passed, feedback, g.details(actual, invokedForbidden, precision, recall, f1)), nil
}

func (g *skillInvocationGrader) details(actual, invokedForbidden []string, precision, recall, f1 float64) map[string]any {
	d := map[string]any{
		"mode":            g.modeName,
		"required_skills": g.required,
		"actual_skills":   actual,
		"allow_extra":     g.allowExtra,
		"precision":       precision,
		"recall":          recall,
		"f1":              f1,
	}
	if len(g.forbidden) > 0 {
		d["forbidden_skills"] = g.forbidden
		d["forbidden_violations"] = append([]string{}, invokedForbidden...)
	}
	return d
}
