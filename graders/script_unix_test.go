//go:build unix

package graders

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/internal/proctest"
	"github.com/skillgate/skillgate/spec"
)

// assertGroupKilled checks that the child the script started died with it.
func assertGroupKilled(t *testing.T, pidFile string) {
	t.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the script did not record its child: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	if !proctest.WaitGone(pid, 3*time.Second) {
		t.Errorf("child %d outlived the timeout", pid)
	}
}

// TestScriptDoesNotSeeTheJudgeKey: a grader program gets skillgate's environment without the
// judge's settings, which are meant for the LLM graders inside skillgate.
func TestScriptDoesNotSeeTheJudgeKey(t *testing.T) {
	needs(t, "sh")
	t.Setenv("SKILLGATE_JUDGE_API_KEY", "sk-judge-secret")
	t.Setenv("SKILLGATE_JUDGE_BASE_URL", "https://judge.example/v1")
	t.Setenv("SKILLGATE_TEST_VISIBLE", "yes")
	dir := writeFiles(t, map[string]string{"eval.yaml": "name: s\n", "env.sh": `#!/bin/sh
cat > /dev/null
if env | grep -q '^SKILLGATE_JUDGE_'; then
  echo '{"pass": false, "score": 0, "reasoning": "judge settings visible"}'
elif [ "$SKILLGATE_TEST_VISIBLE" != yes ] || [ -z "$SKILLGATE_OWNER" ]; then
  echo '{"pass": false, "score": 0, "reasoning": "environment lost"}'
else
  echo '{"pass": true, "score": 1, "reasoning": "clean"}'
fi
`})
	if err := os.Chmod(filepath.Join(dir, "env.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := &Env{Suite: &spec.Suite{Dir: dir}}
	g, diags := compileScriptDef(t, filepath.Join(dir, "eval.yaml"), "type: script\nname: s\nconfig:\n  script: env.sh\n", env)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	assertResult(t, grade(t, g, scriptInput(t, "x")), 1, true, "clean")
}
