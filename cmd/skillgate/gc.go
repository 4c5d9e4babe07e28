package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
)

// deferGC keeps the garbage collector off until the heap first reaches 64 MiB. A small suite's
// whole run allocates a few tens of MB and takes tens of milliseconds, of which collecting was a
// quarter of the CPU; from the first collection on (a large run), the collector runs with its
// default settings again, so peak memory of large runs is unchanged past the first 64 MiB. GOGC
// or GOMEMLIMIT in the environment leave the collector as they say.
func deferGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(64 << 20)
	// The first collection finds the sentinel unreachable and runs its finalizer. (It holds a
	// pointer so the tiny allocator, whose objects may never be finalized, does not take it.)
	type sentinel struct {
		_ *int
		_ [8]byte
	}
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) { restoreGC() })
}

func restoreGC() {
	debug.SetMemoryLimit(math.MaxInt64)
	debug.SetGCPercent(100)
}
