package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/testtree"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// --judge agent grades a skill-creator eval's checks with the agent CLI under test, run once more
// in the finished workspace (it sees the files the run wrote) and without the skill: no second
// API key. Each check is one result; the task's score is the fraction that passed.
func TestJudgeAgentInFinishedWorkspace(t *testing.T) {
	t.Setenv("SKILLGATE_JUDGE", "agent")
	dir := t.TempDir()
	testtree.Write(t, dir, map[string]string{
		"greeter/SKILL.md":         "---\nname: greeter\ndescription: Greets.\n---\n",
		"greeter/evals/evals.json": `{"skill_name": "greeter", "evals": [{"id": 1, "prompt": "Greet Ada.", "expectations": ["Greets Ada by name", "Writes poem.txt"]}]}`,
	})
	s, diags := spec.Load(filepath.Join(dir, "greeter/evals/evals.json"), spec.Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var taskWorkspace, judgeWorkspace string
	var judgeSkills []string
	exec := execFunc(func(_ context.Context, req *agent.Request) (*results.AgentRun, error) {
		if !strings.Contains(req.Prompt, "Grade each of these checks") {
			taskWorkspace = req.Workspace
			return &results.AgentRun{FinalOutput: "Hello, Ada!"}, nil
		}
		judgeWorkspace, judgeSkills = req.Workspace, req.SkillDirs
		return &results.AgentRun{FinalOutput: `{"expectations": [{"id": 1, "passed": true, "evidence": "says Hello, Ada"}, {"id": 2, "passed": false, "evidence": "no poem.txt in the folder"}]}`}, nil
	})
	res := run(t, s, Options{Executor: exec})
	if taskWorkspace == "" || judgeWorkspace != taskWorkspace || len(judgeSkills) != 0 {
		t.Errorf("the judge ran in %q without skills %v; the task in %q", judgeWorkspace, judgeSkills, taskWorkspace)
	}
	task := res.Tasks[0]
	vals := task.Runs[0].Validations
	if len(vals) != 2 || !vals[0].Passed || vals[0].Feedback != "says Hello, Ada" || vals[1].Passed || vals[1].Details["judge"] != "agent" {
		t.Fatalf("checks %+v %+v", vals[0], vals[1])
	}
	if task.Status != results.StatusFailed || task.Stats.AvgScore != 0.5 || !task.GradedByChecks {
		t.Errorf("task %s score %v", task.Status, task.Stats.AvgScore)
	}
}
