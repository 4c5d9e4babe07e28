package judge

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"sync"
	"time"
)

// Pool shares one client per endpoint and key between graders and suites, so the concurrency
// limit holds for the whole process, not per grader.
type Pool struct {
	CacheDir   string
	HTTPClient *http.Client

	mu      sync.Mutex
	clients map[string]*Client
}

// Client returns the pool's client for an endpoint, creating it with the given limits on first use.
func (p *Pool) Client(baseURL, apiKey string, maxConcurrency int, budget time.Duration) *Client {
	sum := sha256.Sum256([]byte(apiKey))
	id := baseURL + "\x00" + hex.EncodeToString(sum[:])
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.clients[id]; ok {
		return c
	}
	if p.clients == nil {
		p.clients = map[string]*Client{}
	}
	c := New(Options{BaseURL: baseURL, APIKey: apiKey, MaxConcurrency: maxConcurrency, Budget: budget,
		CacheDir: p.CacheDir, HTTPClient: p.HTTPClient})
	p.clients[id] = c
	return c
}
