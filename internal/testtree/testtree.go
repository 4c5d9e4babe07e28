// Package testtree writes the files a test needs into a folder: suites, fixtures, skills.
package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write creates each file (slash-separated path below root → content) with the folders it needs,
// failing the test on an error.
func Write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		write(t, root, name, []byte(content))
	}
}

// WriteSame creates each named file (slash-separated path below root) with the same content.
func WriteSame(t testing.TB, root string, content []byte, names ...string) {
	t.Helper()
	for _, name := range names {
		write(t, root, name, content)
	}
}

func write(t testing.TB, root, name string, content []byte) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, content, 0o644); err != nil {
		t.Fatal(err)
	}
}
