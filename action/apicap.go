package action

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	"github.com/skillgate/skillgate/internal/redact"
)

// maxAPIResponse bounds one GitHub API response body: the largest real ones (a page of 100
// comments of 65,536 characters each) are a few MiB; without a bound a hostile or broken reply
// is read whole into memory. Artifact downloads have their own limits (artifact.go).
const maxAPIResponse = 32 << 20

// redactBodies replaces secret values (internal/redact) in every request body sent to the API:
// the comment, the check run and its annotations, every write passes here. Retries re-send the
// redacted body.
type redactBodies struct{ base http.RoundTripper }

func (t redactBodies) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return t.base.RoundTrip(req)
	}
	data, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the request body: %w", req.Method, req.URL.Path, err)
	}
	clean := redact.Bytes(data)
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(clean))
	out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(clean)), nil }
	out.ContentLength = int64(len(clean))
	return t.base.RoundTrip(out)
}

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
