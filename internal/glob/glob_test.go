package glob

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

// TestMatch covers the patterns of the three dialects this package replaced: the action's
// suites input (folders and eval.yaml paths), the --task/--tags filters (ids, names, tags) and
// eval.yaml's task globs.
func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		// suites input
		{"evals/*", "evals/greet", true},
		{"evals/*", "evals/greet/eval.yaml", false},
		{"evals/**", "evals/a/b/eval.yaml", true},
		{"evals/**/eval.yaml", "evals/eval.yaml", true},
		{"evals/**/eval.yaml", "evals/x/y/eval.yaml", true},
		{"evals/**/eval.yaml", "other/x/eval.yaml", false},
		{"**", "a", true},
		{"**/greet", "deep/down/greet", true},
		{"**/greet", "greet", true},
		{"evals/*", "evals/.github", true}, // paths, not shell words: dots match
		{"**/**/**/x", "a/b/c/d/e/f/g/h/i/j/x", true},
		{"**/**/**/x", "a/b/c/d/e/f/g/h/i/j/y", false},
		{"evals/{greet,farewell}", "evals/farewell", true},
		// --task and --tags
		{"greet-*", "greet-formal", true},
		{"greet-*", "farewell", false},
		{"gr?et", "greet", true},
		{"gr?et", "grt", false},
		{"[gh]reet", "hreet", true},
		{"[!g]reet", "greet", false},
		{"tier=smoke", "tier=smoke", true},
		{"tier=*", "tier=smoke", true},
		{"*", "a/b", false}, // a star stays within a segment
		{"Say *", "Say hello", true},
		{`literal\*`, "literal*", true},
		{`literal\*`, "literally", false},
		// task files, relative to eval.yaml
		{"tasks/*.yaml", "tasks/a.yaml", true},
		{"tasks/*.y*ml", "tasks/b.yml", true},
		{"tasks/**/*.yaml", "tasks/sub/deeper/d.yaml", true},
		{"../shared/*.yaml", "../shared/t.yaml", true},
		// malformed patterns match nothing
		{"[", "[", false},
		{"a/**b", "a/b", false},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
	if !MatchAny([]string{"nope", "greet-*"}, "x", "greet-1") || MatchAny(nil, "x") || MatchAny([]string{"*"}) {
		t.Errorf("MatchAny")
	}
}

func TestValidate(t *testing.T) {
	for pattern, ok := range map[string]bool{
		"evals/**/eval.yaml": true,
		"*":                  true,
		"{a,b}/c":            true,
		"[abc]":              true,
		"tasks/[.yaml":       false,
		"{a,b":               false,
		`trailing\`:          false,
		"evals/**eval.yaml":  false,
		"a**":                false,
	} {
		if err := Validate(pattern); (err == nil) != ok {
			t.Errorf("Validate(%q) = %v, want ok=%v", pattern, err, ok)
		}
	}
	for p, want := range map[string]bool{"evals/a": false, "evals/*": true, "a?": true, "[ab]": true, "{a,b}": true, `a\b`: true} {
		if HasMeta(p) != want {
			t.Errorf("HasMeta(%q) = %v", p, !want)
		}
	}
}

func TestFiles(t *testing.T) {
	root := t.TempDir()
	testtree.WriteSame(t, root, []byte("x: 1\n"), "tasks/a.yaml", "tasks/b.yml", "tasks/sub/c.yaml", "tasks/sub/deeper/d.yaml",
		"tasks/.hidden/e.yaml", "tasks/.f.yaml", "other/g.yaml", "tasks/node_modules/h.yaml", "tasks/.git/i.yaml",
		"shared/s.yaml")
	if err := os.Symlink(filepath.Join(root, "tasks", "sub"), filepath.Join(root, "tasks", "link")); err != nil {
		t.Fatal(err)
	}
	rel := func(dir string, ps []string) []string {
		var out []string
		for _, p := range ps {
			r, err := filepath.Rel(dir, p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	cases := []struct {
		dir, pattern string
		want         []string
	}{
		{"", "tasks/*.yaml", []string{"tasks/a.yaml"}},
		{"", "tasks/*.y*ml", []string{"tasks/a.yaml", "tasks/b.yml"}},
		{"", "tasks/*.{yaml,yml}", []string{"tasks/a.yaml", "tasks/b.yml"}},
		{"", "tasks/**/*.yaml", []string{"tasks/a.yaml", "tasks/sub/c.yaml", "tasks/sub/deeper/d.yaml"}},
		{"", "**/c.yaml", []string{"tasks/sub/c.yaml"}},
		// symbolic links are listed, not followed
		{"", "tasks/**", []string{"tasks/a.yaml", "tasks/b.yml", "tasks/link", "tasks/sub/c.yaml", "tasks/sub/deeper/d.yaml"}},
		{"", "tasks/.*.yaml", []string{"tasks/.f.yaml"}},
		{"", "tasks/.hidden/*.yaml", []string{"tasks/.hidden/e.yaml"}},
		{"", "tasks/node_modules/*.yaml", []string{"tasks/node_modules/h.yaml"}},
		{"", "tasks/[ab].y*", []string{"tasks/a.yaml", "tasks/b.yml"}},
		{"", "tasks/a.yaml", []string{"tasks/a.yaml"}},
		{"", "nothing/*.yaml", nil},
		{"", "tasks/", nil},
		{"tasks", "../shared/*.yaml", []string{"../shared/s.yaml"}},
	}
	for _, c := range cases {
		dir := filepath.Join(root, c.dir)
		got, err := Files(dir, c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		if !slices.Equal(rel(dir, got), c.want) {
			t.Errorf("Files(%s, %s) = %v, want %v", c.dir, c.pattern, rel(dir, got), c.want)
		}
	}
	abs, err := Files("/elsewhere", filepath.ToSlash(root)+"/tasks/*.yaml")
	if err != nil || len(abs) != 1 || !strings.HasSuffix(abs[0], filepath.Join("tasks", "a.yaml")) {
		t.Errorf("absolute pattern = %v %v", abs, err)
	}
	for _, bad := range []string{"tasks/[.yaml", "tasks/**.yaml"} {
		if _, err := Files(root, bad); err == nil {
			t.Errorf("Files(%q): a malformed pattern must be an error", bad)
		}
	}
}

func FuzzMatch(f *testing.F) {
	f.Add("evals/**/eval.yaml", "evals/a/b/eval.yaml")
	f.Add("**/**/*", "a/b")
	f.Add("[", "x")
	f.Add("{a,{b,c}}/**", "c/d")
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if Match(pattern, name) && Validate(pattern) != nil {
			t.Fatalf("malformed %q matched %q", pattern, name)
		}
	})
}
