package agent

import (
	"cmp"
	"strings"
)

// opencode: `opencode run --format json --title skillgate --thinking --auto` in the workspace,
// the prompt on stdin, skills under .opencode/skills/<name>/ (project skills).
//
//   - The prompt goes through stdin: opencode joins its message arguments and wraps any that
//     holds a space in double quotes, so an argument would not reach the model verbatim.
//   - --title names the session: without it opencode asks the model for a title, a request whose
//     tokens its stream never reports.
//   - --thinking prints the reasoning parts (recorded as reasoning messages).
//   - --auto approves what opencode's permissions would ask about (reading outside the
//     workspace…), which a headless run otherwise rejects; the workspace is a throwaway copy.
//     Setting auto_approve: "false" leaves it out.
//   - opencode works in $PWD rather than its working directory, so the executor sets PWD to the
//     workspace (cliExecutor.Run).
func init() {
	registerCLI(&cliSpec{
		name:      "opencode",
		binary:    "opencode",
		skillsDir: ".opencode/skills",
		settings: map[string]func(string) error{
			"auto_approve": oneOf("true", "false"),
		},
		flags:         opencodeFlags,
		promptArgs:    func(string) []string { return nil },
		promptOnStdin: true,
		parser:        func() transcriptParser { return newOpencodeParser() },
		env:           map[string]string{"OPENCODE_DISABLE_AUTOUPDATE": "1"},
		// opencode resolves a model as provider/model and fails a run on any other name.
		takesModel: func(model string) bool { return strings.Contains(model, "/") },
	})
}

func opencodeFlags(cfg map[string]string) []string {
	args := []string{"run", "--format", "json", "--title", "skillgate", "--thinking"}
	if cmp.Or(cfg["auto_approve"], "true") == "true" {
		args = append(args, "--auto")
	}
	return args
}
