package report

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillgate/skillgate/results"
)

func run(n int, status results.Status, score float64, vs ...*results.GraderResult) *results.RunResult {
	return &results.RunResult{RunNumber: n, Status: status, Score: score, Validations: vs}
}

func grade(name string, passed bool, status results.Status) *results.GraderResult {
	return &results.GraderResult{Name: name, Type: "text", Passed: passed, Status: status, Feedback: name + " says so"}
}

func TestWorstTrialAndFirstProblem(t *testing.T) {
	agentErr := run(3, results.StatusError, 0, grade("expected", false, results.StatusFailed))
	agentErr.AgentError = "agent exited with status 1: rate limited"
	agentErr.ErrorMsg = "agent: agent exited with status 1: rate limited"
	judgeErr := run(1, results.StatusError, 0, grade("tone", false, results.StatusError))
	judgeErr.ErrorMsg = "grader tone: no judge endpoint"
	execErr := run(1, results.StatusError, 0)
	execErr.ErrorMsg = "workspace could not be created"
	for _, tc := range []struct {
		name      string
		task      *results.TaskResult
		wantTrial int // 0: none
		want      string
	}{
		{"all passed", &results.TaskResult{Runs: []*results.RunResult{run(1, results.StatusPassed, 1)}}, 0, ""},
		{"lowest score, first of equals", &results.TaskResult{Runs: []*results.RunResult{
			run(1, results.StatusPassed, 1), run(2, results.StatusFailed, 0.5, grade("a", false, "")), run(3, results.StatusFailed, 0.2, grade("b", true, ""), grade("c", false, "")),
			run(4, results.StatusFailed, 0.2, grade("d", false, "")),
		}}, 3, "c (text): c says so"},
		{"an agent error beats a lower score and comes before the graders", &results.TaskResult{Runs: []*results.RunResult{
			run(1, results.StatusFailed, 0, grade("a", false, "")), run(2, results.StatusPassed, 1), agentErr,
		}}, 3, "agent error: agent exited with status 1: rate limited"},
		{"a grader's own error is named by the grader", &results.TaskResult{Runs: []*results.RunResult{judgeErr}}, 1, "tone (text): tone says so"},
		{"an executor error without graders", &results.TaskResult{Runs: []*results.RunResult{execErr}}, 1, "workspace could not be created"},
		{"a hook error before any trial", &results.TaskResult{ErrorMsg: "before_task hook failed"}, 0, "before_task hook failed"},
		{"pending and skipped graders are no problem", &results.TaskResult{Runs: []*results.RunResult{
			run(1, results.StatusFailed, 0, grade("human", false, results.StatusPending), grade("off", false, results.StatusSkipped), grade("real", false, "")),
		}}, 1, "real (text): real says so"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := 0
			if r := worstTrial(tc.task); r != nil {
				got = r.RunNumber
			}
			if got != tc.wantTrial {
				t.Errorf("worst trial %d, want %d", got, tc.wantTrial)
			}
			p, ok := taskProblem(tc.task)
			if ok != (tc.want != "") || (ok && p.text() != tc.want) {
				t.Errorf("first problem %q (%v), want %q", p.text(), ok, tc.want)
			}
		})
	}
}

func TestOutputExcerpt(t *testing.T) {
	lim := evidenceLimits{lines: 3, lineChars: 10, outputChars: 25}
	for _, tc := range []struct {
		name, text string
		tail       bool
		want       string
	}{
		{"short", "one\ntwo\n", false, "Out:\n\n```text\none\ntwo\n```\n\n"},
		{"first lines, long lines cut", "0123456789abc\nb\nc\nd\ne", false, "Out (first 3 of 5 lines):\n\n```text\n012345678…\nb\nc\n```\n\n"},
		{"last lines of stderr", "a\nb\nc\nd\ne", true, "Out (last 3 of 5 lines):\n\n```text\nc\nd\ne\n```\n\n"},
		{"a fence inside cannot close the block", "```\n</details>\n````", false, "Out:\n\n`````text\n```\n</details>\n````\n`````\n\n"},
		{"control characters dropped", "a\x1b[31mred\x00\r\nb", false, "Out:\n\n```text\na[31mred\nb\n```\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := outputExcerpt("Out", tc.text, lim, tc.tail); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// The comment shows evidence for at most commentEvidenceCap tasks, those that changed first,
// and every block is bounded however long the agent's answer.
func TestCommentEvidenceBoundedAndOrdered(t *testing.T) {
	baseCounts, headCounts := repeat(counts{3, 3}, 30), repeat(counts{3, 3}, 30)
	for i := range 20 {
		headCounts[i] = counts{1, 3} // 0–14 fail on both sides, 15–19 fail here only (within noise: 3/3 → 1/3)
		if i < 15 {
			baseCounts[i] = counts{1, 3}
		}
	}
	head, base := suiteOf("s", headCounts), suiteOf("s", baseCounts)
	long := strings.Repeat("a very long line of agent output that goes on and on ", 200)
	for _, task := range head.Tasks {
		for _, r := range task.Runs {
			r.FinalOutput = strings.Repeat(long+"\n", 100)
			r.Validations[0].Feedback = long
		}
	}
	s, err := NewSuite(head, base, CompareOptions{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	sec := commentEvidenceSection(states(&Input{Suites: []*Suite{s}}))
	if len(sec.items) != commentEvidenceCap+1 || !strings.Contains(sec.items[commentEvidenceCap], "10 more failing tasks") {
		t.Fatalf("%d items, last %q", len(sec.items), sec.items[len(sec.items)-1])
	}
	for i, it := range sec.items[:commentEvidenceCap] {
		if n := utf8.RuneCountInString(it); n > 2500 {
			t.Errorf("item %d is %d characters", i, n)
		}
		want := fmt.Sprintf("Task %d — trial 2 of 3", []int{15, 16, 17, 18, 19, 0, 1, 2, 3, 4}[i])
		word := "(still failing)"
		if i < 5 {
			word = "(within noise)"
		}
		if !strings.Contains(it, want) || !strings.Contains(it, word) {
			t.Errorf("item %d, want %q %s:\n%.300s", i, want, word, it)
		}
	}
}

func TestPassRateChart(t *testing.T) {
	headCounts := make([]counts, 20)
	for i := range headCounts {
		headCounts[i] = counts{10 - i%11, 10} // task i drops by i%11 of 10 trials
	}
	head, base := suiteOf("s", headCounts), suiteOf("s", repeat(counts{10, 10}, 20))
	odd := `Fix "the" [bug] | <b>now</b>` + "\n`x`"
	head.Tasks[10].Name, base.Tasks[10].Name = odd, odd
	s, err := NewSuite(head, base, CompareOptions{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	chart := passRateChart("s", s.Comparison)
	if !strings.Contains(chart, "the 12 of 18 tasks whose pass rate changed most") {
		t.Errorf("caption:\n%s", chart)
	}
	series := map[string]string{}
	for _, l := range strings.Split(chart, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), " "); ok {
			series[k] = v
		}
	}
	// The largest drops first, equal drops in file order.
	if series["bar"] != "[0, 10, 20, 20, 30, 30, 40, 40, 50, 50, 60, 60]" || series["line"] != "["+strings.Repeat("100, ", 11)+"100]" {
		t.Errorf("series: bar %s, line %s", series["bar"], series["line"])
	}
	if want := `["Fix the bug b now /b x", "Task 9", "Task 8", "Task 19", "Task 7", `; !strings.HasPrefix(series["x-axis"], want) {
		t.Errorf("x-axis %s, want it to start %s", series["x-axis"], want)
	}

	same, err := NewSuite(base, base, CompareOptions{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if chart := passRateChart("s", same.Comparison); chart != "" {
		t.Errorf("identical runs drew a chart:\n%s", chart)
	}
	if chart := passRateChart("s", nil); chart != "" {
		t.Error("no baseline drew a chart")
	}
	// One changed task: a line of one point is not drawn, and the "What changed" list says it.
	oneHead := suiteOf("s", repeat(counts{10, 10}, 20))
	oneHead.Tasks[3] = suiteOf("s", []counts{{0, 10}}).Tasks[0]
	oneHead.Tasks[3].ID, oneHead.Tasks[3].Name = base.Tasks[3].ID, base.Tasks[3].Name
	one, err := NewSuite(oneHead, base, CompareOptions{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	if chart := passRateChart("s", one.Comparison); chart != "" {
		t.Errorf("one changed task drew a chart:\n%s", chart)
	}
}

// At 10,000 tasks the comment keeps its evidence and chart within GitHub's limit.
func TestCommentEvidenceAtTenThousandTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 10,000 tasks")
	}
	s, err := NewSuite(bigSuite("huge", 10000, 3, 0), bigSuite("huge", 10000, 3, 5), CompareOptions{Resamples: 200})
	if err != nil {
		t.Fatal(err)
	}
	md := Comment(&Input{Suites: []*Suite{s}})
	if n := utf8.RuneCountInString(md); len(md) > CommentLimit || n > CommentLimit {
		t.Fatalf("comment is %d bytes / %d characters", len(md), n)
	}
	blocks := strings.Count(md, "\n**❌ ") + strings.Count(md, "\n**💥 ")
	if !strings.Contains(md, "<details><summary>Evidence: what the agent answered in the worst trial of") || blocks != commentEvidenceCap {
		t.Errorf("%d evidence blocks, want %d", blocks, commentEvidenceCap)
	}
	if !strings.Contains(md, "```mermaid\nxychart-beta\n") || !strings.Contains(md, "whose pass rate changed most") {
		t.Error("the chart is missing")
	}
}
