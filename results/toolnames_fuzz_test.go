package results

import (
	"testing"

	"github.com/skillgate/skillgate/internal/shellwords"
)

// FuzzShellCommand: unwrapping any command line terminates and never panics.
func FuzzShellCommand(f *testing.F) {
	for _, s := range []string{"/bin/bash -lc 'cat notes.txt'", `sh -c "a \"b\""`, "bash -lc", "pwsh -c x", "bash -c 'bash -c \"sh -c x\"'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = ShellCommand(map[string]any{"command": s})
		if words, err := shellwords.Split(s); err == nil {
			args := make([]any, len(words))
			for i, w := range words {
				args[i] = w
			}
			_ = ShellCommand(map[string]any{"command": args})
		}
	})
}
