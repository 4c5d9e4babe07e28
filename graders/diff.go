package graders

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:           "diff",
		Summary:        "Compares workspace files after the run with snapshots (byte for byte) and with fragments that must or must not occur.",
		ReadsWorkspace: true,
		Config:         newConfig[diffConfig],
		Compile:        compileDiff,
	})
}

type diffConfig struct {
	ExpectedFiles []expectedFileSpec `yaml:"expected_files"`
	ContextDir    string             `yaml:"context_dir"`
}

type expectedFileSpec struct {
	Path     string   `yaml:"path"`
	Snapshot string   `yaml:"snapshot"`
	Contains []string `yaml:"contains"`
}

type diffGrader struct {
	def        *spec.Grader
	cfg        diffConfig
	files      []compiledExpectedFile
	contextDir string // absolute config.context_dir, or "" to use the task's context dir
	checks     int
}

type compiledExpectedFile struct {
	spec      expectedFileSpec
	path      string // cleaned, workspace-relative
	snapshot  string // cleaned, relative
	found     string // the snapshot's absolute path when it resolved at load time (see resolveSnapshot)
	foundIn   string // the folder it was found in: reading it must stay inside
	fragments []fragment
}

type fragment struct {
	text    string // trimmed
	present bool
}

func compileDiff(def *spec.Grader, env *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[diffConfig](def)
	if len(cfg.ExpectedFiles) == 0 {
		return nothingToCheck(def, "expected_files")
	}
	g := &diffGrader{def: def, cfg: cfg}
	if cfg.ContextDir != "" {
		g.contextDir = cfg.ContextDir
		if !filepath.IsAbs(g.contextDir) {
			g.contextDir = filepath.Join(def.Dir, cfg.ContextDir)
		}
	}
	var diags spec.Diagnostics
	for i, ef := range cfg.ExpectedFiles {
		c := compiledExpectedFile{spec: ef}
		if clean, d := itemPath(def, ef.Path, "expected_files", i, "expected file"); d != nil {
			diags = append(diags, *d)
		} else {
			c.path = clean
		}
		if ef.Snapshot == "" && len(ef.Contains) == 0 {
			diags = append(diags, spec.Errorf(def.ConfigAt("expected_files", i), spec.KeyPath("config", "expected_files", i),
				"add `snapshot: <file in the context dir>` or a `contains:` list",
				"grader %q: expected file %q has neither snapshot nor contains: no checks configured", def.Name, ef.Path))
		}
		if ef.Snapshot != "" {
			clean, err := workspacePath(ef.Snapshot)
			if err != nil {
				diags = append(diags, spec.Errorf(def.ConfigAt("expected_files", i, "snapshot"), spec.KeyPath("config", "expected_files", i, "snapshot"),
					"use a path relative to the context dir (the suite's fixtures folder, the task's context_dir or config.context_dir)",
					"grader %q: snapshot %s", def.Name, strings.ReplaceAll(err.Error(), "the run's workspace", "the context dir")))
			} else {
				c.snapshot = clean
				diags = append(diags, g.resolveSnapshot(env, &c, i)...)
			}
		}
		for _, frag := range ef.Contains {
			f := fragment{text: frag, present: true}
			switch {
			case strings.HasPrefix(frag, "+"):
				f.text = frag[1:]
			case strings.HasPrefix(frag, "-"):
				f.text, f.present = frag[1:], false
			}
			f.text = strings.TrimSpace(f.text)
			c.fragments = append(c.fragments, f)
		}
		g.files = append(g.files, c)
		g.checks++ // existence
		if ef.Snapshot != "" {
			g.checks++
		}
		g.checks += len(ef.Contains)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return g, diags
}

// resolveSnapshot finds a snapshot the way waza does — relative to the working directory —
// and, so that the suite does not depend on where skillgate is started, relative to every
// folder from the declaring file's up to the repository root; then in the context dir of each
// task that uses the grader (config.context_dir, when set, is the only place). A snapshot found
// nowhere is a warning: its check fails in every run, as in waza (docs/graders.md, diff).
func (g *diffGrader) resolveSnapshot(env *Env, f *compiledExpectedFile, i int) spec.Diagnostics {
	rel := filepath.FromSlash(f.snapshot)
	var dirs []string
	if g.contextDir != "" {
		dirs = []string{g.contextDir}
	} else {
		dirs = snapshotSearchDirs(absDir(g.def.Dir))
		for _, dir := range dirs {
			if fi, err := os.Stat(filepath.Join(dir, rel)); err == nil && fi.Mode().IsRegular() && resolveIn(dir, filepath.Join(dir, rel)) == nil {
				f.found, f.foundIn = filepath.Join(dir, rel), dir
				return nil
			}
		}
		dirs = g.taskContextDirs(env)
	}
	var diags spec.Diagnostics
	for _, dir := range dirs {
		full := filepath.Join(dir, rel)
		_, err := os.Stat(full)
		if rerr := resolveIn(dir, full); err == nil && spec.RefusedFix(rerr) != "" {
			diags = append(diags, spec.Errorf(g.def.ConfigAt("expected_files", i, "snapshot"), spec.KeyPath("config", "expected_files", i, "snapshot"),
				spec.RefusedFix(rerr), "grader %q: snapshot file refused: %v", g.def.Name, rerr))
			continue
		}
		if err != nil {
			diags = append(diags, spec.Warnf(g.def.ConfigAt("expected_files", i, "snapshot"), spec.KeyPath("config", "expected_files", i, "snapshot"),
				"create the snapshot file or fix the path (relative to the working directory, the repository root or the context dir)",
				"grader %q: snapshot file %q not found (looked in the working directory, the folders up to the repository root, and %s); its check fails in every run",
				g.def.Name, g.cfg.ExpectedFiles[i].Snapshot, dir))
		}
	}
	return diags
}

// snapshotSearchDirs lists the working directory, then dir and each folder above it up to the
// repository root (only dir itself outside a repository).
func snapshotSearchDirs(dir string) []string {
	var out []string
	if wd, err := os.Getwd(); err == nil {
		out = append(out, wd)
	}
	root := spec.RepositoryRoot(dir)
	for {
		out = append(out, dir)
		parent := filepath.Dir(dir)
		if root == "" || dir == root || parent == dir {
			return out
		}
		dir = parent
	}
}

// taskContextDirs are the context dirs of the tasks that use this grader (the suite's when none).
func (g *diffGrader) taskContextDirs(env *Env) []string {
	if env == nil || env.Suite == nil {
		return nil
	}
	var dirs []string
	seen := map[string]bool{}
	for _, t := range env.Suite.Tasks {
		for _, d := range t.Graders {
			if d == g.def && t.ContextDir != "" && !seen[t.ContextDir] {
				seen[t.ContextDir] = true
				dirs = append(dirs, t.ContextDir)
			}
		}
	}
	if len(dirs) == 0 && env.Suite.ContextDir != "" {
		dirs = []string{env.Suite.ContextDir}
	}
	return dirs
}

func (g *diffGrader) snapshotDir(in *Input) string {
	if g.contextDir != "" {
		return g.contextDir
	}
	if in.Task != nil && in.Task.ContextDir != "" {
		return in.Task.ContextDir
	}
	if in.Suite != nil {
		return in.Suite.ContextDir
	}
	return ""
}

func (g *diffGrader) Grade(_ context.Context, in *Input) (*results.GraderResult, error) {
	root, res, err := openWorkspace(g.def, in, "diff grading")
	if root == nil {
		return res, err
	}
	defer root.Close()

	var failures []string
	for _, f := range g.files {
		name := f.spec.Path
		data, err := root.ReadFile(f.path)
		if err != nil {
			// A missing file fails all of its checks.
			failures = append(failures, "Expected file not found in workspace: "+name)
			if f.spec.Snapshot != "" {
				failures = append(failures, "Snapshot comparison skipped (file not found): "+name)
			}
			for _, c := range f.spec.Contains {
				failures = append(failures, fmt.Sprintf("Contains check skipped (file not found): %s → %s", name, c))
			}
			continue
		}
		content := string(data)
		if f.snapshot != "" {
			dir := g.snapshotDir(in)
			path, root := filepath.Join(dir, filepath.FromSlash(f.snapshot)), dir
			if f.found != "" {
				path, root = f.found, f.foundIn
			}
			want, err := readIn(root, path)
			switch {
			case dir == "" && f.found == "":
				failures = append(failures, fmt.Sprintf("Failed to read snapshot file %s for %s: no context directory", f.spec.Snapshot, name))
			case err != nil:
				failures = append(failures, fmt.Sprintf("Failed to read snapshot file %s for %s: %v", f.spec.Snapshot, name, err))
			case string(want) != content:
				failures = append(failures, fmt.Sprintf("File %s does not match snapshot %s", name, f.spec.Snapshot))
			}
		}
		for _, frag := range f.fragments {
			if frag.text == "" {
				continue
			}
			found := strings.Contains(content, frag.text)
			if frag.present && !found {
				failures = append(failures, fmt.Sprintf("File %s missing expected fragment: %s", name, frag.text))
			} else if !frag.present && found {
				failures = append(failures, fmt.Sprintf("File %s contains fragment that should be absent: %s", name, frag.text))
			}
		}
	}
	files := make([]map[string]any, 0, len(g.cfg.ExpectedFiles))
	for _, ef := range g.cfg.ExpectedFiles {
		entry := map[string]any{"path": ef.Path}
		if ef.Snapshot != "" {
			entry["snapshot"] = ef.Snapshot
		}
		if len(ef.Contains) > 0 {
			entry["contains"] = ef.Contains
		}
		files = append(files, entry)
	}
	details := map[string]any{"expected_files": files, "workspace_dir": in.Workspace}
	return checkResult(g.def, g.checks, failures, "All diff checks passed", details), nil
}
