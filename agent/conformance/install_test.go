package conformance

import (
	"context"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/childenv"
	"github.com/skillgate/skillgate/internal/scriptedmodel"
	"github.com/skillgate/skillgate/runner"
)

// waza's own example, code-explainer, run unchanged with each real agent CLI: its eval.yaml names
// the skill and configures no skill_directories, and the SKILL.md beside it is installed, so the
// scripted model sees the skill advertised (name and description) and the agent can invoke it.
func TestWazaExampleSkillInstalled(t *testing.T) {
	const skill = "code-explainer"
	const desc = "Explain code snippets, functions, and algorithms in plain language."
	for _, c := range clis {
		t.Run(c.executor, func(t *testing.T) {
			bin, srv, env := startModel(t, c, scriptedmodel.Script{
				Steps: []scriptedmodel.Step{{Skill: skill, SkillFile: c.standin().SkillsDir + "/" + skill + "/SKILL.md"}},
				Final: "The function computes a factorial recursively.",
				Usage: usage,
			})
			for k, v := range env {
				t.Setenv(k, v)
			}
			// The scripted model's provider key passes to the agent as a user's would (runSuite).
			t.Setenv(childenv.PassEnv, strings.Join(slices.Sorted(maps.Keys(env)), ","))
			suite, _ := filepath.Abs(filepath.Join("testdata", "waza", skill))
			prepared, diags, err := runner.LoadSuitesWith([]string{suite}, runner.LoadOptions{Executor: c.executor})
			if err != nil || diags.HasErrors() || len(prepared) != 1 {
				t.Fatalf("loading the suite: %v %v", err, diags)
			}
			s := prepared[0].Suite
			if len(s.Config.SkillDirectories) != 1 || s.Config.SkillDirectories[0] != suite || s.Config.MissingSkill != "" {
				t.Fatalf("the suite's skill was not found: %v (missing %q)", s.Config.SkillDirectories, s.Config.MissingSkill)
			}
			ex, err := runner.NewExecutor(s, runner.ExecutorOptions{Name: c.executor, Path: bin, Args: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := runner.Run(context.Background(), s, runner.Options{Executor: ex, Graders: prepared[0].Graders, Log: io.Discard,
				Trials: 1, TaskGlobs: []string{"explain-python-recursion-001"}, SkipTriggers: true, Timeout: 180e9})
			if err != nil {
				t.Fatal(err)
			}
			advertised := false
			for _, r := range srv.ModelRequests() {
				if len(r.Tools) > 0 && r.Mentions(skill) && r.Mentions(desc[:40]) {
					advertised = true
				}
			}
			if !advertised {
				for i, r := range srv.ModelRequests() {
					t.Logf("request %d: tools=%v mentions skill: %v", i+1, r.Tools, r.Mentions(skill))
				}
				t.Errorf("no request advertised %s with its description to the model", skill)
			}
			var task = res.Tasks[0]
			for _, tr := range res.Tasks {
				if tr.ID == "explain-python-recursion-001" {
					task = tr
				}
			}
			run := task.Runs[0]
			invoked := false
			for _, inv := range run.SessionDigest.SkillInvocations {
				invoked = invoked || inv.Name == skill
			}
			if !invoked || !strings.Contains(run.FinalOutput, "factorial") {
				t.Errorf("run %s: invocations %+v, output %q, error %s", run.Status, run.SessionDigest.SkillInvocations, run.FinalOutput, run.ErrorMsg)
			}
		})
	}
}
