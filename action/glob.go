package action

import (
	"fmt"
	"path"
	"strings"
)

// splitGlob splits a slash-separated pattern into segments, each a path.Match pattern or `**`
// (any number of folders).
func splitGlob(p string) ([]string, error) {
	clean := path.Clean(strings.TrimSpace(p))
	if clean == "." {
		return []string{"."}, nil
	}
	segs := strings.Split(clean, "/")
	for _, s := range segs {
		if s == "**" {
			continue
		}
		if strings.Contains(s, "**") {
			return nil, fmt.Errorf("`**` must be a whole path segment, as in evals/**/eval.yaml")
		}
		if _, err := path.Match(s, ""); err != nil {
			return nil, fmt.Errorf("bad pattern %q: %v", s, err)
		}
	}
	return segs, nil
}

// matchGlob reports whether the slash-separated relative path matches the segments.
func matchGlob(segs []string, rel string) bool {
	if len(segs) == 1 && segs[0] == "." {
		return rel == "." || rel == ""
	}
	return matchSegs(segs, strings.Split(rel, "/"))
}

// matchSegs matches with dynamic programming, so patterns with many `**` stay linear in
// practice: ok[i][j] says whether segs[i:] matches parts[j:].
func matchSegs(segs, parts []string) bool {
	n, m := len(segs), len(parts)
	ok := make([][]bool, n+1)
	for i := range ok {
		ok[i] = make([]bool, m+1)
	}
	ok[n][m] = true
	for i := n - 1; i >= 0; i-- {
		for j := m; j >= 0; j-- {
			if segs[i] == "**" {
				// zero folders, or one more folder
				ok[i][j] = ok[i+1][j] || (j < m && ok[i][j+1])
				continue
			}
			if j < m {
				if match, _ := path.Match(segs[i], parts[j]); match {
					ok[i][j] = ok[i+1][j+1]
				}
			}
		}
	}
	return ok[0][0]
}

func hasGlobMeta(p string) bool { return strings.ContainsAny(p, "*?[") }
