package spec

import (
	"io/fs"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// hasMeta reports whether a pattern has glob characters.
func hasMeta(pattern string) bool { return strings.ContainsAny(pattern, `*?[\`) }

// globFiles returns the regular files matching pattern, sorted. The pattern is slash-separated
// and relative to dir unless absolute; each segment is a path.Match pattern, and a `**` segment
// matches any number of folders. As in shells, wildcards do not match names starting with a dot.
func globFiles(dir, pattern string) ([]string, error) {
	full := filepath.ToSlash(pattern)
	if !filepath.IsAbs(pattern) {
		full = filepath.ToSlash(dir) + "/" + full
	}
	segs := strings.Split(full, "/")
	first := 0
	for first < len(segs) && !hasMeta(segs[first]) {
		first++
	}
	for _, s := range segs[first:] {
		if _, err := path.Match(s, ""); err != nil {
			return nil, err
		}
	}
	var base string
	switch joined := strings.Join(segs[:first], "/"); {
	case first == 0:
		base = "."
	case joined == "":
		base = string(filepath.Separator)
	default:
		base = filepath.FromSlash(path.Clean(joined))
	}
	rest := segs[first:]
	recursive := false
	for _, s := range rest {
		if s == "**" {
			recursive = true
		}
	}
	var out []string
	_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == base {
				return err
			}
			return nil
		}
		if p == base {
			return nil
		}
		rel, relErr := filepath.Rel(base, p)
		if relErr != nil {
			return nil
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" || (!recursive && len(parts) >= len(rest)) {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() || d.Type()&fs.ModeSymlink != 0 {
			if matchSegments(rest, parts) {
				out = append(out, p)
			}
		}
		return nil
	})
	sort.Strings(out)
	return out, nil
}

func matchSegments(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if matchSegments(pat[1:], segs[i:]) {
					return true
				}
				if i < len(segs) && strings.HasPrefix(segs[i], ".") {
					return false
				}
			}
			return false
		}
		if len(segs) == 0 || !matchSegment(pat[0], segs[0]) {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

func matchSegment(pattern, name string) bool {
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(pattern, ".") {
		return false
	}
	ok, _ := path.Match(pattern, name)
	return ok
}
