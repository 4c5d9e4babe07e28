package main

import (
	"errors"
	"fmt"

	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// cmdCompare compares two results files of one suite (skillgate's or waza's).
func (a *app) cmdCompare(args []string) int {
	fs := newFlagSet("compare", "compare [flags] BASE.json HEAD.json", a.stderr)
	format := fs.String("format", "table", "output `FORMAT`: table, markdown or json")
	minEffect := fs.Float64("min-effect", report.DefaultMinEffect, "smallest drop that counts as a regression")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(paths) != 2 {
		fmt.Fprintln(a.stderr, "skillgate compare: give exactly two results files, BASE and HEAD")
		fs.Usage()
		return exitUsage
	}
	base, err := results.ReadFile(paths[0])
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	}
	head, err := results.ReadFile(paths[1])
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	}
	c, err := report.Compare(base, head, report.CompareOptions{MinEffect: *minEffect, BaseFile: paths[0], HeadFile: paths[1]})
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	}
	if err := report.WriteComparison(a.stdout, c, *format); err != nil {
		var fe *report.UnknownFormatError
		if errors.As(err, &fe) {
			fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	}
	if c.Regressed() || !c.FloorsPassed() {
		return exitFailed
	}
	return exitOK
}
