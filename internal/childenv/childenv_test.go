package childenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/reap"
	"github.com/skillgate/skillgate/internal/redact"
)

// The planted values of these tests are long enough to be secrets (redact.MinLength).
const (
	workflowToken = "ghs_plantedWorkflowToken0123456789"
	runtimeToken  = "eyJplantedRuntimeToken.abcdefghij"
	anthropicKey  = "sk-ant-plantedAgentKey-0123456789"
	copilotToken  = "github_pat_plantedCopilotToken01234"
	npmToken      = "npm_plantedNpmToken0123456789abcd"
)

func TestBuild(t *testing.T) {
	parent := []string{
		"PATH=/usr/bin:/bin", "HOME=/home/runner", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "TZ=UTC",
		"HTTPS_PROXY=http://proxy:3128", "no_proxy=localhost", "CI=true", "GITHUB_REPOSITORY=acme/demo",
		"RUNNER_TEMP=/home/runner/work/_temp", "GOFLAGS=-mod=mod", "=C:=C:\\work",
		// The runner's and the workflow's tokens, and the action's inputs.
		"GITHUB_TOKEN=" + workflowToken, "GH_TOKEN=" + workflowToken,
		"ACTIONS_RUNTIME_TOKEN=" + runtimeToken, "ACTIONS_ID_TOKEN_REQUEST_TOKEN=" + runtimeToken,
		"ACTIONS_ID_TOKEN_REQUEST_URL=https://token.actions.example/abc", "ACTIONS_STEP_DEBUG=true",
		"INPUT_GITHUB-TOKEN=" + workflowToken, "INPUT_JUDGE-API-KEY=sk-plantedJudgeKey", "INPUT_SUITES=evals",
		"SKILLGATE_JUDGE_API_KEY=sk-plantedJudgeKey", "skillgate_judge_model=m", "SKILLGATE_JUDGEMENT=kept",
		"GITHUB_ENV=/home/runner/work/_temp/_runner_file_commands/set_env_1", "GITHUB_OUTPUT=/tmp/out",
		"GITHUB_PATH=/tmp/path", "GITHUB_STEP_SUMMARY=/tmp/summary", "GITHUB_STATE=/tmp/state",
		// Set afresh for every child.
		"PWD=/somewhere/else", "OLDPWD=/before", reap.EnvVar + "=1.2", reap.ChildEnv + "=1.2/3",
		// Agent keys, a handed token, other credentials.
		"ANTHROPIC_API_KEY=" + anthropicKey, "OPENAI_API_KEY=sk-plantedOpenAIKey01",
		"COPILOT_GITHUB_TOKEN=" + copilotToken, "NPM_TOKEN=" + npmToken, "DEPLOY_PASSWORD=hunter2hunter2",
		"AWS_SECRET_ACCESS_KEY=plantedAwsSecret01", "GH_PAT=ghp_plantedPersonalToken01",
		// An ordinary name holding a copy of the workflow token.
		"MY_COPY=" + workflowToken,
	}
	passed := []string{"PATH", "HOME", "LANG", "LC_ALL", "TZ", "HTTPS_PROXY", "no_proxy", "CI", "GITHUB_REPOSITORY",
		"RUNNER_TEMP", "GOFLAGS", "", "SKILLGATE_JUDGEMENT", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY"}
	dir := t.TempDir()
	tests := []struct {
		name string
		spec Spec
		pass []string // besides passed
		held []string
	}{
		{"a hook", Spec{Dir: dir, Extra: []string{"SKILLGATE_HOOK=before_run"}}, nil,
			[]string{"GITHUB_TOKEN", "GH_TOKEN", "ACTIONS_RUNTIME_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "ACTIONS_ID_TOKEN_REQUEST_URL",
				"ACTIONS_STEP_DEBUG", "INPUT_GITHUB-TOKEN", "INPUT_JUDGE-API-KEY", "INPUT_SUITES", "SKILLGATE_JUDGE_API_KEY",
				"skillgate_judge_model", "GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY", "GITHUB_STATE", "OLDPWD",
				"COPILOT_GITHUB_TOKEN", "NPM_TOKEN", "DEPLOY_PASSWORD", "GH_PAT", "MY_COPY"}},
		{"copilot, handed its token", Spec{Dir: dir, Hand: []string{"COPILOT_GITHUB_TOKEN"}}, []string{"COPILOT_GITHUB_TOKEN"},
			[]string{"GITHUB_TOKEN", "GH_TOKEN", "INPUT_GITHUB-TOKEN", "NPM_TOKEN", "MY_COPY"}},
		{"a withheld name cannot be handed", Spec{Dir: dir, Hand: []string{"GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN"}}, nil,
			[]string{"GITHUB_TOKEN", "ACTIONS_RUNTIME_TOKEN"}},
		{"SKILLGATE_PASS_ENV", Spec{Dir: dir}, []string{"NPM_TOKEN", "DEPLOY_PASSWORD", PassEnv},
			[]string{"GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "COPILOT_GITHUB_TOKEN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := parent
			if tt.name == "SKILLGATE_PASS_ENV" {
				in = append(slices.Clip(parent), PassEnv+"=NPM_TOKEN, DEPLOY_PASSWORD GITHUB_TOKEN,INPUT_GITHUB-TOKEN")
			}
			env := tt.spec.build(in)
			names := map[string]int{}
			for _, kv := range env {
				name, _, _ := strings.Cut(kv, "=")
				names[name]++
			}
			for _, n := range append(slices.Clip(passed), tt.pass...) {
				if names[n] == 0 {
					t.Errorf("%s does not reach the child", n)
				}
			}
			for _, n := range tt.held {
				if names[n] > 0 {
					t.Errorf("%s reaches the child", n)
				}
			}
			if names["PWD"] != 1 || names[reap.EnvVar] != 1 || names[reap.ChildEnv] != 0 {
				t.Errorf("PWD %d, %s %d, %s %d times; want 1, 1, 0", names["PWD"], reap.EnvVar, names[reap.EnvVar], reap.ChildEnv, names[reap.ChildEnv])
			}
			if want := "PWD=" + physical(dir); !slices.Contains(env, want) {
				t.Errorf("no %s in %q", want, env)
			}
			if want := reap.EnvVar + "=" + reap.Owner(); !slices.Contains(env, want) {
				t.Errorf("no %s", want)
			}
			for _, e := range tt.spec.Extra {
				if env[len(env)-1] != e {
					t.Errorf("extra %s is not last", e)
				}
			}
		})
	}
	// Every credential seen is registered for redaction, handed or not.
	for _, v := range []string{workflowToken, runtimeToken, anthropicKey, copilotToken, npmToken, "sk-plantedJudgeKey"} {
		if !redact.Known(v) {
			t.Errorf("%s is not registered with redact", v)
		}
	}
	if redact.Known("C.UTF-8") || redact.Known("/usr/bin:/bin") {
		t.Errorf("an ordinary value is registered as a secret")
	}
}

// Vars replace inherited variables of the same name and come in a stable order.
func TestVarsReplace(t *testing.T) {
	env := Spec{Dir: t.TempDir(), Vars: map[string]string{"MODE": "b", "A": "1", "GITHUB_TOKEN": "literal-from-the-task"}}.
		build([]string{"MODE=a", "PATH=/bin"})
	var mine []string
	for _, kv := range env {
		if n, _, _ := strings.Cut(kv, "="); n == "MODE" || n == "A" || n == "GITHUB_TOKEN" {
			mine = append(mine, kv)
		}
	}
	if want := []string{"A=1", "GITHUB_TOKEN=literal-from-the-task", "MODE=b"}; !slices.Equal(mine, want) {
		t.Errorf("got %q, want %q", mine, want)
	}
}

// The repro of issue 26: a child's $PWD and its working directory name one folder, the one it
// runs in, also when that folder is reached through a symbolic link.
func TestChildSeesItsFolderAsPWD(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("PWD is a Unix convention")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip(err)
	}
	real := filepath.Join(t.TempDir(), "workspace")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PWD", "/somewhere/else")
	t.Setenv("GITHUB_TOKEN", workflowToken)
	for _, dir := range []string{real, link} {
		cmd := exec.Command(sh, "-c", `printf '%s\n%s\n[%s]\n' "$PWD" "$(pwd -P)" "$GITHUB_TOKEN"`)
		cmd.Dir = dir
		cmd.Env = For(dir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		want, _ := filepath.EvalSymlinks(real)
		if got := string(out); got != want+"\n"+want+"\n[]\n" {
			t.Errorf("in %s the child printed\n%s\nwant PWD and pwd -P both %s and no token", dir, got, want)
		}
	}
	// With no folder, the child works in skillgate's: PWD names it, not the stale value.
	wd, _ := os.Getwd()
	wd, _ = filepath.EvalSymlinks(wd)
	if env := For(""); !slices.Contains(env, "PWD="+wd) {
		t.Errorf("For(\"\") has no PWD=%s", wd)
	}
}

func TestWithheld(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "github_token": true, "INPUT_ANYTHING": true, "ACTIONS_CACHE_URL": true, "SKILLGATE_JUDGE_MODEL": true,
		"GITHUB_ENV": true, "PATH": false, "GITHUB_SHA": false, "RUNNER_OS": false, "SKILLGATE_SUITE": false, "COPILOT_GITHUB_TOKEN": false,
	} {
		if got := Withheld(name); got != want {
			t.Errorf("Withheld(%s) = %v, want %v", name, got, want)
		}
	}
}
