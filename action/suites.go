package action

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/skillgate/skillgate/internal/glob"
	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/report"
)

// resolveSuites turns the suites input into paths for pipeline.Load: plain paths are taken
// as given (a suite file or a folder searched for suites); patterns with wildcards select the
// suite files under workDir whose path, or one of whose folders, they match. No input means
// every suite under workDir.
func resolveSuites(workDir string, patterns []string) ([]string, error) {
	if len(patterns) == 0 {
		return []string{workDir}, nil
	}
	var all []string // every suite file under workDir, found once when a pattern needs it
	seen := map[string]bool{}
	var out []string
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, p := range patterns {
		if !glob.HasMeta(p) {
			full := filepath.Join(workDir, filepath.FromSlash(p))
			if _, err := os.Stat(full); err != nil {
				return nil, fmt.Errorf("%s does not exist under %s", p, workDir)
			}
			add(full)
			continue
		}
		pattern, err := suitePattern(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if all == nil {
			if all, err = pipeline.Discover([]string{workDir}); err != nil {
				return nil, err
			}
		}
		matched := false
		for _, file := range all {
			rel, err := filepath.Rel(workDir, file)
			if err != nil {
				continue
			}
			for q := filepath.ToSlash(rel); q != "." && q != "/"; q = path.Dir(q) {
				if glob.Match(pattern, q) {
					add(file)
					matched = true
					break
				}
			}
		}
		if !matched {
			return nil, fmt.Errorf("%s matches no suite under %s", p, workDir)
		}
	}
	return out, nil
}

// suitePattern is a pattern of the suites input as it is matched: `./evals/*` and `evals/*/`
// mean evals/*.
func suitePattern(p string) (string, error) {
	clean := path.Clean(strings.TrimSpace(p))
	return clean, glob.Validate(clean)
}

// selectSuites picks the suites to run: on a pull request with changed-only, those the change
// affects; everything otherwise (pushes, other events, or when the change cannot be listed).
func (r *run) selectSuites(plan *pipeline.Plan) (*pipeline.Plan, []report.Unaffected) {
	if r.ev.PR == nil || !r.cfg.ChangedOnly {
		return plan, nil
	}
	cs, err := r.detectChanges()
	if err != nil {
		r.cmd.warnf("skillgate: cannot list the pull request's changes (%v); running every suite", err)
		return plan, nil
	}
	r.changes = cs
	if cs.all {
		r.cmd.infof("skillgate: the change is too large to list (%d+ files); running every suite", len(cs.files))
		return plan, nil
	}
	if wf := r.ev.Workflow; wf != "" {
		for _, f := range cs.files {
			if f == ".github/workflows/"+wf {
				r.cmd.infof("skillgate: the workflow file %s changed; running every suite", f)
				return plan, nil
			}
		}
	}
	var affected []*pipeline.Suite
	var skipped []report.Unaffected
	for _, s := range plan.Suites {
		if hit := s.Inputs().AffectedBy(r.repoRoot, cs.files); hit != "" {
			r.cmd.infof("skillgate: %s is affected (%s changed)", s.Name(), hit)
			affected = append(affected, s)
			continue
		}
		skipped = append(skipped, report.Unaffected{Name: s.Name(),
			Reason: "no change to its suite folder, skills, fixtures or grader files"})
	}
	return plan.Only(affected), skipped
}
