package pipeline

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	gha "github.com/sethvargo/go-githubactions"

	"github.com/skillgate/skillgate/internal/ghlog"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
	"github.com/skillgate/skillgate/spec"
)

// ProgressMode picks how live progress is drawn.
type ProgressMode int

const (
	// ProgressPlain prints one line per finished task (logs, pipes).
	ProgressPlain ProgressMode = iota
	// ProgressTTY redraws a progress bar under the finished-task lines.
	ProgressTTY
	// ProgressGitHub wraps each suite in a ::group:: block of the Actions log.
	ProgressGitHub
	// ProgressQuiet prints nothing.
	ProgressQuiet
)

// Progress draws a run's progress; it implements runner.Observer.
type Progress struct {
	w    io.Writer
	mode ProgressMode
	now  func() time.Time
	// ticker makes the ticks that redraw the bar's clock between runs (time.Ticker; tests send
	// their own).
	ticker func() (ticks <-chan time.Time, stop func())

	mu       sync.Mutex
	suite    string
	tasks    int // selected tasks
	total    int // agent runs planned
	runs     int // agent runs finished
	done     int // tasks finished
	passed   int
	failed   int
	errored  int
	start    time.Time
	barUp    bool
	stopTick func()
	// confirm is the confirmation budget the plan line announces: 0 none, -1 the default for the
	// suite's runs (SetConfirm).
	confirm int
}

// SetConfirm makes the plan line say that tasks looking worse than on the baseline may be run
// again, up to runs times (-1: the default budget for the suite's planned runs; 0: say nothing).
func (p *Progress) SetConfirm(runs int) {
	p.mu.Lock()
	p.confirm = runs
	p.mu.Unlock()
}

// NewProgress returns a progress printer writing to w.
func NewProgress(w io.Writer, mode ProgressMode) *Progress {
	return &Progress{w: w, mode: mode, now: time.Now, ticker: func() (<-chan time.Time, func()) {
		t := time.NewTicker(time.Second)
		return t.C, t.Stop
	}}
}

// SuiteStarted implements runner.Observer: the plan is said before the first run.
func (p *Progress) SuiteStarted(s *spec.Suite, plan runner.Plan) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopClock() // a suite before this one that never finished
	p.clearBar()
	p.suite, p.tasks, p.total = s.Name, plan.Tasks, plan.Runs()
	p.runs, p.done, p.passed, p.failed, p.errored = 0, 0, 0, 0, 0
	p.start = p.now()
	switch p.mode {
	case ProgressGitHub:
		// The title is escaped: a suite name must not end the command and start another.
		group := gha.Command{Name: "group", Message: fmt.Sprintf("%s (%s%s; %s)", s.Name, planText(plan), p.confirmText(plan), s.Config.Executor)}
		ghlog.Command(p.w, group.String())
	case ProgressPlain, ProgressTTY:
		fmt.Fprintf(p.w, "Running %s: %s%s\n", s.Name, planText(plan), p.confirmText(plan))
		p.drawBar()
	}
	if p.mode == ProgressTTY && p.total > 0 {
		p.startClock()
	}
}

// startClock redraws the bar on every tick until the suite finishes, so the elapsed time moves
// during long runs. Called with p.mu held.
func (p *Progress) startClock() {
	ticks, stop := p.ticker()
	ctx, quit := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-ticks:
				p.mu.Lock()
				if p.barUp {
					p.drawBar()
				}
				p.mu.Unlock()
			case <-ctx.Done():
				return
			}
		}
	})
	p.stopTick = func() {
		stop()
		quit()
		wg.Wait()
	}
}

// stopClock stops the clock started by startClock, if any. Called with p.mu held; the clock's
// goroutine takes the lock to draw, so the lock is let go while it stops.
func (p *Progress) stopClock() {
	stop := p.stopTick
	if stop == nil {
		return
	}
	p.stopTick = nil
	p.mu.Unlock()
	stop()
	p.mu.Lock()
}

// Done stops the clock and removes the bar of a suite that never finished (its before_run hook
// failed); call it once the run is over.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopClock()
	p.clearBar()
}

// planText says a plan in words: "42 agent runs: 12 tasks × 3 trials + 6 trigger prompts × 1".
// confirmText is the plan line's note on confirmation runs, "" when there are none.
func (p *Progress) confirmText(plan runner.Plan) string {
	n := p.confirm
	if n < 0 {
		n = report.DefaultConfirmBudget(plan.Runs())
	}
	if n == 0 || plan.Runs() == 0 {
		return ""
	}
	return fmt.Sprintf(", then up to %s if a task looks worse than on the baseline", plural(n, "confirmation run"))
}

func planText(plan runner.Plan) string {
	var parts []string
	tasks := func(suffix string) string {
		if plan.Trials > 0 {
			return plural(plan.Tasks, "task") + " × " + plural(plan.Trials, "trial") + suffix
		}
		return plural(plan.Tasks, "task") + " (" + plural(plan.TaskRuns, "trial") + ")" + suffix
	}
	if plan.Tasks > 0 {
		parts = append(parts, tasks(""))
	}
	if plan.TriggerPrompts > 0 {
		prompts := plural(plan.TriggerPrompts, "trigger prompt")
		if plan.TriggerTrials > 1 {
			prompts = fmt.Sprintf("%s × %d", prompts, plan.TriggerTrials)
		}
		parts = append(parts, prompts)
	}
	if plan.UpliftRuns > 0 {
		parts = append(parts, tasks(" without the skill"))
	}
	if len(parts) == 0 {
		return "no agent run"
	}
	return plural(plan.Runs(), "agent run") + ": " + strings.Join(parts, " + ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// TaskStarted implements runner.Observer.
func (p *Progress) TaskStarted(*spec.Suite, *spec.Task) {}

// RunFinished implements runner.Observer.
func (p *Progress) RunFinished(*spec.Suite, *spec.Task, *results.RunResult, bool) { p.runFinished() }

// TriggerFinished implements runner.Observer.
func (p *Progress) TriggerFinished(*spec.Suite, *results.TriggerResult) { p.runFinished() }

// runFinished moves the bar by one agent run.
func (p *Progress) runFinished() {
	if p.mode != ProgressTTY {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs++
	p.drawBar()
}

// TaskFinished implements runner.Observer.
func (p *Progress) TaskFinished(_ *spec.Suite, t *results.TaskResult) {
	if p.mode == ProgressQuiet {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	switch t.Status {
	case results.StatusPassed:
		p.passed++
	case results.StatusError:
		p.errored++
	default:
		p.failed++
	}
	p.clearBar()
	fmt.Fprintf(p.w, "%s [%d/%d] %s%s\n", report.StatusMark(t.Status), p.done, p.tasks, t.Name, taskDetail(t))
	p.drawBar()
}

// SuiteFinished implements runner.Observer.
func (p *Progress) SuiteFinished(s *spec.Suite, res *results.SuiteResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopClock()
	p.clearBar()
	switch p.mode {
	case ProgressQuiet:
		return
	case ProgressGitHub:
		defer ghlog.Command(p.w, (&gha.Command{Name: "endgroup"}).String())
	}
	if tm := res.TriggerMetrics; tm != nil {
		fmt.Fprintf(p.w, "  trigger tests: accuracy %.2f (precision %.2f, recall %.2f) over %d prompt run(s)\n",
			tm.Accuracy, tm.Precision, tm.Recall, len(res.TriggerResults))
	}
	if res.Incomplete {
		fmt.Fprintf(p.w, "  incomplete: %s\n", res.IncompleteReason)
	}
}

func taskDetail(t *results.TaskResult) string {
	switch {
	case t.Status == results.StatusSkipped:
		return " — skipped (" + t.SkipReason + ")"
	case t.Stats == nil:
		if t.ErrorMsg != "" {
			return " — " + report.Shorten(t.ErrorMsg, 120)
		}
		return ""
	}
	s := fmt.Sprintf(" — %d/%d passed, score %.2f, %s", t.Stats.PassedTrials, t.Stats.Trials, t.Stats.AvgScore,
		(time.Duration(t.Stats.AvgDurationMS) * time.Millisecond).String())
	if t.Status != results.StatusPassed {
		if why := report.TaskProblem(t); why != "" {
			s += " — " + report.Shorten(why, 120)
		}
	}
	return s
}

const barWidth = 24

func (p *Progress) drawBar() {
	if p.mode != ProgressTTY || p.total == 0 {
		return
	}
	filled := min(p.runs, p.total) * barWidth / p.total
	bar := strings.Repeat("█", filled) + strings.Repeat("░", barWidth-filled)
	elapsed := p.now().Sub(p.start).Truncate(time.Second)
	fmt.Fprintf(p.w, "\r\033[K%s %d/%d runs  tasks ✓%d ✗%d !%d  %s", bar, p.runs, p.total, p.passed, p.failed, p.errored, elapsed)
	p.barUp = true
}

func (p *Progress) clearBar() {
	if p.barUp {
		fmt.Fprint(p.w, "\r\033[K")
		p.barUp = false
	}
}
