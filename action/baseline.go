package action

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
)

// staleBaseline: an older baseline is used, with a warning that its age may explain changes.
const staleBaseline = 7 * 24 * time.Hour

// committedBaselineFile is the results file `auto` looks for next to a suite's eval.yaml (written
// with `skillgate run <suite> -o <suite folder>/baseline.json` and committed).
const committedBaselineFile = "baseline.json"

// baselineDir is where the action keeps the baselines it used, under the results folder.
const baselineDir = "baseline"

// baseline is one suite's baseline and where it came from.
type baseline struct {
	Result *results.SuiteResult
	File   string
	Source *results.BaselineSource
	// History is earlier base runs pooled with Result (the artifact method only).
	History []*results.BaseRecord
}

// baselineMethod finds baselines for the suites still in need (keyed by results slug). It
// returns what it found and, for the rest, one short note saying why not. What it finds is not
// yet kept (keep): a shard looks up every suite's baseline, but keeps only those of the suites
// it runs.
type baselineMethod func(need map[string]*results.SuiteResult) (map[string]*baseline, string)

// baselines resolves each suite's baseline by the baseline input: `auto` tries the base
// branch's results artifact, then a committed baseline file, then a rerun at the merge base.
// Suites no method served get method "none" with the reasons.
func (r *run) baselines(prepared []*runner.Prepared, ran *runner.SuitesRun) map[string]*baseline {
	need := map[string]*results.SuiteResult{}
	for _, res := range ran.Results {
		need[results.Slug(res.EvalName)] = res
	}
	var methods []baselineMethod
	artifact := r.artifactBaselines
	if s := r.runCache.seeded; s != nil {
		artifact = s.method // fetched already, to seed the run cache
	}
	switch r.cfg.Baseline {
	case BaselineAuto:
		methods = []baselineMethod{artifact, r.committedFor(prepared), r.rerunFor(prepared)}
	case BaselineArtifact:
		methods = []baselineMethod{artifact}
	case BaselineFile:
		methods = []baselineMethod{r.fileBaselines(0)}
	case BaselineRerun:
		methods = []baselineMethod{r.rerunFor(prepared)}
	}
	var notes []string
	if r.mode.policy().reporting && (r.cfg.Baseline == BaselineAuto || r.cfg.Baseline == BaselineRerun) {
		// A rerun runs the base commit's suites, hooks and graders here, next to a write token:
		// the report mode never executes anything.
		methods = methods[:len(methods)-1]
		notes = append(notes, "rerun: not in the report workflow, which executes nothing")
	}
	out := map[string]*baseline{}
	for _, m := range methods {
		if len(need) == 0 {
			break
		}
		found, note := m(need)
		for slug, b := range found {
			if need[slug] == nil || b == nil || b.Result == nil {
				continue
			}
			r.keep(b)
			out[slug] = b
			delete(need, slug)
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	if r.cfg.Baseline == BaselineNone {
		notes = append(notes, "baseline: none")
	}
	for slug := range need {
		out[slug] = &baseline{Source: &results.BaselineSource{Method: BaselineNone, Detail: strings.Join(notes, "; ")}}
	}
	if len(need) > 0 && len(notes) > 0 {
		r.cmd.infof("skillgate: no baseline for %s: %s", strings.Join(sortedKeys(need), ", "), strings.Join(notes, "; "))
	}
	return out
}

// keep writes a baseline into the results folder, so the compared files sit side by side (and
// go into the uploaded artifact).
func (r *run) keep(b *baseline) {
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

// committedFor reads baseline.json next to each suite's eval.yaml.
func (r *run) committedFor(prepared []*runner.Prepared) baselineMethod {
	dirs := map[string]string{}
	for _, p := range prepared {
		dirs[results.Slug(p.Suite.Name)] = p.Suite.Dir
	}
	return r.committedIn(dirs)
}

// committedIn reads baseline.json in each suite's folder (dirs: by results slug).
func (r *run) committedIn(dirs map[string]string) baselineMethod {
	return func(need map[string]*results.SuiteResult) (map[string]*baseline, string) {
		found := map[string]*baseline{}
		var problems []string
		for slug, head := range need {
			path := filepath.Join(dirs[slug], committedBaselineFile)
			if dirs[slug] == "" {
				continue
			}
			if _, err := os.Stat(path); err != nil {
				continue
			}
			b, err := r.readBaselineFile(path, head, 1)
			if err != nil {
				problems = append(problems, err.Error())
				continue
			}
			if b != nil {
				found[slug] = b
			}
		}
		note := ""
		if len(found) < len(need) {
			note = "no committed " + committedBaselineFile + " next to eval.yaml"
			if len(problems) > 0 {
				note += " (" + strings.Join(problems, "; ") + ")"
			}
		}
		return found, note
	}
}

// fileBaselines reads the file:<path> input: one results file, or a folder holding
// results/<suite>.json (an unpacked results artifact). suites is the number of suites run,
// which pipeline.FindBaseline takes (0: as many as are in need).
func (r *run) fileBaselines(suites int) baselineMethod {
	return func(need map[string]*results.SuiteResult) (map[string]*baseline, string) {
		n := suites
		if n <= 0 {
			n = len(need)
		}
		return r.fileBaselinesOf(need, n)
	}
}

// baselineFile is the file:<path> input's location.
func (r *run) baselineFile() string {
	return filepath.Join(r.workDir, filepath.FromSlash(r.cfg.BaselinePath))
}

func (r *run) fileBaselinesOf(need map[string]*results.SuiteResult, suites int) (map[string]*baseline, string) {
	path := r.baselineFile()
	if _, err := os.Stat(path); err != nil {
		r.cmd.warnf("skillgate: baseline file:%s does not exist", r.cfg.BaselinePath)
		return nil, "file:" + r.cfg.BaselinePath + " does not exist"
	}
	found := map[string]*baseline{}
	var problems []string
	for slug, head := range need {
		b, err := r.readBaselineFile(path, head, suites)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		if b != nil {
			found[slug] = b
		}
	}
	if len(problems) > 0 {
		r.cmd.warnf("skillgate: baseline %s: %s", r.cfg.BaselinePath, strings.Join(problems, "; "))
	}
	note := ""
	if len(found) < len(need) {
		note = "file:" + r.cfg.BaselinePath + " holds no results of this suite"
	}
	return found, note
}

func (r *run) readBaselineFile(path string, head *results.SuiteResult, suites int) (*baseline, error) {
	res, file, err := pipeline.FindBaseline(path, head, suites)
	if err != nil {
		return nil, err
	}
	if res == nil || results.Slug(res.EvalName) != results.Slug(head.EvalName) {
		return nil, nil
	}
	for _, w := range res.ReadWarnings {
		r.cmd.warnf("skillgate: %s: %s", r.rel(file), w)
	}
	src := &results.BaselineSource{Method: BaselineFile, CreatedAt: res.Timestamp, Detail: r.rel(file)}
	if res.Provenance != nil {
		src.Commit = res.Provenance.GitCommit
	}
	return &baseline{Result: res, File: file, Source: src}, nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// age renders a duration in days or hours.
func age(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%d days", int(d.Hours()/24))
	}
	return fmt.Sprintf("%d hours", int(d.Hours()))
}
