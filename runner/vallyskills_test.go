package runner

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/results"
)

// huanluu/evalVally's read-only spec names its skill by an absolute path on its author's machine.
// The warning shows that path as written (not joined to the spec's folder) and says why it cannot
// be found here; a real agent's runs error before the agent starts, naming the Vally key to fix.
func TestVallyMissingSkillMessages(t *testing.T) {
	const file = "testdata/vally/huanluu__evalVally/evals/omr-readonly/eval.yaml"
	prepared, diags, err := LoadSuitesWith([]string{file}, LoadOptions{})
	if err != nil || diags.HasErrors() || len(prepared) != 1 {
		t.Fatalf("%v %v", err, diags)
	}
	const skill = "/Volumes/Office/Office2/src/harness/utilities/.claude/skills/omr-build"
	warned := false
	for _, d := range diags {
		if d.Key == "environment.skills[0]" {
			warned = true
			if !strings.Contains(d.Message, "skill "+skill+" does not exist") || !strings.Contains(d.Fix, "an absolute path exists only on the machine it was written on") {
				t.Errorf("%s", d.Error())
			}
		}
	}
	if !warned {
		t.Fatalf("no warning for the missing skill: %v", diags)
	}
	called := false
	p := prepared[0]
	res := run(t, p.Suite, Options{Executor: execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		called = true
		return &results.AgentRun{FinalOutput: "x"}, nil
	}), Graders: p.Graders})
	r := res.Tasks[0].Runs[0]
	if called || r.Status != results.StatusError || r.ErrorMsg != "agent: skill directory "+skill+" does not exist: the agent would run without the skill (fix environment.skills)" {
		t.Errorf("agent ran %v, %s %q", called, r.Status, r.ErrorMsg)
	}
}

// A Vally spec whose executor skillgate does not have (GitHub-Copilot-for-Azure's specs name
// their --executor-plugin, integration-test-agent-runner, in defaults) is reported at the key the
// file wrote: defaults.executor, or config.executor in the older block; a waza suite keeps
// config.executor. With --executor the spec's own executor does not matter.
func TestExecutorKeyOfVallySpecs(t *testing.T) {
	cases := []struct {
		name, text, override, key string
	}{
		{"defaults", "name: x\ndefaults:\n  executor: integration-test-agent-runner\nstimuli:\n  - name: a\n    prompt: hi\n    graders: [{type: completed}]\n", "", "defaults.executor"},
		{"config", "name: x\nconfig:\n  executor: {name: integration-test-agent-runner}\nstimuli:\n  - name: a\n    prompt: hi\n    graders: [{type: completed}]\n", "", "config.executor"},
		{"waza", "name: x\nconfig:\n  executor: integration-test-agent-runner\ntasks:\n  - id: a\n    inputs: {prompt: hi}\n", "", "config.executor"},
		{"overridden", "name: x\ndefaults:\n  executor: integration-test-agent-runner\nstimuli:\n  - name: a\n    prompt: hi\n    graders: [{type: completed}]\n", "mock", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "eval.yaml")
			if err := os.WriteFile(file, []byte(c.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, diags, err := LoadSuitesWith([]string{file}, LoadOptions{Executor: c.override})
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, d := range diags.Errors() {
				keys = append(keys, d.Key)
			}
			if want := []string{c.key}; c.key == "" && len(keys) != 0 || c.key != "" && !slices.Equal(keys, want) {
				t.Errorf("errors at %v, want %q: %v", keys, c.key, diags)
			}
		})
	}
}
