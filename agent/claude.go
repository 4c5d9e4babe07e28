package agent

import "cmp"

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
			"skills_dir": checkSkillsDir,
			// Claude Code 2.1.330's --permission-mode choices, plus "default" (still
			// accepted; shown as "manual" by newer releases).
			"permission_mode": oneOf("bypassPermissions", "acceptEdits", "auto", "default", "manual", "plan", "dontAsk"),
		},
		args:   claudeArgs,
		parser: func() transcriptParser { return newClaudeParser() },
	})
}

func claudeArgs(req *Request, cfg map[string]string, extra []string, prompt string) []string {
	args := []string{"-p", "--output-format", "stream-json", "--verbose",
		"--permission-mode", cmp.Or(cfg["permission_mode"], "bypassPermissions")}
	if req.Model != "" {
		args = append(args, "--model", req.Model)
	}
	args = append(args, extra...)
	if prompt != "" {
		// After "--" a prompt starting with "-" is not read as an option, and variadic options
		// in the extra arguments (--allowedTools a b) cannot swallow it.
		args = append(args, "--", prompt)
	}
	return args
}
