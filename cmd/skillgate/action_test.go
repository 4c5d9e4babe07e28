package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestActionCommandWiring(t *testing.T) {
	var out, errOut bytes.Buffer
	env := map[string]string{"GITHUB_WORKSPACE": t.TempDir(), "INPUT_CHECK-RUN": "maybe"}
	a := &app{stdout: &out, stderr: &errOut, getenv: func(k string) string { return env[k] }, ctx: context.Background()}
	if code := a.main([]string{"action", "stray"}); code != exitUsage || !strings.Contains(errOut.String(), "takes no arguments") {
		t.Errorf("exit %d: %s", code, errOut.String())
	}
	// Inputs come from the injected environment: a bad one stops the action with exit 2.
	if code := a.main([]string{"action"}); code != exitUsage || !strings.Contains(out.String(), `input "check-run" = "maybe": not a boolean`) {
		t.Errorf("exit %d:\n%s", code, out.String())
	}
}
