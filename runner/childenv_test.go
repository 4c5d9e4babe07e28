package runner

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

// Every kind of process a run starts — the agent, a hook, a program grader, a script grader, a
// Vally run-command grader — sees $PWD equal to its working directory: the workspace for the
// agent and run-command, the suite folder for hooks and grader programs (issue 26's repro gave
// two folders). None of them holds the runner's or the workflow's tokens.
func TestEveryChildSeesItsFolderAsPWD(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("PWD is a Unix convention")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "probe.log")
	t.Setenv("SKILLGATE_TEST_PROBE_LOG", log)
	t.Setenv("PWD", "/the/folder/skillgate/was/started/from")
	t.Setenv("GITHUB_TOKEN", "ghs_plantedWorkflowToken0123456789")
	t.Setenv("ACTIONS_RUNTIME_TOKEN", "plantedRuntimeToken0123456789")
	// probe KIND logs: KIND $PWD $(pwd -P) [marker if the task's input file is here] [tokens];
	// the script grader runs it without arguments.
	// A shell corrects a stale $PWD for itself: the probe reads the PWD that skillgate's child
	// was started with from /proc where there is one — its own, or for the commands skillgate
	// runs through `sh -c` (hooks, run-command) its parent's.
	probe := "#!/bin/sh\n" +
		`m=; [ -f marker.txt ] && m=marker` + "\n" +
		`src=$$; case "$1" in hook|run-command) src=$PPID;; esac` + "\n" +
		`p=$PWD; [ -r /proc/$src/environ ] && p=$(tr "\0" "\n" < /proc/$src/environ | sed -n "s/^PWD=//p")` + "\n" +
		`echo "${1:-script} $p $(pwd -P) [$m] [$GITHUB_TOKEN$ACTIONS_RUNTIME_TOKEN]" >> "$SKILLGATE_TEST_PROBE_LOG"` + "\n" +
		`echo '{"score": 1, "passed": true}'` + "\n"
	testtree.Write(t, dir, map[string]string{
		"probe.sh": probe,
		"eval.yaml": `name: pwd
config:
  executor: command
  command:
    argv: [sh, ` + filepath.Join(dir, "probe.sh") + `, agent]
    output: text
  trials_per_task: 1
  timeout_seconds: 30
hooks:
  before_task: [{command: "sh probe.sh hook; true"}]
graders:
  - {type: program, name: program, config: {command: ./probe.sh, args: [program]}}
  - {type: script, name: script, config: {script: probe.sh}}
  - {type: run-command, name: vally, config: {command: "sh ` + filepath.Join(dir, "probe.sh") + ` run-command; true"}}
tasks:
  - id: t
    inputs:
      prompt: hello
      files: [{path: marker.txt, content: here}]
`,
	})
	if err := os.Chmod(filepath.Join(dir, "probe.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	prepared, diags, err := LoadSuites([]string{dir}, "")
	if err != nil || diags.HasErrors() || len(prepared) != 1 {
		t.Fatalf("load: %v %v", err, diags)
	}
	p := prepared[0]
	ex, err := NewExecutor(p.Suite, ExecutorOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), p.Suite, Options{Executor: ex, Graders: p.Graders}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		if len(f) != 5 {
			t.Errorf("probe line %q", line)
			continue
		}
		kind, pwd, cwd, marker, tokens := f[0], f[1], f[2], f[3], f[4]
		seen = append(seen, kind)
		if pwd != cwd {
			t.Errorf("%s: $PWD %s, working directory %s", kind, pwd, cwd)
		}
		inWorkspace := kind == "agent" || kind == "run-command"
		if inWorkspace && (marker != "[marker]" || cwd == dir) {
			t.Errorf("%s ran in %s, not in the task's workspace", kind, cwd)
		}
		if !inWorkspace && cwd != dir {
			t.Errorf("%s ran in %s, want the suite folder %s", kind, cwd, dir)
		}
		if tokens != "[]" {
			t.Errorf("%s holds the runner's or the workflow's token", kind)
		}
	}
	slices.Sort(seen)
	if want := []string{"agent", "hook", "program", "run-command", "script"}; !slices.Equal(seen, want) {
		t.Errorf("probes that ran: %v, want %v", seen, want)
	}
}
