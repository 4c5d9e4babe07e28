package scriptedmodel

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
)

// Request is one request the server received, as recorded.
type Request struct {
	// API is "anthropic", "responses", "chat", "gemini", or "" for a path the server does not
	// serve (answered 404).
	API    string
	Method string
	Path   string
	// Header is the request's headers with credential values cut to 12 characters.
	Header http.Header
	Body   []byte
	// Tools are the names of the tools the request offered; ToolResults how many tool results
	// it carried.
	Tools       []string
	ToolResults int
	// Reply says what was answered: "text", "tool:<name>", "aux", "fault:<status>", "hang",
	// "error: …" (the script could not answer), or "" for an auxiliary endpoint.
	Reply string
	// Usage is the usage reported in the reply (zero for faults).
	Usage Usage
}

// Mentions reports whether the request's body contains s anywhere (tool descriptions, system
// prompt, messages). A skill the CLI advertised to the model shows up this way.
func (r *Request) Mentions(s string) bool { return strings.Contains(string(r.Body), s) }

// Server is a running scripted model.
type Server struct {
	URL string

	script Script
	srv    *httptest.Server
	stop   chan struct{}
	once   sync.Once

	mu       sync.Mutex
	requests []Request
	nextID   int
	waiters  []waiter
}

// waiter is a channel closed once a recorded request satisfies ok.
type waiter struct {
	ok   func(Request) bool
	done chan struct{}
}

// Start starts a scripted model on 127.0.0.1 (a free port).
func Start(script Script) *Server {
	s := &Server{script: script, stop: make(chan struct{})}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// Close stops the server; requests held open by a hang fault are released.
func (s *Server) Close() {
	s.once.Do(func() { close(s.stop) })
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Requests returns what was received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Served is the total usage the server reported over every answered request.
func (s *Server) Served() Usage {
	var total Usage
	for _, r := range s.Requests() {
		total = total.Add(r.Usage)
	}
	return total
}

// ModelRequests returns the requests to one of the model APIs (auxiliary endpoints left out).
func (s *Server) ModelRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.API != "" && r.Reply != "" {
			out = append(out, r)
		}
	}
	return out
}

func (s *Server) id(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return fmt.Sprintf("%s_%06d", prefix, s.nextID)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
	kept := s.waiters[:0]
	for _, w := range s.waiters {
		if w.ok(r) {
			close(w.done)
		} else {
			kept = append(kept, w)
		}
	}
	s.waiters = kept
}

// Await returns a channel closed once the server has recorded a request satisfying ok (one
// recorded already counts): a test waits on what the CLI did, not on wall time.
func (s *Server) Await(ok func(Request) bool) <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	done := make(chan struct{})
	for _, r := range s.requests {
		if ok(r) {
			close(done)
			return done
		}
	}
	s.waiters = append(s.waiters, waiter{ok: ok, done: done})
	return done
}

// Faulted reports whether a request was answered with a fault or held by a hang.
func (r *Request) Faulted() bool { return strings.HasPrefix(r.Reply, "fault:") || r.Reply == "hang" }

// redacted copies headers, cutting credentials so a log never holds a full key.
func redacted(h http.Header) http.Header {
	out := h.Clone()
	for k, vs := range out {
		lk := strings.ToLower(k)
		if lk == "authorization" || strings.Contains(lk, "key") || strings.Contains(lk, "token") {
			for i, v := range vs {
				if len(v) > 12 {
					vs[i] = v[:12] + "…"
				}
			}
		}
	}
	return out
}

// exchange is one request being answered by an API handler.
type exchange struct {
	s    *Server
	w    http.ResponseWriter
	r    *http.Request
	rec  Request
	body map[string]any
	// recorded is set when the request was recorded before it was answered (a hang).
	recorded bool
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	x := &exchange{s: s, w: w, r: r, rec: Request{Method: r.Method, Path: r.URL.Path, Header: redacted(r.Header), Body: body}}
	defer func() {
		if !x.recorded {
			s.record(x.rec)
		}
	}()
	if len(body) > 0 {
		_ = json.Unmarshal(body, &x.body)
	}
	p := r.URL.Path
	switch {
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages/count_tokens"):
		x.rec.API = "anthropic"
		writeJSON(w, map[string]any{"input_tokens": 123})
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages"):
		x.rec.API = "anthropic"
		x.anthropic()
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/responses"):
		x.rec.API = "responses"
		x.responses()
	case r.Method == http.MethodPost && strings.HasSuffix(p, "/chat/completions"):
		x.rec.API = "chat"
		x.chat()
	case r.Method == http.MethodPost && strings.Contains(p, ":countTokens"):
		x.rec.API = "gemini"
		writeJSON(w, map[string]any{"totalTokens": 123})
	case r.Method == http.MethodPost && (strings.Contains(p, ":streamGenerateContent") || strings.Contains(p, ":generateContent")):
		x.rec.API = "gemini"
		x.gemini(strings.Contains(p, ":streamGenerateContent"))
	case r.Method == http.MethodGet && strings.HasSuffix(p, "/models"):
		writeJSON(w, map[string]any{"object": "list", "data": []any{
			map[string]any{"id": "standin-model", "object": "model", "created": 1700000000, "owned_by": "skillgate"},
		}})
	default:
		http.Error(w, `{"error":{"message":"not served by the scripted model"}}`, http.StatusNotFound)
	}
}

// decide chooses the reply and records it; faults are answered here. ok is false when the
// request has been answered already (fault, hang, script error).
func (x *exchange) decide(tools []tool, k int) (reply, bool) {
	x.rec.ToolResults = k
	for _, t := range tools {
		x.rec.Tools = append(x.rec.Tools, t.Name)
	}
	rep, err := x.s.script.decide(tools, k)
	if err != nil {
		x.rec.Reply = "error: " + err.Error()
		http.Error(x.w, `{"error":{"message":"scripted model: `+jsonEscape(err.Error())+`"}}`, http.StatusBadRequest)
		return rep, false
	}
	switch rep.kind {
	case "fault":
		f := rep.fault
		if f.Hang {
			x.rec.Reply = "hang"
			x.s.record(x.rec) // now: the test may be waiting for it
			x.recorded = true
			select {
			case <-x.r.Context().Done():
			case <-x.s.stop:
			}
			return rep, false
		}
		x.rec.Reply = "fault:" + strconv.Itoa(f.Status)
		if f.RetryAfter > 0 {
			x.w.Header().Set("Retry-After", strconv.Itoa(f.RetryAfter))
		}
		x.w.Header().Set("Content-Type", "application/json")
		x.w.WriteHeader(f.Status)
		fmt.Fprintf(x.w, `{"type":"error","error":{"type":"api_error","code":%d,"status":"%s","message":"scripted fault %d"}}`,
			f.Status, http.StatusText(f.Status), f.Status)
		return rep, false
	case "tool":
		x.rec.Reply = "tool:" + rep.call.Name
	default:
		x.rec.Reply = rep.kind
	}
	x.rec.Usage = x.s.script.Usage
	return rep, true
}

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// sse writes server-sent events, flushing each.
type sse struct{ w http.ResponseWriter }

func newSSE(w http.ResponseWriter) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sse{w}
}

// event writes one event; name "" writes a data-only event.
func (s *sse) event(name string, data any) {
	if name != "" {
		fmt.Fprintf(s.w, "event: %s\n", name)
	}
	b, _ := json.Marshal(data)
	fmt.Fprintf(s.w, "data: %s\n\n", b)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *sse) raw(line string) {
	fmt.Fprintf(s.w, "%s\n\n", line)
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

// chunks splits a text into pieces of n bytes (at rune boundaries), as a model streams it.
func chunks(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut < len(s) && !isRuneStart(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" || len(out) == 0 {
		out = append(out, s)
	}
	return out
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Helpers reading decoded JSON.
func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func obj(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

func str(v any) string {
	s, _ := v.(string)
	return s
}
