package results

import "fmt"

// TriggerQuery is one query of a skill-creator trigger eval set judged over its runs, as
// skill-creator judges it (docs/format.md#trigger-eval-sets): its trigger rate is the share of
// its runs that invoked the skill; a should-trigger query passes at a rate of at least the
// threshold, a should-not query below it. A run that errored says nothing about the skill: the
// query is `error`, never counted as "did not trigger".
type TriggerQuery struct {
	ID            string    `json:"id"`
	Prompt        string    `json:"prompt"`
	ShouldTrigger bool      `json:"should_trigger"`
	Runs          int       `json:"runs"`
	Triggers      int       `json:"triggers"`
	Errors        int       `json:"errors,omitempty"`
	TriggerRate   float64   `json:"trigger_rate"`
	Threshold     float64   `json:"threshold"`
	Status        Status    `json:"status"`
	Source        *Location `json:"source,omitempty"`
}

// ComputeTriggerQueries groups trigger results by query id, in first-seen order, and judges each
// at threshold (RunConfig.TriggerRateThreshold); nil when threshold is 0 (waza's trigger tests,
// judged per run in the trigger metrics only).
func ComputeTriggerQueries(trs []*TriggerResult, threshold float64) []*TriggerQuery {
	if threshold <= 0 {
		return nil
	}
	var out []*TriggerQuery
	byID := map[string]*TriggerQuery{}
	for _, tr := range trs {
		if tr == nil {
			continue
		}
		q := byID[tr.ID]
		if q == nil {
			q = &TriggerQuery{ID: tr.ID, Prompt: tr.Prompt, ShouldTrigger: tr.ShouldTrigger, Threshold: threshold, Source: tr.Source}
			byID[tr.ID] = q
			out = append(out, q)
		}
		q.Runs++
		switch {
		case tr.ErrorMsg != "":
			q.Errors++
		case tr.DidTrigger:
			q.Triggers++
		}
	}
	for _, q := range out {
		q.TriggerRate = round4(float64(q.Triggers) / float64(q.Runs))
		rate := float64(q.Triggers) / float64(q.Runs)
		switch {
		case q.Errors > 0:
			q.Status = StatusError
		case q.ShouldTrigger == (rate >= threshold-1e-9):
			q.Status = StatusPassed
		default:
			q.Status = StatusFailed
		}
	}
	return out
}

// Verdict says why a query did not pass ("" when it passed).
func (q *TriggerQuery) Verdict() string {
	switch q.Status {
	case StatusError:
		return fmt.Sprintf("%d of %d runs errored", q.Errors, q.Runs)
	case StatusFailed:
		if q.ShouldTrigger {
			return fmt.Sprintf("triggered in %d of %d runs, below %.2g", q.Triggers, q.Runs, q.Threshold)
		}
		return fmt.Sprintf("triggered in %d of %d runs, at or above %.2g, and should not", q.Triggers, q.Runs, q.Threshold)
	}
	return ""
}
