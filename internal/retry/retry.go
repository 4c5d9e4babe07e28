// Package retry holds what skillgate's HTTP clients (GitHub's API, the LLM judge) share when a
// request fails for a reason that may pass: an exponential backoff with jitter, so clients
// that failed together do not all come back at the same instant, and the wait the server asks
// for, honoured as given.
package retry

import (
	"context"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Backoff is an exponential backoff with jitter.
type Backoff struct {
	Base time.Duration // the wait after the first failure, before jitter
	Max  time.Duration // the longest wait, before jitter
	// Rand returns a number in [0, 1); nil uses math/rand/v2. Tests inject it.
	Rand func() float64
}

// Delay is the wait after the attempt-th failed try (counted from 1): Base doubled per try and
// capped at Max, less a random part of up to half of it.
func (b Backoff) Delay(attempt int) time.Duration {
	d := b.Max
	if shift := attempt - 1; shift >= 0 && shift < 32 {
		d = min(b.Base<<shift, b.Max)
	}
	r := rand.Float64
	if b.Rand != nil {
		r = b.Rand
	}
	return d - time.Duration(r()*float64(d/2))
}

// After is how long the reply's headers ask the client to wait, and whether they ask at all.
// It reads, in order: GitHub Models' x-ratelimit-timeremaining (seconds), Retry-After (seconds
// or an HTTP date), OpenAI's retry-after-ms, and GitHub's x-ratelimit-reset (a Unix time, one
// second added for clock skew) when x-ratelimit-remaining is 0. Unreadable values are ignored.
func After(h http.Header, now time.Time) (time.Duration, bool) {
	if d, ok := seconds(h.Get("X-Ratelimit-Timeremaining")); ok {
		return d, true
	}
	if v := h.Get("Retry-After"); v != "" {
		if d, ok := seconds(v); ok {
			return d, true
		}
		if at, err := http.ParseTime(strings.TrimSpace(v)); err == nil {
			return max(at.Sub(now), 0), true
		}
	}
	if d, ok := scaled(h.Get("Retry-After-Ms"), time.Millisecond); ok {
		return d, true
	}
	if strings.TrimSpace(h.Get("X-Ratelimit-Remaining")) == "0" {
		if reset, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-Ratelimit-Reset")), 10, 64); err == nil {
			return max(time.Unix(reset, 0).Sub(now)+time.Second, 0), true
		}
	}
	return 0, false
}

// seconds reads a non-negative number of seconds. A wait of years is kept as a very long one
// (callers refuse waits longer than they can afford).
func seconds(v string) (time.Duration, bool) {
	return scaled(v, time.Second)
}

func scaled(v string, unit time.Duration) (time.Duration, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || f < 0 || math.IsNaN(f) {
		return 0, false
	}
	return time.Duration(min(f*float64(unit), float64(longest))), true
}

// longest bounds a server's wait, far below time.Duration's limit.
const longest = 100 * 365 * 24 * time.Hour

// Sleep waits d, or until ctx ends (then it returns ctx's error).
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
