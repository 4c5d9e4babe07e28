package pipeline

import (
	"testing"

	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// A skill-creator trigger query that misses its threshold counts as a newly missed threshold:
// always without a baseline, only where the baseline's query passed (or is new) with one.
func TestNewMissedQueries(t *testing.T) {
	q := func(id string, s results.Status) *results.TriggerQuery {
		return &results.TriggerQuery{ID: id, Status: s}
	}
	head := &results.SuiteResult{TriggerQueries: []*results.TriggerQuery{
		q("a", results.StatusFailed), q("b", results.StatusError), q("c", results.StatusPassed), q("d", results.StatusFailed),
	}}
	base := &results.SuiteResult{TriggerQueries: []*results.TriggerQuery{
		q("a", results.StatusFailed), q("b", results.StatusPassed), q("c", results.StatusFailed),
	}}
	if n := newMissedQueries(&report.Suite{Result: head}); n != 3 {
		t.Errorf("without a baseline: %d, want 3", n)
	}
	// a failed on the baseline too; b newly errors; d is new.
	if n := newMissedQueries(&report.Suite{Result: head, Baseline: base}); n != 2 {
		t.Errorf("with a baseline: %d, want 2", n)
	}
	if n := newMissedQueries(&report.Suite{Result: &results.SuiteResult{}}); n != 0 {
		t.Errorf("waza trigger tests: %d", n)
	}
}
