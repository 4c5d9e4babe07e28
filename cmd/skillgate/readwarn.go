package main

import (
	"context"
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

// warnBaselines is src followed by warnRead for every baseline it found.
func (a *app) warnBaselines(src pipeline.BaselineSource) pipeline.BaselineSource {
	return warnedBaselines{src: src, a: a}
}

type warnedBaselines struct {
	src pipeline.BaselineSource
	a   *app
}

func (w warnedBaselines) Baselines(ctx context.Context, q pipeline.Query) (map[string]*pipeline.Baseline, error) {
	found, err := w.src.Baselines(ctx, q)
	for _, want := range q.Suites {
		if b := found[want.Name]; b != nil {
			w.a.warnRead(b.File, b.Result)
		}
	}
	return found, err
}
