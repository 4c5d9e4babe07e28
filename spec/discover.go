package spec

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Discover turns command-line PATHs into suite files: a file is taken as given (whatever its
// name); a folder is searched recursively for files named eval.yaml, eval.yml or
// eval.vally.yaml, and for Vally specs named *.eval.yaml (docs/vally.md). The search goes
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
			switch name := d.Name(); {
			case name == "eval.yaml" || name == "eval.yml" || name == "eval.vally.yaml":
				seen[path] = true
			case strings.HasSuffix(name, ".eval.yaml") || strings.HasSuffix(name, ".eval.yml"):
				// Vally names specs *.eval.yaml; other files of that name (experiments,
				// stimulus lists) are not suites.
				if looksLikeVallySpec(path) {
					seen[path] = true
				}
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

// vallySpecLine finds the top-level `stimuli:` key of a Vally spec.
var vallySpecLine = regexp.MustCompile(`(?m)^stimuli[ \t]*:`)

// looksLikeVallySpec reports whether a *.eval.yaml file holds a Vally spec (a top-level
// `stimuli:` key), reading at most its first megabyte.
func looksLikeVallySpec(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 1<<20)
	n, _ := io.ReadFull(f, buf)
	return vallySpecLine.Match(buf[:n])
}
