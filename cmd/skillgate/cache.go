package main

import (
	"flag"
	"fmt"
	"path/filepath"

	"github.com/skillgate/skillgate/internal/runcache"
)

// cacheFlags are the run cache's flags (docs/format.md#the-run-cache).
type cacheFlags struct {
	dir    string
	off    bool
	maxAge string
}

func (cf *cacheFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&cf.dir, "run-cache-dir", "", "run cache `DIR`: runs whose inputs did not change are graded again instead of executed (default <out>/cache/runs); --cache-dir is the judge's")
	fs.BoolVar(&cf.off, "no-cache", false, "execute every run; neither reuse nor record runs in the run cache")
	fs.StringVar(&cf.maxAge, "cache-max-age", "14d", "reuse recorded runs at most this `AGE` old (e.g. 14d, 36h)")
}

// open opens the run cache for a run writing to outDir; nil when it is off.
func (cf cacheFlags) open(outDir string) (*runcache.Store, error) {
	if cf.off {
		return nil, nil
	}
	age, err := runcache.ParseAge(cf.maxAge)
	if err != nil {
		return nil, fmt.Errorf("--cache-max-age: %w", err)
	}
	dir := cf.dir
	if dir == "" {
		dir = filepath.Join(outDir, "cache", "runs")
	}
	store, err := runcache.Open(dir, runcache.Options{MaxAge: age})
	if err != nil {
		return nil, fmt.Errorf("--run-cache-dir: %w", err)
	}
	return store, nil
}
