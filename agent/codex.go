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
			"skills_dir": checkSkillsDir,
			"sandbox":    oneOf("workspace-write", "read-only", "danger-full-access"),
		},
		args:   codexArgs,
		parser: func() transcriptParser { return newCodexParser() },
	})
}

func codexArgs(req *Request, cfg map[string]string, extra []string, prompt string) []string {
	args := []string{"exec", "--json", "--skip-git-repo-check",
		"--sandbox", cmp.Or(cfg["sandbox"], "workspace-write")}
	if req.Model != "" {
		args = append(args, "--model", req.Model)
	}
	args = append(args, extra...)
	if prompt == "" {
		return append(args, "-") // read the prompt from stdin
	}
	return append(args, "--", prompt)
}
