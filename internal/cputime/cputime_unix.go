//go:build unix

// Package cputime reads the CPU time this process has used. Benchmarks report it per operation
// next to wall time: unlike wall time it barely grows when other processes compete for the cores.
package cputime

import (
	"syscall"
	"time"
)

// Process is the user and system CPU time the process has used so far.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
