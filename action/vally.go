package action

import (
	"os"
	"path/filepath"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/results"
)

// vallyMode publishes a Vally results.jsonl instead of running suites: each eval becomes a
// results file and a suite of the comment, summary, comparison and gate (docs/vally.md).
func (r *run) publishVally() int {
	path := r.cfg.VallyResults
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.workDir, path)
	}
	f, err := os.Open(path)
	if err != nil {
		r.cmd.errorf("skillgate: bad input", "input %q: %v", InVallyResults, err)
		return ExitUsage
	}
	imported, err := results.ReadVally(f, r.cfg.VallyResults)
	f.Close()
	if err != nil {
		r.cmd.errorf("skillgate: bad input", "input %q: %v", InVallyResults, err)
		return ExitUsage
	}
	if err := os.MkdirAll(filepath.Join(r.outDir, "results"), 0o755); err != nil {
		r.cmd.errorf("skillgate: results-dir", "cannot create %s: %v", r.outDir, err)
		return ExitUsage
	}
	defer chownToWorkspace(r.outDir, r.workspace)
	var heads []pipeline.Head
	for _, res := range imported {
		file := results.PathIn(r.outDir, res.EvalName)
		if err := results.WriteFile(file, res); err != nil {
			r.cmd.errorf("skillgate: writing results", "%v", err)
			return ExitUsage
		}
		heads = append(heads, pipeline.Head{Result: res, File: file})
	}
	r.cmd.infof("skillgate: imported %d Vally eval(s) from %s", len(imported), r.cfg.VallyResults)
	plan := pipeline.Results(heads, r.settings())
	out, err := r.evaluate(plan, nil)
	return r.finish(plan, out, err)
}
