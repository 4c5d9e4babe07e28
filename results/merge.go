package results

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// ShardSkipPrefix starts the skip reason of a task that another shard of the run runs; merging
// takes each task from the one shard whose result does not carry it.
const ShardSkipPrefix = "shard: "

// ShardSkipReason is the skip reason of a task that shard owner of count runs.
func ShardSkipReason(owner, count int) string {
	return fmt.Sprintf("%sruns in shard %d/%d", ShardSkipPrefix, owner, count)
}

// ShardSkipped reports whether a task result only says that another shard runs the task.
func ShardSkipped(t *TaskResult) bool {
	return t.Status == StatusSkipped && strings.HasPrefix(t.SkipReason, ShardSkipPrefix)
}

// MergeError says why the shards of a suite cannot be merged: parts that do not belong together,
// and shards that are missing.
type MergeError struct {
	Suite    string
	Problems []string
	// Missing are the 1-based indexes of the shards no part came from.
	Missing []int
	Count   int
}

func (e *MergeError) Error() string {
	var parts []string
	if len(e.Missing) > 0 {
		idx := make([]string, len(e.Missing))
		for i, m := range e.Missing {
			idx[i] = strconv.Itoa(m)
		}
		parts = append(parts, fmt.Sprintf("missing shard(s) %s of %d", strings.Join(idx, ", "), e.Count))
	}
	parts = append(parts, e.Problems...)
	name := e.Suite
	if name == "" {
		name = "shards"
	}
	return name + ": " + strings.Join(parts, "; ")
}

// Merge combines the results of every shard of one suite run (`--shard i/n`) into the results
// the unsharded run would have given: each task comes from the shard that ran it, trigger
// results are put back in prompt order, and the summary, metrics, calibration and gate are
// recomputed. It refuses parts of different suites, commits, settings or assignment plans,
// parts that are not shards, and an incomplete set (MergeError.Missing names the absent shards).
// The parts' task results are shared with the merged result, not copied.
func Merge(parts []*SuiteResult) (*SuiteResult, error) {
	if len(parts) == 0 {
		return nil, &MergeError{Problems: []string{"no shard results"}}
	}
	sorted := append([]*SuiteResult(nil), parts...)
	e := &MergeError{Suite: sorted[0].EvalName}
	for _, p := range sorted {
		switch sh := p.Config.Shard; {
		case sh == nil:
			e.Problems = append(e.Problems, fmt.Sprintf("results %s are not a shard (no config.shard): run each part with --shard i/n", p.EvalID))
		case sh.Index == 0:
			e.Problems = append(e.Problems, fmt.Sprintf("results %s are already merged from %d shards", p.EvalID, sh.Count))
		case sh.Count < 1 || sh.Index < 1 || sh.Index > sh.Count:
			e.Problems = append(e.Problems, fmt.Sprintf("results %s claim shard %d/%d", p.EvalID, sh.Index, sh.Count))
		}
	}
	if len(e.Problems) > 0 {
		return nil, e
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Config.Shard.Index < sorted[j].Config.Shard.Index })
	first := sorted[0]
	e.Count = first.Config.Shard.Count
	seen := map[int]bool{}
	for _, p := range sorted {
		sh := p.Config.Shard
		label := "shard " + strconv.Itoa(sh.Index)
		differ := func(what, a, b string) {
			e.Problems = append(e.Problems, fmt.Sprintf("%s: %s %q, shard %d %q", what, label, b, first.Config.Shard.Index, a))
		}
		if p.EvalName != first.EvalName {
			differ("different suites", first.EvalName, p.EvalName)
			continue
		}
		if sh.Count != e.Count {
			differ("different shard counts", strconv.Itoa(e.Count), strconv.Itoa(sh.Count))
			continue
		}
		if seen[sh.Index] {
			e.Problems = append(e.Problems, fmt.Sprintf("shard %d given twice", sh.Index))
			continue
		}
		seen[sh.Index] = true
		if p == first {
			continue
		}
		if sh.Method != first.Config.Shard.Method || sh.Plan != first.Config.Shard.Plan {
			differ("different task assignments (the shards saw different baselines; rerun them together)",
				first.Config.Shard.Method+" "+first.Config.Shard.Plan, sh.Method+" "+sh.Plan)
		}
		if a, b := commitOf(first), commitOf(p); a != "" && b != "" && a != b {
			differ("different commits", a, b)
		}
		if a, b := suiteHashOf(first), suiteHashOf(p); a != "" && b != "" && a != b {
			differ("different suite files", a, b)
		}
		if a, b := settingsOf(first), settingsOf(p); a != b {
			differ("different settings", a, b)
		}
		if a, b := taskIDs(first.Tasks), taskIDs(p.Tasks); a != b {
			differ("different task lists", a, b)
		}
	}
	for i := 1; i <= e.Count; i++ {
		if !seen[i] {
			e.Missing = append(e.Missing, i)
		}
	}
	if len(e.Problems) > 0 || len(e.Missing) > 0 {
		return nil, e
	}

	merged := *first
	merged.Config.Shard = &ShardInfo{Count: e.Count, Method: first.Config.Shard.Method, Plan: first.Config.Shard.Plan}
	if first.Provenance != nil {
		prov := *first.Provenance
		merged.Provenance = &prov
	}
	merged.Tasks = mergeTasks(e, sorted, func(s *SuiteResult) []*TaskResult { return s.Tasks })
	merged.TriggerResults, merged.TriggerMetrics = mergeTriggers(e, sorted)
	merged.TriggerQueries = ComputeTriggerQueries(merged.TriggerResults, merged.Config.TriggerRateThreshold)
	merged.TriggerConfirmations = nil
	for _, p := range sorted {
		// Each shard confirms the prompts it ran, so their confirmations never overlap.
		merged.TriggerConfirmations = append(merged.TriggerConfirmations, p.TriggerConfirmations...)
	}
	if merged.IsBaseline && first.BaselineOutcome != nil {
		base := *first.BaselineOutcome
		base.Tasks = mergeTasks(e, sorted, func(s *SuiteResult) []*TaskResult {
			if s.BaselineOutcome == nil {
				return nil
			}
			return s.BaselineOutcome.Tasks
		})
		base.Summary.DurationMS = maxDuration(sorted, func(s *SuiteResult) int64 {
			if s.BaselineOutcome == nil {
				return 0
			}
			return s.BaselineOutcome.Summary.DurationMS
		})
		Summarize(&base)
		merged.BaselineOutcome = &base
	}
	if len(e.Problems) > 0 {
		return nil, e
	}
	var reasons []string
	merged.Incomplete = false
	for _, p := range sorted {
		if p.Timestamp.Before(merged.Timestamp) {
			merged.Timestamp = p.Timestamp
		}
		if p.Incomplete {
			merged.Incomplete = true
			reasons = append(reasons, fmt.Sprintf("shard %d: %s", p.Config.Shard.Index, p.IncompleteReason))
		}
	}
	merged.IncompleteReason = strings.Join(reasons, "; ")
	// The shards ran side by side: the merged run took as long as the slowest one.
	merged.Summary.DurationMS = maxDuration(sorted, func(s *SuiteResult) int64 { return s.Summary.DurationMS })
	Summarize(&merged)
	if merged.BaselineOutcome != nil {
		ComputeSkillImpact(&merged, merged.BaselineOutcome)
	}
	merged.Metrics = mergeMetrics(&merged, sorted)
	merged.Gate = ComputeGate(&merged)
	return &merged, nil
}

// mergeTasks takes each task from the one shard that ran it.
func mergeTasks(e *MergeError, parts []*SuiteResult, tasksOf func(*SuiteResult) []*TaskResult) []*TaskResult {
	lists := make([][]*TaskResult, len(parts))
	for i, p := range parts {
		lists[i] = tasksOf(p)
		if len(lists[i]) != len(lists[0]) {
			e.Problems = append(e.Problems, fmt.Sprintf("different task lists: shard %d has %d task(s), shard %d has %d",
				parts[0].Config.Shard.Index, len(lists[0]), parts[i].Config.Shard.Index, len(lists[i])))
			return nil
		}
	}
	n := len(lists[0])
	out := make([]*TaskResult, 0, n)
	for i := 0; i < n; i++ {
		var owner *TaskResult
		var owners []string
		for j, list := range lists {
			t := list[i]
			if t.ID != lists[0][i].ID {
				e.Problems = append(e.Problems, fmt.Sprintf("task %d is %q in shard %d and %q in shard %d", i+1, lists[0][i].ID, parts[0].Config.Shard.Index, t.ID, parts[j].Config.Shard.Index))
				return nil
			}
			if !ShardSkipped(t) {
				owner = t
				owners = append(owners, strconv.Itoa(parts[j].Config.Shard.Index))
			}
		}
		switch len(owners) {
		case 0:
			e.Problems = append(e.Problems, fmt.Sprintf("task %s: no shard ran it (the shards used different task assignments)", lists[0][i].ID))
		case 1:
			out = append(out, owner)
		default:
			e.Problems = append(e.Problems, fmt.Sprintf("task %s ran in shards %s (the shards used different task assignments)", lists[0][i].ID, strings.Join(owners, " and ")))
		}
	}
	return out
}

// mergeTriggers gathers every shard's trigger results in the order an unsharded run lists them
// (should-trigger prompts, then should-not, each in file order, trials in order) and recomputes
// the trigger metrics; nil when no shard had trigger tests.
func mergeTriggers(e *MergeError, parts []*SuiteResult) ([]*TriggerResult, *TriggerMetrics) {
	var all []*TriggerResult
	had := false
	located := true
	type key struct {
		id    string
		trial int
	}
	seen := map[key]int{}
	for _, p := range parts {
		had = had || p.TriggerMetrics != nil || len(p.TriggerResults) > 0
		for _, tr := range p.TriggerResults {
			k := key{tr.ID, tr.Trial}
			if other, dup := seen[k]; dup {
				e.Problems = append(e.Problems, fmt.Sprintf("trigger prompt %s trial %d ran in shards %d and %d", tr.ID, tr.Trial, other, p.Config.Shard.Index))
				continue
			}
			seen[k] = p.Config.Shard.Index
			all = append(all, tr)
			located = located && tr.Source != nil
		}
	}
	if !had {
		return nil, nil
	}
	if located {
		sort.SliceStable(all, func(i, j int) bool {
			a, b := all[i], all[j]
			if a.ShouldTrigger != b.ShouldTrigger {
				return a.ShouldTrigger
			}
			if a.Source.File != b.Source.File {
				return a.Source.File < b.Source.File
			}
			if a.Source.Line != b.Source.Line {
				return a.Source.Line < b.Source.Line
			}
			if a.Source.Col != b.Source.Col {
				return a.Source.Col < b.Source.Col
			}
			return a.Trial < b.Trial
		})
	}
	return all, ComputeTriggerMetrics(all)
}

// mergeMetrics recomputes every gating metric any shard declared on the merged results; a
// metric without data in the merged run is left out, as the runner leaves it out.
func mergeMetrics(merged *SuiteResult, parts []*SuiteResult) map[string]*MetricResult {
	out := map[string]*MetricResult{}
	for _, p := range parts {
		for name, m := range p.Metrics {
			if m == nil || out[name] != nil {
				continue
			}
			value, ok := MetricValue(merged, name)
			if !ok {
				continue
			}
			c := *m
			c.Value, c.Passed = value, MetricPassed(value, m.Threshold)
			out[name] = &c
		}
	}
	return out
}

func maxDuration(parts []*SuiteResult, of func(*SuiteResult) int64) int64 {
	var m int64
	for _, p := range parts {
		m = max(m, of(p))
	}
	return m
}

func commitOf(s *SuiteResult) string {
	if s.Provenance == nil {
		return ""
	}
	return s.Provenance.GitCommit
}

func suiteHashOf(s *SuiteResult) string {
	if s.Provenance == nil {
		return ""
	}
	return s.Provenance.SuiteHash
}

// settingsOf is what must agree between shards for their tasks to be comparable.
func settingsOf(s *SuiteResult) string {
	c := s.Config
	return fmt.Sprintf("trials %d, model %q, executor %s, uplift %t, skip triggers %t, task filters %v, tag filters %v", c.RunsPerTest, c.ModelID, c.EngineType, c.Uplift, c.SkipTriggers, c.TaskFilters, c.TagFilters)
}

func taskIDs(tasks []*TaskResult) string {
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	return fmt.Sprintf("%d task(s): %s", len(ids), clipList(ids, 8))
}

func clipList(ids []string, n int) string {
	if len(ids) <= n {
		return strings.Join(ids, ", ")
	}
	return strings.Join(ids[:n], ", ") + fmt.Sprintf(", … (%d more)", len(ids)-n)
}

// ShardFiles lists the results files of downloaded shard artifacts (results folders) below dir:
// every results/<suite>.json, except the baselines a results folder keeps (baseline/results/…)
// and folders of shards merged before (shards/).
func ShardFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "baseline" || d.Name() == "shards" && path != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if filepath.Ext(path) == ".json" && filepath.Base(filepath.Dir(path)) == "results" {
			out = append(out, path)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// MergeFiles reads shard results files and merges each suite's shards; problems lists every
// refusal (a file that is not results, suites with missing or mismatched shards), each naming
// its suite and the missing shard indexes.
func MergeFiles(files []string) ([]*SuiteResult, []error) {
	bySuite := map[string][]*SuiteResult{}
	var order []string
	var problems []error
	for _, f := range files {
		res, err := ReadFile(f)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		if _, ok := bySuite[res.EvalName]; !ok {
			order = append(order, res.EvalName)
		}
		for i, w := range res.ReadWarnings {
			res.ReadWarnings[i] = f + ": " + w // the merged result carries them on
		}
		bySuite[res.EvalName] = append(bySuite[res.EvalName], res)
	}
	sort.Strings(order)
	var out []*SuiteResult
	count := 0
	for _, name := range order {
		merged, err := Merge(bySuite[name])
		if err != nil {
			problems = append(problems, err)
			continue
		}
		for _, part := range bySuite[name] {
			merged.ReadWarnings = append(merged.ReadWarnings, part.ReadWarnings...)
		}
		if count == 0 {
			count = merged.Config.Shard.Count
		} else if merged.Config.Shard.Count != count {
			problems = append(problems, fmt.Errorf("%s was split in %d shards, other suites in %d: merge the shards of one matrix", name, merged.Config.Shard.Count, count))
		}
		out = append(out, merged)
	}
	if len(out) == 0 && len(problems) == 0 {
		problems = append(problems, errors.New("no results files"))
	}
	return out, problems
}
