package action

import (
	"path/filepath"
	"sort"

	"github.com/skillgate/skillgate/internal/runcache"
	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/results"
)

// The run cache in the Action (docs/action.md#the-run-cache): runs are recorded under the results
// folder (restorable with actions/cache, like the judge's verdicts), and on pull requests the
// cache is first seeded from the base branch's results artifact, whose runs carry their run keys:
// a task whose inputs the change did not touch is graded on the base's recorded run instead of
// executed again.

// runCacheState is the job's run cache.
type runCacheState struct {
	opened bool
	store  *runcache.Store // nil when the cache is off or could not be opened
}

// openRunCache opens the run cache once (pipeline.Settings.RunCache); nil when the cache input
// is false or the folder cannot be used (the runs then all execute, with a warning).
func (r *run) openRunCache() (*runcache.Store, error) {
	c := &r.runCache
	if c.opened {
		return c.store, nil
	}
	c.opened = true
	if !r.cfg.Cache {
		return nil, nil
	}
	store, err := runcache.Open(filepath.Join(r.outDir, "cache", "runs"), runcache.Options{MaxAge: r.cfg.CacheMaxAge, Now: r.d.Now})
	if err != nil {
		r.cmd.warnf("skillgate: run cache: %v; every run executes", err)
		return nil, nil
	}
	c.store = store
	return store, nil
}

// seedRunCache fetches, on a pull request whose baseline may come from the base branch's
// artifact, that artifact's results before anything runs and records their runs in the run
// cache, so unchanged tasks are not executed again. The comparison uses the baselines fetched.
func (r *run) seedRunCache(plan *pipeline.Plan) {
	if len(plan.Suites) == 0 || r.ev.PR == nil || (r.cfg.Baseline != BaselineAuto && r.cfg.Baseline != BaselineArtifact) {
		return
	}
	store, _ := r.openRunCache()
	if store == nil {
		return
	}
	var q pipeline.Query
	for _, s := range plan.Suites {
		q.Suites = append(q.Suites, pipeline.Wanted{Name: s.Name(), Dir: s.Dir(), File: s.File()})
	}
	found, _ := r.artifacts().Baselines(r.ctx, q)
	names := make([]string, 0, len(found))
	for name, b := range found {
		if b.Result != nil {
			r.keep(b)
			names = append(names, name)
		}
	}
	sort.Slice(names, func(i, j int) bool { return results.Slug(names[i]) < results.Slug(names[j]) })
	for _, name := range names {
		b := found[name]
		if n := store.Seed(b.Result, b.Source.Commit); n > 0 {
			r.cmd.infof("skillgate: run cache: %d recorded run(s) of %s from commit %s", n, b.Result.EvalName, short(b.Source.Commit))
		}
	}
}
