package action

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Retry limits. GitHub asks clients to wait for Retry-After or the rate-limit reset on 403/429
// and to back off on 5xx; the waits are capped so a throttled API costs the job seconds, not an
// hour (the run then degrades with a warning).
const (
	retryAttempts = 4                // tries per request, the first included
	retryBase     = 1 * time.Second  // first backoff; doubles per try
	retryMaxWait  = 30 * time.Second // longest single wait
)

// retryTransport retries GitHub API requests that failed for reasons that pass: 429, 5xx, and
// 403 secondary or primary rate limits whose wait is short. Bodies are replayed with GetBody.
type retryTransport struct {
	base  http.RoundTripper
	sleep func(context.Context, time.Duration) error
	now   func() time.Time
}

func (t *retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	for attempt := 1; ; attempt++ {
		if attempt > 1 && req.Body != nil && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			req = req.Clone(req.Context())
			req.Body = body
		}
		resp, err := t.base.RoundTrip(req)
		if err != nil {
			if req.Context().Err() != nil || attempt >= retryAttempts || !idempotent(req) {
				return nil, err
			}
			if serr := t.sleep(req.Context(), backoff(attempt)); serr != nil {
				return nil, err
			}
			continue
		}
		wait, retry := t.retryAfter(req, resp, attempt)
		if !retry || attempt >= retryAttempts || (req.Body != nil && req.GetBody == nil) {
			return resp, nil
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		if err := t.sleep(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

// retryAfter decides whether a response is worth another try and how long to wait first. A
// rate-limited request was not processed, so any method is retried; a 5xx only for idempotent
// methods (a POST that failed with 502 may still have created its comment).
func (t *retryTransport) retryAfter(req *http.Request, resp *http.Response, attempt int) (time.Duration, bool) {
	code := resp.StatusCode
	limited := code == http.StatusTooManyRequests ||
		(code == http.StatusForbidden && (resp.Header.Get("Retry-After") != "" || resp.Header.Get("X-RateLimit-Remaining") == "0"))
	if !limited && (code < 500 || !idempotent(req)) {
		return 0, false
	}
	if code == http.StatusNotImplemented || code == http.StatusHTTPVersionNotSupported {
		return 0, false
	}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if secs, err := strconv.Atoi(s); err == nil && secs >= 0 {
			d := time.Duration(secs) * time.Second
			return d, d <= retryMaxWait
		}
		if at, err := http.ParseTime(s); err == nil {
			d := at.Sub(t.now())
			return max(d, 0), d <= retryMaxWait
		}
	}
	if resp.Header.Get("X-RateLimit-Remaining") == "0" {
		if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			d := time.Unix(reset, 0).Sub(t.now()) + time.Second
			return max(d, 0), d <= retryMaxWait
		}
	}
	return backoff(attempt), true
}

// backoff is the exponential wait after a failed try (1s, 2s, 4s, … capped).
func backoff(attempt int) time.Duration {
	d := retryBase << (attempt - 1)
	return min(d, retryMaxWait)
}

func idempotent(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}

// sleepContext waits d or until ctx ends.
func sleepContext(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
