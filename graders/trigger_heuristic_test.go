package graders

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/spec"
)

// waza's trigger heuristic, scores worked out by hand for testdata/trigger/SKILL.md, whose
// vocabulary is {code, explainer, explains, new, teammates, explain, walk, through, read, file}
// and whose USE FOR phrases are "explain this code" and "walk me through".
func TestTriggerHeuristic(t *testing.T) {
	skill, err := filepath.Abs("testdata/trigger/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, mode, threshold, prompt string
		score                         float64
		passed                        bool
		feedback                      string
	}{
		// [please, explain, code]: tokens 2/3; the phrase "explain this code" is in the prompt: 1.
		{"phrase in the prompt", "positive", "", "Please explain this code to me", 1, true, "Prompt is trigger-aligned (score 1.00 >= 0.60)"},
		// [write, haiku, autumn, leaves]: nothing matches.
		{"unrelated prompt, negative", "negative", "", "Write a haiku about autumn leaves", 0, true, "Prompt correctly treated as non-trigger (score 0.00 < 0.60)"},
		{"unrelated prompt, positive", "positive", "", "Write a haiku about autumn leaves", 0, false, "Prompt is not trigger-aligned enough (score 0.00 < 0.60)"},
		// [read, explainer, file, now]: tokens 3/4; no phrase word: 0.75.
		{"token score below the threshold", "positive", "0.8", "Read the explainer file now", 0.75, false, "Prompt is not trigger-aligned enough (score 0.75 < 0.80)"},
		// [walk, through, parser]: every word of "walk me through" is in the prompt: 1.
		{"phrase words, negative", "negative", "", "Walk through the parser", 1, false, "Prompt appears trigger-aligned unexpectedly (score 1.00 >= 0.60)"},
		{"empty prompt", "positive", "", "?!", 0, false, "Prompt is not trigger-aligned enough (score 0.00 < 0.60)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := "type: trigger\nname: routes\nconfig:\n  skill_path: " + skill + "\n  mode: " + c.mode + "\n"
			if c.threshold != "" {
				src += "  threshold: " + c.threshold + "\n"
			}
			g := mustCompile(t, defFromYAML(t, src))
			r := grade(t, g, &Input{Task: &spec.Task{Prompt: c.prompt}, Run: runWith("irrelevant")})
			assertResult(t, r, c.score, c.passed, c.feedback)
		})
	}
}

func TestTriggerHeuristicProblems(t *testing.T) {
	// A SKILL.md that is not there (waza reads it from the working directory): a warning, and
	// every run the grader grades errors.
	g, diags := CompileOne(defFromYAML(t, "type: trigger\nname: r\nconfig:\n  skill_path: plugins/x/SKILL.md\n  mode: positive\n"), &Env{})
	if diags.HasErrors() || !strings.Contains(diagText(diags), "skill_path plugins/x/SKILL.md not found") {
		t.Fatalf("diags %v", diags)
	}
	if _, err := g.Grade(t.Context(), &Input{Task: &spec.Task{Prompt: "x"}}); err == nil {
		t.Errorf("grading must error")
	}
	for _, c := range []struct{ yaml, want string }{
		{"type: trigger\nname: r\nconfig:\n  skill_path: a/SKILL.md\n  mode: sideways\n", `invalid mode "sideways"`},
		{"type: trigger\nname: r\nconfig:\n  mode: positive\n", "skill_path is not set"},
		{"type: trigger\nname: r\nconfig:\n  skill_path: a/SKILL.md\n  mode: positive\n  threshold: 2\n", "threshold 2 is outside [0, 1]"},
	} {
		if _, diags := CompileOne(defFromYAML(t, c.yaml), &Env{}); !diags.HasErrors() || !strings.Contains(diagText(diags), c.want) {
			t.Errorf("%s: %v, want %q", c.yaml, diags, c.want)
		}
	}
}

func TestUseForPhrases(t *testing.T) {
	cases := []struct {
		description string
		want        []string
	}{
		{`Explains code. USE FOR: "explain this", "walk me through". DO NOT USE FOR: "writing code".`, []string{"explain this", "walk me through"}},
		{"**WORKFLOW SKILL** - Runs evals. USE FOR: run waza, eval (the suite), compare results. INVOKES: the SDK.", []string{"run waza", "eval", "compare results"}},
		{`DO NOT USE FOR: "x". USE FOR: “curly one”`, []string{"curly one"}},
		{"No labels at all.", nil},
	}
	for _, c := range cases {
		if got := useForPhrases(c.description); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q: got %q, want %q", c.description, got, c.want)
		}
	}
}
