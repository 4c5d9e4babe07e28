package pipeline

import (
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// newMissedQueries counts the skill-creator trigger queries that miss their trigger-rate
// threshold here (failed or errored) and met it on the baseline; every one that misses it when
// there is no baseline. They add to new_missed_thresholds: a query is a threshold on its rate.
func newMissedQueries(s *report.Suite) int {
	if s == nil || s.Result == nil {
		return 0
	}
	met := map[string]bool{}
	if s.Baseline != nil {
		for _, q := range s.Baseline.TriggerQueries {
			met[q.ID] = q.Status == results.StatusPassed
		}
	}
	n := 0
	for _, q := range s.Result.TriggerQueries {
		if q.Status == results.StatusPassed {
			continue
		}
		if was, known := met[q.ID]; s.Baseline == nil || !known || was {
			n++
		}
	}
	return n
}
