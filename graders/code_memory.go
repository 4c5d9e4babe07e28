package graders

import (
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillgate/skillgate/internal/envmib"
)

// Memory bounds of Python and JavaScript assertions (docs/graders.md#memory). Two mechanisms:
//
//   - Bulk allocations (repetition, list(…) of a long iterable, split, join, replace, fill,
//     repeat, pad, Array.from, regular-expression match lists) are sized before they happen and
//     charged to the assertion; one that would take the assertion past its budget fails it. Go
//     cannot recover from an allocation the machine cannot satisfy, so these must never start.
//   - A watchdog samples the heap while assertions run; when it has grown by more than the
//     budget (confirmed by a collection) it interrupts the running assertions. Each interrupted
//     assertion is evaluated again alone; if the heap grows past the budget again, that one is
//     the culprit and fails. This catches growth made of many small steps (string doubling,
//     comprehensions) and keeps the time limits meaningful for such code.

// codeMemoryBudget is the memory budget of one assertion, in bytes.
var codeMemoryBudget = envmib.Bytes(codeMemoryEnv, defaultCodeMemoryBudget)

const (
	defaultCodeMemoryBudget = 256 << 20
	// codeMemoryEnv overrides the budget, in MiB.
	codeMemoryEnv = "SKILLGATE_CODE_MEMORY_MIB"
	// watchInterval is how often the watchdog samples the heap while assertions run.
	watchInterval = 5 * time.Millisecond
)

// errMemoryLimit is an assertion stopped by its memory budget.
type errMemoryLimit struct {
	what string // the allocation refused, or "" when the watchdog stopped the assertion
	size int64
}

func (e *errMemoryLimit) Error() string { return memoryLimitText(e.what, e.size) }

func memoryLimitText(what string, size int64) string {
	msg := fmt.Sprintf("the assertion went over its memory budget of %s", formatBytes(codeMemoryBudget))
	if what != "" {
		msg = fmt.Sprintf("the assertion would allocate %s for %s, over its memory budget of %s", formatBytes(size), what, formatBytes(codeMemoryBudget))
	}
	return msg + " (set " + codeMemoryEnv + " to change the budget)"
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// memAccount is the memory charged to one assertion evaluation by its bulk allocations.
type memAccount struct{ used int64 }

// charge records an allocation of size bytes (count × unit, saturating) for what, or refuses it.
func (a *memAccount) charge(what string, count, unit int64) error {
	size := mulSat(count, unit)
	if size <= 0 {
		return nil
	}
	if a.used+size > codeMemoryBudget || size > codeMemoryBudget {
		return &errMemoryLimit{what: what, size: size}
	}
	a.used += size
	return nil
}

func (a *memAccount) reset() { a.used = 0 }

func mulSat(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// --- the heap watchdog ---

// memEval is one engine run (one run's assertions, evaluated one after another) as the
// watchdog sees it.
type memEval struct {
	busy      atomic.Bool // an assertion is being evaluated
	tripped   atomic.Bool // the watchdog interrupted it
	exclusive bool        // evaluated alone (after a trip): a trip now is the assertion's fault
	interrupt func()
}

var watch struct {
	mu      sync.Mutex
	active  map[*memEval]struct{}
	running bool
	base    uint64 // heap bytes the growth is measured from
	// exclusive is held for writing while an interrupted assertion is evaluated again alone.
	exclusive sync.RWMutex
}

func watchStart(e *memEval) {
	watch.mu.Lock()
	defer watch.mu.Unlock()
	if watch.active == nil {
		watch.active = map[*memEval]struct{}{}
	}
	watch.active[e] = struct{}{}
	if !watch.running {
		watch.running = true
		_, watch.base = heapBytes()
		go watchLoop()
	}
}

func watchStop(e *memEval) {
	watch.mu.Lock()
	delete(watch.active, e)
	watch.mu.Unlock()
}

var heapSamples = []metrics.Sample{
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/gc/heap/live:bytes"},
}

// heapBytes reads the bytes of heap objects (live or not yet swept) and the bytes the last
// collection found live. Only the watchdog goroutine and callers holding watch.mu read it.
func heapBytes() (objects, live uint64) {
	metrics.Read(heapSamples)
	for i, p := range []*uint64{&objects, &live} {
		if heapSamples[i].Value.Kind() == metrics.KindUint64 {
			*p = heapSamples[i].Value.Uint64()
		}
	}
	return objects, live
}

// watchLoop interrupts the busy assertions when the heap has grown by more than the budget
// since the watch began: the live heap of the last collection is over base + budget, or the
// heap holds more than 2 × base + budget (the collector lets garbage reach the live size
// before it runs, so more than that is growth it could not keep up with). It never forces a collection: a collection waits for the very
// allocations it would stop.
func watchLoop() {
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for range t.C {
		watch.mu.Lock()
		if len(watch.active) == 0 {
			watch.running = false
			watch.mu.Unlock()
			return
		}
		budget := uint64(codeMemoryBudget)
		objects, live := heapBytes()
		if live <= watch.base+budget && objects <= 2*watch.base+budget {
			watch.base = min(watch.base, live)
			watch.mu.Unlock()
			continue
		}
		for e := range watch.active {
			if e.busy.Load() {
				e.tripped.Store(true)
				e.interrupt()
			}
		}
		// Measure from here on: the culprit's memory leaves the live heap at the next
		// collection and base follows it down; growth held elsewhere does not trip again.
		watch.base = live
		watch.mu.Unlock()
	}
}

// guardedRun is an engine run: evalOnce evaluates assertion i, reset readies the run to
// evaluate an interrupted assertion again.
type guardedRun interface {
	evalOnce(i int) (bool, string)
	reset()
}

// evalGuarded evaluates one assertion under the watchdog. Assertions the watchdog interrupted
// are evaluated again alone, so only the one that grows the heap by itself fails.
func evalGuarded(e *memEval, r guardedRun, i int) (bool, string) {
	watch.exclusive.RLock()
	e.busy.Store(true)
	ok, errText := r.evalOnce(i)
	e.busy.Store(false)
	watch.exclusive.RUnlock()
	if !e.tripped.Load() {
		return ok, errText
	}
	watch.exclusive.Lock()
	defer watch.exclusive.Unlock()
	// Renew the runtime first, so what the interrupted evaluation built is garbage, then collect
	// it: nothing else evaluates now, and the growth is measured from what stays.
	r.reset()
	runtime.GC()
	watch.mu.Lock()
	_, watch.base = heapBytes()
	watch.mu.Unlock()
	e.tripped.Store(false)
	e.exclusive = true
	e.busy.Store(true)
	ok, errText = r.evalOnce(i)
	e.busy.Store(false)
	e.exclusive = false
	if e.tripped.Swap(false) {
		return false, memoryLimitText("", 0)
	}
	return ok, errText
}
