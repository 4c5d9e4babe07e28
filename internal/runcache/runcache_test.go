package runcache

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/results"
)

var ctx = context.Background()

func TestGetPut(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s, err := Open(t.TempDir(), Options{MaxAge: 24 * time.Hour, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	fresh, stale := Key("fresh"), Key("stale")
	s.Put(&Entry{Key: fresh, RecordedAt: now.Add(-time.Hour), Run: results.AgentRun{FinalOutput: "hi"}})
	s.Put(&Entry{Key: stale, RecordedAt: now.Add(-48 * time.Hour)})
	// A file whose content names another key is not trusted.
	os.WriteFile(s.path(Key("other")), []byte(`{"key":"`+fresh+`"}`), 0o644)
	cases := []struct {
		key  string
		want bool
	}{
		{fresh, true}, {stale, false}, {Key("missing"), false}, {Key("other"), false}, {"../escape", false},
	}
	for _, c := range cases {
		e, ok := s.Get(ctx, c.key)
		if ok != c.want {
			t.Errorf("Get(%.8s) = %v, want %v", c.key, ok, c.want)
		}
		if ok && e.Run.FinalOutput != "hi" {
			t.Errorf("entry %+v", e)
		}
	}
	if a, again := Key("a"), Key("a"); Key("a", 1) == Key("a", 2) || a != again {
		t.Error("keys are not a function of their parts")
	}
}

func TestEvictsLeastRecentlyUsed(t *testing.T) {
	dir := t.TempDir()
	s, _ := Open(dir, Options{MaxBytes: 2000})
	big := results.AgentRun{FinalOutput: strings.Repeat("x", 500)}
	var keys []string
	for i := range 6 {
		k := Key(i)
		keys = append(keys, k)
		s.Put(&Entry{Key: k, RecordedAt: time.Now(), Run: big})
		// Distinct, increasing use times.
		at := time.Now().Add(time.Duration(i-10) * time.Minute)
		os.Chtimes(s.path(k), at, at)
	}
	var total int64
	for _, e := range s.entries() {
		total += e.size
	}
	if total > 2000 {
		t.Fatalf("cache holds %d bytes, bound 2000", total)
	}
	if _, ok := s.Get(ctx, keys[5]); !ok {
		t.Error("the most recent entry was evicted")
	}
	if _, ok := s.Get(ctx, keys[0]); ok {
		t.Error("the oldest entry was kept")
	}
	if matches, _ := filepath.Glob(filepath.Join(dir, "*", "*.tmp")); len(matches) > 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

func TestSeedFromResults(t *testing.T) {
	s, _ := Open(t.TempDir(), Options{MaxAge: -1})
	recorded := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	older := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	res := &results.SuiteResult{Timestamp: recorded, Tasks: []*results.TaskResult{{ID: "t", Runs: []*results.RunResult{
		{RunKey: Key("ok"), AgentRun: results.AgentRun{FinalOutput: "done"}},
		{RunKey: Key("failed"), AgentRun: results.AgentRun{AgentError: "crashed"}},
		{RunKey: Key("again"), Reused: &results.Reuse{Commit: "abc", RecordedAt: older}},
		{},
	}}}, TriggerResults: []*results.TriggerResult{{RunKey: Key("trigger"), FinalOutput: "no"}}}
	if n := s.Seed(res, "base123"); n != 3 {
		t.Fatalf("seeded %d entries, want 3", n)
	}
	if e, ok := s.Get(ctx, Key("ok")); !ok || e.Commit != "base123" || !e.RecordedAt.Equal(recorded) || e.Run.FinalOutput != "done" {
		t.Errorf("seeded entry %+v", e)
	}
	if e, ok := s.Get(ctx, Key("again")); !ok || e.Commit != "abc" || !e.RecordedAt.Equal(older) {
		t.Errorf("a reused run must keep its origin: %+v", e)
	}
	if _, ok := s.Get(ctx, Key("failed")); ok {
		t.Error("an errored run was seeded")
	}
	if n := s.Seed(res, "base123"); n != 0 {
		t.Errorf("seeding twice added %d", n)
	}
}

// A cache folder restored from elsewhere may hold anything at an entry path: each is a miss,
// and Get returns at once (a FIFO opened for reading would block until a writer came).
func TestEntriesThatAreNotRegularFilesAreMisses(t *testing.T) {
	// Not rescued by the read deadline: the entry must not be opened in a way that blocks.
	defer func(old time.Duration) { entryTimeout = old }(entryTimeout)
	entryTimeout = time.Hour
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	real := Key("real")
	s.Put(&Entry{Key: real, RecordedAt: time.Now(), Run: results.AgentRun{FinalOutput: "real"}})
	link, fifo, folder := Key("link"), Key("fifo"), Key("folder")
	// A link to a valid entry written elsewhere, for its own key.
	planted := filepath.Join(outside, "planted.json")
	os.WriteFile(planted, []byte(`{"key":"`+link+`","recorded_at":"`+time.Now().Format(time.RFC3339)+`"}`), 0o644)
	os.MkdirAll(filepath.Dir(s.path(link)), 0o755)
	if err := os.Symlink(planted, s.path(link)); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(s.path(fifo)), 0o755)
	if err := mkfifo(s.path(fifo)); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	os.MkdirAll(s.path(folder), 0o755)
	for name, key := range map[string]string{"symbolic link": link, "FIFO": fifo, "folder": folder} {
		done := make(chan bool)
		go func() {
			_, ok := s.Get(ctx, key)
			done <- ok
		}()
		select {
		case ok := <-done:
			if ok {
				t.Errorf("a %s at the entry path was reused", name)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("Get blocked on a %s", name)
		}
	}
	if _, ok := s.Get(ctx, real); !ok {
		t.Error("the regular entry next to them was not reused")
	}
	if _, err := Open(dir, Options{}); err != nil { // sizing the folder walks past them too
		t.Fatal(err)
	}
}

// A key-prefix folder that is a symbolic link is neither written nor read through: the
// entry would land outside the cache folder.
func TestLinkedKeyFolderIsNotWrittenThrough(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	s, _ := Open(dir, Options{})
	key := Key("linked")
	if err := os.Symlink(outside, filepath.Join(dir, key[:2])); err != nil {
		t.Fatal(err)
	}
	if err := s.Put(&Entry{Key: key, RecordedAt: time.Now()}); err == nil {
		t.Error("Put through a linked key folder succeeded")
	}
	if left, _ := os.ReadDir(outside); len(left) != 0 {
		t.Errorf("written outside the cache folder: %v", left)
	}
	// An entry already there (planted) is not read either.
	os.WriteFile(filepath.Join(outside, key+".json"), []byte(`{"key":"`+key+`","recorded_at":"`+time.Now().Format(time.RFC3339)+`"}`), 0o644)
	if _, ok := s.Get(ctx, key); ok {
		t.Error("an entry was read through a linked key folder")
	}
}

// Times in the future neither keep an entry from expiring nor from being evicted.
func TestFutureTimesAreClamped(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	s, _ := Open(t.TempDir(), Options{MaxAge: 24 * time.Hour, Now: func() time.Time { return now }})
	// Put (and Seed, which calls it) record a future time as now.
	seeded := Key("seeded")
	s.Put(&Entry{Key: seeded, RecordedAt: now.Add(1000 * 24 * time.Hour)})
	e, ok := s.Get(ctx, seeded)
	if !ok || !e.RecordedAt.Equal(now) {
		t.Errorf("future recorded time kept: %+v %v", e, ok)
	}
	now = now.Add(48 * time.Hour)
	if _, ok := s.Get(ctx, seeded); ok {
		t.Error("an entry recorded with a future time never expired")
	}
	// A file written by hand with a future time is not reused at all.
	planted := Key("planted")
	os.MkdirAll(filepath.Dir(s.path(planted)), 0o755)
	os.WriteFile(s.path(planted), []byte(`{"key":"`+planted+`","recorded_at":"2999-01-01T00:00:00Z"}`), 0o644)
	if _, ok := s.Get(ctx, planted); ok {
		t.Error("an entry dated 2999 was reused")
	}
	// Use times in the future count as the oldest for eviction.
	future := now.Add(1000 * time.Hour)
	os.Chtimes(s.path(planted), future, future)
	for _, fe := range s.entries() {
		if fe.path == s.path(planted) && !fe.modTime.IsZero() {
			t.Errorf("a future use time was kept for eviction: %v", fe.modTime)
		}
	}
}

// Reading an entry gives up when the caller's context ends (a file system that never answers
// must not keep SIGTERM from stopping the run).
func TestGetHonoursCancellation(t *testing.T) {
	s, _ := Open(t.TempDir(), Options{})
	key := Key("stalled")
	s.Put(&Entry{Key: key, RecordedAt: time.Now()})
	release := make(chan struct{})
	defer close(release)
	old := readEntryFile
	readEntryFile = func(string, int64) ([]byte, error) { <-release; return nil, os.ErrDeadlineExceeded }
	defer func() { readEntryFile = old }()
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	done := make(chan bool)
	go func() {
		_, ok := s.Get(cctx, key)
		done <- ok
	}()
	select {
	case ok := <-done:
		if ok {
			t.Error("a stalled entry was reused")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Get ignored the cancellation")
	}
}
