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

// BaselinesAt returns the baseline chooser of a --baseline style location (FindBaseline for
// each head); a results file whose suite is none of the heads' is an error, since the user named
// it to be compared.
func BaselinesAt(location string) func([]Head) error {
	return func(heads []Head) error {
		if location == "" {
			return nil
		}
		used := false
		for i := range heads {
			base, file, err := FindBaseline(location, heads[i].Result, len(heads))
			if err != nil {
				return err
			}
			used = used || base != nil
			heads[i].Base = &Baseline{Result: base, File: file}
		}
		if info, err := os.Stat(location); err == nil && !info.IsDir() && !used {
			return fmt.Errorf("--baseline %s: its suite was not among the results", location)
		}
		return nil
	}
}
