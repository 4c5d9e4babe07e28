package agent

import "strings"

// Qwen Code: `qwen --output-format stream-json --yolo PROMPT` in the workspace, skills under
// .qwen/skills/<name>/ (project skills), tools approved automatically by default (setting
// approval_mode). The prompt is the positional argument, passed verbatim; one starting with "-"
// would be read as an option, so it goes through --prompt=… instead. Qwen Code warns on stderr
// at every headless --yolo run without a sandbox; the workspace is a throwaway copy, so the
// notice is silenced (it would otherwise be quoted as the error of a failed run).
func init() {
	registerCLI(&cliSpec{
		name:      "qwen-code",
		aliases:   []string{"qwen"},
		binary:    "qwen",
		skillsDir: ".qwen/skills",
		settings: map[string]func(string) error{
			// Qwen Code 0.24's --approval-mode choices.
			"approval_mode": oneOf("yolo", "auto-edit", "auto", "default", "plan"),
		},
		flags:      qwenFlags,
		promptArgs: qwenPrompt,
		parser:     func() transcriptParser { return newQwenParser() },
		env:        map[string]string{"QWEN_CODE_SUPPRESS_YOLO_WARNING": "1"},
	})
}

func qwenFlags(cfg map[string]string) []string {
	if mode := cfg["approval_mode"]; mode != "" && mode != "yolo" {
		return []string{"--output-format", "stream-json", "--approval-mode", mode}
	}
	return []string{"--output-format", "stream-json", "--yolo"}
}

func qwenPrompt(prompt string) []string {
	switch {
	case prompt == "":
		return nil // read from stdin
	case strings.HasPrefix(prompt, "-"):
		return promptOption(prompt)
	}
	return []string{prompt}
}
