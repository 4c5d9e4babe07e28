package action

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillgate/skillgate/internal/glob"
	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/runner"
	"github.com/skillgate/skillgate/spec"
)

// resolveSuites turns the suites input into paths for runner.LoadSuites: plain paths are taken
// as given (an eval.yaml or a folder searched for eval.yaml); patterns with wildcards select the
// eval.yaml files under workDir whose path, or one of whose folders, they match. No input means
// every eval.yaml under workDir.
func resolveSuites(workDir string, patterns []string) ([]string, error) {
	if len(patterns) == 0 {
		return []string{workDir}, nil
	}
	var all []string // every eval.yaml under workDir, found once when a pattern needs it
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
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		if all == nil {
			if all, err = spec.Discover([]string{workDir}); err != nil {
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
			return nil, fmt.Errorf("%s matches no eval.yaml under %s", p, workDir)
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
func (r *run) selectSuites(prepared []*runner.Prepared) ([]*runner.Prepared, []report.Unaffected) {
	if r.ev.PR == nil || !r.cfg.ChangedOnly {
		return prepared, nil
	}
	cs, err := r.detectChanges()
	if err != nil {
		r.cmd.warnf("skillgate: cannot list the pull request's changes (%v); running every suite", err)
		return prepared, nil
	}
	r.changes = cs
	if cs.all {
		r.cmd.infof("skillgate: the change is too large to list (%d+ files); running every suite", len(cs.files))
		return prepared, nil
	}
	if wf := r.ev.Workflow; wf != "" {
		for _, f := range cs.files {
			if f == ".github/workflows/"+wf {
				r.cmd.infof("skillgate: the workflow file %s changed; running every suite", f)
				return prepared, nil
			}
		}
	}
	var affected []*runner.Prepared
	var skipped []report.Unaffected
	for _, p := range prepared {
		if hit := affectedBy(suiteInputs(p.Suite), r.repoRoot, cs.files); hit != "" {
			r.cmd.infof("skillgate: %s is affected (%s changed)", p.Suite.Name, hit)
			affected = append(affected, p)
			continue
		}
		skipped = append(skipped, report.Unaffected{Name: p.Suite.Name,
			Reason: "no change to its suite folder, skills, fixtures or grader files"})
	}
	return affected, skipped
}

// inputs are the absolute paths whose change affects a suite: folders (everything below) and
// single files.
type inputs struct {
	dirs, files []string
}

// suiteInputs lists what a suite depends on: its folder and every file it read (task files,
// CSV, trigger tests), its skill directories, its fixtures, the files its graders and hooks
// name (scripts, schemas, expected outputs), resolved as the format resolves them.
func suiteInputs(s *spec.Suite) inputs {
	var in inputs
	in.dirs = append(in.dirs, s.Dir)
	in.files = append(in.files, s.Files...)
	in.dirs = append(in.dirs, s.Config.SkillDirectories...)
	if s.ContextDir != "" {
		in.dirs = append(in.dirs, s.ContextDir)
	}
	seenGrader := map[*spec.Grader]bool{}
	graders := append([]*spec.Grader(nil), s.Graders...)
	for _, t := range s.Tasks {
		if t.ContextDir != "" {
			in.dirs = append(in.dirs, t.ContextDir)
		}
		for _, f := range t.Files {
			if f.Source != "" {
				in.files = append(in.files, f.Source)
			}
		}
		graders = append(graders, t.Graders...)
	}
	for _, g := range graders {
		if seenGrader[g] {
			continue
		}
		seenGrader[g] = true
		dir := g.Dir
		if dir == "" {
			dir = s.Dir
		}
		if g.File != "" {
			in.files = append(in.files, g.File)
		}
		for _, v := range g.ConfigScalars() {
			in.addPath(s.Dir, dir, v)
		}
	}
	for _, hooks := range [][]*spec.Hook{s.Hooks.BeforeRun, s.Hooks.AfterRun, s.Hooks.BeforeTask, s.Hooks.AfterTask} {
		for _, h := range hooks {
			dir := h.WorkingDirectory
			if dir == "" {
				dir = s.Dir
			}
			for _, word := range strings.Fields(h.Command) {
				in.addPath(s.Dir, dir, strings.Trim(word, `"'`))
			}
		}
	}
	return in
}

// addPath records v when it names an existing file or folder relative to dir. Folders that hold
// the suite folder are too broad to mean anything (a grader's `path: .`) and are left out.
func (in *inputs) addPath(suiteDir, dir, v string) {
	if v == "" || len(v) > 1024 || strings.ContainsAny(v, "\n\x00") || filepath.IsAbs(v) {
		return
	}
	p := filepath.Join(dir, filepath.FromSlash(v))
	info, err := os.Stat(p)
	switch {
	case err != nil:
	case info.IsDir():
		if within(p, suiteDir) {
			return
		}
		in.dirs = append(in.dirs, p)
	default:
		in.files = append(in.files, p)
	}
}

// affectedBy returns the first changed path (repository-relative) that falls inside the inputs,
// or "".
func affectedBy(in inputs, repoRoot string, changed []string) string {
	files := map[string]bool{}
	for _, f := range in.files {
		files[filepath.Clean(f)] = true
	}
	dirs := make([]string, 0, len(in.dirs))
	for _, d := range in.dirs {
		dirs = append(dirs, filepath.Clean(d))
	}
	sort.Strings(dirs)
	for _, c := range changed {
		abs := filepath.Join(repoRoot, filepath.FromSlash(c))
		if files[abs] {
			return c
		}
		for _, d := range dirs {
			if abs == d || strings.HasPrefix(abs, d+string(filepath.Separator)) {
				return c
			}
		}
	}
	return ""
}
