// Package glob is skillgate's one glob dialect, for task files (eval.yaml's tasks:), the
// action's suites input and the --task/--tags filters. Patterns are slash-separated:
//
//	a*b     `*`: any run of characters within one path segment
//	a?b     `?`: one character
//	[abc]   one of the characters; [a-z] a range, [!a] or [^a] any but them
//	{a,b}   either alternative
//	a/**/b  `**` as a whole segment: any number of folders, none included
//	\*      the character after the backslash itself
//
// Matching is github.com/bmatcuk/doublestar/v4's.
package glob

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// HasMeta reports whether p is a pattern rather than a plain path.
func HasMeta(p string) bool { return strings.ContainsAny(p, `*?[{\`) }

// Validate reports a malformed pattern. `**` inside a segment (evals/**eval.yaml) is refused:
// it would match like a single `*`, which is never what its writer meant.
func Validate(pattern string) error {
	if !doublestar.ValidatePattern(pattern) {
		return errors.New("unbalanced [ ] or { }, or a trailing \\")
	}
	for _, seg := range strings.Split(pattern, "/") {
		if seg != "**" && strings.Contains(seg, "**") {
			return errors.New("`**` must be a whole path segment, as in evals/**/eval.yaml")
		}
	}
	return nil
}

// Match reports whether the slash-separated name matches pattern as a whole. Wildcards match
// names starting with a dot. A malformed pattern matches nothing.
func Match(pattern, name string) bool {
	if Validate(pattern) != nil {
		return false
	}
	return doublestar.MatchUnvalidated(pattern, name)
}

// MatchAny reports whether any of the values matches any of the patterns.
func MatchAny(patterns []string, values ...string) bool {
	for _, p := range patterns {
		for _, v := range values {
			if Match(p, v) {
				return true
			}
		}
	}
	return false
}

// Files returns the files matching pattern, sorted. The pattern is relative to dir unless
// absolute. As in shells, a wildcard does not match a name starting with a dot (`.*` does),
// and, as in most tools, wildcards do not enter .git or node_modules folders. Symbolic links
// are listed, never followed. A folder that does not exist holds no files.
func Files(dir, pattern string) ([]string, error) {
	if err := Validate(filepath.ToSlash(pattern)); err != nil {
		return nil, err
	}
	base, rest := doublestar.SplitPattern(filepath.ToSlash(pattern))
	base = filepath.FromSlash(base)
	if !filepath.IsAbs(base) {
		base = filepath.Join(dir, base)
	}
	if rest == "" {
		return nil, nil
	}
	var out []string
	err := doublestar.GlobWalk(skipFS{os.DirFS(base)}, rest, func(p string, _ fs.DirEntry) error {
		out = append(out, filepath.Join(base, filepath.FromSlash(p)))
		return nil
	}, doublestar.WithFilesOnly(), doublestar.WithNoFollow(), doublestar.WithNoHidden())
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// skipFS hides .git and node_modules folders from directory listings, so wildcards never
// descend into them; a pattern naming them before any wildcard still reaches them.
type skipFS struct{ fs.FS }

func (s skipFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(s.FS, name)
	return slices.DeleteFunc(entries, func(e fs.DirEntry) bool {
		return e.IsDir() && (e.Name() == ".git" || e.Name() == "node_modules")
	}), err
}

func (s skipFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(s.FS, name) }
