package report

import (
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
)

// Runs whose agent reported no token counts (Copilot CLI with a provider of its own) are said to
// be unknown in every place the spend is shown, never summed as 0 tokens.
func TestSpendSaysUnknownTokens(t *testing.T) {
	copilot := func(usage *results.Usage) *results.RunResult {
		return &results.RunResult{Status: results.StatusPassed, AgentRun: results.AgentRun{DurationMS: 1000,
			SessionDigest: results.SessionDigest{Usage: usage}}}
	}
	suite := func(runs ...*results.RunResult) *Suite {
		r := &results.SuiteResult{EvalName: "pdf", Config: results.RunConfig{EngineType: "copilot"},
			Tasks: []*results.TaskResult{{ID: "t", Runs: runs}}}
		r.Tasks[0].Finish()
		results.Summarize(r)
		return &Suite{Result: r}
	}
	var unknown []*results.RunResult
	for range 12 {
		unknown = append(unknown, copilot(nil))
	}
	for _, tt := range []struct {
		name                  string
		s                     *Suite
		line, cell            string
		props, forbiddenProps []string
	}{
		{"every run unknown", suite(unknown...),
			"agent runs: 12 (0 reused, 12 executed) · tokens: unknown for 12 copilot runs",
			"tokens: unknown for 12 copilot runs",
			[]string{`name="tokens_unknown" value="tokens: unknown for 12 copilot runs"`}, []string{"tokens_in", "tokens_out"}},
		{"some runs unknown", suite(copilot(&results.Usage{InputTokens: 1000, OutputTokens: 50}), copilot(nil)),
			"agent runs: 2 (0 reused, 2 executed) · tokens in 1000 (0 cached) / out 50 · tokens: unknown for 1 copilot run",
			"1000 (0) / 50; tokens: unknown for 1 copilot run",
			[]string{`name="tokens_in" value="1000"`, `name="tokens_unknown" value="tokens: unknown for 1 copilot run"`}, nil},
		// Copilot CLI signed in to GitHub reports output tokens only.
		{"input unknown", suite(copilot(&results.Usage{OutputTokens: 50}), copilot(&results.Usage{OutputTokens: 30})),
			"agent runs: 2 (0 reused, 2 executed) · tokens out 80 · input tokens: unknown for 2 copilot runs",
			"out 80; input tokens: unknown for 2 copilot runs",
			[]string{`name="tokens_out" value="80"`, `name="tokens_unknown" value="input tokens: unknown for 2 copilot runs"`}, []string{"tokens_in"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sp := tt.s.Result.Summary.Spend
			if got := spendLine(sp, "copilot"); got != tt.line {
				t.Errorf("terminal line %q\nwant %q", got, tt.line)
			}
			if got := tokensCell(sp, "copilot"); got != tt.cell {
				t.Errorf("table cell %q, want %q", got, tt.cell)
			}
			ts := &junitTestsuite{}
			spendProps(ts, tt.s)
			var props strings.Builder
			for _, p := range *ts.Properties {
				props.WriteString(`name="` + p.Name + `" value="` + p.Value + `"` + "\n")
			}
			for _, want := range tt.props {
				if !strings.Contains(props.String(), want) {
					t.Errorf("JUnit properties lack %s:\n%s", want, props.String())
				}
			}
			for _, bad := range tt.forbiddenProps {
				if strings.Contains(props.String(), `name="`+bad+`"`) {
					t.Errorf("JUnit property %s present:\n%s", bad, props.String())
				}
			}
		})
	}
	// No change in tokens is claimed between sums that leave runs out.
	base, head := suite(copilot(&results.Usage{InputTokens: 10, OutputTokens: 1}), copilot(nil)), suite(unknown...)
	if d, ok := results.CompareSpend(base.Result.Summary.Spend, head.Result.Summary.Spend); !ok || d.Counted {
		t.Errorf("delta %+v counted", d)
	}
}

// Runs read back from a recording (replay, a skill-creator import) were not executed now.
func TestSpendOfRecordedRuns(t *testing.T) {
	sp := &results.Spend{Runs: 7, UnknownTokenRuns: 7}
	for executor, want := range map[string]string{
		"replay":        "agent runs: 7 (recorded, none executed now)",
		"skill-creator": "agent runs: 7 (recorded, none executed now)",
		"codex":         "agent runs: 7 (0 reused, 7 executed)",
	} {
		if got := spendLine(sp, executor); !strings.HasPrefix(got, want) {
			t.Errorf("%s: %q, want it to start %q", executor, got, want)
		}
	}
}
