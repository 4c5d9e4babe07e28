package conformance

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/scriptedmodel"
	"github.com/skillgate/skillgate/results"
)

// The agent works in the task's workspace and nowhere else: it loads the skill installed there
// and its shell lists the task's files. opencode works in $PWD rather than its working
// directory, so skillgate's own PWD is set to another folder here: an executor that let it
// through would show that folder, without the skill.
func TestConformanceWorkspace(t *testing.T) {
	for _, c := range clis {
		if c.executor != "opencode" && c.executor != "qwen-code" {
			continue
		}
		t.Run(c.executor, func(t *testing.T) {
			t.Setenv("PWD", t.TempDir())
			bin, srv, env := startModel(t, c, scriptedmodel.Script{
				Steps: []scriptedmodel.Step{
					{Skill: skillName, SkillFile: c.standin().SkillsDir + "/" + skillName + "/SKILL.md"},
					// Two commands, one writer each: under load Qwen Code 0.24.4 was seen keeping
					// only the first command's output of `pwd && ls -a`.
					// pwd also writes where.txt: under load Qwen Code 0.24.4 was seen reporting a
					// command's output as "(empty)", and the file says where the shell ran anyway.
					{Shell: "pwd | tee where.txt"},
					{Shell: "ls -a"},
				},
				Final: finalAnswer,
				Usage: usage,
			})
			ex, err := agent.New(c.executor, agent.Options{Path: bin, Args: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			ws, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(ws, "notes.txt"), notes)
			skills, _ := filepath.Abs(filepath.Join("testdata", "skills"))
			run, err := ex.Run(context.Background(), &agent.Request{
				Prompt: "Where are you?", Workspace: ws, SkillDirs: []string{skills}, Skill: skillName,
				Timeout: 3 * time.Minute, Environment: env, InputFiles: []string{"notes.txt"},
				Suite: "conformance", TaskID: t.Name(), Trial: 1, WithSkill: true,
			})
			if run == nil {
				t.Fatalf("no run; error %v", err)
			}
			s := session{srv: srv, run: run, err: err}
			defer s.logOnFailure(t)
			if err != nil {
				t.Fatalf("run error: %v", err)
			}
			calls := run.SessionDigest.ToolCalls
			if len(calls) != 3 || calls[0].Kind != results.ToolSkill || calls[1].Kind != results.ToolShell || calls[2].Kind != results.ToolShell {
				t.Fatalf("tool calls %+v, want the skill then two shell commands", calls)
			}
			if loaded := calls[0]; !loaded.Success {
				hint := ""
				if strings.Contains(fmt.Sprint(loaded.Result), "ripgrep") {
					hint = " (opencode's skill tool lists the skill's files with ripgrep: put rg on PATH, e.g. apt-get install ripgrep)"
				}
				t.Errorf("the skill did not load: %v%s", loaded.Result, hint)
			}
			if where, err := os.ReadFile(filepath.Join(ws, "where.txt")); err != nil || strings.TrimSpace(string(where)) != ws {
				t.Errorf("`pwd` wrote %q (%v), want the workspace %s", where, err, ws)
			}
			if pwd := strings.TrimSpace(fmt.Sprint(calls[1].Result)); pwd != ws && !strings.Contains(pwd, "Output: (empty)") {
				t.Errorf("`pwd` printed %q, want the workspace %s", pwd, ws)
			}
			listing := strings.Fields(fmt.Sprint(calls[2].Result))
			top := strings.Split(c.standin().SkillsDir, "/")[0]
			if !slices.Contains(listing, "notes.txt") || !slices.Contains(listing, top) {
				t.Errorf("`ls -a` printed %q; want notes.txt and %s", listing, top)
			}
			want := results.SkillInvocation{Name: skillName, Path: c.standin().SkillsDir + "/" + skillName}
			if inv := run.SessionDigest.SkillInvocations; len(inv) != 1 || inv[0] != want {
				t.Errorf("skill invocations %+v, want %+v", inv, want)
			}
		})
	}
}
