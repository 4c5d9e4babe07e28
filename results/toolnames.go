package results

import (
	"path"
	"strings"

	"github.com/skillgate/skillgate/internal/shellwords"
)

// The canonical tool vocabulary: what a tool call does, whatever the agent calls the tool, so a
// suite can say `required_tools: [shell]` and mean it on every agent (docs/agents.md).
const (
	ToolShell  = "shell"
	ToolRead   = "read"
	ToolWrite  = "write"
	ToolEdit   = "edit"
	ToolSearch = "search"
	ToolSkill  = "skill"
	ToolWeb    = "web"
)

// toolKinds maps each agent CLI's tool names (as they appear in its stream) to the vocabulary.
var toolKinds = map[string]string{
	// Claude Code
	"Bash": ToolShell, "BashOutput": ToolShell, "KillShell": ToolShell,
	"Read": ToolRead, "Write": ToolWrite, "Edit": ToolEdit, "MultiEdit": ToolEdit, "NotebookEdit": ToolEdit,
	"Grep": ToolSearch, "Glob": ToolSearch, "LS": ToolSearch,
	"Skill": ToolSkill, "WebFetch": ToolWeb, "WebSearch": ToolWeb,
	// Codex (exec --json items, and the model-side tool names of recordings)
	"command_execution": ToolShell, "exec_command": ToolShell, "shell_command": ToolShell,
	"local_shell": ToolShell, "file_change": ToolEdit, "apply_patch": ToolEdit, "web_search": ToolWeb,
	// Gemini CLI
	"run_shell_command": ToolShell, "read_file": ToolRead, "read_many_files": ToolRead,
	"write_file": ToolWrite, "replace": ToolEdit, "glob": ToolSearch, "grep_search": ToolSearch,
	"search_file_content": ToolSearch, "list_directory": ToolSearch, "activate_skill": ToolSkill,
	"google_web_search": ToolWeb, "web_fetch": ToolWeb,
	// Copilot CLI
	"bash": ToolShell, "powershell": ToolShell, "read_bash": ToolShell, "write_bash": ToolShell,
	"stop_bash": ToolShell, "view": ToolRead, "create": ToolWrite, "edit": ToolEdit,
	"str_replace_editor": ToolEdit, "str_replace": ToolEdit, "grep": ToolSearch, "fetch": ToolWeb,
	// Qwen Code (Gemini CLI's names, and edit, skill, web_fetch above)
	"notebook_edit": ToolEdit,
	// opencode (bash, read, write, edit, glob, grep, skill above)
	"list": ToolSearch, "webfetch": ToolWeb, "websearch": ToolWeb, "codesearch": ToolWeb,
	// The vocabulary names themselves (a mock or command executor may use them).
	ToolShell: ToolShell, ToolRead: ToolRead, ToolWrite: ToolWrite, ToolSearch: ToolSearch,
	ToolSkill: ToolSkill, ToolWeb: ToolWeb,
}

// ToolKind is the canonical kind of an agent's tool name, "" for a tool outside the vocabulary
// (an MCP tool, a task tool).
func ToolKind(name string) string { return toolKinds[name] }

// ShellCommand is the command line a call's `command` (or `cmd`) argument holds, as the agent
// meant it: a shell wrapper (`/bin/bash -lc '…'`, `sh -c "…"`, `powershell -Command …`, or the
// same as an argv list) is unwrapped, and an argv list is joined with spaces. "" when the call
// has no such argument.
func ShellCommand(args map[string]any) string {
	line, argv := CommandArgument(args)
	if argv != nil {
		return unwrapArgv(argv)
	}
	return unwrapShell(line)
}

// CommandArgument is a call's `command` (or `cmd`) argument as the agent wrote it: a string as
// line, or an argv list (Codex) as argv. Both are empty when the call has no such argument or
// the list holds something other than strings.
func CommandArgument(args map[string]any) (line string, argv []string) {
	for _, key := range []string{"command", "cmd"} {
		switch v := args[key].(type) {
		case string:
			return v, nil
		case []any:
			argv := make([]string, 0, len(v))
			for _, p := range v {
				s, ok := p.(string)
				if !ok {
					return "", nil
				}
				argv = append(argv, s)
			}
			return "", argv
		case []string:
			return "", v
		}
	}
	return "", nil
}

// unwrapShell unwraps a command line that runs a shell on one script; others are kept as they
// are (quoting included), since the agent meant them so.
func unwrapShell(s string) string {
	for range 3 { // bash -lc "sh -c '…'"
		words, err := shellwords.Split(s)
		if err != nil {
			return s
		}
		inner, ok := shellScript(words)
		if !ok {
			return s
		}
		s = inner
	}
	return s
}

func unwrapArgv(argv []string) string {
	if inner, ok := shellScript(argv); ok {
		return unwrapShell(inner)
	}
	return strings.Join(argv, " ")
}

// shellScript returns the script of `<shell> [options] -c <script> [args…]` (-lc, -ic and the
// like included) or `powershell|pwsh [options] -Command <script>`.
func shellScript(argv []string) (string, bool) {
	if len(argv) < 3 {
		return "", false
	}
	name := strings.ToLower(strings.TrimSuffix(path.Base(strings.ReplaceAll(argv[0], `\`, "/")), ".exe"))
	switch name {
	case "bash", "sh", "zsh", "dash", "ksh", "fish":
		for i := 1; i < len(argv)-1; i++ {
			a := argv[i]
			if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
				return "", false
			}
			if !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'c') {
				return argv[i+1], true
			}
		}
	case "powershell", "pwsh":
		for i := 1; i < len(argv)-1; i++ {
			a := strings.ToLower(argv[i])
			if a == "-command" || a == "-c" {
				return strings.Join(argv[i+1:], " "), true
			}
			if !strings.HasPrefix(a, "-") {
				return "", false
			}
		}
	}
	return "", false
}
