package judge

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillgate/skillgate/internal/retry"
)

// GitHub Models, the default endpoint when GITHUB_TOKEN is set.
const (
	GitHubModelsURL    = "https://models.github.ai/inference"
	DefaultGitHubModel = "openai/gpt-4.1-mini"
)

// Defaults of a client.
const (
	// DefaultConcurrency fits GitHub Models' free tier (5 concurrent requests on low-tier models).
	DefaultConcurrency = 5
	// DefaultBudget bounds one judgement, retries and rate-limit waits included. GitHub Models
	// asks for waits of up to a minute on 429, so the budget leaves room for two of them.
	DefaultBudget      = 3 * time.Minute
	defaultMaxAttempts = 6
	maxReplyBytes      = 4 << 20
)

// defaultBackoff waits 1 s, 2 s, 4 s … up to a minute, each less up to half at random.
var defaultBackoff = retry.Backoff{Base: time.Second, Max: time.Minute}

// Options configure a client.
type Options struct {
	BaseURL        string // e.g. https://models.github.ai/inference; /chat/completions is appended
	APIKey         string // sent as a bearer token; "" sends none (local servers)
	MaxConcurrency int    // requests in flight; default DefaultConcurrency
	Budget         time.Duration
	CacheDir       string // verdict cache folder; "" disables the cache
	HTTPClient     *http.Client
}

// Client sends chat-completions requests to one endpoint.
type Client struct {
	base        string
	display     string // base without credentials, for messages
	key         string
	sem         chan struct{}
	budget      time.Duration
	maxAttempts int
	cache       *Cache
	http        *http.Client

	// sleep waits between attempts and backoff says how long; tests replace both.
	sleep   func(ctx context.Context, d time.Duration) error
	backoff retry.Backoff

	mu          sync.Mutex
	unsupported map[string]bool // model + "\x00" + parameter the endpoint refused

	requests, cacheHits atomic.Int64
}

// New returns a client for one endpoint.
func New(o Options) *Client {
	n := o.MaxConcurrency
	if n <= 0 {
		n = DefaultConcurrency
	}
	budget := o.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	hc := o.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	c := &Client{
		base:        strings.TrimRight(o.BaseURL, "/"),
		display:     redact(strings.TrimRight(o.BaseURL, "/")),
		key:         o.APIKey,
		sem:         make(chan struct{}, n),
		budget:      budget,
		maxAttempts: defaultMaxAttempts,
		http:        hc,
		sleep:       retry.Sleep,
		backoff:     defaultBackoff,
		unsupported: map[string]bool{},
	}
	if o.CacheDir != "" {
		c.cache = &Cache{Dir: o.CacheDir}
	}
	return c
}

// BaseURL is the endpoint's base URL, without any credentials it holds.
func (c *Client) BaseURL() string { return c.display }

// redact drops user:password@ from a URL.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	u.User = nil
	return u.String()
}

// Stats returns how many requests were sent and how many judgements came from the cache.
func (c *Client) Stats() (requests, cacheHits int64) { return c.requests.Load(), c.cacheHits.Load() }

// Result is a completed judgement.
type Result struct {
	Response *Response
	Cached   bool
	Attempts int
	// Key identifies the request (endpoint, model and full body) in the cache.
	Key string
}

// Error is a failed judgement. The message never holds the API key.
type Error struct {
	Status int // HTTP status; 0 for transport errors and budget exhaustion
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Key is the cache key of a request: a hash of the endpoint and the full request body (model
// included).
func (c *Client) Key(req *Request) string {
	body, _ := json.Marshal(req)
	h := sha256.New()
	h.Write([]byte(c.base))
	h.Write([]byte{0})
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// Complete sends a request and returns the reply that accept takes. accept judges whether the
// reply holds a usable verdict; a reply it refuses is an error and is not cached. Replies come
// from the cache when the same request was answered before. 429 and 5xx replies and transport
// errors are retried, waiting as long as the server's x-ratelimit-timeremaining or Retry-After
// header asks (else an exponential backoff), within the judgement budget.
func (c *Client) Complete(ctx context.Context, req *Request, accept func(*Response) error) (*Result, error) {
	key := c.Key(req)
	if c.cache != nil {
		if resp, ok := c.cache.Get(key); ok && accept(resp) == nil {
			c.cacheHits.Add(1)
			return &Result{Response: resp, Cached: true, Key: key}, nil
		}
	}
	ctx, cancel := context.WithTimeout(ctx, c.budget)
	defer cancel()
	deadline, _ := ctx.Deadline()

	send := *req
	c.dropUnsupported(&send)
	var lastErr error
	for attempt := 1; ; attempt++ {
		status, header, body, err := c.post(ctx, &send)
		var delay time.Duration
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return nil, c.budgetError(ctx, err)
			}
			lastErr = &Error{Msg: fmt.Sprintf("judge endpoint %s unreachable: %v", c.display, err)}
			delay = c.backoff.Delay(attempt)
		case status == http.StatusOK:
			var resp Response
			if err := json.Unmarshal(body, &resp); err != nil {
				return nil, &Error{Status: status, Msg: fmt.Sprintf("judge endpoint %s sent a reply that is not chat-completions JSON: %v: %s", c.display, err, excerpt(body))}
			}
			if len(resp.Choices) == 0 {
				return nil, &Error{Status: status, Msg: fmt.Sprintf("judge endpoint %s sent a reply without choices: %s", c.display, excerpt(body))}
			}
			if err := accept(&resp); err != nil {
				return nil, err
			}
			if c.cache != nil {
				_ = c.cache.Put(key, body) // best effort: a cache that cannot be written costs a request next time
			}
			return &Result{Response: &resp, Attempts: attempt, Key: key}, nil
		case status == http.StatusBadRequest:
			if param := c.refusedParam(&send, body); param != "" {
				attempt-- // the endpoint does not support an optional parameter: drop it, not a retry
				continue
			}
			return nil, &Error{Status: status, Msg: fmt.Sprintf("judge endpoint %s refused the request (HTTP 400): %s", c.display, errorText(body))}
		case status == http.StatusUnauthorized || status == http.StatusForbidden:
			return nil, &Error{Status: status, Msg: fmt.Sprintf("judge endpoint %s refused the credentials (HTTP %d): %s; check the API key (SKILLGATE_JUDGE_API_KEY, config.judge.api_key_env, or GITHUB_TOKEN with `models: read` permission)",
				c.display, status, errorText(body))}
		case status == http.StatusTooManyRequests || status >= 500:
			lastErr = &Error{Status: status, Msg: fmt.Sprintf("judge endpoint %s answered HTTP %d: %s", c.display, status, errorText(body))}
			delay = c.retryDelay(header, attempt)
		default:
			return nil, &Error{Status: status, Msg: fmt.Sprintf("judge endpoint %s answered HTTP %d: %s", c.display, status, errorText(body))}
		}
		if attempt >= c.maxAttempts {
			return nil, fmt.Errorf("%w (gave up after %d attempts)", lastErr, attempt)
		}
		if left := time.Until(deadline); delay > left {
			return nil, fmt.Errorf("%w; the endpoint asks to wait %s, more than the %s left of the judgement budget (%s)",
				lastErr, delay.Round(time.Second), left.Round(time.Second), c.budget)
		}
		if err := c.sleep(ctx, delay); err != nil {
			return nil, c.budgetError(ctx, lastErr)
		}
	}
}

func (c *Client) budgetError(ctx context.Context, cause error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return &Error{Msg: fmt.Sprintf("judge endpoint %s gave no verdict within the judgement budget of %s", c.display, c.budget)}
	}
	return cause
}

// post sends one request, holding a concurrency slot only while it is in flight.
func (c *Client) post(ctx context.Context, req *Request) (int, http.Header, []byte, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return 0, nil, nil, err
	}
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return 0, nil, nil, ctx.Err()
	}
	defer func() { <-c.sem }()
	c.requests.Add(1)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return 0, nil, nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	hreq.Header.Set("User-Agent", "skillgate")
	if c.key != "" {
		hreq.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(hreq)
	if err != nil {
		return 0, nil, nil, stripURLError(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBytes))
	if err != nil {
		return 0, nil, nil, err
	}
	return resp.StatusCode, resp.Header, data, nil
}

// stripURLError keeps the cause of a transport error; the URL is named by the caller.
func stripURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		return ue.Err
	}
	return err
}

// optionalParams are request fields some models or servers refuse (reasoning models reject
// temperature; some servers know neither response_format nor tool_choice). A 400 naming one
// of them makes the client drop it for that model and send again.
var optionalParams = []string{"response_format", "tool_choice", "temperature"}

func (c *Client) refusedParam(req *Request, body []byte) string {
	text := strings.ToLower(string(body))
	for _, p := range optionalParams {
		if !isSet(req, p) || !strings.Contains(text, p) {
			continue
		}
		c.mu.Lock()
		c.unsupported[req.Model+"\x00"+p] = true
		c.mu.Unlock()
		clearParam(req, p)
		return p
	}
	return ""
}

func (c *Client) dropUnsupported(req *Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range optionalParams {
		if c.unsupported[req.Model+"\x00"+p] {
			clearParam(req, p)
		}
	}
}

func isSet(req *Request, param string) bool {
	switch param {
	case "response_format":
		return req.ResponseFormat != nil
	case "tool_choice":
		return req.ToolChoice != nil
	case "temperature":
		return req.Temperature != nil
	}
	return false
}

func clearParam(req *Request, param string) {
	switch param {
	case "response_format":
		req.ResponseFormat = nil
	case "tool_choice":
		req.ToolChoice = nil
	case "temperature":
		req.Temperature = nil
	}
}

// retryDelay is how long to wait before the next attempt: as long as the reply's headers ask
// (GitHub Models' x-ratelimit-timeremaining, Retry-After, OpenAI's retry-after-ms), else the
// backoff.
func (c *Client) retryDelay(h http.Header, attempt int) time.Duration {
	if d, ok := retry.After(h, time.Now()); ok {
		return d
	}
	return c.backoff.Delay(attempt)
}

// errorText is the message of an error reply, else an excerpt of its body.
func errorText(body []byte) string {
	var e apiError
	if json.Unmarshal(body, &e) == nil {
		if e.Error.Message != "" {
			return e.Error.Message
		}
		if e.Message != "" {
			return e.Message
		}
	}
	return excerpt(body)
}

func excerpt(body []byte) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return "(empty body)"
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
