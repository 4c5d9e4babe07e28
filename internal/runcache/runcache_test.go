package runcache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/results"
)

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
		e, ok := s.Get(c.key)
		if ok != c.want {
			t.Errorf("Get(%.8s) = %v, want %v", c.key, ok, c.want)
		}
		if ok && e.Run.FinalOutput != "hi" {
			t.Errorf("entry %+v", e)
		}
	}
	if Key("a", 1) == Key("a", 2) || Key("a") != Key("a") {
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
	if _, ok := s.Get(keys[5]); !ok {
		t.Error("the most recent entry was evicted")
	}
	if _, ok := s.Get(keys[0]); ok {
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
	if e, ok := s.Get(Key("ok")); !ok || e.Commit != "base123" || !e.RecordedAt.Equal(recorded) || e.Run.FinalOutput != "done" {
		t.Errorf("seeded entry %+v", e)
	}
	if e, ok := s.Get(Key("again")); !ok || e.Commit != "abc" || !e.RecordedAt.Equal(older) {
		t.Errorf("a reused run must keep its origin: %+v", e)
	}
	if _, ok := s.Get(Key("failed")); ok {
		t.Error("an errored run was seeded")
	}
	if n := s.Seed(res, "base123"); n != 0 {
		t.Errorf("seeding twice added %d", n)
	}
}
