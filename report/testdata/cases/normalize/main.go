// Command normalize rewrites the fields of results files that differ from one run to the next
// (times, wall-clock durations, versions, commits), so regenerating the golden test cases
// changes nothing unless skillgate's behaviour changed. Usage: go run ./report/testdata/cases/normalize FILE...
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/skillgate/skillgate/results"
)

// Fixed values of the normalized fields.
var (
	start     = time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	wallClock = int64(60_000) // the suite's wall time
)

func main() {
	for _, path := range os.Args[1:] {
		res, err := results.ReadFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		normalize(res)
		// Indented, so a regenerated case reads as a diff.
		if err := results.WriteFileAs(path, res, true); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func normalize(res *results.SuiteResult) {
	res.EvalID = fmt.Sprintf("run-%d", start.Unix())
	res.Timestamp = start
	res.Summary.DurationMS = wallClock
	if p := res.Provenance; p != nil {
		p.SkillgateVersion = "0.0.0-test"
		p.GitCommit = "0123456789abcdef0123456789abcdef01234567"
		p.GitDirty = false
	}
	// Recorded runs (replay) keep their recorded durations; the mock's are a few microseconds
	// of this machine's time.
	// The command agent of the run-cache cases takes this machine's time too; each run counts
	// as one second, and a reused run as recorded when the suite started.
	mock := res.Config.EngineType == "mock" || res.Config.EngineType == "command"
	fixed := int64(0)
	if res.Config.EngineType == "command" {
		fixed = 1000
	}
	for _, t := range res.Tasks {
		for _, r := range t.Runs {
			if mock {
				r.DurationMS = fixed
			}
			if r.Reused != nil {
				r.Reused.RecordedAt = start
			}
			for _, v := range r.Validations {
				v.DurationMS = 0
			}
		}
		if mock && t.Stats != nil {
			t.Stats.AvgDurationMS = fixed
		}
	}
	for _, tr := range res.TriggerResults {
		if mock {
			tr.DurationMS = fixed
		}
		if tr.Reused != nil {
			tr.Reused.RecordedAt = start
		}
	}
	results.Summarize(res)
	if res.BaselineOutcome != nil {
		normalize(res.BaselineOutcome)
	}
}
