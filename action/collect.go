package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// The bundle: what a collecting run (phase one) leaves in its results folder for the report
// workflow, next to the results files and reports it writes anyway.
const (
	// PRFile is the pull request record, at the top of the results folder.
	PRFile = "pr.json"
	// bundleTree holds the suites' files as data, under their repository-relative paths, so
	// the report workflow regrades with the suite definition the run used without checking out
	// (let alone running) the pull request.
	bundleTree = "bundle/tree"
)

// Limits on the suite files of a bundle, enforced when writing and again when reading.
const (
	maxTreeFile      = 8 << 20
	maxTreeTotal     = 64 << 20
	maxTreeFileCount = 5000
	maxPRFile        = 256 << 10
)

// DeferredKey marks a grader result the collecting run left for the report workflow.
const DeferredKey = results.DeferredKey

// PRRecord is pr.json: the pull request a collected run belongs to and what the report workflow
// needs to publish it. schemas/pr.schema.json describes it; the report mode trusts none of it
// until it is validated and cross-checked with the API.
type PRRecord struct {
	Version  int    `json:"version"`
	Number   int    `json:"number"`
	HeadSHA  string `json:"head_sha"`
	HeadRepo string `json:"head_repo"`
	HeadRef  string `json:"head_ref"`
	BaseRef  string `json:"base_ref"`
	BaseSHA  string `json:"base_sha"`
	// Key is the comment and check-run key of the collecting workflow, so both phases publish
	// under one name (the required check).
	Key      string `json:"key"`
	Workflow string `json:"workflow"`
	// NeedsReport is false when the collecting run published its results itself.
	NeedsReport      bool              `json:"needs_report"`
	Reason           string            `json:"reason"`
	Suites           []BundleSuite     `json:"suites"`
	Unaffected       []UnaffectedSuite `json:"unaffected"`
	SkillgateVersion string            `json:"skillgate_version"`
	Deferred         int               `json:"deferred_grades"`
}

// BundleSuite is one suite of a bundle.
type BundleSuite struct {
	Name string `json:"name"`
	// Results is its results file in the bundle: results/<slug>.json.
	Results string `json:"results"`
	// SuiteFile is its eval.yaml, repository-relative, under bundle/tree/.
	SuiteFile string `json:"suite_file"`
}

// UnaffectedSuite is a suite the change did not affect, listed in the comment.
type UnaffectedSuite struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// writeBundle turns the results folder into a bundle for the report workflow: pr.json and the
// suites' files under bundle/tree. The results files and reports are already there.
func (r *run) writeBundle(plan *pipeline.Plan, in *report.Input, needsReport bool, reason string) error {
	pr := r.ev.PR
	rec := PRRecord{
		Version: 1, Number: pr.Number, HeadSHA: pr.HeadSHA, HeadRepo: pr.HeadRepo, HeadRef: pr.HeadRef,
		BaseRef: pr.BaseRef, BaseSHA: pr.BaseSHA, Key: in.Key, Workflow: r.ev.Workflow,
		NeedsReport: needsReport, Reason: clip(reason, 480), SkillgateVersion: clip(r.d.Version, 100),
		Suites: []BundleSuite{}, Unaffected: []UnaffectedSuite{},
	}
	for _, u := range in.Unaffected {
		rec.Unaffected = append(rec.Unaffected, UnaffectedSuite{Name: clip(u.Name, 190), Reason: clip(u.Reason, 480)})
	}
	if rec.HeadRepo == "" {
		rec.HeadRepo = r.ev.FullName()
	}
	byName := map[string]*pipeline.Suite{}
	for _, s := range plan.Suites {
		byName[s.Name()] = s
	}
	tree := filepath.Join(r.outDir, filepath.FromSlash(bundleTree))
	if err := os.RemoveAll(tree); err != nil {
		return err
	}
	budget := &treeBudget{files: maxTreeFileCount, bytes: maxTreeTotal}
	for _, s := range in.Suites {
		res := s.Result
		rec.Deferred += countDeferred(res)
		p := byName[res.EvalName]
		if p == nil {
			return fmt.Errorf("suite %s: its definition is not loaded, so it cannot go into the bundle", res.EvalName)
		}
		rel, err := filepath.Rel(r.repoRoot, p.File())
		if err != nil || !within(r.repoRoot, p.File()) {
			return fmt.Errorf("suite %s: %s is outside the repository", res.EvalName, p.File())
		}
		if err := r.copySuiteFiles(p, tree, budget); err != nil {
			return fmt.Errorf("suite %s: %w", res.EvalName, err)
		}
		rec.Suites = append(rec.Suites, BundleSuite{Name: res.EvalName, Results: "results/" + results.Slug(res.EvalName) + ".json", SuiteFile: filepath.ToSlash(rel)})
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(r.outDir, PRFile), append(data, '\n'), 0o644)
}

// countDeferred counts the grades a collecting run left for the report workflow.
func countDeferred(res *results.SuiteResult) int {
	n := 0
	for _, t := range res.Tasks {
		for _, run := range t.Runs {
			for _, v := range run.Validations {
				if v.Status == results.StatusPending && v.Details[DeferredKey] == "report" {
					n++
				}
			}
		}
	}
	return n
}

type treeBudget struct {
	files int
	bytes int64
}

// copySuiteFiles copies what a suite reads (its inputs: its folder and every file it read, its
// skills, fixtures and grader files) into the bundle tree under repository-relative paths. The
// results folder, .git and anything outside the repository stay out; symbolic links are copied
// as the files they point to when those are inside the repository.
func (r *run) copySuiteFiles(s *pipeline.Suite, tree string, budget *treeBudget) error {
	in := s.Inputs()
	files := append([]string{s.File()}, in.Files...)
	for _, d := range in.Dirs {
		if !within(r.repoRoot, d) {
			continue
		}
		filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return nil
			case e.IsDir() && (e.Name() == ".git" || path == r.outDir):
				return filepath.SkipDir
			case !e.IsDir():
				files = append(files, path)
			}
			return nil
		})
	}
	sort.Strings(files)
	for i, f := range files {
		if i > 0 && files[i-1] == f {
			continue
		}
		if !within(r.repoRoot, f) || within(r.outDir, f) {
			continue
		}
		rel, err := filepath.Rel(r.repoRoot, f)
		if err != nil {
			continue
		}
		dest := filepath.Join(tree, rel)
		if _, err := os.Lstat(dest); err == nil {
			continue // another suite's
		}
		info, err := os.Stat(f) // follows a link
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if real, err := filepath.EvalSymlinks(f); err != nil || !within(r.repoRoot, real) {
			continue
		}
		if info.Size() > maxTreeFile {
			r.cmd.warnf("skillgate: %s is larger than %d MiB and stays out of the bundle; the report workflow cannot read it", filepath.ToSlash(rel), maxTreeFile>>20)
			continue
		}
		if budget.files--; budget.files < 0 || budget.bytes-info.Size() < 0 {
			return fmt.Errorf("the suite files exceed the bundle's limits (%d files, %d MiB)", maxTreeFileCount, maxTreeTotal>>20)
		}
		budget.bytes -= info.Size()
		if err := copyRegular(f, dest); err != nil {
			return err
		}
	}
	return nil
}

func copyRegular(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, io.LimitReader(src, maxTreeFile))
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return err
}

// collectNote heads the step summary of a collecting run.
func collectNote(rec string, deferred int) string {
	var b strings.Builder
	b.WriteString("> [!NOTE]\n> ")
	b.WriteString(rec)
	if deferred > 0 {
		fmt.Fprintf(&b, " %d LLM grade(s) are deferred: they show as pending here and the report workflow grades them.", deferred)
	}
	b.WriteString(" The comment and the check run come from the report workflow (`mode: report`).\n\n")
	return b.String()
}

// finishCollect ends a collecting run: the summary says what was deferred, deterministic
// failures are annotated, and the bundle is written. It never gates: with LLM grades pending,
// the report workflow's check run decides.
func (r *run) finishCollect(plan *pipeline.Plan, in *report.Input, setupFailed bool) int {
	deferred := 0
	for _, s := range in.Suites {
		deferred += countDeferred(s.Result)
	}
	reason := "mode: collect"
	if r.ev.Fork() {
		reason = "pull request from a fork (" + r.ev.PR.HeadRepo + ")"
	}
	note := collectNote(fmt.Sprintf("Collected for the report workflow: %s.", reason), deferred)
	if err := r.cmd.addSummary(note + report.Summary(in)); err != nil && !errors.Is(err, errNoFileCommand) {
		r.cmd.warnf("skillgate: job summary not written: %v", err)
	}
	if r.cfg.Annotations {
		emitAnnotations(r.cmd, collectAnnotations(in, r.repoRoot))
	}
	if err := r.writeBundle(plan, in, true, reason); err != nil {
		r.cmd.errorf("skillgate: bundle", "the bundle for the report workflow could not be written: %v", err)
		return ExitUsage
	}
	r.cmd.infof("skillgate: collected %d suite(s) for the report workflow (%d LLM grade(s) deferred); upload %s as the artifact %s, whatever this step's outcome (if: ${{ !cancelled() }})",
		len(in.Suites), deferred, r.rel(r.outDir), r.cfg.ArtifactName)
	if setupFailed {
		return ExitUsage
	}
	return ExitOK
}
