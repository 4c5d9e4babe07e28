//go:build !linux

package reap

import (
	"os"
	"syscall"
)

// SetDeathSignal does nothing: only Linux has a parent-death signal.
func SetDeathSignal(*syscall.SysProcAttr) {}

func pidAlive(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	return signalZero(p)
}

func startTime(int) string { return "" }

// KillTagged needs /proc: elsewhere processes that left their group are not tracked.
func KillTagged(string) int { return 0 }

// killOwnedBy needs /proc: elsewhere processes that left their group are not tracked.
func killOwnedBy(func(string) bool) int { return 0 }
