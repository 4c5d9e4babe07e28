package runner

import "github.com/skillgate/skillgate/spec"

// Plan is what a suite run is about to do, counted in agent runs, so progress can state it
// before the first run starts and measure every finished run against it.
type Plan struct {
	Tasks    int // selected tasks
	TaskRuns int // their trials in all
	// Trials is every selected task's trial count; 0 when tasks set their own (Vally stimuli).
	Trials         int
	TriggerPrompts int // selected trigger prompts
	TriggerTrials  int // runs of each trigger prompt: 1, as in waza
	// UpliftRuns are the task runs repeated without the skill (--uplift): TaskRuns, or 0.
	UpliftRuns int
}

// Runs is every agent run of the plan.
func (p Plan) Runs() int { return p.TaskRuns + p.TriggerPrompts*p.TriggerTrials + p.UpliftRuns }

// plan counts the agent runs of the selected tasks and trigger prompts.
func (r *suiteRun) plan(selected []*spec.Task) Plan {
	p := Plan{Tasks: len(selected), Trials: r.trials}
	for _, t := range selected {
		n := r.trialsOf(t)
		p.TaskRuns += n
		if n != r.trials {
			p.Trials = 0
		}
	}
	if n := len(r.triggerPrompts()); n > 0 {
		p.TriggerPrompts, p.TriggerTrials = n, 1
	}
	if r.uplift() {
		p.UpliftRuns = p.TaskRuns
	}
	return p
}

// trialsOf is how many trials a task runs: a Vally stimulus's own count unless --trials
// overrides it as it overrides the suite's.
func (r *suiteRun) trialsOf(t *spec.Task) int {
	if t.Trials > 0 && r.opts.Trials == 0 {
		return t.Trials
	}
	return r.trials
}

// uplift: the tasks run a second time without the skill (--uplift or the suite's
// `baseline: true`).
func (r *suiteRun) uplift() bool { return r.opts.Uplift || r.suite.Baseline }
