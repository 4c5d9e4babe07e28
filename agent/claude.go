package agent

import (
	"cmp"
	"regexp"
)

// Claude Code: `claude -p --output-format stream-json --verbose` in the workspace, skills under
// .claude/skills/<name>/ (project skills), permissions bypassed by default since the workspace is
// a throwaway copy (setting permission_mode).
func init() {
	registerCLI(&cliSpec{
		name:      "claude-code",
		aliases:   []string{"claude"},
		binary:    "claude",
		skillsDir: ".claude/skills",
		settings: map[string]func(string) error{
			// Claude Code 2.1.330's --permission-mode choices, plus "default" (still
			// accepted; shown as "manual" by newer releases).
			"permission_mode": oneOf("bypassPermissions", "acceptEdits", "auto", "default", "manual", "plan", "dontAsk"),
		},
		flags:      claudeFlags,
		promptArgs: claudePrompt,
		parser:     func() transcriptParser { return newClaudeParser() },
		// `claude -p --resume <session_id>` continues the session the init line named.
		resume: func(id string) []string { return []string{"--resume", id} },
		refusals: []refusal{{
			// Claude Code 2.1.332 as root (a container, most CI runners' jobs in one).
			said: regexp.MustCompile(`--dangerously-skip-permissions cannot be used with root/sudo privileges[^\n]*`),
			what: "Claude Code refuses permission_mode bypassPermissions when run as root",
			fix: "on a machine that is a sandbox (a CI runner, a container), set IS_SANDBOX=1 in the environment skillgate runs in; " +
				"or choose another permission_mode in config.executors.claude-code",
		}},
	})
}

func claudeFlags(cfg map[string]string) []string {
	return []string{"-p", "--output-format", "stream-json", "--verbose",
		"--permission-mode", cmp.Or(cfg["permission_mode"], "bypassPermissions")}
}

// claudePrompt puts the prompt after "--", so a prompt starting with "-" is not read as an
// option and variadic options in the extra arguments (--allowedTools a b) cannot swallow it.
func claudePrompt(prompt string) []string {
	if prompt == "" {
		return nil
	}
	return []string{"--", prompt}
}
