package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// ShowSuite prints a suite's tasks, one line each, for `skillgate show RESULTS`.
func ShowSuite(w io.Writer, s *results.SuiteResult) error {
	bw := bufio.NewWriter(w)
	sum := s.Summary
	fmt.Fprintf(bw, "%s: %d of %d task(s) passed every trial", suiteName(s), sum.Succeeded, sum.Ran())
	if sum.Ran() > 0 {
		fmt.Fprintf(bw, ", pass rate %.1f%%, score %.2f", sum.PassRate*100, sum.AggregateScore)
	}
	fmt.Fprintln(bw)
	for _, t := range s.Tasks {
		name := t.ID
		if t.Name != "" && t.Name != t.ID {
			name += " (" + t.Name + ")"
		}
		fmt.Fprintf(bw, "  %s %s: %s\n", StatusMark(t.Status), name, taskLine(t))
	}
	fmt.Fprintln(bw, "\nshow a task's trials: skillgate show RESULTS TASK; one trial in full: skillgate show RESULTS TASK TRIAL")
	return bw.Flush()
}

// ShowTask prints a task's trials, one line each with the first failing grader.
func ShowTask(w io.Writer, t *results.TaskResult) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s %s: %s\n", StatusMark(t.Status), taskName(t), taskLine(t))
	if t.ErrorMsg != "" {
		fmt.Fprintf(bw, "  error: %s\n", t.ErrorMsg)
	}
	for _, r := range t.Runs {
		line := fmt.Sprintf("score %.2f, %s", r.Score, durationText(r.DurationMS))
		if why := runProblem(r); why != "" {
			line += ": " + Shorten(why, 160)
		}
		fmt.Fprintf(bw, "  %s trial %d  %s\n", StatusMark(r.Status), r.RunNumber, line)
	}
	return bw.Flush()
}

// ShowRun prints one trial in full: the prompt, what the agent answered and did, and how
// every grader judged it.
func ShowRun(w io.Writer, t *results.TaskResult, r *results.RunResult) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s %s, trial %d: %s, score %.2f, %s", StatusMark(r.Status), taskName(t), r.RunNumber, r.Status, r.Score, durationText(r.DurationMS))
	if r.Attempts > 1 {
		fmt.Fprintf(bw, ", %d attempts", r.Attempts)
	}
	fmt.Fprintln(bw)
	section := func(title, body string) {
		if strings.TrimSpace(body) == "" {
			return
		}
		fmt.Fprintf(bw, "\n── %s\n%s\n", title, strings.TrimRight(body, "\n"))
	}
	section("prompt", t.Prompt)
	section("error", runError(r))
	section("output", r.FinalOutput)
	var calls strings.Builder
	digest := r.Digest()
	for i, c := range digest.ToolCalls {
		fmt.Fprintf(&calls, "%d. %s (%s)", i+1, c.Name, outcomeWord(c))
		if c.Command != "" {
			fmt.Fprintf(&calls, "  $ %s", Shorten(c.Command, 200))
		} else if len(c.Arguments) > 0 {
			args, _ := json.Marshal(c.Arguments)
			fmt.Fprintf(&calls, "  %s", Shorten(string(args), 200))
		}
		calls.WriteByte('\n')
	}
	section(fmt.Sprintf("tool calls (%d)", len(digest.ToolCalls)), calls.String())
	var skills []string
	for _, s := range digest.SkillInvocations {
		skills = append(skills, s.Name)
	}
	section("skills invoked", strings.Join(skills, ", "))
	var files strings.Builder
	for _, f := range r.ChangedFiles {
		fmt.Fprintf(&files, "%s %s (%d bytes)\n", f.Change, f.Path, f.Size)
	}
	section("changed files", files.String())
	var grades strings.Builder
	for _, v := range r.Validations {
		fmt.Fprintf(&grades, "%s %s (%s) score %.2f", graderIcon(v), v.Name, v.Type, v.Score)
		if v.Feedback != "" {
			fmt.Fprintf(&grades, ": %s", Shorten(v.Feedback, 300))
		}
		grades.WriteByte('\n')
	}
	section("graders", grades.String())
	section("agent stderr", r.Stderr)
	return bw.Flush()
}

// FindTask finds a task by id or display name, or by a glob over either when exactly one task
// matches.
func FindTask(s *results.SuiteResult, name string) (*results.TaskResult, error) {
	var matches []*results.TaskResult
	for _, t := range s.Tasks {
		if t.ID == name || t.Name == name {
			return t, nil
		}
		if ok, _ := path.Match(name, t.ID); ok {
			matches = append(matches, t)
		} else if ok, _ := path.Match(name, t.Name); ok {
			matches = append(matches, t)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return nil, fmt.Errorf("no task %q in %s (its tasks: %s)", name, suiteName(s), taskList(s))
	}
	var names []string
	for _, t := range matches {
		names = append(names, t.ID)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("%q matches %d tasks (%s): name one", name, len(matches), strings.Join(names, ", "))
}

func taskList(s *results.SuiteResult) string {
	var ids []string
	for i, t := range s.Tasks {
		if i == 10 {
			ids = append(ids, "…")
			break
		}
		ids = append(ids, t.ID)
	}
	return strings.Join(ids, ", ")
}

// taskLine is a task's trial counts and score, or why it did not run.
func taskLine(t *results.TaskResult) string {
	st := t.TrialStats()
	switch {
	case t.Status == results.StatusSkipped:
		return "skipped " + t.SkipReason
	case st == nil:
		return string(t.Status) + ": " + Shorten(t.ErrorMsg, 160)
	}
	return fmt.Sprintf("%d/%d trials passed, score %.2f", st.PassedTrials, st.Trials, st.AvgScore)
}

// TaskProblem is why a task did not pass, for a one-line explanation: the first trial's
// error or failing grader.
func TaskProblem(t *results.TaskResult) string {
	for _, r := range t.Runs {
		if why := runProblem(r); why != "" {
			return why
		}
	}
	return ""
}

// runProblem is why a trial did not pass: its error, else its first failing grader.
func runProblem(r *results.RunResult) string {
	if msg := runError(r); msg != "" {
		return msg
	}
	for _, v := range r.Validations {
		if !v.Passed && v.Status != results.StatusPending && v.Status != results.StatusSkipped {
			return v.Name + ": " + v.Feedback
		}
	}
	return ""
}

// StatusMark is a status as one character (✓ passed, ✗ failed, ! error, - skipped).
func StatusMark(s results.Status) string {
	switch s {
	case results.StatusPassed:
		return "✓"
	case results.StatusSkipped:
		return "-"
	case results.StatusError:
		return "!"
	}
	return "✗"
}

// graderIcons spell graderStatus's words as one character, as StatusMark does a status.
var graderIcons = map[string]string{"pending": "…", "skipped": "-", "error": "!", "passed": "✓", "failed": "✗"}

func graderIcon(v *results.GraderResult) string { return graderIcons[graderStatus(v)] }

func durationText(ms int64) string {
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}

// Shorten is s on one line, cut to n characters.
func Shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
