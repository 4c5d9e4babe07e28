package action

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A reply larger than the limit is refused while it is read, not held whole.
func TestAPIResponseLimit(t *testing.T) {
	big := strings.Repeat("x", maxAPIResponse+10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("length") == "1" {
			w.Header().Set("Content-Length", "999999999")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`[{"body":"` + big + `"}]`))
	}))
	defer srv.Close()
	c := &http.Client{Transport: capTransport{http.DefaultTransport}}
	resp, err := c.Get(srv.URL + "/repos/acme/demo/issues/7/comments")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	var readErr error
	total := 0
	for readErr == nil {
		var n int
		n, readErr = resp.Body.Read(buf)
		total += n
	}
	resp.Body.Close()
	if !strings.Contains(readErr.Error(), "GET /repos/acme/demo/issues/7/comments: the response is over the limit of 32 MiB") || total != maxAPIResponse {
		t.Errorf("read %d bytes, error %v", total, readErr)
	}
	if _, err := c.Get(srv.URL + "/x?length=1"); err == nil || !strings.Contains(err.Error(), "is over the limit of 32 MiB") {
		t.Errorf("declared length: %v", err)
	}
}
