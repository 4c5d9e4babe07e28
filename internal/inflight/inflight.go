// Package inflight counts what runs at once and the most that ever did: tests of concurrency
// limits (workers, the judge's parallel requests) read the peak.
package inflight

import "sync/atomic"

// Gauge is safe for concurrent use; its zero value counts from nothing.
type Gauge struct {
	now, peak atomic.Int64
}

// Enter counts one more running and raises the peak if need be; the returned func counts it done.
func (g *Gauge) Enter() (leave func()) {
	n := g.now.Add(1)
	for {
		p := g.peak.Load()
		if n <= p || g.peak.CompareAndSwap(p, n) {
			break
		}
	}
	return func() { g.now.Add(-1) }
}

// Peak is the most that ran at once.
func (g *Gauge) Peak() int64 { return g.peak.Load() }
