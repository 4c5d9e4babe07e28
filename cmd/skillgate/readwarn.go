package main

import (
	"fmt"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/results"
)

// warnRead prints what reading a results file had to repair (figures out of range clamped).
func (a *app) warnRead(file string, res *results.SuiteResult) {
	if res == nil {
		return
	}
	for _, w := range res.ReadWarnings {
		fmt.Fprintf(a.stderr, "skillgate: warning: %s: %s\n", file, w)
	}
}

// warnBaselines is choose followed by warnRead for every baseline it found.
func (a *app) warnBaselines(choose func([]pipeline.Head) error) func([]pipeline.Head) error {
	if choose == nil {
		return nil
	}
	return func(heads []pipeline.Head) error {
		err := choose(heads)
		for _, h := range heads {
			if h.Base != nil {
				a.warnRead(h.Base.File, h.Base.Result)
			}
		}
		return err
	}
}
