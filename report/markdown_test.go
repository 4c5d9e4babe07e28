package report

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/skillgate/skillgate/results"
)

// cells counts the cells of a markdown table row (pipes escaped with a backslash do not count).
func cells(row string) int {
	n := 0
	escaped := false
	for _, r := range row {
		switch {
		case escaped:
			escaped = false
		case r == '\\':
			escaped = true
		case r == '|':
			n++
		}
	}
	return n - 1
}

// checkTables fails when any table row has a different number of cells than its header.
func checkTables(t *testing.T, md string) {
	t.Helper()
	want := -1
	for i, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			want = -1
			continue
		}
		if want < 0 {
			want = cells(line)
			continue
		}
		if got := cells(line); got != want {
			t.Errorf("line %d has %d cells, its table %d: %s", i+1, got, want, line)
		}
	}
}

func TestCommentFixture(t *testing.T) {
	in := fixtureInput(t)
	md := Comment(in)
	lines := strings.Split(md, "\n")
	if lines[0] != "<!-- skillgate:evals -->" {
		t.Errorf("first line %q", lines[0])
	}
	// The fixture's runs were replayed: the headline first says that no agent ran.
	if lines[1] != "**replay executor: recorded runs were regraded, no agent ran.**" {
		t.Errorf("what was measured %q", lines[1])
	}
	// The base recorded no trigger accuracy, so the missed threshold is new; the task that went
	// from 3/3 to 0/3 is not confirmed (the comment is rendered from files: no agent to rerun it).
	if !strings.HasPrefix(lines[3], "### ❌ **`trigger_accuracy` below its threshold in code-explainer**") || !strings.Contains(lines[3], "1 task looks worse, not confirmed") {
		t.Errorf("verdict line %q", lines[3])
	}
	assertContains(t, "comment", md,
		"| Suite | Tasks passing every trial | Score | Pass rate | Δ score (99% CI) |",
		"<sub>**Tasks passing every trial**: a task with one failed trial does not pass.",
		"#### What changed",
		"- ❔ looks worse, unconfirmed · **code-explainer** · Broken task `evals/code-explainer/tasks/broken.yaml:1`: base passed 3 of 3, head failed 3 of 3: looks worse, not confirmed",
		"| code-explainer | 1/4 | 0.65 | 58.3% |",
		"64% (≥ 80%) ❌",
		"#### Failures",
		"(looks worse, unconfirmed)",
		"`evals/code-explainer/tasks/explain-js.yaml:1`",
		"<details><summary>All tasks (5)</summary>",
		"Suites not run: unaffected by this change (1)",
		"Baseline: commit `222222222222`, from the base branch's artifact, 2 days before this run, run 123456",
	)
	// In file order when nothing blocks.
	if strings.Index(md, "Broken task") > strings.Index(md, "Crashing task") {
		t.Error("failures must keep file order")
	}
	checkTables(t, md)
	if md != Comment(in) {
		t.Error("the comment must be deterministic")
	}
}

// Agent output must never break the comment: no table cells split, no HTML let through, no
// mentions, no headings or fences started by it.
func TestCommentEscapesAgentText(t *testing.T) {
	evil := "x | y\n# Heading\n```\n</details><!-- @octocat **bold** [link](http://x) `code` \\ ~~s~~"
	s := suiteOf("s|uite", []counts{{0, 2}, {2, 2}})
	s.Tasks[0].Name = "name | with\nnewline `tick`"
	for _, r := range s.Tasks[0].Runs {
		r.Validations[0].Feedback = evil
		r.Validations[0].Name = "g`r|ader"
	}
	s.TriggerResults = []*results.TriggerResult{{ID: "should-1|x", Prompt: evil, ShouldTrigger: true}}
	md := Comment(&Input{Suites: []*Suite{{Result: s}}, Key: "k"})
	checkTables(t, md)
	if n := strings.Count(md, "</details>"); n != strings.Count(md, "<details>") {
		t.Errorf("%d </details> for %d <details>:\n%s", n, strings.Count(md, "<details>"), md)
	}
	if strings.Count(md, "<!--") != 1 {
		t.Errorf("agent text opened an HTML comment:\n%s", md)
	}
	if strings.Contains(md, "@octocat") {
		t.Error("a mention got through")
	}
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "# ") || strings.HasPrefix(line, "```") {
			t.Errorf("agent text started a block: %q", line)
		}
	}
	assertContains(t, "comment", md, `x \| y`, `\*\*bold\*\*`, "&lt;/details&gt;", "name \\| with newline \\`tick\\`")
}

func TestCommentNoBaselineAndVerdicts(t *testing.T) {
	passing := suiteOf("alpha", repeat(counts{3, 3}, 6))
	s, err := NewSuite(passing, nil, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md := Comment(&Input{Suites: []*Suite{s}})
	if !strings.Contains(md, "### ✅ **All 6 tasks in 1 suite passed;** there was no baseline to compare with.") {
		t.Errorf("no-baseline verdict:\n%s", md)
	}
	if !strings.Contains(md, "No baseline") || !strings.HasPrefix(md, "<!-- skillgate:default -->") {
		t.Errorf("footer or marker:\n%s", md)
	}

	empty, err := NewSuite(passing, &results.SuiteResult{EvalName: "alpha"}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md = Comment(&Input{Suites: []*Suite{empty}, Baseline: &results.BaselineSource{Method: "none", Detail: "no artifact on main yet"}})
	if !strings.Contains(md, "| no baseline | no baseline |") || !strings.Contains(md, "No baseline (no artifact on main yet)") {
		t.Errorf("empty baseline:\n%s", md)
	}

	regressed, err := NewSuite(suiteOf("alpha", repeat(counts{0, 5}, 20)), suiteOf("alpha", repeat(counts{5, 5}, 20)), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md = Comment(&Input{Suites: []*Suite{regressed}})
	if !strings.Contains(md, "### ❌ **Regressed:** pass rate −100.0 pp") || !strings.Contains(md, "#### Regressions") || !strings.Contains(md, "🔻") {
		t.Errorf("regressed:\n%s", md)
	}

	var nb, nh []counts
	for i := 0; i < 30; i++ {
		nb = append(nb, counts{[]int{3, 4, 2, 5, 3}[i%5], 5})
		nh = append(nh, counts{[]int{4, 3, 2, 4, 2}[i%5], 5})
	}
	unsure, err := NewSuite(suiteOf("alpha", nh), suiteOf("alpha", nb), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	unsure.Result.Gate = &results.Gate{Passed: true}
	md = Comment(&Input{Suites: []*Suite{unsure}})
	if !strings.Contains(md, "### ⚠️ **Drop likely, not shown:**") || !strings.Contains(md, "⚠️ drop likely, not shown") {
		t.Errorf("inconclusive:\n%s", md)
	}

	md = Comment(&Input{Unaffected: []Unaffected{{Name: "a"}, {Name: "b"}}})
	if !strings.Contains(md, "✅ **No suite to run:** the change affects none of the 2 suites.") {
		t.Errorf("nothing to run:\n%s", md)
	}
}

// The comment must stay under GitHub's limit at any suite size, shedding in priority order
// and saying so.
func TestCommentLimitTenThousandTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 10,000 tasks")
	}
	head := bigSuite("huge", 10000, 3, 0)
	base := bigSuite("huge", 10000, 3, 5)
	s, err := NewSuite(head, base, CompareOptions{Resamples: 2000})
	if err != nil {
		t.Fatal(err)
	}
	// Feedback long enough that even the failure list alone overflows.
	for _, task := range head.Tasks[:50] {
		for _, r := range task.Runs {
			if len(r.Validations) > 1 {
				r.Validations[1].Feedback = strings.Repeat("long feedback ", 500)
			}
		}
	}
	in := &Input{Suites: []*Suite{s}, Key: "big"}
	md := Comment(in)
	if n := utf8.RuneCountInString(md); len(md) > CommentLimit || n > CommentLimit {
		t.Fatalf("comment is %d bytes / %d characters", len(md), n)
	}
	assertContains(t, "comment", md, "<!-- skillgate:big -->", "| huge |", "#### Failures", "Trimmed to fit the PR comment limit", "task rows", "more in the job summary")
	if n := strings.Count(md, "\n- ❌ **huge**") + strings.Count(md, "\n- 💥 **huge**"); n != commentListCap {
		t.Errorf("%d failure lines, want the first %d", n, commentListCap)
	}
	checkTables(t, md)
	if !strings.HasSuffix(strings.TrimSpace(md), "</sub>") {
		t.Error("the footer must survive")
	}

	sum := Summary(in)
	if len(sum) > SummaryLimit {
		t.Fatalf("summary is %d bytes", len(sum))
	}
	if !strings.Contains(sum, "#### Against the baseline") || !strings.Contains(sum, "Trimmed to fit the job summary limit") {
		t.Errorf("summary head:\n%s", sum[:2000])
	}
	checkTables(t, sum)
}

func TestSummaryFixture(t *testing.T) {
	sum := Summary(fixtureInput(t))
	assertContains(t, "summary", sum,
		"## skillgate results",
		"### code-explainer — ❌ failed",
		"#### Against the baseline",
		"| Mean score | 1.00 | 0.64 | −0.36 |",
		"New tasks (not compared): `crash`",
		"Removed tasks (only in the base): `legacy`",
		"#### Thresholds",
		"| trigger\\_accuracy | 0.6364 | 0.8 | — | — | ❌ |",
		"#### Tasks (5)",
		"#### Trigger tests — accuracy 63.6%",
		"### Suites not run (unaffected by this change)",
	)
	checkTables(t, sum)
	if strings.Contains(sum, "Trimmed") {
		t.Error("a small summary must not be trimmed")
	}
}

func TestLayoutShedsInPriorityOrder(t *testing.T) {
	item := strings.Repeat("x", 99) + "\n"
	secs := []*mdSection{
		{always: true, head: "HEAD\n"},
		{priority: 3, head: "LOW\n", items: repeatStr(item, 20), what: "low items"},
		{priority: 1, head: "HIGH\n", items: repeatStr(item, 30), what: "high items", moreNote: "- … and %d more\n"},
		{always: true, head: "FOOT\n"},
	}
	out := layoutMarkdown(secs, noteReserve+2500, 0, "test")
	if len(out) > noteReserve+2500 {
		t.Fatalf("%d bytes", len(out))
	}
	if strings.Contains(out, "LOW") || !strings.Contains(out, "HIGH") || !strings.Contains(out, "20 low items") || !strings.HasSuffix(out, "FOOT\n") {
		t.Errorf("layout:\n%s", out)
	}
	if secs[2].kept == 0 || secs[2].kept == 30 || !strings.Contains(out, "- … and ") {
		t.Errorf("high kept %d", secs[2].kept)
	}
	if strings.Index(out, "HIGH") > strings.Index(out, "FOOT") {
		t.Error("sections must render in their own order")
	}
}

func repeatStr(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestMarker(t *testing.T) {
	for key, want := range map[string]string{
		"":           "<!-- skillgate:default -->",
		"evals/main": "<!-- skillgate:evals/main -->",
		"a-->b c":    "<!-- skillgate:a-_b_c -->",
	} {
		if got := Marker(key); got != want {
			t.Errorf("Marker(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestMdCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a | b", `a \| b`},
		{"line\nbreak\r\n  more", "line break more"},
		{"`code`", "\\`code\\`"},
		{"<b>&", "&lt;b&gt;&amp;"},
		{"@user", "@\u2060user"},
		{"ctrl\x01\x7f", "ctrl"},
	}
	for _, tt := range tests {
		if got := mdCell(tt.in, 0); got != tt.want {
			t.Errorf("mdCell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := mdCell(strings.Repeat("é", 50), 10); !strings.HasPrefix(got, "éééééééééé…") {
		t.Errorf("truncation: %q", got)
	}
	if got := mdCode("a ``` b | c", 0); got != "````a ``` b ¦ c````" {
		t.Errorf("mdCode: %q", got)
	}
	if got := mdCode("`x", 0); got != "`` `x ``" {
		t.Errorf("mdCode edge: %q", got)
	}
}

func FuzzMdCell(f *testing.F) {
	for _, seed := range []string{"", "a|b", "`x`", "line\nbreak", "<details>", "@me", "\\|", "é\xff"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := mdCell(s, 100)
		if strings.ContainsAny(got, "\n\r<>") {
			t.Fatalf("mdCell(%q) = %q keeps a line break or tag", s, got)
		}
		if cells("| "+got+" |") != 1 {
			t.Fatalf("mdCell(%q) = %q splits a table cell", s, got)
		}
		code := mdCode(s, 100)
		if strings.ContainsAny(code, "\n|") {
			t.Fatalf("mdCode(%q) = %q", s, code)
		}
	})
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Minute:    "0 minutes",
		5 * time.Minute: "5 minutes",
		3 * time.Hour:   "3 hours",
		50 * time.Hour:  "2 days",
	} {
		if got := age(d); got != want {
			t.Errorf("age(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestCommentUplift(t *testing.T) {
	with := suiteOf("alpha", repeat(counts{1, 5}, 10))
	with.BaselineOutcome = suiteOf("alpha", repeat(counts{5, 5}, 10))
	with.Gate = &results.Gate{Passed: true} // the floors pass; only the skill's effect is bad
	s, err := NewSuite(with, nil, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := &Input{Suites: []*Suite{s}}
	md := Comment(in)
	assertContains(t, "comment", md, "alpha does worse with the skill than without it", "#### Skill uplift", "❌ skill hurts", "with the skill vs without: mean score regressed")
	if sum := Summary(in); !strings.Contains(sum, "#### With the skill against without it") || !strings.Contains(sum, "| Metric | without skill | with skill |") {
		t.Errorf("summary:\n%s", sum)
	}
}

// Every pull-request story stays under GitHub's comment limit at 10,000 tasks: removed tasks,
// changed definitions, added failing tasks and an identical rerun.
func TestStoriesAtTenThousandTasks(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 10,000 tasks")
	}
	hashed := func(s *results.SuiteResult, graders string) *results.SuiteResult {
		for _, task := range s.Tasks {
			task.DefinitionHash, task.GradersHash = "sha256:d-"+task.ID, "sha256:g-"+graders+task.ID
		}
		return s
	}
	base := func() *results.SuiteResult { return hashed(bigSuite("huge", 10000, 3, 5), "") }
	removed := base()
	removed.Tasks = removed.Tasks[:5000]
	results.Summarize(removed)
	added := hashed(bigSuite("huge", 10000, 3, 0), "")
	for i, task := range added.Tasks {
		task.ID = fmt.Sprintf("new-%05d", i)
	}
	for _, tc := range []struct {
		name  string
		head  *results.SuiteResult
		words string
	}{
		{"identical rerun", base(), "No change"},
		{"half the tasks removed", removed, "5000 tasks removed"},
		{"every grader changed", hashed(bigSuite("huge", 10000, 3, 5), "v2"), "Grader definitions changed for 10,000 tasks"},
		{"every task new", added, "10,000 added tasks not failing clearly"},
	} {
		s, err := NewSuite(tc.head, base(), CompareOptions{Resamples: 1000})
		if err != nil {
			t.Fatal(err)
		}
		md := Comment(&Input{Suites: []*Suite{s}})
		if n := utf8.RuneCountInString(md); len(md) > CommentLimit || n > CommentLimit {
			t.Errorf("%s: comment is %d bytes / %d characters", tc.name, len(md), n)
		}
		if first := strings.SplitN(strings.Replace(md, noAgentNote(&Input{Suites: []*Suite{s}}), "", 1), "\n", 3)[1]; !strings.Contains(first, tc.words) {
			t.Errorf("%s: headline %q lacks %q", tc.name, first, tc.words)
		}
	}
}

// Trigger figures and gated metrics carry their baseline value and change.
func TestCommentTriggerBaseline(t *testing.T) {
	withTriggers := func(acc, prec, rec float64) *results.SuiteResult {
		s := suiteOf("alpha", repeat(counts{3, 3}, 6))
		s.TriggerMetrics = &results.TriggerMetrics{Accuracy: acc, Precision: prec, Recall: rec}
		s.Metrics = map[string]*results.MetricResult{results.MetricTriggerAccuracy: {Name: results.MetricTriggerAccuracy, Value: acc, Threshold: 0.8, Passed: acc >= 0.8}}
		s.Gate = results.ComputeGate(s)
		return s
	}
	s, err := NewSuite(withTriggers(0.75, 0.8, 0.7), withTriggers(0.93, 0.9, 0.95), CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	md := Comment(&Input{Suites: []*Suite{s}})
	assertContains(t, "comment", md,
		"| 93% → 75% (−18.0 pp) (≥ 80%) ❌ |",
		"| `trigger_accuracy` | 93.0% | 75.0% | −18.0 pp | 80.0% | ❌ |",
		"| `trigger_precision` | 90.0% | 80.0% | −10.0 pp | — |  |",
		"| `trigger_recall` | 95.0% | 70.0% | −25.0 pp | — |  |",
		"`trigger_accuracy` below its threshold",
	)
}
