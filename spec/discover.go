package spec

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Discover turns command-line PATHs into eval.yaml files: a file is taken as given (whatever its
// name); a folder is searched recursively for files named eval.yaml or eval.yml, skipping .git,
// node_modules and other dot-folders. The result is absolute, sorted and without duplicates.
func Discover(paths []string) ([]string, error) {
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
				if path != abs && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
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
