package agent

import "regexp"

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
		refusals: []refusal{{
			// Gemini CLI 0.61, exit 55, when GEMINI_CLI_TRUST_WORKSPACE is set to anything but true.
			said: regexp.MustCompile(`Gemini CLI is not running in a trusted directory[^\n]*`),
			what: "Gemini CLI refuses to run headless in a folder it was not told to trust",
			fix:  "leave GEMINI_CLI_TRUST_WORKSPACE unset (skillgate then trusts each workspace) or set it to true",
		}, {
			// Gemini CLI 0.61, exit 41, with GOOGLE_GEMINI_BASE_URL set and no auth type chosen.
			said: regexp.MustCompile(`Invalid auth method selected\.?`),
			what: "Gemini CLI rejects the auth type it picked (with GOOGLE_GEMINI_BASE_URL set it picks gateway)",
			fix:  `select the API-key auth type in ~/.gemini/settings.json: {"security": {"auth": {"selectedType": "gemini-api-key"}}}`,
		}},
	})
}

func geminiFlags(cfg map[string]string) []string {
	if mode := cfg["approval_mode"]; mode != "" {
		return []string{"--output-format", "stream-json", "--approval-mode", mode}
	}
	return []string{"--output-format", "stream-json", "--yolo"}
}
