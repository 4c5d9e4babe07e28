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
	// ExpectedActions are tool names, or mappings: {type: tool_called, tool: x} (the tool also
	// under name, tool_name or action) and {type: skill_invoked, skill: x}.
	ExpectedActions []*spec.Value `yaml:"expected_actions"`
}

// actionNameKeys are the keys a mapping item of expected_actions may name its tool under, and
// skillNameKeys its skill.
var (
	actionNameKeys = []string{"tool", "tool_name", "name", "action"}
	skillNameKeys  = []string{"skill", "skill_name", "name"}
)

// skillAction is how a skill invocation reads in an action sequence.
const skillAction = "skill:"

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
	// skills: some expected action is a skill invocation, so the actual sequence holds the
	// run's skill invocations among its tool calls.
	skills bool
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
	warned := false
	for i, item := range cfg.ExpectedActions {
		action, problem := readAction(item)
		if problem != "" {
			// waza cannot read the item either and errors each run: so does this grader.
			msg := fmt.Sprintf("grader %q: expected_actions[%d] %s", def.Name, i, problem)
			return Failing(msg), append(diags, spec.Warnf(item.Pos(), spec.KeyPath("config", "expected_actions", i),
				"write a tool name, {type: tool_called, tool: <name>} or {type: skill_invoked, skill: <name>}", "%s; the grader errors in every run", msg))
		}
		if item.IsMapping() && !warned {
			warned = true
			diags = append(diags, spec.Warnf(item.Pos(), spec.KeyPath("config", "expected_actions", i), "write tool names to keep the suite running under waza",
				"grader %q: waza reads expected_actions as tool names and errors on a mapping item; skillgate reads {type: tool_called, tool: x} as a call of x and {type: skill_invoked, skill: x} as the skill x invoked, in the run's order", def.Name))
		}
		g.skills = g.skills || strings.HasPrefix(action, skillAction)
		g.expected = append(g.expected, action)
	}
	return g, diags
}

// readAction reads one expected_actions item: a tool name, or a mapping by its type (a skill
// invocation reads skillAction + its name); problem says why an item cannot be read.
func readAction(v *spec.Value) (action, problem string) {
	if v == nil {
		return "", "is empty"
	}
	if v.IsScalar() {
		if v.IsNull() || v.Text() == "" {
			return "", "is empty"
		}
		return v.Text(), ""
	}
	if !v.IsMapping() {
		return "", "must be a tool name or a mapping, not " + v.Describe()
	}
	first := func(keys []string) string {
		for _, key := range keys {
			if k := v.Key(key); k.IsScalar() && k.Text() != "" {
				return k.Text()
			}
		}
		return ""
	}
	switch typ := v.Key("type").Text(); typ {
	case "skill_invoked", "skill_invocation", "skill":
		if name := first(skillNameKeys); name != "" {
			return skillAction + name, ""
		}
		return "", "names no skill"
	case "", "tool_called", "tool_call", "tool":
		if name := first(actionNameKeys); name != "" {
			return name, ""
		}
		return "", "names no tool"
	default:
		return "", fmt.Sprintf("has the unknown type %q (known: tool_called, skill_invoked)", typ)
	}
}

// actions is the run's action sequence: its tool names in call order, and with skills its
// skill invocations among them (skillAction + name) where the transcript has them.
func actions(run *results.AgentRun, skills bool) []string {
	if !skills {
		return toolsUsed(run)
	}
	var out []string
	invoked := false
	for i := range run.Transcript {
		switch ev := &run.Transcript[i]; ev.Type {
		case results.EventToolCall:
			out = append(out, results.ToolCallOf(ev).Name)
		case results.EventSkillInvocation:
			out = append(out, skillAction+ev.Name)
			invoked = true
		}
	}
	if len(out) == 0 {
		out = append(out, toolsUsed(run)...)
	}
	if !invoked {
		// A run recorded without a transcript: its skill invocations come after its tools.
		for _, s := range skillsInvoked(run) {
			out = append(out, skillAction+s)
		}
	}
	return out
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
	actual := orEmpty(actions(runOf(in), g.skills))
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
