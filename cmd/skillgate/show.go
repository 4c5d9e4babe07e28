package main

import (
	"fmt"
	"os"
	"strconv"

	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// cmdShow prints what a run did: a suite's tasks, a task's trials, or one trial in full.
func (a *app) cmdShow(args []string) int {
	fs := newFlagSet("show", "show RESULTS [TASK [TRIAL]]   (RESULTS: a results file, or a run's --out folder)", a.stderr)
	rest, err := parseOperands(fs, args, 1, 3, "")
	if err != nil {
		return usageExit(err)
	}
	suites, err := readResultsArg(rest[0])
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate show: %v\n", err)
		return exitUsage
	}
	for _, s := range suites {
		a.warnRead(rest[0], s)
	}
	if len(rest) == 1 {
		for _, s := range suites {
			if err := report.ShowSuite(a.stdout, s); err != nil {
				return exitFailed
			}
		}
		return exitOK
	}
	task, err := findTask(suites, rest[1])
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate show: %v\n", err)
		return exitUsage
	}
	if len(rest) == 2 {
		if err := report.ShowTask(a.stdout, task); err != nil {
			return exitFailed
		}
		return exitOK
	}
	n, err := strconv.Atoi(rest[2])
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate show: TRIAL %q: give the trial number (1 to %d)\n", rest[2], len(task.Runs))
		return exitUsage
	}
	for _, r := range task.Runs {
		if r.RunNumber == n {
			if err := report.ShowRun(a.stdout, task, r); err != nil {
				return exitFailed
			}
			return exitOK
		}
	}
	fmt.Fprintf(a.stderr, "skillgate show: task %s has no trial %d (it has %d)\n", task.ID, n, len(task.Runs))
	return exitUsage
}

// readResultsArg reads a results file, or every results/<suite>.json of an output folder.
func readResultsArg(path string) ([]*results.SuiteResult, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	files := []string{path}
	if info.IsDir() {
		if files, err = results.ShardFiles(path); err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("no results/<suite>.json below %s", path)
		}
	}
	var out []*results.SuiteResult
	for _, f := range files {
		res, _, err := runner.ReadResults(f)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// findTask finds the task in the only suite, or the one suite that has it.
func findTask(suites []*results.SuiteResult, name string) (*results.TaskResult, error) {
	var firstErr error
	for _, s := range suites {
		t, err := report.FindTask(s, name)
		if err == nil {
			return t, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, firstErr
}
