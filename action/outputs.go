package action

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strconv"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
)

// Output names (action.yml `outputs:`).
const (
	OutVerdict         = "verdict"
	OutPassed          = "passed"
	OutScore           = "score"
	OutSuccessRate     = "success-rate"
	OutDeltaScore      = "delta-score"
	OutTriggerAccuracy = "trigger-accuracy"
	OutResultsDir      = "results-dir"
	OutCommentURL      = "comment-url"
	OutSuitesRun       = "suites-run"
)

// Output is one declared output with its help line.
type Output struct{ Name, Description string }

// Outputs lists every output of the action in action.yml order.
var Outputs = []Output{
	{OutVerdict, "regressed, improved, inconclusive, no-baseline (nothing compared) or skipped (no suite ran)."},
	{OutPassed, "true when every suite met its own gate (tasks passed, metrics at their thresholds)."},
	{OutScore, "mean task score over every task that ran (0 to 1); empty when no suite ran."},
	{OutSuccessRate, "fraction of tasks whose every trial passed; empty when no suite ran."},
	{OutDeltaScore, "change of the mean score against the baseline over the compared suites; empty without a baseline."},
	{OutTriggerAccuracy, "mean trigger accuracy of the suites with trigger tests; empty when none has them."},
	{OutResultsDir, "the results folder, relative to the workspace (upload it with actions/upload-artifact)."},
	{OutCommentURL, "URL of the sticky pull-request comment; empty when none was posted."},
	{OutSuitesRun, "JSON array of the names of the suites that ran, e.g. [\"hello\"]."},
}

// writeOutputs sets every output but comment-url (set once the comment exists).
func (r *run) writeOutputs(v *pipeline.Vars, in *report.Input) {
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }
	names := []string{}
	for _, s := range v.Suites {
		names = append(names, s.Name)
	}
	suites, _ := json.Marshal(names)
	dir := r.outDir
	if rel, err := filepath.Rel(r.workspace, r.outDir); err == nil {
		dir = filepath.ToSlash(rel)
	}
	out := []struct{ k, v string }{
		{OutVerdict, v.Verdict},
		{OutPassed, strconv.FormatBool(v.Passed)},
		{OutResultsDir, dir},
		{OutSuitesRun, string(suites)},
	}
	if v.SuitesRun > 0 {
		out = append(out, struct{ k, v string }{OutScore, num(v.Score)}, struct{ k, v string }{OutSuccessRate, num(v.SuccessRate)})
	}
	if v.HasBaseline {
		out = append(out, struct{ k, v string }{OutDeltaScore, num(v.DeltaScore)})
	}
	for _, s := range in.Suites {
		if s.Result != nil && s.Result.TriggerMetrics != nil {
			out = append(out, struct{ k, v string }{OutTriggerAccuracy, num(v.TriggerAccuracy)})
			break
		}
	}
	for _, o := range out {
		if !r.output(o.k, o.v) {
			return
		}
	}
}

// output sets one output; it returns false when outputs cannot be written at all (said once).
func (r *run) output(name, value string) bool {
	err := r.cmd.setOutput(name, value)
	switch {
	case err == nil:
		return true
	case errors.Is(err, errNoFileCommand):
		return false // not a GitHub Actions step: nothing to set
	}
	r.cmd.warnf("skillgate: outputs not written: %v", err)
	return false
}
