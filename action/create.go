package action

import (
	"net/http"

	"github.com/google/go-github/v60/github"
)

// createRecovering runs a create request (a POST, which the transport does not retry: GitHub
// may have carried it out although the reply was a 5xx or never came). After a transient
// failure it first asks found whether the object exists after all, and only then tries again,
// with backoff, up to retryAttempts tries in all.
func (r *run) createRecovering(create func() (*github.Response, error), found func() bool) (*github.Response, error) {
	for attempt := 1; ; attempt++ {
		resp, err := create()
		if err == nil || !transientFailure(resp, err) || r.ctx.Err() != nil {
			return resp, err
		}
		if found() {
			return resp, nil
		}
		if attempt >= retryAttempts || r.d.Sleep(r.ctx, githubBackoff.Delay(attempt)) != nil {
			return resp, err
		}
	}
}

// transientFailure: a 5xx that may pass, or no reply at all.
func transientFailure(resp *github.Response, err error) bool {
	switch code := statusOf(resp, err); {
	case code == 0:
		return true
	case code == http.StatusNotImplemented || code == http.StatusHTTPVersionNotSupported:
		return false
	default:
		return code >= 500
	}
}
