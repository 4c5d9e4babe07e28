package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillgate/skillgate/internal/inflight"
)

// chatServer mimics an OpenAI-compatible endpoint: it checks the request the way the real API
// does and answers with the scripted replies in turn (the last one repeats).
type chatServer struct {
	t       *testing.T
	replies []reply
	calls   atomic.Int64
	mu      sync.Mutex
	bodies  []map[string]any
	auth    []string

	requests inflight.Gauge
}

type reply struct {
	status  int
	headers map[string]string
	body    string
	delay   time.Duration
}

func (s *chatServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer s.requests.Enter()()
	if r.Method != http.MethodPost || r.URL.Path != "/chat/completions" {
		http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
		return
	}
	if r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, `{"error":{"message":"content type"}}`, http.StatusUnsupportedMediaType)
		return
	}
	data, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(data, &body); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
		return
	}
	i := int(s.calls.Add(1)) - 1
	s.mu.Lock()
	s.bodies = append(s.bodies, body)
	s.auth = append(s.auth, r.Header.Get("Authorization"))
	s.mu.Unlock()
	rp := s.replies[min(i, len(s.replies)-1)]
	if rp.delay > 0 {
		select {
		case <-time.After(rp.delay):
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range rp.headers {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	if rp.status == 0 {
		rp.status = http.StatusOK
	}
	w.WriteHeader(rp.status)
	io.WriteString(w, rp.body)
}

// toolReply is a real-shaped completion whose message calls one function; arguments is a JSON
// string, as the API sends it.
func toolReply(name string, args map[string]string) string {
	a, _ := json.Marshal(args)
	resp := map[string]any{
		"id": "chatcmpl-abc123", "object": "chat.completion", "created": 1730000000, "model": "gpt-4.1-mini-2025-04-14",
		"choices": []any{map[string]any{
			"index": 0,
			"message": map[string]any{
				"role": "assistant", "content": nil, "refusal": nil,
				"tool_calls": []any{map[string]any{
					"id": "call_1", "type": "function",
					"function": map[string]any{"name": name, "arguments": string(a)},
				}},
			},
			"logprobs":      nil,
			"finish_reason": "tool_calls",
		}},
		"usage": map[string]any{"prompt_tokens": 512, "completion_tokens": 24, "total_tokens": 536},
	}
	b, _ := json.Marshal(resp)
	return string(b)
}

func contentReply(content string) string {
	resp := map[string]any{
		"id": "chatcmpl-def456", "object": "chat.completion", "created": 1730000000, "model": "gpt-4.1-mini-2025-04-14",
		"choices": []any{map[string]any{
			"index": 0, "message": map[string]any{"role": "assistant", "content": content, "refusal": nil},
			"finish_reason": "stop",
		}},
		"usage": map[string]any{"prompt_tokens": 400, "completion_tokens": 40, "total_tokens": 440},
	}
	b, _ := json.Marshal(resp)
	return string(b)
}

func newTestClient(t *testing.T, srv *chatServer, o Options) (*Client, *[]time.Duration) {
	t.Helper()
	ts := httptest.NewServer(srv)
	t.Cleanup(ts.Close)
	o.BaseURL = ts.URL
	if o.APIKey == "" {
		o.APIKey = "sk-test-secret"
	}
	c := New(o)
	c.backoff.Rand = func() float64 { return 0 } // no jitter: the waits are exact
	var waits []time.Duration
	var mu sync.Mutex
	c.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	return c, &waits
}

func zero() *float64 { f := 0.0; return &f }

func testRequest() *Request {
	return &Request{
		Model:       "openai/gpt-4.1-mini",
		Messages:    []Message{NewMessage("system", "judge"), NewMessage("user", "data")},
		Temperature: zero(),
		Tools: []Tool{{Type: "function", Function: Function{Name: "set_waza_grade_pass",
			Parameters: map[string]any{"type": "object"}}}},
		ToolChoice:     "required",
		ResponseFormat: &ResponseFormat{Type: "json_object"},
	}
}

func acceptAll(*Response) error { return nil }

func TestCompleteToolCall(t *testing.T) {
	srv := &chatServer{t: t, replies: []reply{{body: toolReply("set_waza_grade_pass", map[string]string{"description": "d", "reason": "r"})}}}
	c, _ := newTestClient(t, srv, Options{})
	res, err := c.Complete(context.Background(), testRequest(), acceptAll)
	if err != nil {
		t.Fatal(err)
	}
	calls := res.Response.First().ToolCalls
	if len(calls) != 1 || calls[0].Function.Name != "set_waza_grade_pass" || !strings.Contains(calls[0].Function.Arguments, `"reason":"r"`) {
		t.Fatalf("tool calls: %+v", calls)
	}
	if res.Cached || res.Attempts != 1 {
		t.Errorf("cached=%v attempts=%d", res.Cached, res.Attempts)
	}
	body := srv.bodies[0]
	if body["model"] != "openai/gpt-4.1-mini" || body["temperature"] != 0.0 || body["tool_choice"] != "required" {
		t.Errorf("request body: %v", body)
	}
	if srv.auth[0] != "Bearer sk-test-secret" {
		t.Errorf("auth header %q", srv.auth[0])
	}
}

func TestCompleteRetries(t *testing.T) {
	ok := reply{body: contentReply(`{"score": 4}`)}
	tests := []struct {
		name    string
		replies []reply
		waits   []time.Duration
	}{
		{"429 with x-ratelimit-timeremaining", []reply{{status: 429, headers: map[string]string{"x-ratelimit-timeremaining": "7", "Retry-After": "30"},
			body: `{"error":{"code":"RateLimitReached","message":"Rate limit of 15 per 60s exceeded for UserByModelByMinute. Please wait 7 seconds before retrying."}}`}, ok},
			[]time.Duration{7 * time.Second}},
		{"429 with Retry-After", []reply{{status: 429, headers: map[string]string{"Retry-After": "3"}, body: `{"error":{"message":"slow down"}}`}, ok},
			[]time.Duration{3 * time.Second}},
		{"429 with retry-after-ms", []reply{{status: 429, headers: map[string]string{"retry-after-ms": "250"}, body: `{}`}, ok},
			[]time.Duration{250 * time.Millisecond}},
		{"500s back off", []reply{{status: 500, body: `{"error":{"message":"internal"}}`}, {status: 503, body: "upstream"}, ok},
			[]time.Duration{time.Second, 2 * time.Second}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := &chatServer{t: t, replies: tc.replies}
			c, waits := newTestClient(t, srv, Options{})
			res, err := c.Complete(context.Background(), testRequest(), acceptAll)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(*waits) != fmt.Sprint(tc.waits) || res.Attempts != len(tc.replies) {
				t.Errorf("waits %v attempts %d, want %v and %d", *waits, res.Attempts, tc.waits, len(tc.replies))
			}
		})
	}
}

func TestCompleteFailures(t *testing.T) {
	tests := []struct {
		name    string
		replies []reply
		budget  time.Duration
		want    string
		calls   int64
	}{
		{"401 is not retried", []reply{{status: 401, body: `{"error":{"code":"unauthorized","message":"Bad credentials"}}`}},
			0, "refused the credentials (HTTP 401): Bad credentials", 1},
		{"500 forever gives up", []reply{{status: 500, body: `{"error":{"message":"boom"}}`}},
			0, "answered HTTP 500: boom (gave up after 6 attempts)", 6},
		{"wait longer than the budget", []reply{{status: 429, headers: map[string]string{"x-ratelimit-timeremaining": "86000"}, body: `{"error":{"message":"daily limit"}}`}},
			0, "asks to wait 23h53m20s, more than the", 1},
		{"reply is not JSON", []reply{{body: "<html>gateway</html>"}}, 0, "not chat-completions JSON", 1},
		{"reply without choices", []reply{{body: `{"id":"x","choices":[]}`}}, 0, "without choices", 1},
		{"other 400", []reply{{status: 400, body: `{"error":{"message":"Unknown model: openai/nope","param":"model"}}`}},
			0, "refused the request (HTTP 400): Unknown model", 1},
		{"slow reply past the budget", []reply{{delay: 2 * time.Second, body: contentReply("{}")}},
			150 * time.Millisecond, "gave no verdict within the judgement budget of 150ms", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := &chatServer{t: t, replies: tc.replies}
			c, _ := newTestClient(t, srv, Options{Budget: tc.budget})
			_, err := c.Complete(context.Background(), testRequest(), acceptAll)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "sk-test-secret") {
				t.Errorf("the key leaked into the error: %v", err)
			}
			if got := srv.calls.Load(); got != tc.calls {
				t.Errorf("calls %d, want %d", got, tc.calls)
			}
		})
	}
}

func TestCompleteDropsRefusedParams(t *testing.T) {
	srv := &chatServer{t: t, replies: []reply{
		{status: 400, body: `{"error":{"message":"Invalid parameter: 'response_format' of type 'json_object' is not supported with this model.","type":"invalid_request_error","param":"response_format"}}`},
		{status: 400, body: `{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model.","param":"temperature"}}`},
		{body: contentReply("Verdict:\n```json\n{\"score\": 5}\n```")},
	}}
	c, waits := newTestClient(t, srv, Options{})
	res, err := c.Complete(context.Background(), testRequest(), acceptAll)
	if err != nil {
		t.Fatal(err)
	}
	if len(*waits) != 0 || res.Attempts != 1 {
		t.Errorf("dropping a parameter is not a retry: waits %v attempts %d", *waits, res.Attempts)
	}
	last := srv.bodies[2]
	if _, ok := last["response_format"]; ok {
		t.Errorf("response_format still sent: %v", last)
	}
	if _, ok := last["temperature"]; ok {
		t.Errorf("temperature still sent: %v", last)
	}
	// The next request for that model leaves them out from the start.
	if _, err := c.Complete(context.Background(), &Request{Model: "openai/gpt-4.1-mini", Temperature: zero(),
		ResponseFormat: &ResponseFormat{Type: "json_object"}, Messages: []Message{NewMessage("user", "again")}}, acceptAll); err != nil {
		t.Fatal(err)
	}
	if len(srv.bodies) != 4 {
		t.Fatalf("%d requests", len(srv.bodies))
	}
	if _, ok := srv.bodies[3]["response_format"]; ok {
		t.Errorf("remembered refusal not applied: %v", srv.bodies[3])
	}
}

func TestCompleteCache(t *testing.T) {
	dir := t.TempDir()
	srv := &chatServer{t: t, replies: []reply{{body: contentReply(`{"score": 3}`)}}}
	c, _ := newTestClient(t, srv, Options{CacheDir: dir})
	first, err := c.Complete(context.Background(), testRequest(), acceptAll)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Complete(context.Background(), testRequest(), acceptAll)
	if err != nil {
		t.Fatal(err)
	}
	if srv.calls.Load() != 1 || first.Cached || !second.Cached || first.Key != second.Key {
		t.Fatalf("calls %d cached %v/%v keys %s %s", srv.calls.Load(), first.Cached, second.Cached, first.Key, second.Key)
	}
	if second.Response.First().Text() != `{"score": 3}` {
		t.Errorf("cached reply %+v", second.Response)
	}
	// Another process (a fresh client on the same folder) hits the cache too.
	c2 := New(Options{BaseURL: c.BaseURL(), APIKey: "sk-test-secret", CacheDir: dir})
	if _, err := c2.Complete(context.Background(), testRequest(), acceptAll); err != nil || srv.calls.Load() != 1 {
		t.Errorf("fresh client: err %v calls %d", err, srv.calls.Load())
	}
	// A different model is a different request.
	other := testRequest()
	other.Model = "openai/gpt-4o"
	if _, err := c.Complete(context.Background(), other, acceptAll); err != nil || srv.calls.Load() != 2 {
		t.Errorf("other model: err %v calls %d", err, srv.calls.Load())
	}
	// A reply the caller refuses is neither returned nor cached.
	refuse := errors.New("no verdict")
	srv2 := &chatServer{t: t, replies: []reply{{body: contentReply("I cannot judge this.")}}}
	c3, _ := newTestClient(t, srv2, Options{CacheDir: t.TempDir()})
	for i := 0; i < 2; i++ {
		if _, err := c3.Complete(context.Background(), testRequest(), func(*Response) error { return refuse }); !errors.Is(err, refuse) {
			t.Fatalf("err %v", err)
		}
	}
	if srv2.calls.Load() != 2 {
		t.Errorf("a refused reply was cached: %d calls", srv2.calls.Load())
	}
}

func TestConcurrencyBound(t *testing.T) {
	srv := &chatServer{t: t, replies: []reply{{delay: 30 * time.Millisecond, body: contentReply("{}")}}}
	c, _ := newTestClient(t, srv, Options{MaxConcurrency: 2})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			req := testRequest()
			req.Messages = []Message{NewMessage("user", fmt.Sprint(i))}
			if _, err := c.Complete(context.Background(), req, acceptAll); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	if m := srv.requests.Peak(); m > 2 || m < 1 {
		t.Errorf("max in flight %d, limit 2", m)
	}
}

func TestRetryDelayHeaders(t *testing.T) {
	c := New(Options{BaseURL: "http://judge.invalid"})
	c.backoff.Rand = func() float64 { return 0.5 }
	h := http.Header{}
	h.Set("Retry-After", time.Now().Add(90*time.Second).UTC().Format(http.TimeFormat))
	if d := c.retryDelay(h, 1); d < 80*time.Second || d > 91*time.Second {
		t.Errorf("HTTP-date Retry-After: %v", d)
	}
	if d := c.retryDelay(http.Header{"X-Ratelimit-Timeremaining": {"junk"}}, 3); d != 3*time.Second {
		t.Errorf("unparseable header falls back to the jittered backoff (4 s less half of 2 s): %v", d)
	}
	if d := c.retryDelay(nil, 20); d != 45*time.Second {
		t.Errorf("backoff cap, jittered: %v", d)
	}
}

func TestCredentialsInURLAreNotShown(t *testing.T) {
	srv := &chatServer{t: t, replies: []reply{{status: 403, body: `{"error":{"message":"forbidden"}}`}}}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c := New(Options{BaseURL: strings.Replace(ts.URL, "http://", "http://user:hunter2@", 1)})
	_, err := c.Complete(context.Background(), testRequest(), acceptAll)
	if err == nil || strings.Contains(err.Error(), "hunter2") || strings.Contains(c.BaseURL(), "hunter2") {
		t.Errorf("credentials shown: %v / %s", err, c.BaseURL())
	}
}
