package action

import (
	"os"
	"path/filepath"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// shardsDir is where the merge job downloads the shards' artifacts, under the results folder:
// one folder per artifact (actions/download-artifact with a pattern and merge-multiple: false).
const shardsDir = "shards"

// mergeMode combines the shards of a matrix into one results folder, then publishes it as a
// full run does: baseline, reports, comment, check run and gate (on a fork: a bundle for the
// report workflow instead).
func (r *run) mergeShards() int {
	dir := filepath.Join(r.outDir, shardsDir)
	if err := os.MkdirAll(r.outDir, 0o755); err != nil {
		r.cmd.errorf("skillgate: results-dir", "cannot create %s: %v", r.outDir, err)
		return ExitUsage
	}
	defer chownToWorkspace(r.outDir, r.workspace)
	files, err := results.ShardFiles(dir)
	if err != nil || len(files) == 0 {
		r.cmd.errorf("skillgate: merge", "no shard results under %s (%v): download the shards' artifacts there, e.g. actions/download-artifact with pattern: %s-shard-* and path: %s", r.rel(dir), orWord(errText(err), "none found"), r.cfg.ArtifactName, r.rel(dir))
		return ExitUsage
	}
	heads, problems := pipeline.MergeShards(files, r.outDir, false)
	for _, p := range problems {
		r.cmd.errorf("skillgate: merge refused", "%v", p)
	}
	if len(problems) > 0 {
		return ExitUsage
	}
	for _, h := range heads {
		r.cmd.infof("skillgate: merged %d shard(s) of %s", h.Result.Config.Shard.Count, h.Result.EvalName)
	}
	// The suites from the checkout give the committed and rerun baselines, the unaffected list
	// and, on a fork, the bundle's suite files; without them only the artifact baseline works.
	plan := pipeline.Results(heads, r.settings())
	var unaffected []report.Unaffected
	loaded := false
	if paths, err := resolveSuites(r.workDir, r.cfg.Suites); err == nil {
		if p, err := pipeline.Load(paths, r.settings()); err == nil && p.Loads() > 0 && !p.Diags.HasErrors() {
			loaded = true
			plan = p.WithResults(heads)
			affected, skipped := r.selectSuites(p)
			have := map[string]bool{}
			for _, h := range heads {
				have[h.Result.EvalName] = true
			}
			for _, u := range skipped {
				if !have[u.Name] {
					unaffected = append(unaffected, u)
				}
			}
			var lost []string
			for _, a := range affected.Suites {
				if !have[a.Name()] {
					lost = append(lost, a.Name())
				}
			}
			if len(lost) > 0 {
				r.cmd.errorf("skillgate: merge refused", "no shard has results of %v, which the change affects: a shard job failed before writing them", lost)
				return ExitUsage
			}
		}
	}
	if !loaded {
		r.cmd.warnf("skillgate: the suites could not be loaded from the checkout: only the artifact baseline is available")
	}
	out, err := r.evaluate(plan, unaffected)
	return r.finish(plan, out, err)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
