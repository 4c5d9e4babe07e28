package conformance

import (
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/childenv"
	"github.com/skillgate/skillgate/internal/scriptedmodel"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// suiteYAML is a suite written as a user would, with portable graders: canonical tool names and
// anchored command patterns.
const suiteYAML = `name: conformance-EXECUTOR
skill: sg-greeter
config:
  executor: EXECUTOR
  trials_per_task: 1
  timeout_seconds: TIMEOUT
  skill_directories: [skills]
graders:
  - {type: text, name: final_text, config: {contains: ["Welcome aboard"]}}
tasks: [tasks/*.yaml]
`

const taskYAML = `id: greet
inputs:
  prompt: "Please greet Ada using the house style. Read notes.txt first."
  files:
    - {path: notes.txt, content: "notes: the launch is on Tuesday\n"}
graders:
  - type: skill_invocation
    name: used_skill
    config: {required_skills: [sg-greeter], mode: any_order}
  - type: tool_calls
    name: commands
    config:
      required: [{pattern: "^cat notes.txt"}]
      forbidden: [{pattern: "^rm -rf"}, {pattern: "^touch danger"}]
  - type: behavior
    name: tools
    config: {required_tools: [shell], max_tool_calls: 5}
`

// runSuite runs the suite through the runner, as `skillgate run` does, with the CLI pointed at
// a scripted model through the process environment the agent inherits.
func runSuite(t *testing.T, c cli, script scriptedmodel.Script, timeout string) *results.SuiteResult {
	t.Helper()
	bin, _, env := startModel(t, c, script)
	for k, v := range env {
		t.Setenv(k, v)
	}
	// A provider key of a name no agent reads by default (Codex's env_key STANDIN_API_KEY) is
	// held back from child processes until listed, as a user lists theirs (docs/agents.md).
	t.Setenv(childenv.PassEnv, strings.Join(slices.Sorted(maps.Keys(env)), ","))
	dir := t.TempDir()
	write(t, filepath.Join(dir, "eval.yaml"), strings.NewReplacer("EXECUTOR", c.executor, "TIMEOUT", timeout).Replace(suiteYAML))
	write(t, filepath.Join(dir, "tasks", "greet.yaml"), taskYAML)
	skill, err := os.ReadFile(filepath.Join("testdata", "skills", skillName, "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "skills", skillName, "SKILL.md"), string(skill))
	prepared, diags, err := runner.LoadSuitesWith([]string{dir}, runner.LoadOptions{})
	if err != nil || diags.HasErrors() || len(prepared) != 1 {
		t.Fatalf("loading the suite: %v %v", err, diags)
	}
	s := prepared[0].Suite
	ex, err := runner.NewExecutor(s, runner.ExecutorOptions{Path: bin, Args: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := runner.Run(context.Background(), s, runner.Options{Executor: ex, Graders: prepared[0].Graders, Log: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// A suite with portable graders passes on every CLI, through the runner.
func TestSuiteRunsGreen(t *testing.T) {
	for _, c := range clis {
		t.Run(c.executor, func(t *testing.T) {
			res := runSuite(t, c, scriptedmodel.Script{
				Steps: []scriptedmodel.Step{
					{Skill: skillName, SkillFile: c.standin().SkillsDir + "/" + skillName + "/SKILL.md"},
					{Shell: "cat notes.txt"},
				},
				Final: finalAnswer,
				Usage: usage,
			}, "180")
			run := res.Tasks[0].Runs[0]
			if run.Status != results.StatusPassed {
				t.Errorf("run %s: %s", run.Status, run.ErrorMsg)
				for _, v := range run.Validations {
					t.Logf("%s: %v %s", v.Name, v.Passed, v.Feedback)
				}
			}
			if res.Provenance == nil || res.Provenance.AgentVersion == "" {
				t.Errorf("no agent version in provenance")
			}
		})
	}
}

// Through the runner, a model that never answers is a timeout, not a cancellation; and a command
// Codex runs wrapped in /bin/bash -lc '…' is caught by an anchored forbidden pattern. (Codex
// 0.169 itself rejects `rm -rf`, and a rejected command leaves no item in its stream, so the
// forbidden command here is a harmless one.)
func TestSuiteTimeoutAndForbiddenCommand(t *testing.T) {
	for _, c := range clis {
		if c.executor != "gemini" {
			continue
		}
		t.Run("gemini/hang", func(t *testing.T) {
			res := runSuite(t, c, scriptedmodel.Script{Steps: []scriptedmodel.Step{{Fault: &scriptedmodel.Fault{Hang: true}}}}, "20")
			run := res.Tasks[0].Runs[0]
			if run.Status != results.StatusError || !strings.HasPrefix(run.AgentError, "gemini: timed out after 20s") {
				t.Errorf("run %s: %q", run.Status, run.AgentError)
			}
		})
	}
	for _, c := range clis {
		if c.executor != "codex" {
			continue
		}
		t.Run("codex/anchored-forbidden", func(t *testing.T) {
			res := runSuite(t, c, scriptedmodel.Script{
				Steps: []scriptedmodel.Step{{Shell: "cat notes.txt"}, {Shell: "touch danger"}},
				Final: finalAnswer, Usage: usage,
			}, "180")
			run := res.Tasks[0].Runs[0]
			v := run.Validations.Get("commands")
			if v == nil || v.Passed || !strings.Contains(v.Feedback, "Forbidden tool call found: ^touch danger") {
				t.Errorf("commands grader: %+v", v)
			}
			var wrapped bool
			for _, call := range run.SessionDigest.ToolCalls {
				if cmd, _ := call.Arguments["command"].(string); strings.Contains(cmd, "-lc") && call.Command == "touch danger" {
					wrapped = true
				}
			}
			if !wrapped {
				t.Errorf("no wrapped touch call recorded: %+v", run.SessionDigest.ToolCalls)
			}
		})
	}
}
