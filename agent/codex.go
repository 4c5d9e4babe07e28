package agent

import "cmp"

// Codex: `codex exec --json` in the workspace, skills under .agents/skills/<name>/ (the
// repository scope Codex scans from its working directory up to the repository root), sandboxed
// to the workspace by default (setting sandbox). --skip-git-repo-check because task workspaces
// need not be git repositories.
func init() {
	registerCLI(&cliSpec{
		name:      "codex",
		binary:    "codex",
		skillsDir: ".agents/skills",
		settings: map[string]func(string) error{
			"sandbox": oneOf("workspace-write", "read-only", "danger-full-access"),
		},
		flags:      codexFlags,
		promptArgs: codexPrompt,
		parser:     func() transcriptParser { return newCodexParser() },
		// `codex exec … resume <thread_id> -- <prompt>` continues the thread thread.started named.
		resume: func(id string) []string { return []string{"resume", id} },
	})
}

func codexFlags(cfg map[string]string) []string {
	return []string{"exec", "--json", "--skip-git-repo-check",
		"--sandbox", cmp.Or(cfg["sandbox"], "workspace-write")}
}

func codexPrompt(prompt string) []string {
	if prompt == "" {
		return []string{"-"} // read the prompt from stdin
	}
	return []string{"--", prompt}
}
