package action

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/results"
)

// staleBaseline: an older baseline is used, with a warning that its age may explain changes.
const staleBaseline = 7 * 24 * time.Hour

// committedBaselineFile is the results file `auto` looks for next to a suite's eval.yaml (written
// with `skillgate run <suite> -o <suite folder>/baseline.json` and committed).
const committedBaselineFile = "baseline.json"

// baselineDir is where the action keeps the baselines it used, under the results folder.
const baselineDir = "baseline"

// The baseline input's sources each implement pipeline.BaselineSource: the base branch's results
// artifact (artifact.go), a committed baseline file (committedSource), the file: input
// (fileSource) and a rerun at the merge base (rerun.go). A source gives a suite it has no
// baseline of a Baseline without results whose Source says why (missing).

// missing are the baselines of the suites a source has none of: no results, and a note saying
// why.
func missing(q pipeline.Query, found map[string]*pipeline.Baseline, note string) map[string]*pipeline.Baseline {
	if found == nil {
		found = map[string]*pipeline.Baseline{}
	}
	for _, w := range q.Suites {
		if found[w.Name] == nil && note != "" {
			found[w.Name] = &pipeline.Baseline{Source: &results.BaselineSource{Method: BaselineNone, Detail: note}}
		}
	}
	return found
}

// baselineChain resolves each suite's baseline by the baseline input: `auto` tries the base
// branch's results artifact, then a committed baseline file, then a rerun at the merge base.
// Suites no source served get method "none" with the reasons. A shard's split (a query before
// the run) asks only the sources of results on record, and keeps nothing: the run keeps the
// split's baselines of the suites it runs (keepSplit).
type baselineChain struct {
	r *run
	// sources answer after the run, split before it; notes are said of every suite left
	// without a baseline.
	sources, split []pipeline.BaselineSource
	// before and after are notes said before and after the sources' own.
	before, after []string
	// collected: the report workflow compares (LLM grades are pending here).
	collected bool
}

// baselineSource is the baseline input's chain of sources for the mode.
func (r *run) baselineSource() *baselineChain {
	c := &baselineChain{r: r, collected: r.mode.policy().collect}
	artifact := r.artifacts()
	committed := committedSource{r: r}
	file := fileSource{r: r}
	rerun := &rerunSource{r: r}
	switch r.cfg.Baseline {
	case BaselineAuto:
		c.sources, c.split = []pipeline.BaselineSource{artifact, committed, rerun}, []pipeline.BaselineSource{artifact, committed}
	case BaselineArtifact:
		c.sources, c.split = []pipeline.BaselineSource{artifact}, []pipeline.BaselineSource{artifact}
	case BaselineFile:
		c.sources, c.split = []pipeline.BaselineSource{file}, []pipeline.BaselineSource{file}
	case BaselineRerun:
		// A rerun would run the base commit's suites in every shard job: a shard splits by hash.
		c.sources = []pipeline.BaselineSource{rerun}
	case BaselineNone:
		c.after = []string{"baseline: none"}
	}
	if r.mode.policy().reporting && (r.cfg.Baseline == BaselineAuto || r.cfg.Baseline == BaselineRerun) {
		// A rerun runs the base commit's suites, hooks and graders here, next to a write token:
		// the report mode never executes anything.
		c.sources = c.sources[:len(c.sources)-1]
		c.before = []string{"rerun: not in the report workflow, which executes nothing"}
	}
	return c
}

// Baselines implements pipeline.BaselineSource.
func (c *baselineChain) Baselines(ctx context.Context, q pipeline.Query) (map[string]*pipeline.Baseline, error) {
	if q.BeforeRun {
		return c.firstFound(ctx, q, c.split, nil), nil
	}
	if c.collected {
		// With LLM grades pending the scores are incomplete: the report workflow compares.
		out := map[string]*pipeline.Baseline{}
		for _, w := range q.Suites {
			out[w.Name] = &pipeline.Baseline{Source: &results.BaselineSource{Method: BaselineNone, Detail: "compared by the report workflow"}}
		}
		return out, nil
	}
	notes := append([]string(nil), c.before...)
	out := c.firstFound(ctx, q, c.sources, &notes)
	notes = append(notes, c.after...)
	var need []string
	for _, w := range q.Suites {
		if b := out[w.Name]; b == nil || b.Result == nil {
			out[w.Name] = &pipeline.Baseline{Source: &results.BaselineSource{Method: BaselineNone, Detail: strings.Join(notes, "; ")}}
			need = append(need, results.Slug(w.Name))
		}
	}
	if len(need) > 0 && len(notes) > 0 {
		sort.Strings(need)
		c.r.cmd.infof("skillgate: no baseline for %s: %s", strings.Join(need, ", "), strings.Join(notes, "; "))
	}
	for _, w := range q.Suites {
		b, head := out[w.Name], w.Head
		if head != nil && b.Result != nil && !b.Source.CreatedAt.IsZero() && head.Timestamp.Sub(b.Source.CreatedAt) > staleBaseline {
			c.r.cmd.warnf("skillgate: the baseline of %s is %s old (%s); results may differ for reasons other than this change", head.EvalName, age(head.Timestamp.Sub(b.Source.CreatedAt)), b.Source.Detail)
		}
	}
	return out, nil
}

// firstFound asks the sources in order for the suites none has served yet; notes, when given,
// collects what each said of the suites it lacked. The baselines found after the run are kept.
func (c *baselineChain) firstFound(ctx context.Context, q pipeline.Query, sources []pipeline.BaselineSource, notes *[]string) map[string]*pipeline.Baseline {
	out := map[string]*pipeline.Baseline{}
	need := q.Suites
	for _, src := range sources {
		if len(need) == 0 {
			break
		}
		found, _ := src.Baselines(ctx, pipeline.Query{Suites: need, Total: q.Total, BeforeRun: q.BeforeRun})
		var still []pipeline.Wanted
		said := map[string]bool{}
		for _, w := range need {
			b := found[w.Name]
			if b != nil && b.Result != nil {
				if !q.BeforeRun {
					c.r.keep(b)
				}
				out[w.Name] = b
				continue
			}
			still = append(still, w)
			if b != nil && b.Source != nil && b.Source.Detail != "" && notes != nil && !said[b.Source.Detail] {
				said[b.Source.Detail] = true
				*notes = append(*notes, b.Source.Detail)
			}
		}
		need = still
	}
	return out
}

// keep writes a baseline into the results folder, so the compared files sit side by side (and
// go into the uploaded artifact).
func (r *run) keep(b *pipeline.Baseline) {
	dir := filepath.Join(r.outDir, baselineDir)
	path := results.PathIn(dir, b.Result.EvalName)
	if b.File == path {
		return
	}
	if err := results.WriteFile(path, b.Result); err != nil {
		r.cmd.warnf("skillgate: keeping the baseline of %s: %v", b.Result.EvalName, err)
		return
	}
	b.File = path
}

// keepSplit keeps, for a shard, the baselines its split found of the suites it runs, and says
// which suites it split by their durations.
func (r *run) keepSplit(plan *pipeline.Plan) {
	if r.cfg.Shard == nil {
		return
	}
	for _, s := range plan.Suites {
		b, byDurations := s.Split()
		if b == nil || b.Result == nil {
			continue
		}
		r.keep(b)
		if byDurations {
			r.cmd.infof("skillgate: shard %s of %s: tasks split longest first by the durations of %s", r.cfg.Shard, s.Name(), b.Source.Detail)
		}
	}
}

// committedSource reads baseline.json next to each suite's eval.yaml.
type committedSource struct{ r *run }

// Baselines implements pipeline.BaselineSource.
func (c committedSource) Baselines(_ context.Context, q pipeline.Query) (map[string]*pipeline.Baseline, error) {
	found := map[string]*pipeline.Baseline{}
	var problems []string
	for _, w := range q.Suites {
		if w.Dir == "" {
			continue
		}
		path := filepath.Join(w.Dir, committedBaselineFile)
		if _, err := os.Stat(path); err != nil {
			continue
		}
		b, err := c.r.readBaselineFile(path, w, 1)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if b != nil {
			found[w.Name] = b
		}
	}
	note := ""
	if len(found) < len(q.Suites) {
		note = "no committed " + committedBaselineFile + " next to eval.yaml"
		if len(problems) > 0 {
			note += " (" + strings.Join(problems, "; ") + ")"
		}
	}
	return missing(q, found, note), nil
}

// fileSource reads the file:<path> input: one results file, or a folder holding
// results/<suite>.json (an unpacked results artifact).
type fileSource struct{ r *run }

// baselineFile is the file:<path> input's location.
func (r *run) baselineFile() string {
	return filepath.Join(r.workDir, filepath.FromSlash(r.cfg.BaselinePath))
}

// Baselines implements pipeline.BaselineSource. A missing file is warned about once per job.
func (f fileSource) Baselines(_ context.Context, q pipeline.Query) (map[string]*pipeline.Baseline, error) {
	r := f.r
	path := r.baselineFile()
	if _, err := os.Stat(path); err != nil {
		if !r.fileWarned {
			r.fileWarned = true
			r.cmd.warnf("skillgate: baseline file:%s does not exist", r.cfg.BaselinePath)
		}
		return missing(q, nil, "file:"+r.cfg.BaselinePath+" does not exist"), nil
	}
	found := map[string]*pipeline.Baseline{}
	var problems []string
	for _, w := range q.Suites {
		b, err := r.readBaselineFile(path, w, q.Total)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if b != nil {
			found[w.Name] = b
		}
	}
	if len(problems) > 0 {
		r.cmd.warnf("skillgate: baseline %s: %s", r.cfg.BaselinePath, strings.Join(problems, "; "))
	}
	note := ""
	if len(found) < len(q.Suites) {
		note = "file:" + r.cfg.BaselinePath + " holds no results of this suite"
	}
	return missing(q, found, note), nil
}

// readBaselineFile reads the baseline of w from a results file or folder (pipeline.FindBaseline;
// suites is the number of suites run); nil when it holds none of w.
func (r *run) readBaselineFile(path string, w pipeline.Wanted, suites int) (*pipeline.Baseline, error) {
	head := w.Head
	if head == nil {
		head = &results.SuiteResult{EvalName: w.Name}
	}
	res, file, err := pipeline.FindBaseline(path, head, suites)
	if err != nil {
		return nil, err
	}
	if res == nil || results.Slug(res.EvalName) != results.Slug(head.EvalName) {
		return nil, nil
	}
	for _, warning := range res.ReadWarnings {
		r.cmd.warnf("skillgate: %s: %s", r.rel(file), warning)
	}
	src := &results.BaselineSource{Method: BaselineFile, CreatedAt: res.Timestamp, Detail: r.rel(file)}
	if res.Provenance != nil {
		src.Commit = res.Provenance.GitCommit
	}
	return &pipeline.Baseline{Result: res, File: file, Source: src}, nil
}

// age renders a duration in days or hours.
func age(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%d days", int(d.Hours()/24))
	}
	return fmt.Sprintf("%d hours", int(d.Hours()))
}
