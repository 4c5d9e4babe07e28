package main

import (
	"cmp"
	"fmt"
	"io"

	"github.com/skillgate/skillgate/action"
)

// cmdAction runs skillgate as a GitHub Action step: inputs come from INPUT_* variables (see
// action.yml and docs/action.md), not flags.
func (a *app) cmdAction(args []string) int {
	fs := newFlagSet("action", "action   (a GitHub Action step: inputs come from INPUT_* variables; see docs/action.md)", a.stderr)
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(a.stderr, "skillgate action: takes no arguments (got %q); set inputs with `with:` in the workflow\n", fs.Args())
		return exitUsage
	}
	// The action redacts its own output; it needs the raw stream for ::add-mask::.
	return action.Main(a.ctx, action.Deps{
		Stdout: cmp.Or[io.Writer](a.rawStdout, a.stdout), Stderr: a.stderr, Getenv: a.getenv, Version: versionString(),
	})
}
