// Package report renders results files: JUnit XML, SARIF, the PR comment and job summary in
// markdown, the end-of-run terminal table, and the comparison of a run with its baseline.
//
// Every report is a pure projection of results files (results.SuiteResult values): nothing here
// runs an agent or a grader, so `skillgate report results.json …` can regenerate any report
// later, for example in a second, privileged workflow.
package report

import (
	"github.com/skillgate/skillgate/results"
)

// Input is what one invocation reports on: the suites it ran (each with its baseline and
// comparisons), the suites it skipped, and where the baselines came from.
type Input struct {
	Suites []*Suite
	// Unaffected lists suites not run because the change did not touch them.
	Unaffected []Unaffected
	// Baseline says how the baselines were obtained; nil takes each suite's
	// Result.Provenance.Baseline.
	Baseline *results.BaselineSource
	// Key distinguishes comments of different workflows or jobs on one PR: the comment carries
	// the hidden marker <!-- skillgate:<key> --> (Marker). Empty means "default".
	Key string
	// ToolVersion is skillgate's version for SARIF; empty takes the results' provenance.
	ToolVersion string
	// RepoRoot, when set, turns absolute source paths into repository-relative ones.
	RepoRoot string
}

// Suite is one suite's results with what it is compared with.
type Suite struct {
	Result *results.SuiteResult
	// File is the path the results were read from or written to (shown in reports).
	File string
	// Baseline is the earlier run this one is compared with; nil when there is none.
	Baseline *results.SuiteResult
	// Comparison is Result against Baseline (nil without a baseline).
	Comparison *Comparison
	// Uplift is Result with the skill against its without-skill run (nil unless uplift mode).
	Uplift *Comparison

	cache suiteCache
}

// comparisons are the suite's comparisons that exist: against the baseline, then uplift.
func (s *Suite) comparisons() []*Comparison {
	var out []*Comparison
	for _, c := range []*Comparison{s.Comparison, s.Uplift} {
		if c != nil {
			out = append(out, c)
		}
	}
	return out
}

// Unaffected is a suite skipped because the change did not affect it.
type Unaffected struct {
	Name   string
	Reason string
}

// NewSuite pairs a suite's results with its optional baseline and computes both comparisons
// (against the baseline, and with/without the skill in uplift mode). The error is a
// *SuiteMismatchError when the baseline belongs to another suite.
func NewSuite(result, baseline *results.SuiteResult, opts CompareOptions) (*Suite, error) {
	s := &Suite{Result: result, Baseline: baseline}
	if baseline != nil {
		c, err := Compare(baseline, result, opts)
		if err != nil {
			return nil, err
		}
		s.Comparison = c
	}
	up, err := CompareUplift(result, opts)
	if err != nil {
		return nil, err
	}
	s.Uplift = up
	return s, nil
}

// Default file names inside the output directory.
const (
	JUnitFile   = "junit.xml"
	SARIFFile   = "results.sarif"
	CommentFile = "comment.md"
	SummaryFile = "summary.md"
)

// Marker is the hidden HTML comment that identifies skillgate's PR comment for a key, so the
// comment can be found and updated instead of posted again.
func Marker(key string) string {
	if key == "" {
		key = "default"
	}
	return "<!-- skillgate:" + sanitizeMarkerKey(key) + " -->"
}

// sanitizeMarkerKey keeps the marker a single, unbreakable HTML comment.
func sanitizeMarkerKey(key string) string {
	out := make([]rune, 0, len(key))
	for _, r := range key {
		switch {
		case r == '-' && len(out) > 0 && out[len(out)-1] == '-':
			continue // "--" would end the comment
		case r == '>' || r == '<' || r == '\n' || r == '\r' || r == ' ' || r == '\t':
			out = append(out, '_')
		default:
			out = append(out, r)
		}
	}
	return string(out)
}

// baselineSource is where a suite's baseline came from.
func (in *Input) baselineSource(s *Suite) *results.BaselineSource {
	if in.Baseline != nil {
		return in.Baseline
	}
	if s.Result != nil && s.Result.Provenance != nil {
		return s.Result.Provenance.Baseline
	}
	return nil
}

func (in *Input) toolVersion() string {
	if in.ToolVersion != "" {
		return in.ToolVersion
	}
	for _, s := range in.Suites {
		if s.Result != nil && s.Result.Provenance != nil && s.Result.Provenance.SkillgateVersion != "" {
			return s.Result.Provenance.SkillgateVersion
		}
	}
	return ""
}

// suites returns the suites that have results.
func (in *Input) suites() []*Suite {
	out := make([]*Suite, 0, len(in.Suites))
	for _, s := range in.Suites {
		if s != nil && s.Result != nil {
			out = append(out, s)
		}
	}
	return out
}

func executorOf(r *results.SuiteResult) string {
	if r.Provenance != nil && r.Provenance.Executor != "" {
		return r.Provenance.Executor
	}
	return r.Config.EngineType
}

func modelOf(r *results.SuiteResult) string {
	if r.Provenance != nil && r.Provenance.Model != "" {
		return r.Provenance.Model
	}
	return r.Config.ModelID
}

// taskComparisons indexes a comparison's tasks by id.
func taskComparisons(c *Comparison) map[string]*TaskComparison {
	if c == nil {
		return nil
	}
	m := make(map[string]*TaskComparison, len(c.Tasks))
	for _, t := range c.Tasks {
		m[t.ID] = t
	}
	return m
}
