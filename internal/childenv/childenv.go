// Package childenv builds the environment of every process skillgate starts — agent CLIs, hooks,
// script and program graders, environment commands, git — in one place (docs/agents.md#the-agents-environment):
//
//   - PWD names the child's working directory (its real path), so CLIs that trust $PWD over
//     getcwd() work in the workspace, not in the folder skillgate was started from;
//   - the runner's and the workflow's tokens never pass: INPUT_* (the action's inputs, its token
//     and judge key among them), ACTIONS_* (the runtime and OIDC tokens), GITHUB_TOKEN, GH_TOKEN,
//     SKILLGATE_JUDGE_*, and the workflow's file commands (GITHUB_ENV, GITHUB_OUTPUT, …, through
//     which a child could change later steps);
//   - any other variable whose name says it holds a credential (redact.SecretName) passes only
//     when allow-listed: the agent CLIs' own keys (AgentKeys), the names listed in
//     SKILLGATE_PASS_ENV, and the variables one executor is handed (Spec.Hand, e.g. Copilot's
//     COPILOT_GITHUB_TOKEN);
//   - a variable holding a secret value under an ordinary name (a copy of a token) does not pass;
//   - everything else passes: PATH, HOME, proxies, locale, toolchains, the CI context;
//   - SKILLGATE_OWNER carries this process's id (internal/reap).
//
// Every credential value seen here is registered with internal/redact, so no output carries it.
package childenv

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillgate/skillgate/internal/reap"
	"github.com/skillgate/skillgate/internal/redact"
)

// PassEnv names the variable listing further credentials every child may see (names separated
// by commas or white space), e.g. NPM_TOKEN for a hook that installs private packages.
const PassEnv = "SKILLGATE_PASS_ENV"

// AgentKeys are the credentials the agent CLIs read (docs/agents.md): every child sees them.
var AgentKeys = []string{
	// Claude Code, direct or through Bedrock or Vertex AI.
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN",
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK",
	"GOOGLE_APPLICATION_CREDENTIALS",
	// Codex, OpenAI-compatible agents (Qwen Code, opencode), Azure OpenAI.
	"OPENAI_API_KEY", "CODEX_API_KEY", "AZURE_OPENAI_API_KEY",
	// Gemini CLI.
	"GEMINI_API_KEY", "GOOGLE_API_KEY",
	// Copilot CLI with a model provider of its own (its GitHub token is handed to it alone).
	"COPILOT_PROVIDER_API_KEY",
	// Providers opencode and Qwen Code read.
	"DASHSCOPE_API_KEY", "OPENROUTER_API_KEY", "GROQ_API_KEY", "XAI_API_KEY", "DEEPSEEK_API_KEY",
	"MISTRAL_API_KEY", "TOGETHER_API_KEY", "FIREWORKS_API_KEY", "OPENCODE_API_KEY",
}

// neverPass are the runner's and the workflow's variables no child sees, whatever the settings.
var neverPass = []string{
	"GITHUB_TOKEN", "GH_TOKEN", "GITHUB_ENTERPRISE_TOKEN", "GH_ENTERPRISE_TOKEN",
	"GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY",
	// Set afresh for every child.
	"PWD", "OLDPWD", reap.EnvVar, reap.ChildEnv,
}

// neverPassPrefixes are the same, by prefix: the action's inputs, the runner's runtime and OIDC
// tokens, the LLM judge's settings (for the graders inside skillgate).
var neverPassPrefixes = []string{"INPUT_", "ACTIONS_", "SKILLGATE_JUDGE_"}

// Withheld reports whether no child may see the variable name, whatever the settings.
func Withheld(name string) bool {
	n := strings.ToUpper(name)
	if slices.Contains(neverPass, n) {
		return true
	}
	for _, p := range neverPassPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// Spec is one child process.
type Spec struct {
	// Dir is its working directory; "" is skillgate's own.
	Dir string
	// Hand names credentials this child is handed on top of AgentKeys and SKILLGATE_PASS_ENV
	// (an executor's own token). Withheld names cannot be handed.
	Hand []string
	// Vars are set on top of the inherited variables (a task's environment), replacing them.
	Vars map[string]string
	// Extra are "KEY=value" entries set last.
	Extra []string
}

// For is the environment of a child working in dir, with extra ("KEY=value") set last.
func For(dir string, extra ...string) []string {
	return Spec{Dir: dir, Extra: extra}.Environ()
}

// Environ builds the child's environment from skillgate's own.
func (s Spec) Environ() []string {
	return s.build(os.Environ())
}

// HeldBack names the variables of skillgate's environment that look like credentials and that
// no child sees (neither an agent's key, nor in SKILLGATE_PASS_ENV, nor handed to an executor):
// what a run says it held back, so a hook or agent that misses one can be given it.
func HeldBack(handed ...string) []string {
	return heldBack(os.Environ(), handed)
}

func heldBack(parent, handed []string) []string {
	allowed := allowList(parent, handed)
	var out []string
	for _, kv := range parent {
		name, _, _ := strings.Cut(kv, "=")
		if name != "" && redact.SecretName(name) && !Withheld(name) && !allowed[strings.ToUpper(name)] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// allowList holds the credentials that pass (upper case): the agents' keys, the handed ones and
// those SKILLGATE_PASS_ENV lists.
func allowList(parent, handed []string) map[string]bool {
	allowed := map[string]bool{}
	for _, n := range AgentKeys {
		allowed[n] = true
	}
	for _, n := range handed {
		allowed[strings.ToUpper(n)] = true
	}
	for _, kv := range parent {
		if name, value, ok := strings.Cut(kv, "="); ok && strings.EqualFold(name, PassEnv) {
			for _, n := range strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' }) {
				allowed[strings.ToUpper(n)] = true
			}
		}
	}
	return allowed
}

func (s Spec) build(parent []string) []string {
	redact.AddEnviron(parent)
	allowed := allowList(parent, s.Hand)
	out := make([]string, 0, len(parent)+3+len(s.Vars)+len(s.Extra))
	for _, kv := range parent {
		name, value, _ := strings.Cut(kv, "=")
		if name == "" { // Windows' per-drive folders ("=C:=C:\\work")
			out = append(out, kv)
			continue
		}
		if _, replaced := s.Vars[name]; replaced || Withheld(name) {
			continue
		}
		if !allowed[strings.ToUpper(name)] && (redact.SecretName(name) || redact.Known(value)) {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, reap.EnvVar+"="+reap.Owner(), "PWD="+physical(s.Dir))
	for _, k := range slices.Sorted(maps.Keys(s.Vars)) {
		out = append(out, k+"="+s.Vars[k])
	}
	return append(out, s.Extra...)
}

// physical is dir as getcwd() names it once the child is in it: absolute, symbolic links
// resolved, so $PWD and the working directory are one string.
func physical(dir string) string {
	abs, err := filepath.Abs(dir) // "" is the current folder
	if err != nil {
		return dir
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}
