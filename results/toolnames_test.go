package results

import "testing"

func TestShellCommand(t *testing.T) {
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"plain", map[string]any{"command": "cat notes.txt"}, "cat notes.txt"},
		{"codex 0.169", map[string]any{"command": "/bin/bash -lc 'cat notes.txt'"}, "cat notes.txt"},
		{"codex 0.46", map[string]any{"command": "bash -lc ls"}, "ls"},
		{"zsh", map[string]any{"command": "zsh -lc 'rm -rf x'"}, "rm -rf x"},
		{"sh -c double quotes", map[string]any{"command": `sh -c "echo \"hi\" && ls"`}, `echo "hi" && ls`},
		{"nested", map[string]any{"command": `bash -lc "sh -c 'rm -rf /tmp/x'"`}, "rm -rf /tmp/x"},
		{"separate flags", map[string]any{"command": "bash -l -c 'git status'"}, "git status"},
		{"argv", map[string]any{"command": []any{"bash", "-lc", "git commit -m x"}}, "git commit -m x"},
		{"argv plain", map[string]any{"command": []any{"ls", "-la"}}, "ls -la"},
		{"cmd key", map[string]any{"cmd": "/usr/bin/env bash -c ls"}, "/usr/bin/env bash -c ls"},
		{"powershell", map[string]any{"command": `powershell.exe -NoProfile -Command "Get-ChildItem"`}, "Get-ChildItem"},
		{"a script file is not unwrapped", map[string]any{"command": "bash script.sh arg"}, "bash script.sh arg"},
		{"bash alone", map[string]any{"command": "bash -c"}, "bash -c"},
		{"unbalanced quotes kept", map[string]any{"command": "bash -lc 'oops"}, "bash -lc 'oops"},
		{"argv with a non-string", map[string]any{"command": []any{"bash", 1}}, ""},
		{"no command", map[string]any{"path": "x"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ShellCommand(tt.args); got != tt.want {
				t.Errorf("ShellCommand(%v) = %q, want %q", tt.args, got, tt.want)
			}
		})
	}
}

func TestToolKind(t *testing.T) {
	for name, want := range map[string]string{
		"Bash": "shell", "command_execution": "shell", "run_shell_command": "shell", "bash": "shell",
		"Read": "read", "read_file": "read", "view": "read",
		"Write": "write", "write_file": "write", "create": "write",
		"Edit": "edit", "replace": "edit", "file_change": "edit",
		"Grep": "search", "glob": "search", "grep_search": "search",
		"Skill": "skill", "activate_skill": "skill", "skill": "skill",
		"WebFetch": "web", "google_web_search": "web", "web_search": "web",
		"notebook_edit": "edit", "list": "search", "webfetch": "web", "websearch": "web",
		"mcp__github__list_issues": "", "Task": "", "task": "", "todowrite": "",
	} {
		if got := ToolKind(name); got != want {
			t.Errorf("ToolKind(%q) = %q, want %q", name, got, want)
		}
	}
}
