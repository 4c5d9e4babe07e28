package main

import (
	"strings"
	"testing"
)

func TestDoctorCommand(t *testing.T) {
	// A suite on the mock executor has no agent CLI to check.
	code, stdout, _ := run(t, nil, "doctor", "../../examples/hello")
	if code != exitOK || !strings.Contains(stdout, "hello (mock)") || !strings.Contains(stdout, "mock is not an agent CLI") {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	// A suite whose agent CLI is missing fails the check.
	t.Setenv("PATH", t.TempDir())
	code, stdout, _ = run(t, nil, "doctor", "--executor", "gemini", "../../examples/hello")
	if code != exitFailed || !strings.Contains(stdout, "FAIL  CLI found") {
		t.Errorf("exit %d, stdout %q", code, stdout)
	}
	// Without a suite, every CLI on PATH: none here.
	code, stdout, stderr := run(t, nil, "doctor")
	if code != exitFailed || !strings.Contains(stdout, "claude-code: not installed, skipped") || !strings.Contains(stderr, "no agent CLI found") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
