//go:build unix

package reap

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An agent leaves folders it cannot be cleaned up after by os.RemoveAll: unreadable (000),
// unwritable (500), nested. RemoveTree removes them. Permissions bind only other users than
// root, so as root the test removes as an ordinary user (nobody) in a child process.
func TestRemoveTreeOpensUpLockedFolders(t *testing.T) {
	if os.Getenv("SKILLGATE_TEST_REMOVETREE") != "" {
		removeTreeChild(t, os.Getenv("SKILLGATE_TEST_REMOVETREE"))
		return
	}
	// t.TempDir's folders are private to root: nobody must reach the folder and the binary.
	parent, err := os.MkdirTemp("", "skillgate-removetree-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { RemoveTree(parent) })
	if err := os.Chmod(parent, 0o777); err != nil {
		t.Fatal(err)
	}
	if os.Getuid() != 0 {
		removeTreeChild(t, parent)
		return
	}
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(parent, "reap.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^TestRemoveTreeOpensUpLockedFolders$", "-test.v")
	cmd.Env = append(os.Environ(), "SKILLGATE_TEST_REMOVETREE="+parent)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil && !strings.Contains(string(out), "--- FAIL"):
		t.Skipf("cannot run as nobody here: %v\n%s", err, out)
	case err != nil:
		t.Fatalf("as nobody:\n%s", out)
	case !strings.Contains(string(out), "--- PASS"):
		t.Skipf("the child did not run the test:\n%s", out)
	}
}

func removeTreeChild(t *testing.T, parent string) {
	ws := filepath.Join(parent, "ws")
	for _, d := range []string{"ws/locked/deeper", "ws/readonly"} {
		if err := os.MkdirAll(filepath.Join(parent, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(ws, "locked", "deeper", "f"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(ws, "readonly", "g"), []byte("x"), 0o444)
	os.Symlink("/", filepath.Join(ws, "link-to-root")) // followed, it would chmod /
	os.Chmod(filepath.Join(ws, "locked", "deeper"), 0o000)
	os.Chmod(filepath.Join(ws, "locked"), 0o000)
	os.Chmod(filepath.Join(ws, "readonly"), 0o500)
	if os.RemoveAll(ws) == nil {
		t.Fatal("os.RemoveAll removed the locked folders: the test proves nothing here")
	}
	if err := RemoveTree(ws); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(ws); !os.IsNotExist(err) {
		t.Errorf("the workspace is still there: %v", err)
	}
}
