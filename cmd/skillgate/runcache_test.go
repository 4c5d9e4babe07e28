//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

// cacheSuite is a suite run by a command agent that logs every invocation next to itself.
const cacheSuite = `name: cached
skill: greeter
config:
  executor: command
  trials_per_task: 2
  skill_directories: [skills]
  agent_path: ./agent.sh
  command:
    argv: [agent, "{prompt}"]
    map:
      rules:
        - {when: {event: call}, emit: tool_call, id: call.id, name: call.tool, skill: call.input.skill}
        - {when: {event: done}, emit: final, content: answer}
graders:
  - {type: text, name: answered, config: {contains: ["Hello"]}}
tasks:
  - {id: ada, inputs: {prompt: "Say hello to Ada."}}
  - {id: grace, inputs: {prompt: "Say hello to Grace."}}
`

const cacheAgent = `#!/bin/sh
echo "$1" >> "$(dirname "$0")/invocations.log"
case "$1" in *greet*) echo '{"event":"call","call":{"id":"c1","tool":"load_skill","input":{"skill":"greeter"}}}' ;; esac
echo '{"event":"done","answer":"Hello!"}'
`

// TestRunCachePRSequence is the acceptance of the run cache over a sequence of changes: an
// unchanged suite executes no agent run and grades the same; a changed prompt executes exactly
// that task's trials; a changed grader executes nothing and changes the grade; a changed skill
// executes every run that installs it; --no-cache executes everything.
func TestRunCachePRSequence(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string, mode os.FileMode) {
		t.Helper()
		path := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("eval.yaml", cacheSuite, 0o644)
	write("agent.sh", cacheAgent, 0o755)
	write("skills/greeter/SKILL.md", "---\nname: greeter\ndescription: Greets.\n---\nSay hello.\n", 0o644)
	write("trigger_tests.yaml", "skill: greeter\nshould_trigger_prompts:\n  - prompt: Please greet Linus.\nshould_not_trigger_prompts:\n  - prompt: List the files.\n", 0o644)
	edit := func(rel, old, new string) {
		data, _ := os.ReadFile(filepath.Join(dir, rel))
		if !strings.Contains(string(data), old) {
			t.Fatalf("%s lacks %q", rel, old)
		}
		write(rel, strings.Replace(string(data), old, new, 1), 0o644)
	}
	out := t.TempDir()
	steps := []struct {
		name       string
		change     func()
		flags      []string
		invoked    int
		adaPassed  bool
		wantReused int
	}{
		// 2 tasks × 2 trials and 2 trigger prompts, each run once.
		{"base", func() {}, nil, 6, true, 0},
		{"no change", func() {}, nil, 0, true, 6},
		{"grader only", func() { edit("eval.yaml", `contains: ["Hello"]`, `contains: ["Hello, Ada"]`) }, nil, 0, false, 6},
		{"one task's prompt", func() { edit("eval.yaml", "hello to Grace", "hi to Grace") }, nil, 2, false, 4},
		{"the skill", func() { edit("skills/greeter/SKILL.md", "Say hello.", "Say hello briefly.") }, nil, 6, false, 0},
		{"no change, --no-cache", func() {}, []string{"--no-cache"}, 6, false, 0},
	}
	for _, s := range steps {
		s.change()
		os.Remove(filepath.Join(dir, "invocations.log"))
		code, stdout, stderr := run(t, nil, append([]string{"run", dir, "--quiet", "--out", out}, s.flags...)...)
		if code != exitOK && code != exitFailed {
			t.Fatalf("%s: exit %d\n%s\n%s", s.name, code, stdout, stderr)
		}
		log, _ := os.ReadFile(filepath.Join(dir, "invocations.log"))
		if n := strings.Count(string(log), "\n"); n != s.invoked {
			t.Errorf("%s: the agent ran %d times, want %d:\n%s", s.name, n, s.invoked, log)
		}
		res := readResults(t, results.PathIn(out, "cached"))
		if got := res.Tasks[0].Status == results.StatusPassed; got != s.adaPassed {
			t.Errorf("%s: ada passed %v, want %v", s.name, got, s.adaPassed)
		}
		if sp := res.Summary.Spend; sp == nil || sp.Runs != 6 || sp.Reused != s.wantReused {
			t.Errorf("%s: spend %+v, want 6 runs, %d reused", s.name, sp, s.wantReused)
		}
	}
}
