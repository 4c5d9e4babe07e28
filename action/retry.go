package action

import (
	"context"
	"io"
	"net/http"
	"time"

	"github.com/skillgate/skillgate/internal/retry"
)

// Retry limits. GitHub asks clients to wait for Retry-After or the rate-limit reset on 403/429
// and to back off on 5xx; the waits are capped so a throttled API costs the job seconds, not an
// hour (the run then degrades with a warning).
const (
	retryAttempts = 4                // tries per request, the first included
	retryMaxWait  = 30 * time.Second // longest single wait
)

// githubBackoff waits 1 s, 2 s, 4 s … (capped), each less up to half at random.
var githubBackoff = retry.Backoff{Base: time.Second, Max: retryMaxWait}

// retryTransport retries GitHub API requests that failed for reasons that pass: 429, 5xx, and
// 403 secondary or primary rate limits whose wait is short. Bodies are replayed with GetBody.
type retryTransport struct {
	base    http.RoundTripper
	sleep   func(context.Context, time.Duration) error
	now     func() time.Time
	backoff retry.Backoff
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
			if serr := t.sleep(req.Context(), t.backoff.Delay(attempt)); serr != nil {
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
	if d, ok := retry.After(resp.Header, t.now()); ok {
		return d, d <= retryMaxWait
	}
	return t.backoff.Delay(attempt), true
}

func idempotent(req *http.Request) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions:
		return true
	}
	return false
}
