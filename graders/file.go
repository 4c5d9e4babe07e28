package graders

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:           "file",
		Summary:        "Checks the workspace after the run: files that must or must not exist and patterns their content must or must not match.",
		ReadsWorkspace: true,
		Config:         newConfig[fileConfig],
		Compile:        compileFile,
	})
}

type fileConfig struct {
	MustExist       []string             `yaml:"must_exist"`
	MustNotExist    []string             `yaml:"must_not_exist"`
	ContentPatterns []contentPatternSpec `yaml:"content_patterns"`
}

type contentPatternSpec struct {
	Path         string   `yaml:"path"`
	MustMatch    []string `yaml:"must_match"`
	MustNotMatch []string `yaml:"must_not_match"`
}

// contentPatternDetail mirrors waza's details, which serialize the struct with Go field names.
type contentPatternDetail struct {
	Path         string
	MustMatch    []string
	MustNotMatch []string
}

type fileGrader struct {
	def          *spec.Grader
	cfg          fileConfig
	mustExist    []string // cleaned
	mustNotExist []string
	patterns     []compiledContentPattern
	checks       int
}

type compiledContentPattern struct {
	spec     contentPatternSpec
	path     string // cleaned
	match    []*pattern
	notMatch []*pattern
}

func compileFile(def *spec.Grader, _ *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[fileConfig](def)
	if len(cfg.MustExist) == 0 && len(cfg.MustNotExist) == 0 && len(cfg.ContentPatterns) == 0 {
		return nothingToCheck(def, "must_exist", "must_not_exist", "content_patterns")
	}
	g := &fileGrader{def: def, cfg: cfg}
	var diags spec.Diagnostics
	paths := func(list []string, key string) []string {
		out := make([]string, len(list))
		for i, p := range list {
			clean, d := checkWorkspacePath(def, p, key, i)
			if d != nil {
				diags = append(diags, *d)
			}
			out[i] = clean
		}
		return out
	}
	g.mustExist = paths(cfg.MustExist, "must_exist")
	g.mustNotExist = paths(cfg.MustNotExist, "must_not_exist")
	g.checks = len(cfg.MustExist) + len(cfg.MustNotExist)
	for i, cp := range cfg.ContentPatterns {
		c := compiledContentPattern{spec: cp}
		if clean, d := itemPath(def, cp.Path, "content_patterns", i, "content pattern"); d != nil {
			diags = append(diags, *d)
		} else {
			c.path = clean
		}
		var ds spec.Diagnostics
		c.match, ds = compilePatterns(def, cp.MustMatch, "content_patterns", i, "must_match")
		diags = append(diags, ds...)
		c.notMatch, ds = compilePatterns(def, cp.MustNotMatch, "content_patterns", i, "must_not_match")
		diags = append(diags, ds...)
		g.patterns = append(g.patterns, c)
		g.checks += len(cp.MustMatch) + len(cp.MustNotMatch) + 1 // +1: the implicit "file readable" check
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return g, nil
}

// openWorkspace opens the run's workspace for a grader that reads it (what: "file grading"); a run
// without one gets the grader's failing result instead of a root.
func openWorkspace(def *spec.Grader, in *Input, what string) (*os.Root, *results.GraderResult, error) {
	if in == nil || in.Workspace == "" {
		return nil, result(def, 0, false, "No workspace directory available for "+what, nil), nil
	}
	root, err := os.OpenRoot(in.Workspace)
	if err != nil {
		return nil, nil, fmt.Errorf("opening workspace for %s: %w", what, err)
	}
	return root, nil, nil
}

func (g *fileGrader) Grade(_ context.Context, in *Input) (*results.GraderResult, error) {
	root, res, err := openWorkspace(g.def, in, "file grading")
	if root == nil {
		return res, err
	}
	defer root.Close()

	var failures []string
	for i, p := range g.mustExist {
		if _, err := root.Stat(p); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				failures = append(failures, "File must exist but not found: "+g.cfg.MustExist[i])
			} else {
				failures = append(failures, fmt.Sprintf("Failed to check required file %s: %v", g.cfg.MustExist[i], err))
			}
		}
	}
	for i, p := range g.mustNotExist {
		if _, err := root.Stat(p); err == nil {
			failures = append(failures, "File must not exist but found: "+g.cfg.MustNotExist[i])
		} else if !errors.Is(err, fs.ErrNotExist) {
			failures = append(failures, fmt.Sprintf("Failed to check forbidden file %s: %v", g.cfg.MustNotExist[i], err))
		}
	}
	for _, cp := range g.patterns {
		name := cp.spec.Path
		data, err := root.ReadFile(cp.path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				failures = append(failures, "File not found for content check: "+name)
			} else {
				failures = append(failures, fmt.Sprintf("Failed to read file %s: %v", name, err))
			}
			// An unreadable file fails each of its pattern checks too, so the number of checks
			// stays the same from run to run.
			for _, p := range cp.spec.MustMatch {
				failures = append(failures, fmt.Sprintf("File %s missing expected pattern (file not found): %s", name, p))
			}
			for _, p := range cp.spec.MustNotMatch {
				failures = append(failures, fmt.Sprintf("File %s could not verify absence of pattern (file not found): %s", name, p))
			}
			continue
		}
		for i, re := range cp.match {
			if !re.Match(data) {
				failures = append(failures, fmt.Sprintf("File %s missing expected pattern: %s", name, cp.spec.MustMatch[i]))
			}
		}
		for i, re := range cp.notMatch {
			if re.Match(data) {
				failures = append(failures, fmt.Sprintf("File %s contains forbidden pattern: %s", name, cp.spec.MustNotMatch[i]))
			}
		}
	}
	patterns := make([]contentPatternDetail, len(g.cfg.ContentPatterns))
	for i, cp := range g.cfg.ContentPatterns {
		patterns[i] = contentPatternDetail(cp)
	}
	details := map[string]any{
		"must_exist":       g.cfg.MustExist,
		"must_not_exist":   g.cfg.MustNotExist,
		"content_patterns": patterns,
		"workspace_dir":    in.Workspace,
	}
	return checkResult(g.def, g.checks, failures, "All file checks passed", details), nil
}
