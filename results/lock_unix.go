//go:build unix

package results

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive advisory lock without waiting; the kernel releases it when the
// holder dies, however it dies.
func lockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }

func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
