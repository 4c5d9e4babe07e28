package action

import (
	"errors"
	"fmt"
	"os"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// shardSplit finds each suite's baseline (the base branch's artifact, else a committed
// baseline file, or the file: input) for the shards' longest-first split. Every shard of a
// matrix looks it up on its own; the split's plan goes into the results, so the merge refuses
// shards that saw different baselines. Without a baseline a suite is split by hash.
//
// The runner asks for a suite's durations as it loads the suite (LoadOptions.ShardDurations),
// before the change decides which suites run; the baselines found are kept (in the results
// folder) and logged only for the suites that run (forRun).
type shardSplit struct {
	r     *run
	asked map[string]bool             // by suite name
	found map[string]*baseline        // by suite name: the baseline looked up
	took  map[string]map[string]int64 // by suite name: the durations the split used
	dirs  map[string]string           // by results slug: the suite's folder
	// noFile: the file: input does not exist (warned once, not for every suite).
	noFile bool
}

func (r *run) newShardSplit() *shardSplit {
	return &shardSplit{r: r, asked: map[string]bool{}, found: map[string]*baseline{},
		took: map[string]map[string]int64{}, dirs: map[string]string{}}
}

// durations is LoadOptions.ShardDurations: suite's task durations from its baseline (nil: by
// hash). dir is its eval.yaml's folder, suites the number of suite files found.
func (s *shardSplit) durations(suite, dir string, suites int) map[string]int64 {
	s.asked[suite] = true
	slug := results.Slug(suite)
	s.dirs[slug] = dir
	need := map[string]*results.SuiteResult{slug: {EvalName: suite}}
	for _, m := range s.methods(suites) {
		found, _ := m(need)
		b := found[slug]
		if b == nil || b.Result == nil {
			continue
		}
		s.found[suite] = b
		d := runner.TaskDurations(b.Result)
		if len(d) > 0 {
			s.took[suite] = d
		}
		return s.took[suite]
	}
	return nil
}

// methods are the baseline input's methods that can serve a shard (a rerun would run the base
// commit's suites in every shard job: a shard without a baseline splits by hash).
func (s *shardSplit) methods(suites int) []baselineMethod {
	switch s.r.cfg.Baseline {
	case BaselineAuto:
		return []baselineMethod{s.r.artifactBaselines, s.r.committedIn(s.dirs)}
	case BaselineArtifact:
		return []baselineMethod{s.r.artifactBaselines}
	case BaselineFile:
		if s.noFile {
			return nil // warned once, by the first suite's look-up
		}
		if _, err := os.Stat(s.r.baselineFile()); err != nil {
			s.noFile = true
		}
		return []baselineMethod{s.r.fileBaselines(suites)}
	}
	return nil
}

// forRun returns the durations by suite name that the affected suites were loaded with, for
// the run (SuitesOptions.ShardDurations), and keeps their baselines. A suite the runner did not
// ask about (one without task files, Vally's) is looked up now.
func (s *shardSplit) forRun(affected []*runner.Prepared) map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	for _, p := range affected {
		name := p.Suite.Name
		if !s.asked[name] {
			s.durations(name, p.Suite.Dir, len(affected))
		}
		b := s.found[name]
		if b == nil {
			continue
		}
		s.r.keep(b)
		if d := s.took[name]; len(d) > 0 {
			out[name] = d
			s.r.cmd.infof("skillgate: shard %s of %s: tasks split longest first by the durations of %s", s.r.cfg.Shard, name, b.Source.Detail)
		}
	}
	return out
}

// publishShard ends a shard job: its results and reports are written for the merge job, which
// compares, comments and gates. A shard never fails on the evaluation.
func (r *run) publishShard(prepared []*runner.Prepared, ran *runner.SuitesRun, split *shardSplit, unaffected []report.Unaffected, setupFailed bool) int {
	heads := pipeline.Heads(ran)
	if !r.mode.policy().collect {
		// A shard confirms its own tasks against the baselines its split found; the merge job
		// compares and decides with every shard's confirmation trials. The budget is shared.
		for i := range heads {
			if b := split.found[heads[i].Result.EvalName]; b != nil && b.Result != nil {
				heads[i].Base = &pipeline.Baseline{Result: b.Result, File: b.File, Source: b.Source, History: b.History}
			}
		}
		r.confirm(prepared, heads, r.cfg.Shard.Count)
		for i := range heads {
			heads[i].Base = nil
		}
	}
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
		MinEffect: r.cfg.MinEffect, Unaffected: unaffected, SetupFailed: setupFailed || r.broken, Event: r.ev.Name,
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
	if r.broken {
		return ExitFailed // a suite had errors and did not run here
	}
	return ExitOK
}
