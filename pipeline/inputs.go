package pipeline

import (
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/skillgate/skillgate/spec"
)

// Inputs are the absolute paths whose change affects a suite: folders (everything below) and
// single files.
type Inputs struct {
	Dirs, Files []string
}

// Inputs lists what the suite depends on: its folder and every file it read (task files, CSV,
// trigger tests), its skill directories, its fixtures, the files its graders and hooks name
// (scripts, schemas, expected outputs), resolved as the format resolves them. A pull request's
// changed files select the suites to run by them (changed-only), and a collecting run bundles
// them for the report workflow.
func (su *Suite) Inputs() Inputs {
	s := su.prepared.Suite
	var in Inputs
	in.Dirs = append(in.Dirs, s.Dir)
	in.Files = append(in.Files, s.Files...)
	in.Dirs = append(in.Dirs, s.Config.SkillDirectories...)
	if s.ContextDir != "" {
		in.Dirs = append(in.Dirs, s.ContextDir)
	}
	seenGrader := map[*spec.Grader]bool{}
	graders := append([]*spec.Grader(nil), s.Graders...)
	for _, t := range s.Tasks {
		if t.ContextDir != "" {
			in.Dirs = append(in.Dirs, t.ContextDir)
		}
		for _, f := range t.Files {
			if f.Source != "" {
				in.Files = append(in.Files, f.Source)
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
			in.Files = append(in.Files, g.File)
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
func (in *Inputs) addPath(suiteDir, dir, v string) {
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
		in.Dirs = append(in.Dirs, p)
	default:
		in.Files = append(in.Files, p)
	}
}

// AffectedBy returns the first changed path (repository-relative) that falls inside the inputs,
// or "".
func (in Inputs) AffectedBy(repoRoot string, changed []string) string {
	files := map[string]bool{}
	for _, f := range in.Files {
		files[filepath.Clean(f)] = true
	}
	dirs := make([]string, 0, len(in.Dirs))
	for _, d := range in.Dirs {
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
