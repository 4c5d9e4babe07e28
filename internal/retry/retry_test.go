package retry

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestBackoffJitters(t *testing.T) {
	tests := []struct {
		attempt int
		rand    float64
		want    time.Duration
	}{
		{1, 0, time.Second},
		{2, 0, 2 * time.Second},
		{3, 0, 4 * time.Second},
		{1, 0.5, 750 * time.Millisecond},
		{3, 0.5, 3 * time.Second},
		{3, 0.999, 2*time.Second + 2*time.Millisecond},
		{7, 0, 30 * time.Second}, // capped
		{7, 0.5, 22500 * time.Millisecond},
		{100, 0, 30 * time.Second}, // no overflow
		{0, 0, 30 * time.Second},
	}
	for _, tt := range tests {
		b := Backoff{Base: time.Second, Max: 30 * time.Second, Rand: func() float64 { return tt.rand }}
		if got := b.Delay(tt.attempt); got != tt.want {
			t.Errorf("Delay(%d) with rand %v = %v, want %v", tt.attempt, tt.rand, got, tt.want)
		}
	}
	// The default source stays within [d/2, d] and is not constant.
	b := Backoff{Base: time.Second, Max: time.Minute}
	seen := map[time.Duration]bool{}
	for range 100 {
		d := b.Delay(3)
		if d < 2*time.Second || d > 4*time.Second {
			t.Fatalf("Delay(3) = %v, outside [2s, 4s]", d)
		}
		seen[d] = true
	}
	if len(seen) < 2 {
		t.Errorf("100 delays without jitter: %v", seen)
	}
}

func TestAfterHonoursServerWaits(t *testing.T) {
	now := time.Unix(1783080000, 0).UTC()
	tests := []struct {
		name    string
		headers map[string]string
		want    time.Duration
		ok      bool
	}{
		{"none", nil, 0, false},
		{"Retry-After seconds", map[string]string{"Retry-After": "3"}, 3 * time.Second, true},
		{"Retry-After zero", map[string]string{"Retry-After": "0"}, 0, true},
		{"Retry-After date", map[string]string{"Retry-After": now.Add(90 * time.Second).Format(http.TimeFormat)}, 90 * time.Second, true},
		{"Retry-After date past", map[string]string{"Retry-After": now.Add(-time.Hour).Format(http.TimeFormat)}, 0, true},
		{"Retry-After junk", map[string]string{"Retry-After": "soon"}, 0, false},
		{"Retry-After negative", map[string]string{"Retry-After": "-5"}, 0, false},
		{"GitHub Models wins over Retry-After", map[string]string{"x-ratelimit-timeremaining": "7", "Retry-After": "30"}, 7 * time.Second, true},
		{"unreadable timeremaining falls through", map[string]string{"x-ratelimit-timeremaining": "junk", "Retry-After": "30"}, 30 * time.Second, true},
		{"retry-after-ms", map[string]string{"retry-after-ms": "250"}, 250 * time.Millisecond, true},
		{"rate-limit reset", map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "1783080010"}, 11 * time.Second, true},
		{"reset without exhaustion", map[string]string{"X-RateLimit-Remaining": "4", "X-RateLimit-Reset": "1783080010"}, 0, false},
		{"a long wait is kept", map[string]string{"Retry-After": "90000"}, 25 * time.Hour, true},
		{"an absurd wait is bounded", map[string]string{"Retry-After": "1e300"}, longest, true},
		{"an infinite wait is bounded", map[string]string{"retry-after-ms": "+Inf"}, longest, true},
	}
	for _, tt := range tests {
		h := http.Header{}
		for k, v := range tt.headers {
			h.Set(k, v)
		}
		got, ok := After(h, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: After = %v %v, want %v %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSleepStopsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a cancelled context = %v", err)
	}
	if err := Sleep(context.Background(), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
}
