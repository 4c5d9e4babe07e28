// Package runcache stores recorded agent runs by run key (a hash of everything that determined
// what the agent was asked and with what), so a run whose inputs did not change is graded again
// instead of executed again (docs/format.md#the-run-cache).
//
// Entries are one JSON file each, <dir>/<key[:2]>/<key>.json, written atomically (a temporary
// file renamed into place), so several processes (shards, concurrent jobs) can share a folder:
// a reader sees a whole entry or none. The folder is bounded in size; the least recently used
// entries are removed first.
//
// The folder may come from elsewhere (a restored CI cache), so nothing in it is trusted: an
// entry path that is a symbolic link or not a regular file is a miss, never opened in a way that
// can block (a FIFO); a key-prefix folder that is a symbolic link is neither read nor written
// through; a time in the future counts as now; and every entry is read under a deadline that the
// caller's context can shorten.
package runcache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/skillgate/skillgate/internal/atomicfile"
	"github.com/skillgate/skillgate/internal/redact"
	"github.com/skillgate/skillgate/results"
)

// Defaults of Options.
const (
	DefaultMaxBytes = 512 << 20
	DefaultMaxAge   = 14 * 24 * time.Hour
)

// entryTimeout bounds reading one entry (a folder on a stalled network file system must not
// hang the run). A variable so tests can shorten it.
var entryTimeout = 10 * time.Second

// Entry is one recorded run.
type Entry struct {
	Key string `json:"key"`
	// RecordedAt is when the agent ran; Commit the commit it ran at, when known.
	RecordedAt time.Time        `json:"recorded_at"`
	Commit     string           `json:"commit,omitempty"`
	Run        results.AgentRun `json:"run"`
}

// Options bound a store.
type Options struct {
	// MaxBytes bounds the folder's size (0: DefaultMaxBytes).
	MaxBytes int64
	// MaxAge is how old a recorded run may be to be reused (0: DefaultMaxAge; negative: any).
	MaxAge time.Duration
	Now    func() time.Time
}

// Store is a run cache folder. It is safe for concurrent use.
type Store struct {
	dir  string
	opts Options

	mu   sync.Mutex
	size int64 // bytes of the entries, counted when the store was opened plus what it wrote
}

// Open opens (creating) the cache folder dir.
func Open(dir string, opts Options) (*Store, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxAge == 0 {
		opts.MaxAge = DefaultMaxAge
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &Store{dir: dir, opts: opts}
	for _, e := range s.entries() {
		s.size += e.size
	}
	return s, nil
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

// Key hashes the parts of a run key: each is encoded as JSON, in order.
func Key(parts ...any) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, p := range parts {
		if err := enc.Encode(p); err != nil {
			// Every part is plain data; a value that does not encode still changes the key.
			h.Write([]byte(err.Error()))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func validKey(key string) bool {
	if len(key) != sha256.Size*2 {
		return false
	}
	_, err := hex.DecodeString(key)
	return err == nil
}

func (s *Store) path(key string) string {
	return filepath.Join(s.dir, key[:2], key+".json")
}

// errLinkedFolder is a key-prefix folder that is a symbolic link or not a folder.
var errLinkedFolder = errors.New("runcache: a key folder is a symbolic link or not a folder")

// prefixDir returns the key's prefix folder after checking that it is a real folder of the
// store (or absent): writing through a linked one would write outside the cache folder.
func (s *Store) prefixDir(key string) (string, error) {
	dir := filepath.Join(s.dir, key[:2])
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return dir, nil
	case err != nil:
		return "", err
	case !fi.IsDir():
		return "", fmt.Errorf("%w: %s", errLinkedFolder, dir)
	}
	return dir, nil
}

// clampFuture returns t, or now when t is later: a time written in the future would keep an
// entry from ever expiring (or from ever being evicted).
func clampFuture(t, now time.Time) time.Time {
	if t.After(now) {
		return now
	}
	return t
}

// clockSkew is how far in the future a recorded time may lie (clocks of the machines sharing a
// folder differ a little); an entry dated later is not reused.
const clockSkew = 5 * time.Minute

// Get returns the entry recorded for key. An entry that is missing, unreadable, not a regular
// file, recorded for another key, older than MaxAge or dated in the future is a miss, and so is
// one not read before ctx ends or entryTimeout passes.
func (s *Store) Get(ctx context.Context, key string) (*Entry, bool) {
	if !validKey(key) {
		return nil, false
	}
	if _, err := s.prefixDir(key); err != nil {
		return nil, false
	}
	path := s.path(key)
	data, err := readEntry(ctx, path, s.opts.MaxBytes)
	if err != nil {
		return nil, false
	}
	var e Entry
	if json.Unmarshal(data, &e) != nil || e.Key != key {
		return nil, false
	}
	now := s.opts.Now()
	if e.RecordedAt.After(now.Add(clockSkew)) {
		return nil, false
	}
	e.RecordedAt = clampFuture(e.RecordedAt, now)
	if s.opts.MaxAge > 0 && now.Sub(e.RecordedAt) > s.opts.MaxAge {
		return nil, false
	}
	_ = os.Chtimes(path, now, now) // recently used: evicted last
	return &e, true
}

// readEntry reads an entry file of at most limit bytes, in a goroutine, so that a file system
// that does not answer costs the caller at most entryTimeout (or less, when ctx ends first).
func readEntry(ctx context.Context, path string, limit int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, entryTimeout)
	defer cancel()
	type result struct {
		data []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		data, err := readEntryFile(path, limit)
		done <- result{data, err}
	}()
	select {
	case r := <-done:
		return r.data, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readEntryFile is readRegular; tests replace it with a read that never returns.
var readEntryFile = readRegular

// readRegular reads path when it is a regular file (not a symbolic link) of at most limit bytes.
func readRegular(path string, limit int64) ([]byte, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("runcache: %s is not a regular file", path)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("runcache: %s is larger than the cache", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("runcache: %s is larger than the cache", path)
	}
	return data, err
}

// Put records an entry, replacing one with the same key, and evicts the least recently used
// entries when the folder grows past MaxBytes. A recorded time in the future is recorded as now.
func (s *Store) Put(e *Entry) error {
	if !validKey(e.Key) {
		return errors.New("runcache: invalid key")
	}
	if _, err := s.prefixDir(e.Key); err != nil {
		return err
	}
	if now := s.opts.Now(); e.RecordedAt.After(now) {
		clamped := *e
		clamped.RecordedAt = now
		e = &clamped
	}
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if int64(len(data)) > s.opts.MaxBytes {
		return nil // larger than the whole cache: not kept
	}
	data = redact.Bytes(data) // what an agent printed may hold a secret: the cache is an output too
	if err := atomicfile.WriteBytes(s.path(e.Key), data); err != nil {
		return err
	}
	s.mu.Lock()
	s.size += int64(len(data))
	over := s.size > s.opts.MaxBytes
	s.mu.Unlock()
	if over {
		s.evict()
	}
	return nil
}

type fileEntry struct {
	path    string
	size    int64
	modTime time.Time
}

func (s *Store) entries() []fileEntry {
	var out []fileEntry
	now := s.opts.Now()
	filepath.WalkDir(s.dir, func(path string, d fs.DirEntry, err error) error {
		// WalkDir does not follow symbolic links: a linked key folder is listed, not entered.
		if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(path, ".json") {
			return nil
		}
		if info, err := d.Info(); err == nil {
			// A use time in the future would keep the entry from ever being evicted: it counts
			// as the oldest.
			mod := info.ModTime()
			if mod.After(now) {
				mod = time.Time{}
			}
			out = append(out, fileEntry{path: path, size: info.Size(), modTime: mod})
		}
		return nil
	})
	return out
}

// evict removes the least recently used entries until the folder holds at most 90% of
// MaxBytes. The folder is measured again: other processes may have written or evicted too.
func (s *Store) evict() {
	s.mu.Lock()
	defer s.mu.Unlock()
	all := s.entries()
	var total int64
	for _, e := range all {
		total += e.size
	}
	sort.Slice(all, func(i, j int) bool { return all[i].modTime.Before(all[j].modTime) })
	target := s.opts.MaxBytes / 10 * 9
	for _, e := range all {
		if total <= target {
			break
		}
		if err := os.Remove(e.path); err == nil || errors.Is(err, fs.ErrNotExist) {
			total -= e.size
		}
	}
	s.size = total
}

// Seed records the runs of a results file that carry a run key (a base branch's results),
// attributed to commit, so a later run with the same inputs reuses them. Runs that errored,
// and runs already present, are left alone; runs the results had themselves reused keep their
// original commit and time. It returns how many entries were added.
func (s *Store) Seed(res *results.SuiteResult, commit string) int {
	added := 0
	put := func(key string, run results.AgentRun, reused *results.Reuse, failed bool) {
		if key == "" || failed || run.AgentError != "" || !validKey(key) {
			return
		}
		if _, err := os.Lstat(s.path(key)); err == nil {
			return
		}
		e := &Entry{Key: key, RecordedAt: res.Timestamp, Commit: commit, Run: run}
		if reused != nil {
			e.RecordedAt, e.Commit = reused.RecordedAt, reused.Commit
		}
		if s.Put(e) == nil {
			added++
		}
	}
	seedTasks := func(r *results.SuiteResult) {
		for _, t := range r.Tasks {
			for _, run := range t.Runs {
				put(run.RunKey, run.AgentRun, run.Reused, false)
			}
		}
	}
	seedTasks(res)
	if res.BaselineOutcome != nil {
		seedTasks(res.BaselineOutcome)
	}
	for _, tr := range res.TriggerResults {
		run := results.AgentRun{
			FinalOutput: tr.FinalOutput, Transcript: tr.Transcript, DurationMS: tr.DurationMS,
			SessionDigest: results.SessionDigest{ToolCalls: tr.ToolCalls, SessionID: tr.SessionID, Usage: tr.Usage},
			StoppedEarly:  tr.StoppedEarly,
		}
		run.SessionDigest = run.Digest()
		put(tr.RunKey, run, tr.Reused, tr.ErrorMsg != "")
	}
	return added
}

// ParseAge reads a maximum age: a number of days ("14d") or a Go duration ("36h").
func ParseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("not a number of days: %q", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("not an age (use e.g. 14d or 36h): %q", s)
	}
	return d, nil
}
