package report

import (
	"testing"

	"github.com/skillgate/skillgate/results"
)

func TestNoAgentRan(t *testing.T) {
	suite := func(engine string) *Suite {
		return &Suite{Result: &results.SuiteResult{Config: results.RunConfig{EngineType: engine}}}
	}
	for _, tc := range []struct {
		engines []string
		want    string
	}{
		{[]string{"mock"}, "mock executor: the suites were checked, no agent ran"},
		{[]string{"mock", "mock"}, "mock executor: the suites were checked, no agent ran"},
		{[]string{"replay"}, "replay executor: recorded runs were regraded, no agent ran"},
		{[]string{"mock", "replay"}, "mock and replay executors: the suites were checked and recorded runs regraded, no agent ran"},
		{[]string{"mock", "claude-code"}, ""},
		{[]string{"skill-creator"}, ""}, // imported outputs: an agent ran, by hand
		{nil, ""},
	} {
		in := &Input{}
		for _, e := range tc.engines {
			in.Suites = append(in.Suites, suite(e))
		}
		if got := NoAgentRan(in); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.engines, got, tc.want)
		}
	}
}
