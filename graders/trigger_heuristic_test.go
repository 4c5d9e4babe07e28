package graders

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

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

// Real trigger graders (Spencerx/git-ape, testdata/waza/git-ape): each task's prompt scored
// against the azure-policy-advisor SKILL.md as waza scores it — distinct prompt words in the
// denominator, waza's stop list (which keeps "use", "when", "help"), and skill_path given as
// the file or as its folder. Scores were computed outside this code from waza's definition;
// the earlier reading (every prompt word in the denominator, a longer stop list) gave
// 0.6667, 0.5634, 0.1667 and 0.2812 for the first four.
func TestTriggerHeuristicRealSuite(t *testing.T) {
	skillDir, err := filepath.Abs("testdata/waza/git-ape/skills/azure-policy-advisor")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		task   string
		score  float64
		passed bool
	}{
		{"positive-after-template-generation", 20.0 / 29, true},
		{"positive-compliance-audit", 2.0 / 3, true},
		{"negative-off-topic", 5.0 / 21, true},
		{"negative-cost-question", 9.0 / 28, true},
		{"negative-naming-question", 1.0 / 5, true},
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join("testdata/waza/git-ape/tasks", c.task+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		var task struct {
			Inputs  struct{ Prompt string }
			Graders []struct {
				Type   string
				Config struct {
					Mode      string
					Threshold float64
				}
			}
		}
		if err := yaml.Unmarshal(data, &task); err != nil {
			t.Fatal(err)
		}
		if len(task.Graders) == 0 || task.Graders[0].Type != "trigger" {
			t.Fatalf("%s: first grader is not the trigger grader", c.task)
		}
		cfg := task.Graders[0].Config
		for _, skillPath := range []string{filepath.Join(skillDir, "SKILL.md"), skillDir} {
			t.Run(c.task+"/"+filepath.Base(skillPath), func(t *testing.T) {
				src := fmt.Sprintf("type: trigger\nname: trigger_relevance\nconfig:\n  skill_path: %s\n  mode: %s\n  threshold: %v\n", skillPath, cfg.Mode, cfg.Threshold)
				g := mustCompile(t, defFromYAML(t, src))
				r := grade(t, g, &Input{Task: &spec.Task{Prompt: task.Inputs.Prompt}, Run: runWith("irrelevant")})
				if !near(r.Score, c.score) || r.Passed != c.passed {
					t.Errorf("score %.4f passed %v, want %.4f %v (%s)", r.Score, r.Passed, c.score, c.passed, r.Feedback)
				}
			})
		}
	}
}

// waza's own cases: a repeated word does not dilute the score, and "use", "when", "help" are
// words ("use" is in testdata/trigger/SKILL.md's "USE FOR:", "when" and "help" are not).
func TestTriggerHeuristicWords(t *testing.T) {
	skill, err := filepath.Abs("testdata/trigger/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	g := mustCompile(t, defFromYAML(t, "type: trigger\nname: r\nconfig:\n  skill_path: "+skill+"\n  mode: positive\n"))
	for _, c := range []struct {
		prompt string
		score  float64
	}{
		{"explainer explainer explainer", 1},              // 1 distinct word, matched
		{"explainer explainer teammates parser", 2.0 / 3}, // 3 distinct words, 2 matched
		{"use explainer when help", 2.0 / 4},              // use, when, help count as words
	} {
		r := grade(t, g, &Input{Task: &spec.Task{Prompt: c.prompt}, Run: runWith("")})
		if !near(r.Score, c.score) {
			t.Errorf("%q: score %.4f, want %.4f", c.prompt, r.Score, c.score)
		}
	}
}
