package action

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// newGitHubClient returns a go-github client for the API at apiURL (GITHUB_API_URL: github.com,
// GHES's https://HOST/api/v3, or a test server) that retries with bounded backoff.
func newGitHubClient(base *http.Client, apiURL, token string, sleep func(context.Context, time.Duration) error, now func() time.Time) (*github.Client, error) {
	u, err := url.Parse(strings.TrimRight(apiURL, "/") + "/")
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("GITHUB_API_URL %q is not a URL", apiURL)
	}
	hc := retryingClient(base, sleep, now)
	hc.Transport = capTransport{redactBodies{hc.Transport}}
	c := github.NewClient(hc).WithAuthToken(token)
	c.BaseURL, c.UploadURL = u, u
	return c, nil
}

// retryingClient wraps base's transport in retryTransport. It sends no credentials: it is also
// the client for artifact and tarball downloads, whose signed URLs must not get the token.
func retryingClient(base *http.Client, sleep func(context.Context, time.Duration) error, now func() time.Time) *http.Client {
	transport := base.Transport
	if transport == nil {
		transport = http.DefaultTransport
	}
	return &http.Client{
		Transport:     &retryTransport{base: transport, sleep: sleep, now: now, backoff: githubBackoff},
		Timeout:       base.Timeout,
		CheckRedirect: base.CheckRedirect,
		Jar:           base.Jar,
	}
}

// statusOf is the HTTP status of a failed API call, or 0.
func statusOf(resp *github.Response, err error) int {
	var ge *github.ErrorResponse
	if errors.As(err, &ge) && ge.Response != nil {
		return ge.Response.StatusCode
	}
	var rl *github.RateLimitError
	if errors.As(err, &rl) && rl.Response != nil {
		return rl.Response.StatusCode
	}
	var ab *github.AbuseRateLimitError
	if errors.As(err, &ab) && ab.Response != nil {
		return ab.Response.StatusCode
	}
	if resp != nil && resp.Response != nil {
		return resp.StatusCode
	}
	return 0
}

// apiProblem explains a failed API call for a warning: the status, GitHub's message, and for
// 401/403 the permission the workflow must grant.
func apiProblem(what, permission string, resp *github.Response, err error) string {
	code := statusOf(resp, err)
	msg := err.Error()
	var ge *github.ErrorResponse
	if errors.As(err, &ge) && ge.Message != "" {
		msg = ge.Message
	}
	switch code {
	case http.StatusUnauthorized:
		return fmt.Sprintf("%s: the token was refused (401 %s); check the github-token input", what, msg)
	case http.StatusForbidden, http.StatusNotFound:
		if permission != "" {
			return fmt.Sprintf("%s: %d %s — grant `permissions: %s` to the workflow job (pull requests from forks never get it)", what, code, msg, permission)
		}
	}
	if code != 0 {
		return fmt.Sprintf("%s: %d %s", what, code, msg)
	}
	return fmt.Sprintf("%s: %s", what, msg)
}
