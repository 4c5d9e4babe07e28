// Command normalize rewrites the fields of results files that differ from one run to the next
// (times, wall-clock durations, versions, commits), so regenerating the golden test cases
// changes nothing unless skillgate's behaviour changed. Usage: go run ./report/testdata/cases/normalize FILE...
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
		if n, ok := runNumber(path); ok {
			// verdicts-base-3.json: the third of a series of base runs, an hour apart, so a
			// comparison tells them apart (pooling counts each once).
			res.Timestamp = start.Add(time.Duration(n-10) * time.Hour)
			res.EvalID = fmt.Sprintf("run-%d", res.Timestamp.Unix())
		}
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
		for _, r := range append(append([]*results.RunResult(nil), t.Runs...), t.Confirmations...) {
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
	for _, tr := range append(append([]*results.TriggerResult(nil), res.TriggerResults...), res.TriggerConfirmations...) {
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

// runNumber is N of a file named <case>-base-N.json.
func runNumber(path string) (int, bool) {
	name := strings.TrimSuffix(filepath.Base(path), ".json")
	i := strings.LastIndex(name, "-base-")
	if i < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(name[i+len("-base-"):])
	return n, err == nil
}
