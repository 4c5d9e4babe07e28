package pipeline

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
	"github.com/skillgate/skillgate/spec"
)

func TestPlanText(t *testing.T) {
	tests := []struct {
		plan runner.Plan
		want string
	}{
		{runner.Plan{Tasks: 12, TaskRuns: 36, Trials: 3, TriggerPrompts: 6, TriggerTrials: 1}, "42 agent runs: 12 tasks × 3 trials + 6 trigger prompts"},
		{runner.Plan{Tasks: 1, TaskRuns: 1, Trials: 1}, "1 agent run: 1 task × 1 trial"},
		{runner.Plan{Tasks: 2, TaskRuns: 8}, "8 agent runs: 2 tasks (8 trials)"},
		{runner.Plan{Tasks: 2, TaskRuns: 6, Trials: 3, UpliftRuns: 6}, "12 agent runs: 2 tasks × 3 trials + 2 tasks × 3 trials without the skill"},
		{runner.Plan{Trials: 2, TriggerPrompts: 1, TriggerTrials: 2}, "2 agent runs: 1 trigger prompt × 2"},
		{runner.Plan{}, "no agent run"},
	}
	for _, tc := range tests {
		if got := planText(tc.plan); got != tc.want {
			t.Errorf("planText(%+v) = %q, want %q", tc.plan, got, tc.want)
		}
	}
}

// fakeClock is a progress display's time: now moves when the test says, ticks come when the
// test sends them.
type fakeClock struct {
	mu      sync.Mutex
	now     time.Time
	ticks   chan time.Time
	started int
	stopped int
}

// syncBuffer is the terminal: the clock's goroutine writes while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func newFakeProgress(mode ProgressMode) (*Progress, *syncBuffer, *fakeClock) {
	out := &syncBuffer{}
	c := &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), ticks: make(chan time.Time)}
	p := NewProgress(out, mode)
	p.now = func() time.Time {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.now
	}
	p.ticker = func() (<-chan time.Time, func()) {
		c.started++
		return c.ticks, func() { c.stopped++ }
	}
	return p, out, c
}

// tick advances the clock and lets the bar redraw; the second send returns only once the first
// tick's redraw is written (the second draws the same).
func (c *fakeClock) tick(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	now := c.now
	c.mu.Unlock()
	c.ticks <- now
	c.ticks <- now
}

// lastBar is the bar as it stands on the terminal: the text after the last line clear.
func lastBar(out string) string {
	i := strings.LastIndex(out, "\r\033[K")
	if i < 0 {
		return ""
	}
	return out[i+len("\r\033[K"):]
}

// The bar counts agent runs, trigger prompts included, and its clock moves between runs.
func TestProgressBarCountsAgentRuns(t *testing.T) {
	p, out, clock := newFakeProgress(ProgressTTY)
	s := &spec.Suite{Name: "demo"}
	task := &spec.Task{ID: "a", Name: "a"}
	p.SuiteStarted(s, runner.Plan{Tasks: 1, TaskRuns: 2, Trials: 2, TriggerPrompts: 3, TriggerTrials: 1})
	if !strings.HasPrefix(out.String(), "Running demo: 5 agent runs: 1 task × 2 trials + 3 trigger prompts\n") {
		t.Fatalf("the plan comes first:\n%q", out.String())
	}
	steps := []struct {
		do   func()
		want string
	}{
		{func() {}, "░░░░░░░░░░░░░░░░░░░░░░░░ 0/5 runs  tasks ✓0 ✗0 !0  0s"},
		{func() { clock.tick(3 * time.Second) }, "0/5 runs  tasks ✓0 ✗0 !0  3s"},
		{func() { p.RunFinished(s, task, &results.RunResult{}, true) }, "1/5 runs  tasks ✓0 ✗0 !0  3s"},
		{func() {
			p.RunFinished(s, task, &results.RunResult{}, true)
			p.TaskFinished(s, &results.TaskResult{Name: "a", Status: results.StatusPassed})
		}, "2/5 runs  tasks ✓1 ✗0 !0  3s"},
		// The trigger phase: the bar moves on every prompt run and the clock keeps ticking.
		{func() { p.TriggerFinished(s, &results.TriggerResult{ID: "should-1"}) }, "3/5 runs"},
		{func() { clock.tick(14 * time.Second) }, "3/5 runs  tasks ✓1 ✗0 !0  17s"},
		{func() {
			p.TriggerFinished(s, &results.TriggerResult{ID: "should-2"})
			p.TriggerFinished(s, &results.TriggerResult{ID: "should-not-1"})
		}, "████████████████████████ 5/5 runs  tasks ✓1 ✗0 !0  17s"},
	}
	for i, st := range steps {
		st.do()
		if bar := lastBar(out.String()); !strings.Contains(bar, st.want) {
			t.Errorf("step %d: bar %q, want %q", i, bar, st.want)
		}
	}
	if !strings.Contains(out.String(), "✓ [1/1] a\n") {
		t.Errorf("finished tasks are still listed one a line:\n%q", out.String())
	}
	p.SuiteFinished(s, &results.SuiteResult{})
	if clock.started != 1 || clock.stopped != 1 || lastBar(out.String()) != "" {
		t.Errorf("the clock must stop and the bar go with the suite: started %d stopped %d, %q", clock.started, clock.stopped, lastBar(out.String()))
	}
}

// A suite that never finishes (its before_run hook failed) leaves no clock behind: the next
// suite or Done stops it.
func TestProgressClockStopsWithoutSuiteFinished(t *testing.T) {
	p, out, clock := newFakeProgress(ProgressTTY)
	plan := runner.Plan{Tasks: 1, TaskRuns: 1, Trials: 1}
	p.SuiteStarted(&spec.Suite{Name: "one"}, plan)
	p.SuiteStarted(&spec.Suite{Name: "two"}, plan)
	if clock.started != 2 || clock.stopped != 1 {
		t.Errorf("second suite: started %d stopped %d", clock.started, clock.stopped)
	}
	p.Done()
	if clock.stopped != 2 || lastBar(out.String()) != "" {
		t.Errorf("Done: stopped %d, bar %q", clock.stopped, lastBar(out.String()))
	}
}

// Logs get the plan and a line per task, with no bar and no clock.
func TestProgressPlainAndGitHub(t *testing.T) {
	plan := runner.Plan{Tasks: 2, TaskRuns: 6, Trials: 3, TriggerPrompts: 2, TriggerTrials: 3}
	for mode, want := range map[ProgressMode]string{
		ProgressPlain:  "Running demo: 12 agent runs: 2 tasks × 3 trials + 2 trigger prompts × 3\n✓ [1/2] a\n",
		ProgressGitHub: "::group::demo (12 agent runs: 2 tasks × 3 trials + 2 trigger prompts × 3; mock)\n✓ [1/2] a\n",
		ProgressQuiet:  "",
	} {
		p, out, clock := newFakeProgress(mode)
		s := &spec.Suite{Name: "demo", Config: spec.Config{Executor: "mock"}}
		p.SuiteStarted(s, plan)
		p.RunFinished(s, &spec.Task{ID: "a"}, &results.RunResult{}, true)
		p.TriggerFinished(s, &results.TriggerResult{})
		p.TaskFinished(s, &results.TaskResult{Name: "a", Status: results.StatusPassed})
		if out.String() != want || clock.started != 0 {
			t.Errorf("mode %d: %q (clock started %d), want %q", mode, out.String(), clock.started, want)
		}
	}
}

// TestProgressGroupEscapesSuiteName: a suite name is text from the repository; in the Actions
// log it must stay inside its ::group:: line.
func TestProgressGroupEscapesSuiteName(t *testing.T) {
	tests := []struct {
		name, want string
	}{
		{"hello", "::group::hello (1 agent run: 1 task × 1 trial; mock)\n"},
		{"100% done", "::group::100%25 done (1 agent run: 1 task × 1 trial; mock)\n"},
		{"a\n::error::injected", "::group::a%0A::error::injected (1 agent run: 1 task × 1 trial; mock)\n"},
		{"a\r\nb", "::group::a%0D%0Ab (1 agent run: 1 task × 1 trial; mock)\n"},
		{"x: y, z", "::group::x: y, z (1 agent run: 1 task × 1 trial; mock)\n"}, // a message keeps : and ,
	}
	for _, tt := range tests {
		var out bytes.Buffer
		p := NewProgress(&out, ProgressGitHub)
		s := &spec.Suite{Name: tt.name, Config: spec.Config{Executor: "mock"}}
		p.SuiteStarted(s, runner.Plan{Tasks: 1, TaskRuns: 1, Trials: 1})
		p.SuiteFinished(s, &results.SuiteResult{})
		want := tt.want + "::endgroup::\n"
		if out.String() != want {
			t.Errorf("suite %q:\n got %q\nwant %q", tt.name, out.String(), want)
		}
		if n := strings.Count(out.String(), "\n"); n != 2 {
			t.Errorf("suite %q: %d lines, want 2", tt.name, n)
		}
	}
}
