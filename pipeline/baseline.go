package pipeline

import (
	"fmt"
	"os"

	"github.com/skillgate/skillgate/results"
)

// FindBaseline returns the baseline of one suite from a --baseline style location: a results
// FILE applies to the suite of the same name (or to the only suite of the run, suites == 1), a
// folder is searched for results/<suite>.json (the layout of an output folder or a results
// artifact). A folder without the suite's file, or a file of another suite when several ran, is
// no baseline (nil, no error); a missing location or an unreadable file is an error.
func FindBaseline(location string, res *results.SuiteResult, suites int) (*results.SuiteResult, string, error) {
	if location == "" {
		return nil, "", nil
	}
	path := location
	if info, err := os.Stat(location); err != nil {
		return nil, "", fmt.Errorf("baseline: %w", err)
	} else if info.IsDir() {
		path = results.PathIn(location, res.EvalName)
		if info, err := os.Stat(path); err != nil || info.IsDir() {
			return nil, "", nil // no baseline for this suite: reports say so
		}
	}
	base, err := results.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	if base.EvalName != res.EvalName && suites > 1 {
		return nil, "", nil
	}
	return base, path, nil
}

// BaselinesAt returns the baseline chooser of --baseline style locations (FindBaseline for each
// head in each location). With several, each is an earlier run of the base: for each suite the
// newest results found are its baseline and the others are pooled with it as its history
// (docs/statistics.md#remembering-the-base). A results file whose suite is none of the heads' is
// an error, since the user named it to be compared.
func BaselinesAt(locations ...string) func([]Head) error {
	return func(heads []Head) error {
		used := make([]bool, len(locations))
		for i := range heads {
			var found []*Baseline
			for j, location := range locations {
				if location == "" {
					continue
				}
				base, file, err := FindBaseline(location, heads[i].Result, len(heads))
				if err != nil {
					return err
				}
				if base != nil {
					used[j] = true
					found = append(found, &Baseline{Result: base, File: file})
				}
			}
			heads[i].Base = newestWithHistory(found)
		}
		for j, location := range locations {
			if info, err := os.Stat(location); err == nil && !info.IsDir() && !used[j] {
				return fmt.Errorf("--baseline %s: its suite was not among the results", location)
			}
		}
		return nil
	}
}

// newestWithHistory makes the newest of a suite's base runs its baseline and the others its
// history; nil for none, and an empty baseline when only locations without the suite were given.
func newestWithHistory(found []*Baseline) *Baseline {
	if len(found) == 0 {
		return &Baseline{}
	}
	newest := 0
	for i, b := range found {
		if b.Result.Timestamp.After(found[newest].Result.Timestamp) {
			newest = i
		}
	}
	out := found[newest]
	for i, b := range found {
		if i != newest {
			out.History = append(out.History, results.RecordOf(b.Result))
		}
	}
	return out
}
