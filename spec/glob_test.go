package spec

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	testtree.WriteSame(t, root, []byte("tasks: [tasks/*.yaml]\n"), "evals/a/eval.yaml", "evals/b/eval.yml", "evals/b/tasks/t.yaml", "evals/.git/eval.yaml",
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
