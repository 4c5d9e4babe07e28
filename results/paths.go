package results

import (
	"path/filepath"
	"strings"
)

// PathIn is where a suite's results file lives in an output folder: <out>/results/<slug>.json.
// The replay executor and the Action find results files by this rule.
func PathIn(outDir, suite string) string {
	return filepath.Join(outDir, "results", Slug(suite)+".json")
}

// Slug turns a suite name into a file name: lower case letters, digits, '.', '_'; runs of
// anything else become one '-'.
func Slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '.' || r == '_' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.Trim(b.String(), "-.")
	if s == "" {
		return "suite"
	}
	return s
}
