package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A suite filter maps tag names to a value or a list of values (docs/vally.md). A filter that
// nests its tags under `tags:` — the shape of a public .vally.yaml whose repository has no
// licence, so the file is not copied here; this one is written for the test — can never match:
// it is a warning at the value, with the flat form as the fix, and the well-formed filters of
// the same file are read as before.
func TestVallyProjectFilterShape(t *testing.T) {
	cases := []struct {
		name, filter string
		warn         string // "" for none; else the diagnostic's text, in part
		tags         []string
		matches      bool
	}{
		{"a value", "filter:\n      tier: smoke\n", "", []string{"tier=smoke"}, true},
		{"a list", "filter:\n      priority: [p0, p1]\n", "", []string{"priority=p1"}, true},
		{"two keys", "filter:\n      area: search\n      priority: p0\n", "", []string{"area=search", "priority=p1"}, false},
		{"tags nested", "filter:\n      tags:\n        tier: [\"smoke\"]\n",
			`.vally.yaml:6:7: warning: suites.smoke.filter.tags: a suite filter maps a tag name to a value or a list of values; "tags" is given a mapping, so only stimuli that have a tag named "tags" match`,
			[]string{"tier=smoke"}, false},
		{"a list of mappings", "filter:\n      tier:\n        - {name: smoke}\n", `suites.smoke.filter.tier: a suite filter maps a tag name to a value or a list of values; "tier" is given a list that holds more than values, so only stimuli that have a tag named "tier" match`, []string{"tier=smoke"}, true},
		{"a list with a mapping and a value", "filter:\n      tier: [full, {name: smoke}]\n", `only its values ["full"] count`, []string{"tier=full"}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, ".vally.yaml")
			text := "paths:\n  evals: [evals/]\nsuites:\n  smoke:\n    " + c.filter
			if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			p, diags := LoadVallyProject(file)
			if p == nil || diags.HasErrors() {
				t.Fatalf("%v", diags)
			}
			got := ""
			for _, d := range diags {
				got += strings.TrimPrefix(d.Error(), dir+string(filepath.Separator)) + "\n"
			}
			if (c.warn == "") != (got == "") || !strings.Contains(got, c.warn) {
				t.Errorf("diagnostics %q, want %q", got, c.warn)
			}
			if c.warn != "" && !strings.Contains(got, "(fix: ") {
				t.Errorf("no fix: %q", got)
			}
			if m := p.Suites["smoke"].Matches(c.tags); m != c.matches {
				t.Errorf("Matches(%v) = %v", c.tags, m)
			}
		})
	}
}
