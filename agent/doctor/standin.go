package doctor

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/skillgate/skillgate/agent"
)

// Standin is how one agent CLI reaches a local model without an API key of a real provider.
type Standin struct {
	// Env returns the variables that point the CLI at the model at url, after writing any
	// configuration file it needs under home (the CLI's HOME for the run).
	Env func(home, url string) (map[string]string, error)
	// NoUsage: the CLI reports no token counts in its stream (Copilot CLI with its own provider).
	NoUsage bool
	// SkillsDir is where the executor installs skills by default, relative to the workspace.
	SkillsDir string
}

// Standins maps each agent CLI executor to its stand-in setup (docs/agents.md, "Conformance
// tests"): Claude Code through ANTHROPIC_BASE_URL, Codex through a model provider in
// $CODEX_HOME/config.toml (Responses API), Gemini CLI through GOOGLE_GEMINI_BASE_URL with the
// API-key auth type, Copilot CLI in offline mode with an OpenAI (chat completions) provider, Qwen
// Code through OPENAI_BASE_URL, opencode through an OpenAI-compatible provider in its global
// config.
var Standins = map[string]Standin{
	"claude-code": {SkillsDir: ".claude/skills", Env: func(home, url string) (map[string]string, error) {
		return map[string]string{
			"ANTHROPIC_BASE_URL": url, "ANTHROPIC_API_KEY": "sk-ant-standin-key",
			"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
			// Not IS_SANDBOX: doctor must see what a run sees (as root, bypassPermissions is
			// refused unless the user's environment sets it).
			"CLAUDE_CODE_MAX_RETRIES": "1",
		}, nil
	}},
	"codex": {SkillsDir: ".agents/skills", Env: func(home, url string) (map[string]string, error) {
		codexHome := filepath.Join(home, ".codex")
		config := fmt.Sprintf(`model = "gpt-standin"
model_provider = "standin"

[model_providers.standin]
name = "Stand-in"
base_url = "%s/v1"
env_key = "STANDIN_API_KEY"
wire_api = "responses"
request_max_retries = 1
stream_max_retries = 1
stream_idle_timeout_ms = 20000
`, url)
		if err := writeFile(filepath.Join(codexHome, "config.toml"), config); err != nil {
			return nil, err
		}
		return map[string]string{"CODEX_HOME": codexHome, "STANDIN_API_KEY": "sk-standin"}, nil
	}},
	"gemini": {SkillsDir: ".gemini/skills", Env: func(home, url string) (map[string]string, error) {
		// A custom base URL needs the API-key auth type; one attempt so faults fail fast.
		settings := `{"security": {"auth": {"selectedType": "gemini-api-key"}}, "general": {"maxAttempts": 1}}`
		if err := writeFile(filepath.Join(home, ".gemini", "settings.json"), settings); err != nil {
			return nil, err
		}
		return map[string]string{"GEMINI_API_KEY": "standin-gemini-key", "GOOGLE_GEMINI_BASE_URL": url,
			"GEMINI_CLI_NO_RELAUNCH": "true"}, nil
	}},
	"copilot": {SkillsDir: ".github/skills", NoUsage: true, Env: func(home, url string) (map[string]string, error) {
		return map[string]string{"COPILOT_OFFLINE": "true", "COPILOT_AUTO_UPDATE": "false",
			"COPILOT_PROVIDER_BASE_URL": url + "/v1", "COPILOT_PROVIDER_TYPE": "openai",
			"COPILOT_PROVIDER_API_KEY": "sk-standin", "COPILOT_MODEL": "gpt-5.4"}, nil
	}},
	"qwen-code": {SkillsDir: ".qwen/skills", Env: func(home, url string) (map[string]string, error) {
		// The OpenAI-compatible auth type; no rate-limit retries and short backoffs, so faults
		// fail fast (Qwen Code 0.24 still retries a 5xx several times).
		settings := `{"security": {"auth": {"selectedType": "openai"}},
 "model": {"generationConfig": {"maxRetries": 0, "retryInitialDelayMs": 100, "retryMaxDelayMs": 500}},
 "privacy": {"usageStatisticsEnabled": false}}`
		if err := writeFile(filepath.Join(home, ".qwen", "settings.json"), settings); err != nil {
			return nil, err
		}
		return map[string]string{"OPENAI_API_KEY": "sk-standin", "OPENAI_BASE_URL": url + "/v1",
			"OPENAI_MODEL": "standin-model"}, nil
	}},
	"opencode": {SkillsDir: ".opencode/skills", Env: func(home, url string) (map[string]string, error) {
		// A provider of its own through the AI SDK's OpenAI-compatible package (bundled with
		// opencode), as its default model; models.dev is not fetched (no network).
		config := fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "provider": {
    "standin": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Stand-in",
      "options": {"baseURL": "%s/v1", "apiKey": "{env:STANDIN_API_KEY}"},
      "models": {"standin-model": {"name": "Stand-in model"}}
    }
  },
  "model": "standin/standin-model",
  "autoupdate": false,
  "share": "disabled"
}
`, url)
		if err := writeFile(filepath.Join(home, ".config", "opencode", "opencode.json"), config); err != nil {
			return nil, err
		}
		return map[string]string{"STANDIN_API_KEY": "sk-standin", "OPENCODE_DISABLE_MODELS_FETCH": "1"}, nil
	}},
}

// CLIs are the agent CLI executors, in the order doctor checks them.
var CLIs = []string{"claude-code", "codex", "gemini", "copilot", "qwen-code", "opencode"}

// Environment is the agent's environment for a run against the model at url: its own HOME
// (home) and the stand-in variables.
func Environment(executor, home, url string) (map[string]string, error) {
	name, _ := agent.Canonical(executor)
	st, ok := Standins[name]
	if !ok {
		return nil, fmt.Errorf("%s is not an agent CLI skillgate can point at a local model", executor)
	}
	env, err := st.Env(home, url)
	if err != nil {
		return nil, err
	}
	env["HOME"] = home
	env["XDG_CONFIG_HOME"] = filepath.Join(home, ".config")
	env["XDG_CACHE_HOME"] = filepath.Join(home, ".cache")
	return env, nil
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}
