package action

import (
	"fmt"
	"io"
	"net/http"
)

// maxAPIResponse bounds one GitHub API response body: the largest real ones (a page of 100
// comments of 65,536 characters each) are a few MiB; without a bound a hostile or broken reply
// is read whole into memory. Artifact downloads have their own limits (artifact.go).
const maxAPIResponse = 32 << 20

// capTransport fails the read of a response body past maxAPIResponse bytes.
type capTransport struct{ base http.RoundTripper }

func (t capTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	if resp.ContentLength > maxAPIResponse {
		resp.Body.Close()
		return nil, fmt.Errorf("%s %s: the response (%d MiB) is over the limit of %d MiB", req.Method, req.URL.Path, resp.ContentLength>>20, maxAPIResponse>>20)
	}
	resp.Body = &cappedBody{rc: resp.Body, left: maxAPIResponse, what: req.Method + " " + req.URL.Path}
	return resp, nil
}

type cappedBody struct {
	rc   io.ReadCloser
	left int64
	what string
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.rc.Read(p)
	if int64(n) > b.left {
		return int(b.left), fmt.Errorf("%s: the response is over the limit of %d MiB", b.what, maxAPIResponse>>20)
	}
	b.left -= int64(n)
	return n, err
}

func (b *cappedBody) Close() error { return b.rc.Close() }
