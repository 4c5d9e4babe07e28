package agent

// Gemini CLI: `gemini --prompt=… --output-format stream-json --yolo` in the workspace, skills
// under .gemini/skills/<name>/ (workspace skills), tools approved automatically by default
// (setting approval_mode). Gemini CLI 0.61+ refuses to run headless in a folder it was never told
// to trust (exit 55, and --yolo downgraded), which every fresh workspace is: the workspace is
// trusted through GEMINI_CLI_TRUST_WORKSPACE rather than --skip-trust, which older releases reject.
func init() {
	registerCLI(&cliSpec{
		name:      "gemini",
		binary:    "gemini",
		skillsDir: ".gemini/skills",
		settings: map[string]func(string) error{
			"approval_mode": oneOf("yolo", "auto_edit", "default", "plan"),
		},
		flags:      geminiFlags,
		promptArgs: promptOption,
		parser:     func() transcriptParser { return newGeminiParser() },
		// `gemini --resume <session_id>` continues the session the init event named.
		resume: func(id string) []string { return []string{"--resume", id} },
		env:    map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "true"},
	})
}

func geminiFlags(cfg map[string]string) []string {
	if mode := cfg["approval_mode"]; mode != "" {
		return []string{"--output-format", "stream-json", "--approval-mode", mode}
	}
	return []string{"--output-format", "stream-json", "--yolo"}
}
