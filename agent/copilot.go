package agent

// GitHub Copilot CLI: `copilot --prompt=… --output-format json --yolo` in the workspace, skills
// under .github/skills/<name>/. Registered as "copilot" with the alias "copilot-sdk" (waza's
// engine name), so waza suites run unchanged.
func init() {
	registerCLI(&cliSpec{
		name:       "copilot",
		aliases:    []string{"copilot-sdk"},
		binary:     "copilot",
		skillsDir:  ".github/skills",
		flags:      func(map[string]string) []string { return []string{"--output-format", "json", "--yolo"} },
		promptArgs: promptOption,
		parser:     func() transcriptParser { return newCopilotParser() },
		// Its GitHub token reaches it alone, never the workflow's GITHUB_TOKEN (docs/agents.md).
		hand: []string{"COPILOT_GITHUB_TOKEN"},
		// `copilot --resume=<sessionId>` continues the session the result line named.
		resume: func(id string) []string { return []string{"--resume=" + id} },
	})
}
