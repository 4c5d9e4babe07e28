package main

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/agent/doctor"
	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/runner"
)

// cmdDoctor runs each agent CLI a suite uses (or every one on PATH) once against the built-in
// scripted model and prints what works; exit 1 when a check fails (agent/doctor).
func (a *app) cmdDoctor(args []string) int {
	fs := newFlagSet("doctor", "doctor [--executor NAME] [--timeout 3m] [SUITE...]", a.stderr)
	executor := fs.String("executor", "", "check this executor instead of each suite's")
	timeout := fs.Duration("timeout", 3*time.Minute, "bound on the agent's one run")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return usageExit(err)
	}
	type target struct {
		ex   agent.Executor
		opts doctor.Options
		err  error // the executor could not be built (CLI missing)
		name string
		// missing is the skill the suite names and no SKILL.md of which was found.
		missing string
	}
	var targets []target
	if len(paths) == 0 {
		names := doctor.CLIs
		if *executor != "" {
			names = []string{*executor}
		}
		for _, name := range names {
			ex, err := agent.New(name, agent.Options{})
			if err != nil {
				fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
				return exitUsage
			}
			if p, ok := ex.(agent.Preflighter); ok && *executor == "" && p.Preflight() != nil {
				fmt.Fprintf(a.stdout, "%s: not installed, skipped\n", name)
				continue
			}
			targets = append(targets, target{ex: ex, name: name, opts: doctor.Options{Timeout: *timeout}})
		}
		if len(targets) == 0 {
			fmt.Fprintln(a.stderr, "skillgate: no agent CLI found on PATH (claude, codex, gemini, copilot, qwen, opencode)")
			return exitFailed
		}
	} else {
		plan, err := pipeline.Load(paths, pipeline.Settings{Judge: &pipeline.JudgeSettings{Getenv: a.getenv}})
		if err == nil && plan.Loads() == 0 {
			err = plan.NoSuiteError(paths)
		}
		if err != nil {
			fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
			return exitUsage
		}
		a.printDiagnostics(plan.Diags)
		if plan.Diags.HasErrors() {
			return exitUsage
		}
		for _, su := range plan.Suites {
			s := su.Spec()
			ex, err := runner.NewExecutor(s, runner.ExecutorOptions{Name: *executor})
			name := cmp.Or(*executor, s.Config.Executor)
			t := target{ex: ex, err: err, name: s.Name + " (" + name + ")",
				opts: doctor.Options{SkillDirs: s.Config.SkillDirectories, Skill: s.Skill, Timeout: *timeout}}
			if s.Config.MissingSkill != "" {
				// The suite's own skill, not a sample: one that cannot be found fails the check.
				t.missing = s.Config.MissingSkill
			}
			targets = append(targets, t)
		}
	}
	failed := false
	for _, t := range targets {
		fmt.Fprintln(a.stdout, t.name)
		if t.missing != "" {
			fmt.Fprintf(a.stdout, "  %-5s %-18s no SKILL.md named %q in the suite's folder or above it up to the repository root: the agent would run without it (set config.skill_directories)\n", doctor.Fail, "suite's skill", t.missing)
			failed = true
			continue
		}
		if t.err != nil {
			fmt.Fprintf(a.stdout, "  %-5s %-18s %v\n", doctor.Fail, "CLI found", t.err)
			failed = true
			continue
		}
		r := doctor.Run(a.ctx, t.ex, t.opts)
		for _, c := range r.Checks {
			fmt.Fprintf(a.stdout, "  %-5s %-18s %s\n", c.Status, c.Name, strings.ReplaceAll(c.Detail, "\n", " "))
		}
		failed = failed || r.Failed()
	}
	if failed {
		return exitFailed
	}
	return exitOK
}
