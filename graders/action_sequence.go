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
		Name:    "action_sequence",
		Summary: "Compares the sequence of tools the agent called with the expected one (score = F1; the matching mode decides pass or fail).",
		Config:  newConfig[actionSequenceConfig],
		Compile: compileActionSequence,
	})
}

type actionSequenceConfig struct {
	MatchingMode string `yaml:"matching_mode"`
	// ExpectedActions are tool names: strings, or mappings naming the tool under `tool`, `name`
	// or `action` (as newer waza suites write them).
	ExpectedActions []*spec.Value `yaml:"expected_actions"`
}

// actionNameKeys are the keys a mapping item of expected_actions may name its tool under.
var actionNameKeys = []string{"tool", "name", "action"}

var actionModes = map[string]seqMode{
	"exact_match":     seqExact,
	"in_order_match":  seqInOrder,
	"any_order_match": seqAnyOrder,
}

type actionSequenceGrader struct {
	def      *spec.Grader
	cfg      actionSequenceConfig
	expected []string
	mode     seqMode
}

func compileActionSequence(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[actionSequenceConfig](def)
	var diags spec.Diagnostics
	mode, ok := actionModes[cfg.MatchingMode]
	if !ok {
		diags = append(diags, badMode(def, "matching_mode", cfg.MatchingMode, "exact_match", "in_order_match", "any_order_match"))
	}
	if diags.HasErrors() {
		return nil, diags
	}
	if len(cfg.ExpectedActions) == 0 {
		return nothingToCheck(def, "expected_actions")
	}
	g := &actionSequenceGrader{def: def, cfg: cfg, mode: mode}
	for i, item := range cfg.ExpectedActions {
		name, ok := actionName(item)
		if !ok {
			diags = append(diags, spec.Errorf(item.Pos(), spec.KeyPath("config", "expected_actions", i), "write a tool name, or {tool: <name>}",
				"grader %q: expected_actions[%d] names no tool", def.Name, i))
			continue
		}
		g.expected = append(g.expected, name)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return g, nil
}

// actionName reads one expected_actions item: a string, or a mapping's tool/name/action.
func actionName(v *spec.Value) (string, bool) {
	if v == nil {
		return "", false
	}
	if v.IsScalar() {
		return v.Text(), v.Text() != "" && !v.IsNull()
	}
	for _, key := range actionNameKeys {
		if k := v.Key(key); k.IsScalar() && k.Text() != "" {
			return k.Text(), true
		}
	}
	return "", false
}

// badMode is the diagnostic for a matching mode outside its enumeration.
func badMode(def *spec.Grader, key, got string, allowed ...string) spec.Diagnostic {
	what := fmt.Sprintf("invalid %s %q", key, got)
	if got == "" {
		what = key + " is not set"
	}
	return spec.Errorf(def.ConfigAt(key), "config."+key, "use one of: "+strings.Join(allowed, ", "),
		"grader %q (%s): %s", def.Name, def.Type, what)
}

func (g *actionSequenceGrader) Grade(_ context.Context, in *Input) (*results.GraderResult, error) {
	actual := orEmpty(toolsUsed(runOf(in)))
	expected := g.expected
	precision, recall, f1 := precisionRecall(expected, actual)
	passed := sequenceMatches(g.mode, expected, actual)
	feedback := "Action sequence matched"
	if !passed {
		switch g.mode {
		case seqExact:
			feedback = fmt.Sprintf("Exact match failed: expected %d actions %s, got %d actions %s",
				len(expected), goList(expected), len(actual), goList(actual))
		case seqInOrder:
			feedback = fmt.Sprintf("In-order match failed: not all expected actions %s appeared in order within actual %s",
				goList(expected), goList(actual))
		default:
			feedback = "Any-order match failed: missing or insufficient actions: " + strings.Join(shortfalls(expected, actual), ", ")
		}
	}
	return result(g.def, f1, passed, feedback, map[string]any{
		"matching_mode":    g.cfg.MatchingMode,
		"expected_actions": expected,
		"actual_actions":   actual,
		"precision":        precision,
		"recall":           recall,
		"f1":               f1,
	}), nil
}
