package spec

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func writeTree(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestGlobFiles(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, "tasks/a.yaml", "tasks/b.yml", "tasks/sub/c.yaml", "tasks/sub/deeper/d.yaml",
		"tasks/.hidden/e.yaml", "tasks/.f.yaml", "other/g.yaml", "tasks/node_modules/h.yaml")
	rel := func(ps []string) []string {
		var out []string
		for _, p := range ps {
			r, _ := filepath.Rel(root, p)
			out = append(out, filepath.ToSlash(r))
		}
		return out
	}
	cases := []struct {
		pattern string
		want    []string
	}{
		{"tasks/*.yaml", []string{"tasks/a.yaml"}},
		{"tasks/*.y*ml", []string{"tasks/a.yaml", "tasks/b.yml"}},
		{"tasks/**/*.yaml", []string{"tasks/a.yaml", "tasks/sub/c.yaml", "tasks/sub/deeper/d.yaml"}},
		{"**/c.yaml", []string{"tasks/sub/c.yaml"}},
		{"tasks/**", []string{"tasks/a.yaml", "tasks/b.yml", "tasks/sub/c.yaml", "tasks/sub/deeper/d.yaml"}},
		{"tasks/.*.yaml", []string{"tasks/.f.yaml"}},
		{"tasks/.hidden/*.yaml", []string{"tasks/.hidden/e.yaml"}},
		{"tasks/[ab].y*", []string{"tasks/a.yaml", "tasks/b.yml"}},
		{"nothing/*.yaml", nil},
	}
	for _, c := range cases {
		got, err := globFiles(root, c.pattern)
		if err != nil {
			t.Fatalf("%s: %v", c.pattern, err)
		}
		if !reflect.DeepEqual(rel(got), c.want) {
			t.Errorf("%s = %v, want %v", c.pattern, rel(got), c.want)
		}
	}
	abs, err := globFiles("/elsewhere", filepath.ToSlash(root)+"/tasks/*.yaml")
	if err != nil || len(abs) != 1 {
		t.Errorf("absolute pattern = %v %v", abs, err)
	}
	if _, err := globFiles(root, "tasks/[.yaml"); err == nil {
		t.Errorf("a malformed pattern must be an error")
	}
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, "evals/a/eval.yaml", "evals/b/eval.yml", "evals/b/tasks/t.yaml", "evals/.git/eval.yaml",
		"evals/node_modules/x/eval.yaml", "evals/.github/evals/c/eval.yaml", "evals/.skillgate/workspaces/a/eval.yaml", "evals/out/workspaces/b/eval.yaml",
		"single/custom-name.yaml")
	got, err := Discover([]string{
		filepath.Join(root, "evals"),
		filepath.Join(root, "single", "custom-name.yaml"),
		filepath.Join(root, "evals", "a"), // overlaps: deduplicated
	}, filepath.Join(root, "evals", "out"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		filepath.Join(root, "evals/.github/evals/c/eval.yaml"), // dot-folders are searched (as waza does)
		filepath.Join(root, "evals/a/eval.yaml"),
		filepath.Join(root, "evals/b/eval.yml"),
		filepath.Join(root, "single/custom-name.yaml"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Discover = %v\nwant %v", got, want)
	}
	if _, err := Discover([]string{filepath.Join(root, "missing")}); err == nil {
		t.Errorf("a missing path must be an error")
	}
	// A skipped folder given explicitly is searched.
	got, err = Discover([]string{filepath.Join(root, "evals", "node_modules")})
	if err != nil || len(got) != 1 {
		t.Errorf("explicit dot-folder = %v %v", got, err)
	}
}
