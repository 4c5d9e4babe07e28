package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// abandonGrace is how long the runner waits past a run's deadline for an executor that ignores
// cancellation before it records the run as timed out and moves on.
var abandonGrace = 10 * time.Second

// maxDeadlineGrace bounds how long past req.Timeout the runner's own deadline comes. Executors
// enforce req.Timeout themselves (and then say "timed out after …"); the runner's deadline is
// the backstop for one that does not, so it must fire after the executor's timer, not with it:
// with equal deadlines the runner's won and every timeout read "canceled".
const maxDeadlineGrace = 5 * time.Second

// deadlineGrace is the runner's margin past a run's timeout: a tenth of it, at most
// maxDeadlineGrace.
func deadlineGrace(timeout time.Duration) time.Duration {
	return min(timeout/10, maxDeadlineGrace)
}

// finishTask completes a task's result and reports it (journal, observer).
func (r *suiteRun) finishTask(tr *results.TaskResult, withSkill bool) {
	tr.FinishAt(r.suite.Config.TaskPassThreshold)
	if r.journal != nil && withSkill {
		if err := r.journal.Append(tr); err != nil {
			fmt.Fprintf(r.log, "warning: journal: %v (finished tasks are no longer saved as they finish)\n", err)
		}
	}
	if r.opts.Observer != nil && withSkill {
		r.opts.Observer.TaskFinished(r.suite, tr)
	}
}

// agentDone is an executed attempt waiting for its graders: the run so far and its workspace,
// which lives until grading ends.
type agentDone struct {
	t         *spec.Task
	trial     int
	withSkill bool
	run       *results.RunResult
	ws        *workspace // nil when the workspace could not be prepared
}

// runAgent is the part of an attempt that holds an agent slot: a fresh workspace and the agent.
// It returns nil when the run was interrupted.
func (r *suiteRun) runAgent(ctx context.Context, t *spec.Task, trial int, withSkill bool) *agentDone {
	run := &results.RunResult{RunNumber: trial, Validations: results.Validations{}}
	done := &agentDone{t: t, trial: trial, withSkill: withSkill, run: run}
	ws, err := r.newWorkspace(t, trial, withSkill, r.needsFiles(t))
	if err != nil {
		run.Status = results.StatusError
		run.ErrorMsg = "preparing workspace: " + err.Error()
		run.SessionDigest = results.Digest(nil, nil, "")
		return done
	}
	done.ws = ws
	if r.opts.KeepWorkspaces {
		run.WorkspaceDir = ws.dir
	}

	if len(t.Setup) > 0 && ctx.Err() == nil {
		// A Vally environment's commands prepare the workspace; what they make is the agent's
		// starting point, not its change.
		err := r.runSetup(ctx, t, ws, t.Setup, r.timeout(t), "environment")
		if err == nil {
			err = ws.adoptWorkspace()
		}
		if err != nil && ctx.Err() == nil {
			ws.cleanup(r.opts.KeepWorkspaces)
			done.ws = nil // nothing to grade
			run.Status = results.StatusError
			run.ErrorMsg = "preparing workspace: " + err.Error()
			run.SessionDigest = results.Digest(nil, nil, "")
			return done
		}
	}

	req := &agent.Request{
		Prompt:      buildPrompt(t),
		Workspace:   ws.dir,
		SkillDirs:   r.skillDirs(t, withSkill),
		Skill:       r.suite.Skill,
		Model:       r.model(),
		Timeout:     r.timeout(t),
		Environment: t.Environment,
		InputFiles:  ws.inputs,
		Suite:       r.suite.Name,
		TaskID:      t.ID,
		Trial:       trial,
		WithSkill:   withSkill,
		Stop:        r.stopRule(t.EarlyStop),
	}
	var agentRun *results.AgentRun
	var agentErr error
	if missing := missingInput(t); missing != "" {
		agentErr = errors.New(missing)
	} else if missing := r.missingSkillDirs(t, withSkill); missing != "" {
		agentErr = fmt.Errorf("skill directory %s does not exist: the agent would run without the skill (fix %s)", missing, skillKey(r.suite))
	} else {
		agentRun, agentErr = r.executeOrReuse(ctx, req, t, ws, run)
	}
	if ctx.Err() != nil {
		ws.cleanup(r.opts.KeepWorkspaces)
		return nil // interrupted: not a result
	}
	if agentRun != nil {
		run.AgentRun = *agentRun
	} else {
		run.SessionDigest = results.Digest(nil, nil, "")
	}
	if agentErr != nil {
		run.Status = results.StatusError
		run.AgentError = agentErr.Error()
		run.ErrorMsg = "agent: " + agentErr.Error()
	}
	return done
}

// gradeRun grades an executed attempt and removes its workspace. It returns nil when grading
// was interrupted.
func (r *suiteRun) gradeRun(ctx context.Context, d *agentDone) *results.RunResult {
	run := d.run
	if d.ws == nil {
		results.ScoreRun(run)
		return run
	}
	defer d.ws.cleanup(r.opts.KeepWorkspaces)
	if run.ChangedFiles == nil {
		// A replayed run brings the changes it recorded; a fresh workspace has none of them.
		run.ChangedFiles = d.ws.changes()
	}
	if t := d.t; (len(t.GradingFiles) > 0 || len(t.GradingSetup) > 0) && d.ws.dir != "" {
		// A grading environment prepares the workspace for the graders, after the agent.
		err := r.copyGradingFiles(d.ws, t.GradingFiles)
		if err == nil {
			err = r.runSetup(ctx, t, d.ws, t.GradingSetup, r.timeout(t), "grading_environment")
		}
		if err != nil && ctx.Err() == nil {
			run.Status = results.StatusError
			run.ErrorMsg = strings.TrimPrefix(run.ErrorMsg+"; ", "; ") + "preparing grading: " + err.Error()
		}
	}
	// Graders run even after an agent error: whatever was parsed is kept and graded (waza does
	// the same for session errors); the run stays `error` either way.
	r.grade(ctx, d.t, d.trial, d.withSkill, run, d.ws.dir)
	if ctx.Err() != nil {
		return nil
	}
	if sc := r.suite.Scoring; sc != nil && sc.Threshold != nil {
		run.PassThreshold = sc.Threshold
	}
	results.ScoreRun(run)
	return run
}

// needsFiles reports whether a task's runs need their workspace on disk: when kept, when the
// executor uses it, or when a grader reads it.
func (r *suiteRun) needsFiles(t *spec.Task) bool {
	if r.opts.KeepWorkspaces || len(t.Setup) > 0 || len(t.GradingFiles) > 0 || len(t.GradingSetup) > 0 {
		return true
	}
	if free, ok := r.opts.Executor.(agent.WorkspaceFree); !ok || !free.WorkspaceFree() {
		return true
	}
	return graders.ReadsWorkspace(t.Graders)
}

// execute calls the executor with the run's deadline. An executor that ignores cancellation is
// abandoned abandonGrace after the deadline so one stuck agent cannot hang the suite.
func (r *suiteRun) execute(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
	grace := deadlineGrace(req.Timeout)
	runCtx, cancel := context.WithTimeout(ctx, req.Timeout+grace)
	defer cancel()
	type outcome struct {
		run *results.AgentRun
		err error
	}
	done := make(chan outcome, 1)
	start := time.Now()
	go func() {
		run, err := r.opts.Executor.Run(runCtx, req)
		done <- outcome{run, err}
	}()
	select {
	case o := <-done:
		if o.err == nil && errors.Is(runCtx.Err(), context.DeadlineExceeded) {
			o.err = fmt.Errorf("timed out after %s", req.Timeout)
		}
		if o.err != nil && errors.Is(o.err, context.DeadlineExceeded) {
			o.err = fmt.Errorf("timed out after %s", req.Timeout)
		}
		if o.run != nil {
			if o.run.DurationMS == 0 {
				o.run.DurationMS = time.Since(start).Milliseconds()
			}
			if o.run.SessionDigest.ToolsUsed == nil {
				// An executor that left the digest empty gets it derived from its transcript.
				d := o.run.SessionDigest
				o.run.SessionDigest = results.Digest(o.run.Transcript, d.Usage, d.SessionID)
			}
		}
		return o.run, o.err
	case <-time.After(req.Timeout + grace + abandonGrace):
		return &results.AgentRun{DurationMS: time.Since(start).Milliseconds()},
			fmt.Errorf("timed out after %s (the executor did not stop; abandoned)", req.Timeout)
	}
}

// grade runs the task's graders in order on a finished run.
func (r *suiteRun) grade(ctx context.Context, t *spec.Task, trial int, withSkill bool, run *results.RunResult, workspace string) {
	in := &graders.Input{Suite: r.suite, Task: t, Run: &run.AgentRun, Workspace: workspace, Trial: trial, NoSkill: !withSkill,
		Executor: r.opts.Executor.Name(), AskAgent: r.askAgent(t, trial, workspace)}
	for _, def := range t.Graders {
		g := r.opts.Graders.For(def)
		start := time.Now()
		var res *results.GraderResult
		var err error
		gin := in
		if def.Turn != nil {
			gin = turnInput(in, *def.Turn)
		}
		if multi, ok := g.(graders.MultiGrader); ok {
			// Each check of the declaration is its own result (skill-creator's checks).
			var checks []*results.GraderResult
			if checks, err = gradeChecksSafely(ctx, multi, gin); err == nil {
				for _, c := range checks {
					c.Type = def.Type
					c.DurationMS = time.Since(start).Milliseconds()
					if c.Source == nil {
						c.Source = r.locs.location(def.Pos)
					} else {
						c.Source = r.locs.location(spec.Pos{File: c.Source.File, Line: c.Source.Line, Col: c.Source.Col})
					}
					noteStoppedEarly(def, run, c)
					run.Validations = append(run.Validations, c)
				}
				continue
			}
		} else if g == nil {
			err = fmt.Errorf("grader %q was not compiled", def.Name)
		} else {
			res, err = gradeSafely(ctx, g, gin)
		}
		if err != nil {
			// A grader may return what it learned along with its error (a script's stderr and exit
			// code): the details are kept, the verdict is not.
			var details map[string]any
			if res != nil {
				details = res.Details
			}
			res = &results.GraderResult{Status: results.StatusError, Feedback: "grader could not run: " + err.Error(), Details: details}
			run.Status = results.StatusError
			msg := fmt.Sprintf("grader %s: %v", def.Name, err)
			if run.ErrorMsg == "" {
				run.ErrorMsg = msg
			} else {
				run.ErrorMsg += "; " + msg
			}
		}
		res.Name, res.Type, res.Weight = def.Name, def.Type, def.Weight
		res.DurationMS = time.Since(start).Milliseconds()
		res.Source = r.locs.location(def.Pos)
		noteStoppedEarly(def, run, res)
		run.Validations = append(run.Validations, res)
	}
}

// gradeSafely calls the grader and turns a panic in it (a grader's bug, a refused allocation that
// escaped its engine) into the grader's error: one grader that crashes errors its own run, never
// the process and with it every other run's results.
func gradeSafely(ctx context.Context, g graders.Grader, in *graders.Input) (res *results.GraderResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("the grader crashed: %v", p)
		}
	}()
	return g.Grade(ctx, in)
}

// gradeChecksSafely is gradeSafely for a grader whose checks are separate results.
func gradeChecksSafely(ctx context.Context, g graders.MultiGrader, in *graders.Input) (res []*results.GraderResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("the grader crashed: %v", p)
		}
	}()
	return g.GradeChecks(ctx, in)
}

// askAgent is graders.Input.AskAgent: the executor, when it is an agent CLI, run once more in
// the finished workspace, without the skill, with a grader's prompt (`--judge agent`).
func (r *suiteRun) askAgent(t *spec.Task, trial int, workspace string) func(context.Context, string) (*results.AgentRun, error) {
	switch r.opts.Executor.Name() {
	case "mock", "replay":
		return nil
	}
	if workspace == "" {
		return nil
	}
	return func(ctx context.Context, prompt string) (*results.AgentRun, error) {
		return r.execute(ctx, &agent.Request{Prompt: prompt, Workspace: workspace, Model: r.model(), Timeout: r.timeout(t),
			Suite: r.suite.Name, TaskID: t.ID + "#judge", Trial: trial})
	}
}

func (r *suiteRun) timeout(t *spec.Task) time.Duration {
	if r.opts.Timeout > 0 {
		return r.opts.Timeout
	}
	secs := t.TimeoutSeconds
	if secs < 1 {
		secs = r.suite.Config.TimeoutSeconds
	}
	if secs < 1 {
		secs = 300
	}
	return time.Duration(secs) * time.Second
}

// missingInput is why one of the task's input files cannot be given to the agent ("" when all
// can): the run errors instead of running without it.
func missingInput(t *spec.Task) string {
	for _, f := range t.Files {
		if f.Missing != "" {
			return f.Missing
		}
	}
	return ""
}

// missingSkillDirs names the configured skill folders that do not exist when the run would
// install them for a real agent ("" otherwise). The mock and replay executors never read skills,
// so for them a missing folder changes nothing, as in waza.
func (r *suiteRun) missingSkillDirs(t *spec.Task, withSkill bool) string {
	missing := r.suite.Config.MissingSkillDirectories
	if t != nil && t.OwnSkills {
		missing = t.MissingSkillDirectories
	}
	if !withSkill || len(missing) == 0 {
		return ""
	}
	if name := r.opts.Executor.Name(); name == "mock" || name == "replay" {
		return ""
	}
	return strings.Join(missing, ", ")
}

// skillKey is the key that names a suite's skills, for the fix of a missing one: a Vally spec
// names them in environment.skills, a waza suite in config.skill_directories.
func skillKey(s *spec.Suite) string {
	if s.Format == "vally" {
		return "environment.skills"
	}
	return "config.skill_directories"
}

// skillDirs are the skill folders a task's run installs: the task's own (a Vally stimulus's
// environment.skills) or the suite's; none in uplift mode's without-skill pass.
func (r *suiteRun) skillDirs(t *spec.Task, withSkill bool) []string {
	if !withSkill {
		return nil
	}
	if t != nil && t.OwnSkills {
		return t.SkillDirectories
	}
	return r.suite.Config.SkillDirectories
}

// turnInput is a grader's input for one turn of a conversation (a grader's `turn`): the turn's
// message, events, output and usage. A run without that turn (a single prompt, a conversation cut short)
// is graded whole for turn 0 and as an empty turn otherwise.
func turnInput(in *graders.Input, turn int) *graders.Input {
	run, ok := in.Run.Turn(turn)
	if !ok {
		if turn == 0 && len(in.Run.Turns) == 0 {
			return in
		}
		run = &results.AgentRun{SessionDigest: results.Digest(nil, nil, ""), AgentError: fmt.Sprintf("the conversation has no turn %d", turn)}
	}
	c := *in
	c.Run = run
	if in.Task != nil && turn < len(in.Run.Turns) {
		// A judge of the turn reads the turn's own message as the task's prompt.
		task := *in.Task
		task.Prompt = in.Run.Turns[turn].Prompt
		c.Task = &task
	}
	return &c
}

// buildPrompt is the prompt the agent gets: inputs.prompt. waza sends inputs.context to no
// agent, and neither does skillgate (its `fixture` is copied into the workspace instead;
// docs/format.md#tasks).
func buildPrompt(t *spec.Task) string { return t.Prompt }
