package pipeline

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	gha "github.com/sethvargo/go-githubactions"

	"github.com/skillgate/skillgate/results"
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

	mu      sync.Mutex
	suite   string
	total   int
	done    int
	passed  int
	failed  int
	errored int
	start   time.Time
	barUp   bool
}

// NewProgress returns a progress printer writing to w.
func NewProgress(w io.Writer, mode ProgressMode) *Progress {
	return &Progress{w: w, mode: mode, now: time.Now}
}

// SuiteStarted implements runner.Observer.
func (p *Progress) SuiteStarted(s *spec.Suite, tasks int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.suite, p.total, p.done, p.passed, p.failed, p.errored = s.Name, tasks, 0, 0, 0, 0
	p.start = p.now()
	switch p.mode {
	case ProgressGitHub:
		// The title is escaped: a suite name must not end the command and start another.
		group := gha.Command{Name: "group", Message: fmt.Sprintf("%s (%d tasks, %s)", s.Name, tasks, s.Config.Executor)}
		fmt.Fprintln(p.w, group.String())
	case ProgressPlain, ProgressTTY:
		fmt.Fprintf(p.w, "Running %s: %d task(s)\n", s.Name, tasks)
		p.drawBar()
	}
}

// TaskStarted implements runner.Observer.
func (p *Progress) TaskStarted(*spec.Suite, *spec.Task) {}

// RunFinished implements runner.Observer.
func (p *Progress) RunFinished(*spec.Suite, *spec.Task, *results.RunResult) {}

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
	fmt.Fprintf(p.w, "%s [%d/%d] %s%s\n", statusMark(t.Status), p.done, p.total, t.Name, taskDetail(t))
	p.drawBar()
}

// SuiteFinished implements runner.Observer.
func (p *Progress) SuiteFinished(s *spec.Suite, res *results.SuiteResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearBar()
	switch p.mode {
	case ProgressQuiet:
		return
	case ProgressGitHub:
		defer fmt.Fprintln(p.w, (&gha.Command{Name: "endgroup"}).String())
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
			return " — " + shortLine(t.ErrorMsg, 120)
		}
		return ""
	}
	s := fmt.Sprintf(" — %d/%d passed, score %.2f, %s", t.Stats.PassedTrials, t.Stats.Trials, t.Stats.AvgScore,
		(time.Duration(t.Stats.AvgDurationMS) * time.Millisecond).String())
	if t.Status != results.StatusPassed {
		if why := firstProblem(t); why != "" {
			s += " — " + shortLine(why, 120)
		}
	}
	return s
}

// firstProblem is the first error or failed grader of a task, for a one-line explanation.
func firstProblem(t *results.TaskResult) string {
	for _, r := range t.Runs {
		if r.Status == results.StatusError && r.ErrorMsg != "" {
			return r.ErrorMsg
		}
		for _, v := range r.Validations {
			if !v.Passed && v.Status != results.StatusPending {
				return v.Name + ": " + v.Feedback
			}
		}
	}
	return ""
}

func statusMark(s results.Status) string {
	switch s {
	case results.StatusPassed:
		return "✓"
	case results.StatusError:
		return "!"
	case results.StatusSkipped:
		return "-"
	}
	return "✗"
}

// shortLine is s on one line, cut to n characters.
func shortLine(s string, n int) string {
	s = oneLine(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

const barWidth = 24

func (p *Progress) drawBar() {
	if p.mode != ProgressTTY || p.total == 0 {
		return
	}
	filled := p.done * barWidth / p.total
	bar := strings.Repeat("█", filled) + strings.Repeat("░", barWidth-filled)
	elapsed := p.now().Sub(p.start).Truncate(time.Second)
	fmt.Fprintf(p.w, "\r\033[K%s %d/%d  ✓%d ✗%d !%d  %s", bar, p.done, p.total, p.passed, p.failed, p.errored, elapsed)
	p.barUp = true
}

func (p *Progress) clearBar() {
	if p.barUp {
		fmt.Fprint(p.w, "\r\033[K")
		p.barUp = false
	}
}
