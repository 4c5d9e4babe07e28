package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	root := t.TempDir()
	Write(t, root, map[string]string{"eval.yaml": "name: x\n", "tasks/deep/t.yaml": "id: t\n"})
	WriteSame(t, root, []byte("x: 1\n"), "a/b.yaml", "c.yaml")
	want := map[string]string{"eval.yaml": "name: x\n", "tasks/deep/t.yaml": "id: t\n", "a/b.yaml": "x: 1\n", "c.yaml": "x: 1\n"}
	for name, content := range want {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil || string(got) != content {
			t.Errorf("%s: %q, %v; want %q", name, got, err, content)
		}
	}
}
