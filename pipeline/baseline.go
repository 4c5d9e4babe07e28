package pipeline

import (
	"context"
	"fmt"
	"os"

	"github.com/skillgate/skillgate/results"
)

// A BaselineSource finds earlier results of suites to compare with: the CLI's --baseline
// locations (Locations), the Action's results artifact of the base branch, a committed baseline
// file, the file: input and a rerun at the base commit. Evaluate asks it after the run, a
// shard's Load before anything runs (its split is by the baselines' durations).
type BaselineSource interface {
	// Baselines returns, by suite name, the baselines it holds of the suites asked. A suite it
	// has none of is left out, or given a Baseline whose Result is nil and whose Source says why.
	// An error stops the evaluation (a baseline the user named that serves no suite).
	Baselines(ctx context.Context, q Query) (map[string]*Baseline, error)
}

// Query is what a BaselineSource is asked.
type Query struct {
	Suites []Wanted
	// Total is how many suites the run has (a lone results file serves the only suite).
	Total int
	// BeforeRun: asked before anything runs, for a shard's split. Only results on record may
	// answer (a rerun would run the base's suites in every shard job), and each suite is asked
	// on its own as it loads.
	BeforeRun bool
}

// Wanted is one suite in need of a baseline.
type Wanted struct {
	Name string
	// Dir is the folder of its suite file and File the file; "" for results of no loaded suite
	// (merged shards without the checkout's suites, imported results).
	Dir, File string
	// Head is its results; nil before the run.
	Head *results.SuiteResult
}

// FindBaselines asks src for the baseline of each head and attaches what it found (a head it
// found nothing for keeps no baseline).
func FindBaselines(ctx context.Context, src BaselineSource, heads []Head, suites []*Suite) error {
	if src == nil || len(heads) == 0 {
		return nil
	}
	byName := map[string]*Suite{}
	for _, s := range suites {
		byName[s.Name()] = s
	}
	q := Query{Total: len(heads)}
	for _, h := range heads {
		w := Wanted{Name: h.Result.EvalName, Head: h.Result}
		if s := byName[w.Name]; s != nil {
			w.Dir, w.File = s.Dir(), s.File()
		}
		q.Suites = append(q.Suites, w)
	}
	found, err := src.Baselines(ctx, q)
	if err != nil {
		return err
	}
	for i := range heads {
		if b := found[heads[i].Result.EvalName]; b != nil {
			heads[i].Base = b
		}
	}
	return nil
}

// Locations are --baseline style locations: results files and folders holding
// results/<suite>.json (FindBaseline). With several, each is an earlier run of the base: for each
// suite the newest results found are its baseline and the others are pooled with it as its
// history (docs/statistics.md#remembering-the-base). A results file whose suite is none of the
// run's is an error, since the user named it to be compared.
type Locations []string

// Baselines implements BaselineSource.
func (l Locations) Baselines(_ context.Context, q Query) (map[string]*Baseline, error) {
	out := map[string]*Baseline{}
	used := make([]bool, len(l))
	for _, w := range q.Suites {
		head := w.Head
		if head == nil {
			head = &results.SuiteResult{EvalName: w.Name}
		}
		var found []*Baseline
		for j, location := range l {
			if location == "" {
				continue
			}
			base, file, err := FindBaseline(location, head, q.Total)
			if err != nil {
				return nil, err
			}
			if base != nil {
				used[j] = true
				found = append(found, &Baseline{Result: base, File: file})
			}
		}
		out[w.Name] = newestWithHistory(found)
	}
	if q.BeforeRun {
		return out, nil // one suite at a time: a file of another suite is no error yet
	}
	for j, location := range l {
		if info, err := os.Stat(location); err == nil && !info.IsDir() && !used[j] {
			return nil, fmt.Errorf("--baseline %s: its suite was not among the results", location)
		}
	}
	return out, nil
}

// FindBaseline returns the baseline of one suite from a --baseline style location: a results
// FILE applies to the suite of the same name (or to the only suite of the run, suites == 1), a
// folder is searched for results/<suite>.json (the layout of an output folder or a results
// artifact). A folder without the suite's file, or a file of another suite when several ran, is
// no baseline (nil, no error); a missing location or an unreadable file is an error.
func FindBaseline(location string, res *results.SuiteResult, suites int) (*results.SuiteResult, string, error) {
	if location == "" {
		return nil, "", nil
	}
	path := location
	if info, err := os.Stat(location); err != nil {
		return nil, "", fmt.Errorf("baseline: %w", err)
	} else if info.IsDir() {
		path = results.PathIn(location, res.EvalName)
		if info, err := os.Stat(path); err != nil || info.IsDir() {
			return nil, "", nil // no baseline for this suite: reports say so
		}
	}
	// A large baseline is read in passes, as `skillgate report` reads its files: the comparison
	// reads task digests, and what needs whole tasks visits them (EachTask).
	base, err := results.OpenFile(path)
	if err != nil {
		return nil, "", err
	}
	if base.EvalName != res.EvalName && suites > 1 {
		return nil, "", nil
	}
	return base, path, nil
}

// newestWithHistory makes the newest of a suite's base runs its baseline and the others its
// history; an empty baseline when only locations without the suite were given.
func newestWithHistory(found []*Baseline) *Baseline {
	if len(found) == 0 {
		return &Baseline{}
	}
	newest := 0
	for i, b := range found {
		if b.Result.Timestamp.After(found[newest].Result.Timestamp) {
			newest = i
		}
	}
	out := found[newest]
	for i, b := range found {
		if i != newest {
			out.History = append(out.History, results.RecordOf(b.Result))
		}
	}
	return out
}
