package spec

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Discover turns command-line PATHs into suite files: a file is taken as given (whatever its
// name); a folder is searched recursively for files named eval.yaml or eval.yml. The search goes
// into dot-folders too (suites often live in .github/evals or .agent/evals, and waza finds them
// there); it skips only .git, node_modules, .skillgate (the default output folder) and the
// folders in skip (absolute paths, e.g. another output folder: kept workspaces may hold copies
// of suites). The result is absolute,
// sorted and without duplicates.
func Discover(paths []string, skip ...string) ([]string, error) {
	skipped := map[string]bool{}
	for _, s := range skip {
		if abs, err := filepath.Abs(s); err == nil {
			skipped[abs] = true
		}
	}
	seen := map[string]bool{}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, unwrapPathError(err))
		}
		if !fi.IsDir() {
			seen[abs] = true
			continue
		}
		err = filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if path == abs {
					return err
				}
				return nil
			}
			if d.IsDir() {
				if path != abs && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == ".skillgate" || skipped[path]) {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Name() == "eval.yaml" || d.Name() == "eval.yml" {
				seen[path] = true
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out, nil
}
