package action

import (
	"errors"
	"fmt"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// finishShard ends a shard job: its results and reports are written for the merge job, which
// compares, comments and gates; the shard confirmed its own tasks against the baselines its
// split found (pipeline.Evaluate). A shard never fails on the evaluation.
func (r *run) finishShard(plan *pipeline.Plan, out *pipeline.Outcome, setupFailed bool) int {
	tasks := 0
	for _, h := range out.Heads {
		for _, t := range h.Result.Tasks {
			if !results.ShardSkipped(t) {
				tasks++
			}
		}
	}
	in := out.Input
	r.writeOutputs(out.Vars, in)
	note := fmt.Sprintf("> [!NOTE]\n> Shard %s: %d task(s) of %d suite(s) ran here. The merge job (`mode: merge`) compares, comments and gates.\n\n", r.cfg.Shard, tasks, len(out.Heads))
	if err := r.cmd.addSummary(note + report.Summary(in)); err != nil && !errors.Is(err, errNoFileCommand) {
		r.cmd.warnf("skillgate: job summary not written: %v", err)
	}
	r.cmd.infof("skillgate: shard %s: %d task(s) ran; upload %s as the artifact %s-shard-%d for the merge job", r.cfg.Shard, tasks, r.rel(r.outDir), r.cfg.ArtifactName, r.cfg.Shard.Index)
	if setupFailed {
		return ExitUsage
	}
	if plan.Broken() {
		return ExitFailed // a suite had errors and did not run here
	}
	return ExitOK
}
