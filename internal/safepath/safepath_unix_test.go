//go:build unix

package safepath

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestSpecialFiles(t *testing.T) {
	root := t.TempDir()
	fifo := filepath.Join(root, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Reading a FIFO would block forever: it must be refused before it is opened.
	if _, err := ReadFile(root, fifo, 0); !errors.Is(err, ErrSpecial) || !strings.Contains(err.Error(), "a FIFO") {
		t.Errorf("fifo: %v", err)
	}
	if _, err := ReadCapped("/dev/zero", 10); !errors.Is(err, ErrSpecial) || !strings.Contains(err.Error(), "a device") {
		t.Errorf("/dev/zero: %v", err)
	}
}
