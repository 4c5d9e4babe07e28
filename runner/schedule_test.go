package runner

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// "runner_wait" stands in for a slow grader (an LLM judge): it passes once the gate it names
// opens, or after sleep_ms; a gate that stays shut for 5 s makes it error, so a schedule that
// cannot open the gate fails the test instead of hanging.
var gates sync.Map // name → chan struct{}

func gate(name string) chan struct{} {
	ch, _ := gates.LoadOrStore(name, make(chan struct{}))
	return ch.(chan struct{})
}

func init() {
	registerTestGrader("runner_wait", func(cfg runnerWaitConfig) graders.GraderFunc {
		return func(ctx context.Context, in *graders.Input) (*results.GraderResult, error) {
			if cfg.SleepMS > 0 {
				time.Sleep(time.Duration(cfg.SleepMS) * time.Millisecond)
			} else {
				select {
				case <-gate(cfg.Gate):
				case <-time.After(5 * time.Second):
					return nil, fmt.Errorf("gate %s never opened", cfg.Gate)
				}
			}
			return &results.GraderResult{Score: 1, Passed: true}, nil
		}
	})
}

type runnerWaitConfig struct {
	Gate    string `yaml:"gate"`
	SleepMS int    `yaml:"sleep_ms"`
}

func waitGrader(t testing.TB, cfg string) *spec.Grader {
	t.Helper()
	g, err := spec.ParseGrader("eval.yaml", []byte("type: runner_wait\nname: wait\nconfig:\n  "+cfg+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	g.Pos = spec.Pos{File: "/repo/evals/x/eval.yaml", Line: 7, Col: 5}
	return g
}

// opener is an executor that opens a gate when a run matching match starts.
type opener struct {
	gate  string
	match func(*agent.Request) bool
	once  sync.Once
}

func (o *opener) Name() string { return "opener" }
func (o *opener) Run(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
	if o.match(req) {
		o.once.Do(func() { close(gate(o.gate)) })
	}
	return agent.Mock{}.Run(ctx, req)
}

// A run's grading must not hold its agent slot: with two workers, the graders of the first two
// tasks wait for the third task's agent run, which can start only in a slot one of them left.
func TestGradingReleasesTheAgentSlot(t *testing.T) {
	name := t.Name()
	s := suite(t.TempDir(),
		task("a", "p", waitGrader(t, "gate: "+name)),
		task("b", "p", waitGrader(t, "gate: "+name)),
		task("c", "p"))
	parallel := true
	exec := &opener{gate: name, match: func(r *agent.Request) bool { return r.TaskID == "c" }}
	res := run(t, s, Options{Executor: exec, Parallel: &parallel, Workers: 2})
	for _, tr := range res.Tasks {
		if tr.Status != results.StatusPassed {
			t.Errorf("task %s: %s %s", tr.ID, tr.Status, tr.Runs[0].ErrorMsg)
		}
	}
}

// Trigger prompts and no-skill runs share the tasks' queue: they start while a task is still
// being graded.
func TestTriggersAndUpliftFillTheTaskPhase(t *testing.T) {
	for _, phase := range []string{"trigger", "noskill"} {
		t.Run(phase, func(t *testing.T) {
			name := t.Name()
			s := suite(t.TempDir(), task("a", "p", waitGrader(t, "gate: "+name)))
			s.TriggerTests = &spec.TriggerTests{Skill: "demo-skill", ShouldTrigger: []*spec.TriggerPrompt{{ID: "s", Prompt: "use demo-skill", ShouldTrigger: true}}}
			parallel := true
			match := func(r *agent.Request) bool { return r.Trigger }
			if phase == "noskill" {
				match = func(r *agent.Request) bool { return !r.WithSkill }
			}
			res := run(t, s, Options{Executor: &opener{gate: name, match: match}, Parallel: &parallel, Workers: 2, Uplift: true})
			if res.Tasks[0].Status != results.StatusPassed {
				t.Errorf("task: %s %s", res.Tasks[0].Status, res.Tasks[0].Runs[0].ErrorMsg)
			}
			if len(res.TriggerResults) != 1 || res.BaselineOutcome == nil || len(res.BaselineOutcome.Tasks[0].Runs) != 1 {
				t.Errorf("trigger results %d, baseline %+v", len(res.TriggerResults), res.BaselineOutcome)
			}
		})
	}
}

// A sequential suite runs one thing at a time: a run is graded before the next agent starts.
func TestSequentialGradesBeforeTheNextRun(t *testing.T) {
	var mu sync.Mutex
	var events []string
	exec := execFunc(func(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
		mu.Lock()
		events = append(events, "agent "+req.TaskID)
		mu.Unlock()
		return agent.Mock{}.Run(ctx, req)
	})
	obs := &eventObserver{mu: &mu, events: &events}
	s := suite(t.TempDir(), task("a", "p", waitGrader(t, "sleep_ms: 20")), task("b", "p", waitGrader(t, "sleep_ms: 20")))
	run(t, s, Options{Executor: exec, Observer: obs})
	if got := strings.Join(events, ", "); got != "agent a, graded a, agent b, graded b" {
		t.Errorf("order: %s", got)
	}
}

type eventObserver struct {
	mu     *sync.Mutex
	events *[]string
}

func (o *eventObserver) SuiteStarted(*spec.Suite, Plan)                      {}
func (o *eventObserver) TaskStarted(*spec.Suite, *spec.Task)                 {}
func (o *eventObserver) TaskFinished(*spec.Suite, *results.TaskResult)       {}
func (o *eventObserver) TriggerFinished(*spec.Suite, *results.TriggerResult) {}
func (o *eventObserver) SuiteFinished(*spec.Suite, *results.SuiteResult)     {}
func (o *eventObserver) RunFinished(_ *spec.Suite, t *spec.Task, _ *results.RunResult, _ bool) {
	o.mu.Lock()
	*o.events = append(*o.events, "graded "+t.ID)
	o.mu.Unlock()
}

// BenchmarkSlowGraderSchedule is the case scaled down tenfold: 40 tasks whose agent takes
// 100 ms and whose (judge-like) grader takes 100 ms, on 8 workers. The best possible is
// 5 rounds of agents plus the last grading, 0.6 s; efficiency is that over the wall time.
func BenchmarkSlowGraderSchedule(b *testing.B) {
	var tasks []*spec.Task
	judge := waitGrader(b, "sleep_ms: 100")
	for i := range 40 {
		tasks = append(tasks, task(fmt.Sprintf("t%02d", i), "p", judge))
	}
	s := suite(b.TempDir(), tasks...)
	compiled, diags := graders.Compile(s)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	parallel := true
	var wall time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := Run(context.Background(), s, Options{Executor: &countingExecutor{delay: 100 * time.Millisecond}, Graders: compiled, Parallel: &parallel, Workers: 8})
		if err != nil || res.Summary.Succeeded != 40 {
			b.Fatal(err, res.Summary)
		}
		wall += time.Since(start)
	}
	b.ReportMetric(0.6/(wall.Seconds()/float64(b.N)), "efficiency")
}
