package graders

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/skillgate/skillgate/internal/regex"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// configOf returns a declaration's config: the loader decoded it into a *C (see Type.Config).
// A declaration built in code without one reads as the zero config.
func configOf[C any](def *spec.Grader) C {
	if c, ok := def.Config.(*C); ok && c != nil {
		return *c
	}
	var zero C
	return zero
}

// newConfig is Type.Config for a type with one config struct.
func newConfig[C any]([]string) any { return new(C) }

// noChecks is the error for a grader that cannot run without one of keys (a script or program
// grader with nothing to run).
func noChecks(def *spec.Grader, keys ...string) spec.Diagnostic {
	return spec.Errorf(def.ConfigPos(), "config", "set at least one of: "+strings.Join(keys, ", "),
		"grader %q (%s): no checks configured", def.Name, def.Type)
}

// checksNothing is the grader for a text or code grader whose config checks nothing: waza passes
// it in every run (docs/graders.md, "Graders that check nothing"), and so does skillgate, with a
// warning.
func checksNothing(def *spec.Grader, keys ...string) (Grader, spec.Diagnostics) {
	g := GraderFunc(func(context.Context, *Input) (*results.GraderResult, error) {
		return result(def, 1, true, "No checks configured", nil), nil
	})
	return g, spec.Diagnostics{spec.Warnf(def.ConfigPos(), "config", "set at least one of: "+strings.Join(keys, ", "),
		"grader %q (%s): no checks configured; it passes every run", def.Name, def.Type)}
}

// nothingToCheck is the grader for the other types when their config checks nothing: waza cannot
// create such a grader, so each run it grades errors; skillgate does the same, with a warning
// instead of refusing the suite.
func nothingToCheck(def *spec.Grader, keys ...string) (Grader, spec.Diagnostics) {
	msg := fmt.Sprintf("grader %q (%s): no checks configured", def.Name, def.Type)
	return Failing(msg), spec.Diagnostics{spec.Warnf(def.ConfigPos(), "config", "set at least one of: "+strings.Join(keys, ", "),
		"%s; it errors in every run, as in waza", msg)}
}

// pattern is a compiled pattern of a waza grader. waza is Go, so its patterns are RE2 (Go's
// regexp), which never backtracks: matching cannot time out or fail.
type pattern struct{ re *regex.Regexp }

func (p *pattern) MatchString(s string) bool {
	ok, _ := p.re.MatchString(s)
	return ok
}

func (p *pattern) Match(b []byte) bool {
	ok, _ := p.re.Match(b)
	return ok
}

// compilePattern compiles one RE2 pattern from the config (flags: regex.IgnoreCase for waza's
// case-insensitive ones); path locates it for the diagnostic.
func compilePattern(def *spec.Grader, flags regex.Flags, src string, path ...any) (*pattern, *spec.Diagnostic) {
	re, err := regex.Compile(src, regex.RE2, flags)
	if err != nil {
		key := spec.KeyPath(append([]any{"config"}, path...)...)
		d := spec.Errorf(def.ConfigAt(path...), key, "write an RE2 regular expression (https://github.com/google/re2/wiki/Syntax); lookarounds and backreferences are not supported",
			"grader %q: invalid regular expression %q: %s", def.Name, src, regexErrorText(err))
		return nil, &d
	}
	return &pattern{re}, nil
}

func regexErrorText(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// compilePatterns compiles a list of patterns found at config path `path` (item i at path[i]).
func compilePatterns(def *spec.Grader, patterns []string, path ...any) ([]*pattern, spec.Diagnostics) {
	var diags spec.Diagnostics
	out := make([]*pattern, len(patterns))
	for i, p := range patterns {
		re, d := compilePattern(def, 0, p, append(append([]any(nil), path...), i)...)
		if d != nil {
			diags = append(diags, *d)
			continue
		}
		out[i] = re
	}
	return out, diags
}

// workspacePath checks that a configured path names something inside the run's workspace and
// returns it cleaned, with forward slashes (the form os.Root accepts on every platform).
func workspacePath(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("the path is empty")
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "" {
		return "", fmt.Errorf("%q is absolute; paths are relative to the run's workspace", p)
	}
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%q leaves the run's workspace", p)
	}
	return clean, nil
}

// itemPath checks the `path` of item i of the config list `key` (a what: "content pattern"): it
// must be given, and inside the workspace. It returns the cleaned path or a diagnostic.
func itemPath(def *spec.Grader, p, key string, i int, what string) (string, *spec.Diagnostic) {
	if p == "" {
		d := spec.Errorf(def.ConfigAt(key, i), spec.KeyPath("config", key, i, "path"),
			"add `path: <file in the workspace>`", "grader %q: %s without a path", def.Name, what)
		return "", &d
	}
	return checkWorkspacePath(def, p, key, i, "path")
}

// checkWorkspacePath returns the cleaned path or a diagnostic at the config path.
func checkWorkspacePath(def *spec.Grader, p string, path ...any) (string, *spec.Diagnostic) {
	clean, err := workspacePath(p)
	if err != nil {
		key := spec.KeyPath(append([]any{"config"}, path...)...)
		d := spec.Errorf(def.ConfigAt(path...), key, "use a path relative to the workspace, without `..`",
			"grader %q: %v", def.Name, err)
		return "", &d
	}
	return clean, nil
}
