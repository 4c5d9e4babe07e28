package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// The collector is back to its defaults after the first collection.
func TestDeferGCRestoresAfterFirstCollection(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer restoreGC()
	deferGC()
	if got := debug.SetGCPercent(-1); got != -1 {
		t.Fatalf("GC percent %d right after deferGC, want -1 (off)", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		runtime.GC() // finds the sentinel; its finalizer runs on the finalizer goroutine
		time.Sleep(10 * time.Millisecond)
		if debug.SetMemoryLimit(-1) == math.MaxInt64 {
			return
		}
	}
	t.Fatal("the collector settings were not restored after collections")
}
