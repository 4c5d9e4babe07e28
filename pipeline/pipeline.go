// Package pipeline is the one evaluation that `skillgate run`, `report`, `merge` and every mode
// of `skillgate action` perform, load → plan → run → publish: Load turns paths and Settings into
// a Plan (the suites, with the judge, labels, a shard's split and its baselines), and Evaluate
// runs it (or takes results already written), gives each suite the baseline its BaselineSource
// finds, confirms what looks worse, writes every report and computes the gate's figures. The
// commands and the Action only map their inputs to Settings, implement where baselines come
// from, and show the outcome; every decision and every figure comes from here or from results/
// and report/ below.
package pipeline

import (
	"fmt"

	"github.com/skillgate/skillgate/report"
	"github.com/skillgate/skillgate/results"
)

// Head is one suite's results to publish.
type Head struct {
	Result *results.SuiteResult
	// File is the results file the suite was written to (rewritten when a baseline's source is
	// recorded); "" for results that exist only in memory.
	File string
	// Base is what the suite is compared with; nil compares with nothing.
	Base *Baseline
}

// Baseline is one suite's earlier results and where they came from.
type Baseline struct {
	// Result is nil when no baseline was found (the reports say so).
	Result *results.SuiteResult
	File   string
	// Source, when set, is recorded in the head's provenance (results.Provenance.Baseline).
	Source *results.BaselineSource
	// History holds earlier base runs of the suite, pooled with Result for tasks whose inputs
	// did not change (docs/statistics.md#remembering-the-base).
	History []*results.BaseRecord
}

// Options say where the reports go and how they are labelled.
type Options struct {
	OutDir      string
	Key         string // comment marker key (report.Marker)
	ToolVersion string
	RepoRoot    string // turns absolute source paths into repository-relative ones
	MinEffect   float64
	// Pretty writes results files indented (--pretty); compact otherwise.
	Pretty     bool
	Unaffected []report.Unaffected
	// SetupFailed: a suite could not start, so the run cannot pass.
	SetupFailed bool
	// Event is the workflow event the gate's `event` variable holds ("" outside Actions).
	Event string
	// OnMismatch, when set, is told about a baseline of another suite (a suite renamed on one
	// side) and the suite is published without a comparison; nil makes it an error
	// (report.ErrDifferentSuites), as for a baseline file the user named.
	OnMismatch func(suite string, err error)
	// NoCompare publishes without comparisons though baselines were found (a shard: its
	// comparison is partial; the baselines serve confirmation only).
	NoCompare bool
	// Show, when set, turns a results file into the name the reports give it (the Action's
	// paths relative to the working directory).
	Show func(file string) string
}

// Evaluation is what publishing produced: the report model every renderer used and the gate's
// variables.
type Evaluation struct {
	Input *report.Input
	Vars  *Vars
}

// Publish compares each head with its baseline, writes every report file into opts.OutDir and
// computes the gate's variables. The results files are written before (by the runner, as each
// suite finishes) so nothing is lost if a report cannot be written.
func Publish(heads []Head, opts Options) (*Evaluation, error) {
	ev, err := Judge(heads, opts)
	if err != nil {
		return nil, err
	}
	if _, err := report.WriteDir(opts.OutDir, ev.Input); err != nil {
		return nil, fmt.Errorf("writing reports: %w", err)
	}
	return ev, nil
}

// Judge compares each head with its baseline and computes the gate's variables, writing no
// report: Publish without the files, for `skillgate compare`, so its verdict and words are the
// ones `run --baseline` publishes for the same files.
func Judge(heads []Head, opts Options) (*Evaluation, error) {
	in := &report.Input{Unaffected: opts.Unaffected, Key: opts.Key, ToolVersion: opts.ToolVersion, RepoRoot: opts.RepoRoot}
	var comps []*report.Comparison
	for _, h := range heads {
		if opts.NoCompare {
			h.Base = nil
		}
		s, err := compare(h, opts)
		if err != nil {
			return nil, err
		}
		in.Suites = append(in.Suites, s)
		comps = append(comps, s.Comparison)
	}
	// Every suite's tasks are decided together: one false-alarm rate for the whole run.
	report.Decide(comps)
	return &Evaluation{Input: in, Vars: NewVars(in, opts.SetupFailed, opts.Event)}, nil
}

// compare builds one suite's report entry, recording the baseline's source in the results file.
func compare(h Head, opts Options) (*report.Suite, error) {
	var base *results.SuiteResult
	copts := report.CompareOptions{MinEffect: opts.MinEffect, HeadFile: h.File}
	if b := h.Base; b != nil {
		base, copts.BaseFile, copts.History = b.Result, b.File, b.History
		if b.Source != nil {
			if h.Result.Provenance == nil {
				h.Result.Provenance = &results.Provenance{}
			}
			h.Result.Provenance.Baseline = b.Source
			if h.File != "" {
				if err := results.WriteFileAs(h.File, h.Result, opts.Pretty); err != nil {
					return nil, fmt.Errorf("writing results: %w", err)
				}
			}
		}
	}
	s, err := report.NewSuite(h.Result, base, copts)
	if err != nil && opts.OnMismatch != nil && base != nil {
		opts.OnMismatch(h.Result.EvalName, err)
		s, err = report.NewSuite(h.Result, nil, report.CompareOptions{MinEffect: opts.MinEffect, HeadFile: h.File})
	}
	if err != nil {
		return nil, err
	}
	s.File = h.File
	if opts.Show != nil && h.File != "" {
		s.File = opts.Show(h.File)
	}
	return s, nil
}

// RunError is a failure of the run itself (no suite could be evaluated), as opposed to one of
// publishing.
type RunError struct{ Err error }

func (e *RunError) Error() string { return e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }

// MergeShards merges the shards' results files into one results file per suite under outDir
// (results/<suite>.json) and returns them as heads to publish. problems lists every refusal
// (missing or mismatched shards); nothing is written when there is one. pretty indents the files.
func MergeShards(files []string, outDir string, pretty bool) (heads []Head, problems []error) {
	merged, problems := results.MergeFiles(files)
	if len(problems) > 0 {
		return nil, problems
	}
	for _, res := range merged {
		file := results.PathIn(outDir, res.EvalName)
		if err := results.WriteFileAs(file, res, pretty); err != nil {
			return heads, []error{err}
		}
		heads = append(heads, Head{Result: res, File: file})
	}
	return heads, nil
}
