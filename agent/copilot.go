package agent

// GitHub Copilot CLI: `copilot --prompt=… --output-format json --yolo` in the workspace, skills
// under .github/skills/<name>/. Registered as "copilot" with the alias "copilot-sdk" (waza's
// engine name), so waza suites run unchanged.
func init() {
	registerCLI(&cliSpec{
		name:      "copilot",
		aliases:   []string{"copilot-sdk"},
		binary:    "copilot",
		skillsDir: ".github/skills",
		settings: map[string]func(string) error{
			"skills_dir": checkSkillsDir,
		},
		args:   copilotArgs,
		parser: func() transcriptParser { return newCopilotParser() },
	})
}

func copilotArgs(req *Request, cfg map[string]string, extra []string, prompt string) []string {
	args := []string{"--output-format", "json", "--yolo"}
	if req.Model != "" {
		args = append(args, "--model", req.Model)
	}
	args = append(args, extra...)
	if prompt != "" {
		// The "=" form keeps a prompt starting with "-" a value.
		args = append(args, "--prompt="+prompt)
	}
	return args
}
