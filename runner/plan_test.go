package runner

import (
	"slices"
	"sync"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// recorder is an Observer that keeps the plan and counts every event.
type recorder struct {
	mu                          sync.Mutex
	plan                        Plan
	skillRuns, plainRuns, tasks int
	triggers                    []string
	finished                    bool
}

func (o *recorder) SuiteStarted(_ *spec.Suite, p Plan)  { o.plan = p }
func (o *recorder) TaskStarted(*spec.Suite, *spec.Task) {}
func (o *recorder) RunFinished(_ *spec.Suite, _ *spec.Task, _ *results.RunResult, withSkill bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if withSkill {
		o.skillRuns++
	} else {
		o.plainRuns++
	}
}
func (o *recorder) TaskFinished(*spec.Suite, *results.TaskResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.tasks++
}
func (o *recorder) TriggerFinished(_ *spec.Suite, tr *results.TriggerResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.triggers = append(o.triggers, tr.ID)
}
func (o *recorder) SuiteFinished(*spec.Suite, *results.SuiteResult) { o.finished = true }

func triggerSuite(t *testing.T) *spec.Suite {
	s := suite(t.TempDir(), task("alpha", "hello"), task("beta", "hello"), task("gamma", "hello"))
	s.Tasks[2].Tags = []string{"slow"}
	s.TriggerTests = &spec.TriggerTests{
		Skill:         "demo-skill",
		ShouldTrigger: []*spec.TriggerPrompt{{ID: "should-1", Prompt: "use demo-skill", ShouldTrigger: true}, {ID: "should-2", Prompt: "explain"}},
		ShouldNot:     []*spec.TriggerPrompt{{ID: "should-not-1", Prompt: "sort a list"}},
	}
	s.Config.TrialsPerTask = 2
	return s
}

// The observer hears of every agent run — task trials, trigger prompt trials, the runs without
// the skill — and the plan it is told first counts exactly those.
func TestObserverCountsEveryAgentRun(t *testing.T) {
	tests := []struct {
		name              string
		opts              Options
		want              Plan
		wantTriggers      []string
		skillRuns, uplift int
	}{
		// Trigger prompts run once each, as in waza, while tasks run trials_per_task (2) times.
		{"everything", Options{}, Plan{Tasks: 3, TaskRuns: 6, Trials: 2, TriggerPrompts: 3, TriggerTrials: 1},
			[]string{"should-1", "should-2", "should-not-1"}, 6, 0},
		{"--task selects trigger prompts by id", Options{TaskGlobs: []string{"alpha", "should-*"}}, Plan{Tasks: 1, TaskRuns: 2, Trials: 2, TriggerPrompts: 3, TriggerTrials: 1},
			[]string{"should-1", "should-2", "should-not-1"}, 2, 0},
		{"--task naming one prompt", Options{TaskGlobs: []string{"should-not-1"}}, Plan{Trials: 2, TriggerPrompts: 1, TriggerTrials: 1},
			[]string{"should-not-1"}, 0, 0},
		{"--tags: prompts have no tags", Options{TagGlobs: []string{"slow"}}, Plan{Tasks: 1, TaskRuns: 2, Trials: 2},
			nil, 2, 0},
		{"--skip-triggers", Options{SkipTriggers: true}, Plan{Tasks: 3, TaskRuns: 6, Trials: 2},
			nil, 6, 0},
		{"--uplift and --trials", Options{Uplift: true, Trials: 1, SkipTriggers: true}, Plan{Tasks: 3, TaskRuns: 3, Trials: 1, UpliftRuns: 3},
			nil, 3, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := &recorder{}
			tc.opts.Observer = obs
			res := run(t, triggerSuite(t), tc.opts)
			if obs.plan != tc.want {
				t.Errorf("plan %+v, want %+v", obs.plan, tc.want)
			}
			slices.Sort(obs.triggers)
			if !slices.Equal(obs.triggers, tc.wantTriggers) {
				t.Errorf("trigger runs %v, want %v", obs.triggers, tc.wantTriggers)
			}
			if obs.skillRuns != tc.skillRuns || obs.plainRuns != tc.uplift || !obs.finished {
				t.Errorf("runs with the skill %d, without %d, finished %v", obs.skillRuns, obs.plainRuns, obs.finished)
			}
			if got := obs.skillRuns + obs.plainRuns + len(obs.triggers); got != obs.plan.Runs() {
				t.Errorf("%d agent runs reported, plan says %d", got, obs.plan.Runs())
			}
			if len(res.TriggerResults) != len(tc.wantTriggers) || res.Config.SkipTriggers != tc.opts.SkipTriggers {
				t.Errorf("results: %d trigger results, skip_triggers %v", len(res.TriggerResults), res.Config.SkipTriggers)
			}
		})
	}
}

// A Vally stimulus's own trial count makes the plan count trials task by task.
func TestPlanWithTaskTrials(t *testing.T) {
	s := suite(t.TempDir(), task("a", "hello"), task("b", "hello"))
	s.Config.TrialsPerTask = 3
	s.Tasks[1].Trials = 5
	obs := &recorder{}
	run(t, s, Options{Observer: obs})
	if want := (Plan{Tasks: 2, TaskRuns: 8}); obs.plan != want || obs.skillRuns != 8 {
		t.Errorf("plan %+v (runs %d), want %+v", obs.plan, obs.skillRuns, want)
	}
}

func TestSelectedCountsTriggerPrompts(t *testing.T) {
	s := triggerSuite(t)
	for _, tc := range []struct {
		tasks, tags []string
		want        int
	}{
		{nil, nil, 6},
		{[]string{"should-not-*"}, nil, 1},
		{[]string{"nothing*"}, nil, 0},
		{nil, []string{"slow"}, 1},
	} {
		if n := Selected(s, tc.tasks, tc.tags); n != tc.want {
			t.Errorf("Selected(%v, %v) = %d, want %d", tc.tasks, tc.tags, n, tc.want)
		}
	}
}
