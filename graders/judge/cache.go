package judge

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/skillgate/skillgate/internal/atomicfile"
	secretvalues "github.com/skillgate/skillgate/internal/redact"
)

// Cache stores judge replies on disk, one file per request key, so re-running unchanged work
// asks the endpoint nothing. Keys are hashes of the endpoint and the full request; entries never
// go stale (a different request is a different key), so the folder can be restored between CI
// runs as is.
type Cache struct {
	Dir string
}

func (c *Cache) path(key string) string {
	if len(key) < 3 {
		return filepath.Join(c.Dir, key+".json")
	}
	return filepath.Join(c.Dir, key[:2], key+".json")
}

// Get returns the stored reply of a key.
func (c *Cache) Get(key string) (*Response, bool) {
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil, false
	}
	var resp Response
	if json.Unmarshal(data, &resp) != nil || len(resp.Choices) == 0 {
		return nil, false
	}
	return &resp, true
}

// Put stores a reply atomically (a temporary file renamed into place), so concurrent runs never
// read half an entry.
func (c *Cache) Put(key string, body []byte) error {
	p := c.path(key)
	return atomicfile.WriteBytes(p, secretvalues.Bytes(body))
}
