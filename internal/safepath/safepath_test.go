package safepath

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// tree builds root/{in.txt, sub/deep.txt} and outside/secret.txt with the links each case needs.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for f, body := range map[string]string{
		filepath.Join(root, "in.txt"):          "inside",
		filepath.Join(root, "sub", "deep.txt"): "deep",
		filepath.Join(outside, "secret.txt"):   "TOKEN=1",
	} {
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Skipf("symlinks: %v", err)
	}
}

func TestResolve(t *testing.T) {
	root, outside := tree(t)
	link(t, "in.txt", filepath.Join(root, "rel-link"))
	link(t, filepath.Join(root, "sub", "deep.txt"), filepath.Join(root, "abs-link"))
	link(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "escape"))
	link(t, "../outside", filepath.Join(root, "escape-dir"))
	link(t, "sub", filepath.Join(root, "dir-link"))
	link(t, "missing", filepath.Join(root, "dangling"))
	link(t, "loop", filepath.Join(root, "loop"))
	if runtime.GOOS == "linux" {
		link(t, "/proc/self/environ", filepath.Join(root, "env"))
	}
	cases := []struct {
		name  string
		dirOK bool
		want  string // the real path's tail, or the error
		err   error
	}{
		{"in.txt", false, "root/in.txt", nil},
		{"rel-link", false, "root/in.txt", nil},
		{"abs-link", false, "root/sub/deep.txt", nil},
		{"dir-link/deep.txt", false, "root/sub/deep.txt", nil},
		{"sub", true, "root/sub", nil},
		{"sub", false, "is not a regular file (a folder)", ErrSpecial},
		{"escape", false, "outside/secret.txt, outside", ErrOutside},
		{"escape-dir/secret.txt", false, "outside", ErrOutside},
		{"dangling", false, "no such file", fs.ErrNotExist},
		{"nope.txt", false, "no such file", fs.ErrNotExist},
		{"loop", false, "too many", nil},
	}
	if runtime.GOOS == "linux" {
		cases = append(cases, struct {
			name  string
			dirOK bool
			want  string
			err   error
		}{"env", false, "/proc/", ErrOutside})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			real, err := Resolve(root, filepath.Join(root, c.name), c.dirOK)
			if err == nil {
				if !strings.HasSuffix(filepath.ToSlash(real), c.want) {
					t.Errorf("got %s, want …%s", real, c.want)
				}
				return
			}
			if !strings.Contains(err.Error(), c.want) || (c.err != nil && !errors.Is(err, c.err)) {
				t.Errorf("got error %q, want %q (%v)", err, c.want, c.err)
			}
		})
	}
}

func TestReadFileLimit(t *testing.T) {
	root, _ := tree(t)
	if data, err := ReadFile(root, filepath.Join(root, "in.txt"), 6); err != nil || string(data) != "inside" {
		t.Errorf("at the limit: %q %v", data, err)
	}
	_, err := ReadFile(root, filepath.Join(root, "in.txt"), 5)
	if !errors.Is(err, ErrTooBig) || !strings.Contains(err.Error(), "over the size limit of 5 bytes") {
		t.Errorf("over the limit: %v", err)
	}
	if got := FormatSize(16 << 20); got != "16 MiB" {
		t.Errorf("FormatSize = %s", got)
	}
}

// FuzzResolve builds a small tree of links from the input and checks the one promise: a path
// Resolve accepts is, once resolved, inside the root and a regular file.
func FuzzResolve(f *testing.F) {
	f.Add("a", "../x", "a/b")
	f.Add("a", "/etc", "a/passwd")
	f.Add("l", "l", "l")
	f.Add("d", ".", "d/d/d/f")
	f.Add("z", "../../root/f", "z")
	f.Fuzz(func(t *testing.T, name, target, query string) {
		if name == "" || strings.ContainsAny(name, "/\\\x00") || name == "." || name == ".." || strings.Contains(target, "\x00") || strings.Contains(query, "\x00") {
			return
		}
		base := t.TempDir()
		root := filepath.Join(base, "root")
		os.MkdirAll(root, 0o755)
		os.WriteFile(filepath.Join(root, "f"), []byte("x"), 0o644)
		os.WriteFile(filepath.Join(base, "x"), []byte("secret"), 0o644)
		if name != "f" {
			if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
				return
			}
		}
		real, err := Resolve(root, filepath.Join(root, query), false)
		if err != nil {
			return
		}
		realRoot, _ := filepath.EvalSymlinks(root)
		if !Inside(realRoot, real) {
			t.Fatalf("%q (link %s → %s) resolved to %s, outside %s", query, name, target, real, realRoot)
		}
		fi, err := os.Lstat(real)
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%q resolved to %s, not a regular file (%v)", query, real, err)
		}
	})
}

// A root given through a symbolic link resolves its files to the real folder, through the
// cached root, and still refuses what leaves it.
func TestResolveLinkedRoot(t *testing.T) {
	root, outside := tree(t)
	linked := filepath.Join(filepath.Dir(root), "linked-root")
	link(t, root, linked)
	link(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "escape"))
	for range 2 { // the second round reads the cached root
		real, err := Resolve(linked, filepath.Join(linked, "sub", "deep.txt"), false)
		if err != nil || real != filepath.Join(root, "sub", "deep.txt") {
			t.Fatalf("got %q, %v", real, err)
		}
		if _, err := Resolve(linked, filepath.Join(linked, "escape"), false); !errors.Is(err, ErrOutside) {
			t.Fatalf("escape: %v", err)
		}
	}
}
