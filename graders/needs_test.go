package graders

import (
	"os"
	"os/exec"
	"testing"
)

// needs skips a test when a program it runs is not installed.
func needs(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			t.Skipf("%s is not installed", p)
		}
	}
}

// needsTypeScript skips a test when no TypeScript runner (Node.js ≥ 22.6, tsx or bun) is
// installed. .ci/run installs Node.js 22 and sets SKILLGATE_TYPESCRIPT_REQUIRED, so a runner
// missing there fails the test instead.
func needsTypeScript(t testing.TB) {
	t.Helper()
	if _, _, problem, _ := jsRunner(true); problem != "" {
		if os.Getenv("SKILLGATE_TYPESCRIPT_REQUIRED") != "" {
			t.Fatal("no TypeScript runner, and SKILLGATE_TYPESCRIPT_REQUIRED is set: " + problem)
		}
		t.Skip("no TypeScript runner: " + problem)
	}
}
