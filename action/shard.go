package action

import (
	"errors"
	"fmt"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// shardDurations finds each suite's baseline (the base branch's artifact, else a committed
// baseline file, or the file: input) for the shards' longest-first split. Every shard of a
// matrix looks it up on its own; the split's plan goes into the results, so the merge refuses
// shards that saw different baselines. Without a baseline a suite is split by hash.
func (r *run) shardDurations(prepared []*runner.Prepared) map[string]map[string]int64 {
	need := map[string]*results.SuiteResult{}
	for _, p := range prepared {
		need[results.Slug(p.Suite.Name)] = &results.SuiteResult{EvalName: p.Suite.Name}
	}
	var methods []baselineMethod
	switch r.cfg.Baseline {
	case BaselineAuto:
		methods = []baselineMethod{r.artifactBaselines, r.committedFor(prepared)}
	case BaselineArtifact:
		methods = []baselineMethod{r.artifactBaselines}
	case BaselineFile:
		methods = []baselineMethod{r.fileBaselines}
	}
	out := map[string]map[string]int64{}
	for _, m := range methods {
		if len(need) == 0 {
			break
		}
		found, _ := m(need)
		for slug, b := range found {
			if b == nil || b.Result == nil || need[slug] == nil {
				continue
			}
			if d := runner.TaskDurations(b.Result); len(d) > 0 {
				out[need[slug].EvalName] = d
				r.cmd.infof("skillgate: shard %s of %s: tasks split longest first by the durations of %s", r.cfg.Shard, need[slug].EvalName, b.Source.Detail)
			}
			delete(need, slug)
		}
	}
	return out
}

// publishShard ends a shard job: its results and reports are written for the merge job, which
// compares, comments and gates. A shard never fails on the evaluation.
func (r *run) publishShard(ran *runner.SuitesRun, unaffected []report.Unaffected, setupFailed bool) int {
	heads := pipeline.Heads(ran)
	tasks := 0
	for i := range heads {
		heads[i].Shown = r.rel(heads[i].File)
		for _, t := range heads[i].Result.Tasks {
			if !results.ShardSkipped(t) {
				tasks++
			}
		}
	}
	ev, err := pipeline.Publish(heads, pipeline.Options{
		OutDir: r.outDir, Key: r.commentKey(), ToolVersion: r.d.Version, RepoRoot: r.repoRoot,
		MinEffect: r.cfg.MinEffect, Unaffected: unaffected, SetupFailed: setupFailed, Event: r.ev.Name,
	})
	if err != nil {
		r.cmd.errorf("skillgate: writing reports", "%v", err)
		return ExitUsage
	}
	in := ev.Input
	r.writeOutputs(ev.Vars, in)
	note := fmt.Sprintf("> [!NOTE]\n> Shard %s: %d task(s) of %d suite(s) ran here. The merge job (`mode: merge`) compares, comments and gates.\n\n", r.cfg.Shard, tasks, len(ran.Results))
	if err := r.cmd.addSummary(note + report.Summary(in)); err != nil && !errors.Is(err, errNoFileCommand) {
		r.cmd.warnf("skillgate: job summary not written: %v", err)
	}
	r.cmd.infof("skillgate: shard %s: %d task(s) ran; upload %s as the artifact %s-shard-%d for the merge job", r.cfg.Shard, tasks, r.rel(r.outDir), r.cfg.ArtifactName, r.cfg.Shard.Index)
	if setupFailed {
		return ExitUsage
	}
	return ExitOK
}
