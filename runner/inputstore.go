package runner

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/skillgate/skillgate/internal/reap"
	"github.com/skillgate/skillgate/spec"
)

// inputStore holds each distinct input file of a suite run once, in a folder beside the
// workspaces, with its size and SHA-256 taken while it was written. Every run's workspace is
// filled by copying from the store (copy_file_range on Linux: no user-space copy, and a reflink
// where the file system offers one), and a run's changes are found by comparing size and mtime
// with what was recorded when its copy was made, hashing only files whose mtime moved. Copies get
// the store's own mtime, a second before it was created: anything the agent writes gets a later
// one, even within the file system's timestamp granularity. No run
// keeps any input's content, so memory does not grow with the inputs.
//
// Files are copied, not hard-linked: an agent that rewrites an input in place would change the
// store, and every later run with it.
type inputStore struct {
	parent string // where the store folder is created ("" = the system temp folder)

	mtime time.Time // given to every copy

	mu      sync.Mutex
	dir     string
	dirErr  error
	entries map[string]*storedInput
	seq     int
}

// storedInput is one distinct input in the store.
type storedInput struct {
	once sync.Once
	path string
	size int64
	sum  [sha256.Size]byte
	err  error
}

func newInputStore(parent string) *inputStore {
	return &inputStore{parent: parent, entries: map[string]*storedInput{}, mtime: time.Now().Add(-time.Second).Truncate(time.Second)}
}

// get returns the stored copy of an input file, writing it on first use.
func (s *inputStore) get(f *spec.InputFile) (*storedInput, error) {
	key := "file\x00" + f.Source
	if f.HasContent {
		sum := sha256.Sum256([]byte(f.Content))
		key = "inline\x00" + string(sum[:])
	}
	s.mu.Lock()
	if s.dir == "" && s.dirErr == nil {
		if s.parent != "" {
			s.dirErr = os.MkdirAll(s.parent, 0o755)
		}
		if s.dirErr == nil {
			// The owner's prefix: a later run removes the store if this one is killed.
			s.dir, s.dirErr = os.MkdirTemp(s.parent, reap.WorkspacePrefix()+"inputs-*")
		}
	}
	if s.dirErr != nil {
		s.mu.Unlock()
		return nil, s.dirErr
	}
	e := s.entries[key]
	if e == nil {
		e = &storedInput{path: filepath.Join(s.dir, strconv.Itoa(s.seq))}
		s.seq++
		s.entries[key] = e
	}
	s.mu.Unlock()
	e.once.Do(func() { e.err = e.write(f) })
	if e.err != nil {
		return nil, e.err
	}
	return e, nil
}

// copyTo writes a stored input to dest, with the store's mtime.
func (s *inputStore) copyTo(e *storedInput, dest string) (writtenInput, error) {
	in, err := os.Open(e.path)
	if err != nil {
		return writtenInput{}, err
	}
	defer in.Close()
	out, err := os.OpenFile(dest, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return writtenInput{}, err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chtimes(dest, s.mtime, s.mtime)
	}
	if err != nil {
		return writtenInput{}, err
	}
	return writtenInput{size: e.size, mtime: s.mtime.UnixNano(), sum: e.sum}, nil
}

func (e *storedInput) write(f *spec.InputFile) error {
	out, err := os.OpenFile(e.path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	h := sha256.New()
	var n int64
	if f.HasContent {
		var k int
		k, err = io.WriteString(io.MultiWriter(out, h), f.Content)
		n = int64(k)
	} else {
		var in *os.File
		if in, err = os.Open(f.Source); err == nil {
			n, err = io.Copy(io.MultiWriter(out, h), in)
			in.Close()
		}
		if err != nil {
			err = fmt.Errorf("%s: inputs.files %s: %w", f.Pos, f.Path, err)
		}
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	e.size = n
	copy(e.sum[:], h.Sum(nil))
	return nil
}

// remove deletes the store.
func (s *inputStore) remove() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// writtenInput is what a run's change detection knows of an input it wrote.
type writtenInput struct {
	size  int64
	mtime int64 // UnixNano
	sum   [sha256.Size]byte
}

// writtenInput is how an input was written into the workspace (ok false for a workspace not on
// disk, or none).
func (ws *workspace) writtenInput(rel string) (w writtenInput, ok bool) {
	if ws == nil {
		return writtenInput{}, false
	}
	w, ok = ws.written[rel]
	return w, ok
}

// fileSum hashes a file.
func fileSum(path string) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, err := os.Open(path)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return sum, err
	}
	copy(sum[:], h.Sum(nil))
	return sum, nil
}
