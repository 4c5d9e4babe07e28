//go:build unix

package results

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time the test process has used. Benchmarks report it
// per operation because wall time is unreliable on a shared machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
