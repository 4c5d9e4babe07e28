package action

import (
	"path/filepath"
	"sort"

	"github.com/skillgate/skillgate/internal/runcache"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// The run cache in the Action (docs/action.md#the-run-cache): runs are recorded under the results
// folder (restorable with actions/cache, like the judge's verdicts), and on pull requests the
// cache is first seeded from the base branch's results artifact, whose runs carry their run keys:
// a task whose inputs the change did not touch is graded on the base's recorded run instead of
// executed again.

// runCacheState is the job's run cache and the baselines fetched to seed it.
type runCacheState struct {
	opened bool
	opts   *runner.CacheOptions // nil when the cache is off or could not be opened
	// seeded holds the artifact baselines fetched before the run, for the comparison to use
	// instead of downloading them again; nil when nothing was fetched.
	seeded *seededBaselines
}

type seededBaselines struct {
	found map[string]*baseline
	note  string
}

// openRunCache opens the run cache once; nil when the cache input is false or the folder
// cannot be used (the runs then all execute, with a warning).
func (r *run) openRunCache() *runner.CacheOptions {
	c := &r.runCache
	if c.opened {
		return c.opts
	}
	c.opened = true
	if !r.cfg.Cache {
		return nil
	}
	store, err := runcache.Open(filepath.Join(r.outDir, "cache", "runs"), runcache.Options{MaxAge: r.cfg.CacheMaxAge, Now: r.d.Now})
	if err != nil {
		r.cmd.warnf("skillgate: run cache: %v; every run executes", err)
		return nil
	}
	c.opts = &runner.CacheOptions{Store: store}
	return c.opts
}

// seedRunCache fetches, on a pull request whose baseline may come from the base branch's
// artifact, that artifact's results before anything runs and records their runs in the run
// cache, so unchanged tasks are not executed again.
func (r *run) seedRunCache(suites []*runner.Prepared) {
	if len(suites) == 0 || r.ev.PR == nil || (r.cfg.Baseline != BaselineAuto && r.cfg.Baseline != BaselineArtifact) {
		return
	}
	cache := r.openRunCache()
	if cache == nil {
		return
	}
	need := map[string]*results.SuiteResult{}
	for _, p := range suites {
		need[results.Slug(p.Suite.Name)] = nil
	}
	found, note := r.artifactBaselines(need)
	for _, b := range found {
		r.keep(b)
	}
	r.runCache.seeded = &seededBaselines{found: found, note: note}
	slugs := make([]string, 0, len(found))
	for slug := range found {
		slugs = append(slugs, slug)
	}
	sort.Strings(slugs)
	for _, slug := range slugs {
		b := found[slug]
		if b == nil || b.Result == nil {
			continue
		}
		if n := cache.Store.Seed(b.Result, b.Source.Commit); n > 0 {
			r.cmd.infof("skillgate: run cache: %d recorded run(s) of %s from commit %s", n, b.Result.EvalName, short(b.Source.Commit))
		}
	}
}

// method serves the artifact baselines fetched by seedRunCache.
func (s *seededBaselines) method(need map[string]*results.SuiteResult) (map[string]*baseline, string) {
	out := map[string]*baseline{}
	for slug := range need {
		if b := s.found[slug]; b != nil {
			out[slug] = b
		}
	}
	note := s.note
	if len(out) < len(need) && note == "" {
		note = "artifact: no results of the suite"
	}
	return out, note
}
