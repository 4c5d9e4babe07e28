//go:build unix

package action

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestChownToWorkspace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, as in the action's container")
	}
	ws := t.TempDir()
	out := filepath.Join(ws, ".skillgate", "results")
	os.MkdirAll(out, 0o755)
	file := filepath.Join(out, "greet.json")
	os.WriteFile(file, []byte("{}"), 0o644)
	chownToWorkspace(filepath.Join(ws, ".skillgate"), ws) // workspace owned by root: nothing to do
	if st := stat(t, file); st.Uid != 0 {
		t.Fatalf("changed owner to %d", st.Uid)
	}
	if err := os.Chown(ws, 1001, 127); err != nil {
		t.Skip(err)
	}
	chownToWorkspace(filepath.Join(ws, ".skillgate"), ws)
	for _, p := range []string{filepath.Join(ws, ".skillgate"), out, file} {
		if st := stat(t, p); st.Uid != 1001 || st.Gid != 127 {
			t.Errorf("%s owned by %d:%d, want the workspace's 1001:127", p, st.Uid, st.Gid)
		}
	}
}

func stat(t *testing.T, p string) *syscall.Stat_t {
	t.Helper()
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return info.Sys().(*syscall.Stat_t)
}
