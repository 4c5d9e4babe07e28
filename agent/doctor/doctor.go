// Package doctor checks, with no API key and no tokens spent, that an agent CLI works with
// skillgate: it runs the CLI once through its executor, exactly as a run does (the same
// environment, user and flags; only the variables pointing the CLI at the stand-in model and a
// scratch HOME are added), against the scripted model
// (internal/scriptedmodel) in a scratch workspace with the suite's skills, and reports whether
// the CLI was found, its version, whether it accepted skillgate's flags, whether it advertised
// each skill to the model, whether the skill tool call was read as a skill invocation, and
// whether usage was read. A CI gate that silently ran without its skill loaded shows up here.
package doctor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/scriptedmodel"
	"github.com/skillgate/skillgate/results"
)

// Check statuses.
const (
	OK   = "ok"
	Warn = "warn"
	Fail = "FAIL"
)

// Check is one finding.
type Check struct {
	Name   string
	Status string
	Detail string
}

// Report is what doctor found about one executor.
type Report struct {
	Executor string
	Checks   []Check
}

// Failed reports whether a check failed.
func (r *Report) Failed() bool {
	for _, c := range r.Checks {
		if c.Status == Fail {
			return true
		}
	}
	return false
}

func (r *Report) add(name, status, format string, args ...any) {
	r.Checks = append(r.Checks, Check{Name: name, Status: status, Detail: fmt.Sprintf(format, args...)})
}

// Skill is a skill as its SKILL.md front matter describes it.
type Skill struct {
	Name        string
	Description string
	Dir         string
}

// Options tune one check.
type Options struct {
	// SkillDirs are the suite's skill_directories (each a skill folder or a folder of them);
	// empty: a built-in sample skill.
	SkillDirs []string
	// Skill is the skill the model is scripted to invoke; empty: the first one.
	Skill string
	// Timeout bounds the run; 0: 3 minutes.
	Timeout time.Duration
}

// sampleSkill is installed when the suite gives none.
const sampleSkill = `---
name: skillgate-doctor
description: Answers the skillgate doctor check. Use when asked to run the doctor check.
---

Reply "doctor: done".
`

// Run checks one executor.
func Run(ctx context.Context, ex agent.Executor, opts Options) *Report {
	r := &Report{Executor: ex.Name()}
	st, ok := Standins[ex.Name()]
	if !ok {
		r.add("agent CLI", Warn, "%s is not an agent CLI skillgate can point at a local model; nothing to check", ex.Name())
		return r
	}
	if p, ok := ex.(agent.Preflighter); ok {
		if err := p.Preflight(); err != nil {
			r.add("CLI found", Fail, "%v", err)
			return r
		}
	}
	r.add("CLI found", OK, "")
	if v, ok := ex.(agent.Versioner); ok {
		if version, err := v.Version(ctx); err != nil {
			r.add("version", Warn, "%v", err)
		} else {
			r.add("version", OK, "%s", version)
		}
	}
	scratch, err := os.MkdirTemp("", "skillgate-doctor-")
	if err != nil {
		r.add("scratch workspace", Fail, "%v", err)
		return r
	}
	defer os.RemoveAll(scratch)
	dirs := opts.SkillDirs
	if len(dirs) == 0 {
		dir := filepath.Join(scratch, "skills", "skillgate-doctor")
		if err := writeFile(filepath.Join(dir, "SKILL.md"), sampleSkill); err != nil {
			r.add("scratch workspace", Fail, "%v", err)
			return r
		}
		dirs = []string{dir}
	}
	skills, err := ReadSkills(dirs)
	if err != nil || len(skills) == 0 {
		r.add("skills", Fail, "reading the skills: %v", err)
		return r
	}
	target := skills[0]
	for _, s := range skills {
		if s.Name == opts.Skill {
			target = s
		}
	}

	srv := scriptedmodel.Start(scriptedmodel.Script{
		Steps: []scriptedmodel.Step{{Skill: target.Name, SkillFile: st.SkillsDir + "/" + filepath.Base(target.Dir) + "/SKILL.md"}},
		Final: "doctor: done",
		Usage: scriptedmodel.Usage{Input: 1000, Cached: 50, CacheWrite: 5, Output: 20, Reasoning: 3},
	})
	defer srv.Close()
	home := filepath.Join(scratch, "home")
	ws := filepath.Join(scratch, "workspace")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		r.add("scratch workspace", Fail, "%v", err)
		return r
	}
	env, err := Environment(ex.Name(), home, srv.URL)
	if err != nil {
		r.add("stand-in model", Fail, "%v", err)
		return r
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 3 * time.Minute
	}
	run, runErr := ex.Run(ctx, &agent.Request{
		// The prompt names no skill: a skill seen in the request was put there by the CLI.
		Prompt:    "This is skillgate's doctor check. Reply when done.",
		Workspace: ws, SkillDirs: dirs, Skill: target.Name, Timeout: timeout, Environment: env,
		Suite: "doctor", TaskID: "doctor", Trial: 1, WithSkill: true,
	})
	var refused *agent.RefusedError
	switch {
	case errors.As(runErr, &refused):
		// What the CLI refuses in this setup (as root, an untrusted folder…) stops every run the
		// same way: the other checks cannot say anything.
		r.add("flags accepted", Fail, "%s (it said: %q); fix: %s", refused.What, refused.Said, refused.Fix)
		return r
	case runErr != nil:
		r.add("flags accepted", Fail, "the run failed: %v", runErr)
	default:
		r.add("flags accepted", OK, "the CLI ran headless with skillgate's flags and finished")
	}

	reqs := srv.ModelRequests()
	if len(reqs) == 0 {
		r.add("model reached", Fail, "the CLI sent no request to the stand-in model")
		return r
	}
	for _, s := range skills {
		if advertised(reqs, s) {
			r.add("skill advertised", OK, "%s: name and description seen in the request to the model", s.Name)
		} else {
			r.add("skill advertised", Fail, "%s: neither the request's tools nor its prompt mention it with its description; the agent would run without the skill", s.Name)
		}
	}
	if run == nil {
		return r
	}
	invoked := slices.ContainsFunc(run.SessionDigest.SkillInvocations, func(s results.SkillInvocation) bool { return s.Name == target.Name })
	if invoked {
		r.add("skill call parsed", OK, "%s invoked (%s)", target.Name, replies(reqs))
	} else {
		r.add("skill call parsed", Fail, "the model was scripted to invoke %s (%s) but the run records no invocation of it", target.Name, replies(reqs))
	}
	served := srv.Served()
	switch u := run.SessionDigest.Usage; {
	case st.NoUsage && u == nil:
		r.add("usage parsed", Warn, "this CLI reports no token counts; usage is recorded as unknown")
	case u == nil:
		r.add("usage parsed", Fail, "no usage recorded; the model reported %d input and %d output tokens", served.Input, served.Output)
	case u.InputTokens != served.Input || u.OutputTokens != served.Output:
		r.add("usage parsed", Fail, "recorded %d input / %d output tokens; the model reported %d / %d", u.InputTokens, u.OutputTokens, served.Input, served.Output)
	default:
		r.add("usage parsed", OK, "%d input / %d output tokens, as the model reported", u.InputTokens, u.OutputTokens)
	}
	return r
}

// advertised reports whether a request offering tools carried the skill's name and the start of
// its description: at most 40 characters (CLIs shorten long descriptions), up to the first
// character a CLI may escape (Copilot writes ' as &apos; in its XML skill list).
func advertised(reqs []scriptedmodel.Request, s Skill) bool {
	desc := s.Description
	if i := strings.IndexAny(desc, "'\"&<>\\\n"); i >= 0 {
		desc = desc[:i]
	}
	if len(desc) > 40 {
		desc = desc[:40]
	}
	for _, r := range reqs {
		if len(r.Tools) > 0 && r.Mentions(s.Name) && r.Mentions(desc) {
			return true
		}
	}
	return false
}

func replies(reqs []scriptedmodel.Request) string {
	var out []string
	for _, r := range reqs {
		out = append(out, r.Reply)
	}
	return "model replies: " + strings.Join(out, ", ")
}

// ReadSkills reads the skills of skill_directories entries: each is a skill folder (it holds
// SKILL.md) or a folder whose direct children are.
func ReadSkills(dirs []string) ([]Skill, error) {
	var skills []Skill
	for _, dir := range dirs {
		folders := []string{dir}
		if _, err := os.Stat(filepath.Join(dir, "SKILL.md")); err != nil {
			entries, err := os.ReadDir(dir)
			if err != nil {
				return nil, err
			}
			folders = nil
			for _, e := range entries {
				if _, err := os.Stat(filepath.Join(dir, e.Name(), "SKILL.md")); err == nil {
					folders = append(folders, filepath.Join(dir, e.Name()))
				}
			}
		}
		for _, f := range folders {
			s, err := readSkill(f)
			if err != nil {
				return nil, err
			}
			skills = append(skills, s)
		}
	}
	return skills, nil
}

func readSkill(dir string) (Skill, error) {
	data, err := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	if err != nil {
		return Skill{}, err
	}
	s := Skill{Name: filepath.Base(dir), Dir: dir}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		if front, _, ok := strings.Cut(rest, "\n---"); ok {
			var fm struct {
				Name        string `yaml:"name"`
				Description string `yaml:"description"`
			}
			if err := yaml.Unmarshal([]byte(front), &fm); err != nil {
				return Skill{}, fmt.Errorf("%s: front matter: %w", filepath.Join(dir, "SKILL.md"), err)
			}
			s.Name = cmp.Or(fm.Name, s.Name)
			s.Description = strings.TrimSpace(fm.Description)
		}
	}
	return s, nil
}
