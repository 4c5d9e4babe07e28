package runner

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/glob"
	"github.com/skillgate/skillgate/internal/reap"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// triggerPrompts are the trigger prompts this run owns: none with --skip-triggers or --tags
// (prompts have no tags), those whose id matches --task, and of those a shard's part
// (docs/format.md#selecting-tasks).
func (r *suiteRun) triggerPrompts() []*spec.TriggerPrompt {
	tt := r.suite.TriggerTests
	if tt == nil || r.opts.SkipTriggers || len(r.opts.TagGlobs) > 0 {
		return nil
	}
	var mine []*spec.TriggerPrompt
	for _, p := range append(append([]*spec.TriggerPrompt{}, tt.ShouldTrigger...), tt.ShouldNot...) {
		switch {
		case len(r.opts.TaskGlobs) > 0 && !glob.MatchAny(r.opts.TaskGlobs, p.ID):
		case r.shards != nil && TriggerShard(r.suite.Name, p.ID, r.opts.Shard.Count) != r.opts.Shard.Index:
		default:
			mine = append(mine, p)
		}
	}
	return mine
}

// runTrigger runs one trial of a trigger prompt through the executor, in an agent slot of the
// suite's queue (schedule.go). A prompt triggered when the run invoked the skill named in
// trigger_tests.yaml; an agent error counts as a misclassification.
func (r *suiteRun) runTrigger(ctx context.Context, tt *spec.TriggerTests, p *spec.TriggerPrompt, trial int) *results.TriggerResult {
	tr := &results.TriggerResult{
		ID: p.ID, Prompt: p.Prompt, Confidence: p.Confidence, ShouldTrigger: p.ShouldTrigger,
		Trial: trial, Source: r.locs.location(p.Pos),
	}
	dir := "" // an executor that never reads its workspace (the mock) gets none, as for tasks
	if free, ok := r.opts.Executor.(agent.WorkspaceFree); r.opts.KeepWorkspaces || !ok || !free.WorkspaceFree() {
		var err error
		if dir, err = os.MkdirTemp(r.opts.WorkspaceRoot, reap.WorkspacePrefix()+"trigger-*"); err != nil {
			tr.ErrorMsg = "preparing workspace: " + err.Error()
			tr.DidTrigger = !tr.ShouldTrigger
			return tr
		}
		if !r.opts.KeepWorkspaces {
			defer (&workspace{dir: dir, log: r.log}).cleanup(false)
		}
	}
	timeout := time.Duration(r.suite.Config.TimeoutSeconds) * time.Second
	if r.opts.Timeout > 0 {
		timeout = r.opts.Timeout
	}
	if missing := r.missingSkillDirs(nil, true); missing != "" {
		tr.ErrorMsg = fmt.Sprintf("skill directory %s does not exist: the agent would run without the skill (fix %s)", missing, skillKey(r.suite))
		tr.DidTrigger = !tr.ShouldTrigger
		return tr
	}
	run, err := r.executeOrReuseTrigger(ctx, &agent.Request{
		Prompt: p.Prompt, Workspace: dir, SkillDirs: r.suite.Config.SkillDirectories, Skill: tt.Skill,
		Model: r.model(), Timeout: timeout, Suite: r.suite.Name, TaskID: p.ID, Trial: trial,
		Trigger: true, WithSkill: true, Stop: r.triggerStopRule(tt.Skill),
	}, tr)
	if ctx.Err() != nil {
		return nil
	}
	if run != nil {
		tr.FinalOutput = run.FinalOutput
		tr.Transcript = run.Transcript
		tr.ToolCalls = run.SessionDigest.ToolCalls
		tr.SessionID = run.SessionDigest.SessionID
		tr.DurationMS = run.DurationMS
		tr.Usage = run.SessionDigest.Usage
		tr.StoppedEarly = run.StoppedEarly
		for _, inv := range run.SessionDigest.SkillInvocations {
			if inv.Name == tt.Skill {
				tr.DidTrigger = true
			}
		}
	}
	if err != nil {
		tr.ErrorMsg = err.Error()
		tr.DidTrigger = !tr.ShouldTrigger
	}
	return tr
}

// noSkillWarning explains a suite whose should-trigger prompts all ran without the agent invoking
// any skill at all: more likely the skill was never loaded (wrong folder, an agent that does not
// read it) than a description that never matched. "" when there is nothing to say. The mock
// executor invokes skills only when a prompt names them, so it is left out.
func noSkillWarning(s *spec.Suite, executor string, trs []*results.TriggerResult) string {
	if executor == "mock" {
		return ""
	}
	ran := 0
	for _, tr := range trs {
		if !tr.ShouldTrigger || tr.ErrorMsg != "" {
			continue
		}
		ran++
		for _, ev := range tr.Transcript {
			if ev.Type == results.EventSkillInvocation {
				return ""
			}
		}
	}
	if ran == 0 {
		return ""
	}
	return fmt.Sprintf("suite %s: none of its %d should-trigger run(s) invoked any skill; the agent may be running without the skill loaded (check with `skillgate doctor %s`)",
		s.Name, ran, s.Dir)
}
