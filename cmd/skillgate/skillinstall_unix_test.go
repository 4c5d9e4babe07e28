//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// installSuite is a suite that names its skill and configures no skill folder, run by a command
// agent that answers with the skills it finds installed in its workspace.
const installSuite = `name: install
skill: greeter
config:
  executor: command
  agent_path: ./agent.sh
  command:
    argv: [agent, "{prompt}"]
    map:
      rules:
        - {when: {event: done}, emit: final, content: answer}
graders:
  - {type: text, name: installed, config: {contains: ["skills: greeter"]}}
tasks:
  - {id: greet, inputs: {prompt: "Greet Ada."}}
`

const installAgent = `#!/bin/sh
echo "{\"event\":\"done\",\"answer\":\"skills: $(ls .agents/skills 2>/dev/null | tr '\n' ' ')\"}"
`

// The skill is always installed: found in the suite's folder (as waza offers it) without
// skill_directories, it reaches the agent; not found, `run` warns before any agent starts and
// `doctor` fails naming it.
func TestSkillAlwaysInstalled(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(".git/HEAD", "ref: refs/heads/main\n", 0o644)
	write("greeter/eval.yaml", installSuite, 0o644)
	write("greeter/agent.sh", installAgent, 0o755)
	write("greeter/SKILL.md", "---\nname: greeter\ndescription: Greets people.\n---\nSay hello.\n", 0o644)
	out := t.TempDir()
	code, _, stderr := run(t, nil, "run", "--quiet", "--out", out, filepath.Join(dir, "greeter"))
	if code != exitOK || strings.Contains(stderr, "runs without the skill") {
		t.Fatalf("exit %d (the skill was not installed?)\n%s", code, stderr)
	}

	os.Remove(filepath.Join(dir, "greeter/SKILL.md"))
	code, _, stderr = run(t, nil, "run", "--quiet", "--out", t.TempDir(), filepath.Join(dir, "greeter"))
	want := `warning: suite install names the skill "greeter", and no SKILL.md of that name is in its folder or a folder above it up to the repository root: the agent runs without the skill`
	if code != exitFailed || !strings.Contains(stderr, want) {
		t.Errorf("exit %d\n%s", code, stderr)
	}
	if i, j := strings.Index(stderr, want), strings.Index(stderr, "results:"); i < 0 || j >= 0 && j < i {
		t.Errorf("the warning comes after the run:\n%s", stderr)
	}
	code, stdout, _ := run(t, nil, "doctor", filepath.Join(dir, "greeter"))
	if code != exitFailed || !strings.Contains(stdout, `FAIL  suite's skill      no SKILL.md named "greeter"`) {
		t.Errorf("doctor: exit %d\n%s", code, stdout)
	}
}
