package action

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// The acceptance test of issue 27: the runner's and the workflow's tokens, the judge's key and an
// agent's key are planted in the environment, as a workflow has them; a `command` agent, a hook
// and a program grader print their whole environment and the secrets they can reach. Nothing
// skillgate writes — the log, outputs, summary, comment, check run, annotations, results,
// reports, run cache — carries any planted value, and no agent process holds the runner's or
// the workflow's tokens.
func TestPlantedSecretsStayOut(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the agent is a shell script")
	}
	const (
		judgeKey      = "sk-plantedJudgeKey-0123456789abcdef"
		workflowToken = "ghs_plantedWorkflowToken0123456789ab"
		runtimeToken  = "eyJplanted.RuntimeToken.0123456789"
		oidcToken     = "eyJplanted.OidcRequestToken.012345"
		agentKey      = "sk-ant-plantedAgentKey-0123456789ab"
		judgeEnvKey   = "sk-plantedJudgeEnvKey-0123456789ab"
	)
	h := newHarness(t, "pull_request.synchronize")
	h.gh.prFiles = [][2]string{{"evals/greet/eval.yaml", ""}}
	h.input(InCheckRun, "true")
	h.input(InBaseline, "none")
	h.input(InJudgeAPIKey, judgeKey)
	h.secrets = []string{judgeKey, workflowToken, runtimeToken, oidcToken, agentKey, judgeEnvKey}
	// The runner puts the inputs into the environment too (INPUT_<NAME>, hyphens kept).
	planted := map[string]string{
		"INPUT_GITHUB-TOKEN": testToken, "INPUT_JUDGE-API-KEY": judgeKey, "GITHUB_TOKEN": workflowToken,
		"ACTIONS_RUNTIME_TOKEN": runtimeToken, "ACTIONS_ID_TOKEN_REQUEST_TOKEN": oidcToken,
		"SKILLGATE_JUDGE_API_KEY": judgeEnvKey, "ANTHROPIC_API_KEY": agentKey,
	}
	for k, v := range planted {
		t.Setenv(k, v)
		h.env[k] = v
	}
	dumps := t.TempDir()
	t.Setenv("SKILLGATE_TEST_DUMPS", dumps)

	// The agent dumps its environment for the test, then prints it and every secret it can
	// reach as its answer; the hook and the grader print theirs into what skillgate reports.
	// /proc/$$/environ is the agent process's own environment, as it was started: a shell drops
	// names such as INPUT_GITHUB-TOKEN from what its children inherit.
	agent := `if [ -r /proc/$$/environ ]; then tr "\0" "\n" < /proc/$$/environ; else env; fi > "$SKILLGATE_TEST_DUMPS/agent.$$"; ` +
		`echo "cwd=$(pwd -P)" >> "$SKILLGATE_TEST_DUMPS/agent.$$"; ` +
		`env; echo "keys: [$GITHUB_TOKEN] [$ACTIONS_RUNTIME_TOKEN] [$ANTHROPIC_API_KEY]"`
	h.write("evals/greet/eval.yaml", `name: greet
skill: greeter
config:
  executor: command
  command:
    argv: [sh, -c, '`+agent+`']
    output: text
  trials_per_task: 1
  timeout_seconds: 30
  skill_directories: [skills]
hooks:
  before_task:
    - command: 'env; echo "hook: $ANTHROPIC_API_KEY"; exit 3'
graders:
  - type: program
    name: echoes
    config:
      command: sh
      args: ["-c", 'env; echo "grader: $ANTHROPIC_API_KEY"; exit 1']
  - type: text
    name: answered
    config:
      contains: ["never said"]
tasks:
  - tasks/*.yaml
`)
	if code := h.run(); code == ExitUsage {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, h.stdout.String(), h.stderr.String())
	}
	// h.run scanned the log, outputs, summary, every file under the workspace (results, reports,
	// the run cache) and every body sent to GitHub for every planted value.

	// The test would prove nothing if the agent's answer never reached the outputs.
	res := h.readFile(".skillgate/results/greet.json")
	if !strings.Contains(res, "keys: [] [] [***]") || !strings.Contains(res, "ANTHROPIC_API_KEY=***") || !strings.Contains(res, "grader: ***") {
		t.Errorf("the results do not hold the agent's and the grader's redacted answers:\n%.2000s", res)
	}
	if !strings.Contains(h.stderr.String()+h.stdout.String(), "hook: ***") {
		t.Errorf("the hook's output is not in the log:\n%s", h.stderr.String())
	}
	if len(h.gh.commentBodies()) == 0 {
		t.Errorf("no comment was posted")
	}

	// The agent processes held the agent's key, but none of the runner's or workflow's tokens,
	// and $PWD was their working directory.
	entries, _ := os.ReadDir(dumps)
	if len(entries) == 0 {
		t.Fatal("the agent never ran")
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dumps, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		env := string(data)
		for name, v := range planted {
			if held := strings.Contains(env, v); held != (name == "ANTHROPIC_API_KEY") {
				t.Errorf("agent %s: holds %s: %v", e.Name(), name, held)
			}
		}
		for _, name := range []string{"INPUT_", "ACTIONS_", "SKILLGATE_JUDGE_", "GITHUB_TOKEN=", "GITHUB_OUTPUT=", "GITHUB_STEP_SUMMARY="} {
			if strings.Contains(env, "\n"+name) || strings.HasPrefix(env, name) {
				t.Errorf("agent %s: sees %s…", e.Name(), name)
			}
		}
		var pwd, cwd string
		for _, line := range strings.Split(env, "\n") {
			if v, ok := strings.CutPrefix(line, "PWD="); ok {
				pwd = v
			}
			if v, ok := strings.CutPrefix(line, "cwd="); ok {
				cwd = v
			}
		}
		if pwd == "" || pwd != cwd || !strings.HasPrefix(filepath.Base(cwd), "skillgate-") {
			t.Errorf("agent %s: PWD %q, working directory %q; want both the workspace", e.Name(), pwd, cwd)
		}
	}
}
