package results

import (
	"errors"
	"hash/maphash"
	"math"
	"slices"
)

// TaskDigest is what the comparison and the reports' tables read of a task without its runs:
// its identity, the figures of its trials (TrialStats) and of its confirmation trials, whether
// its runs' inputs are known, and its pairwise verdict and skill impact. A suite OpenFile did
// not hold keeps one per task instead of the tasks: about 120 bytes and its texts, what is
// rare (confirmations, pairwise verdicts, skill impacts, figures beyond 32 bits) apart.
type TaskDigest struct {
	// text holds the id, name, source file and the two hashes one after the other, sliced
	// from one string per batch of tasks; ends says where each ends.
	text      string
	ends      [5]uint32
	line, col int32
	// trials, passed and errored are TrialStats' counts, runs len(Runs).
	trials, passed, errored, runs int32
	status                        uint8 // 1 + the index of a known status (0: in rare)
	flags                         uint8
	passRate, score, variance     float64
	passAtK                       float64
	durationMS                    int64
	runKeys                       uint64
	rare                          *digestRare
}

// TaskFigures are the figures of a task's trials a digest keeps (TrialStats' own).
type TaskFigures struct {
	Trials, PassedTrials, ErrorTrials          int
	PassRate, AvgScore, ScoreVariance, PassAtK float64
	AvgDurationMS                              int64
}

// digestRare is what few tasks have.
type digestRare struct {
	status                        Status // one skillgate does not write
	confirmTrials, confirmPassed  int
	confirmErrors                 int
	pairwise                      *Pairwise
	skillImpact                   *SkillImpact
	line, col                     int // beyond 32 bits
	trials, passed, errored, runs int
	wide                          bool // the figures above are the digest's
}

// Digest flags.
const (
	digestHasStats = 1 << iota
	digestGradedByChecks
	digestNotGraded
	digestShardSkipped
	digestHasSource
	digestKeyed // every run has a run key
)

// The parts of TaskDigest.text.
const (
	digestID = iota
	digestName
	digestFile
	digestDefinition
	digestGraders
)

func (d *TaskDigest) part(i int) string {
	start := uint32(0)
	if i > 0 {
		start = d.ends[i-1]
	}
	return d.text[start:d.ends[i]]
}

func (d *TaskDigest) ID() string             { return d.part(digestID) }
func (d *TaskDigest) Name() string           { return d.part(digestName) }
func (d *TaskDigest) DefinitionHash() string { return d.part(digestDefinition) }
func (d *TaskDigest) GradersHash() string    { return d.part(digestGraders) }

func (d *TaskDigest) Status() Status {
	if d.status > 0 {
		return knownStatuses[d.status-1]
	}
	if d.rare != nil {
		return d.rare.status
	}
	return ""
}

// Source is the task's source location (a new copy), nil when it has none.
func (d *TaskDigest) Source() *Location {
	if d.flags&digestHasSource == 0 {
		return nil
	}
	loc := &Location{File: d.part(digestFile), Line: int(d.line), Col: int(d.col)}
	if d.rare != nil && d.rare.wide {
		loc.Line, loc.Col = d.rare.line, d.rare.col
	}
	return loc
}

// HasStats reports whether the task has statistics (TrialStats is not nil).
func (d *TaskDigest) HasStats() bool { return d.flags&digestHasStats != 0 }

// Figures are the task's TrialStats figures (zero without statistics).
func (d *TaskDigest) Figures() TaskFigures {
	f := TaskFigures{Trials: int(d.trials), PassedTrials: int(d.passed), ErrorTrials: int(d.errored),
		PassRate: d.passRate, AvgScore: d.score, ScoreVariance: d.variance, PassAtK: d.passAtK, AvgDurationMS: d.durationMS}
	if d.rare != nil && d.rare.wide {
		f.Trials, f.PassedTrials, f.ErrorTrials = d.rare.trials, d.rare.passed, d.rare.errored
	}
	return f
}

// Runs is the number of the task's trials (len(Runs)).
func (d *TaskDigest) Runs() int {
	if d.rare != nil && d.rare.wide {
		return d.rare.runs
	}
	return int(d.runs)
}

// Confirmations counts the task's confirmation trials by outcome: trials did not error, passed
// of them passed, errored errored.
func (d *TaskDigest) Confirmations() (trials, passed, errored int) {
	if d.rare == nil {
		return 0, 0, 0
	}
	return d.rare.confirmTrials, d.rare.confirmPassed, d.rare.confirmErrors
}

func (d *TaskDigest) GradedByChecks() bool { return d.flags&digestGradedByChecks != 0 }

// NotGraded is TaskResult.NotGraded; ShardSkipped is ShardSkipped.
func (d *TaskDigest) NotGraded() bool    { return d.flags&digestNotGraded != 0 }
func (d *TaskDigest) ShardSkipped() bool { return d.flags&digestShardSkipped != 0 }

func (d *TaskDigest) Pairwise() *Pairwise {
	if d.rare == nil {
		return nil
	}
	return d.rare.pairwise
}

func (d *TaskDigest) SkillImpact() *SkillImpact {
	if d.rare == nil {
		return nil
	}
	return d.rare.skillImpact
}

// PoolKey is PoolKey of the task in s.
func (d *TaskDigest) PoolKey(s *SuiteResult) string {
	return poolKey(s, d.DefinitionHash(), d.GradersHash())
}

// InputsUnchanged is InputsUnchanged of the two tasks: both ran the same runs, by run key. The
// keys are compared through a hash (64 bits, seeded per process).
func (d *TaskDigest) InputsUnchanged(base *TaskDigest) bool {
	return base != nil && base.flags&digestKeyed != 0 && d.flags&digestKeyed != 0 && base.Runs() == d.Runs() && base.runKeys == d.runKeys
}

// knownStatuses are kept out of a digest's text: the common case costs no bytes.
var knownStatuses = []Status{StatusPassed, StatusFailed, StatusError, StatusSkipped, StatusPending}

// errDigest: a task whose text a digest cannot hold (over 4 GiB).
var errDigest = errors.New("results: task too large to digest")

// appendDigests appends the digests of tasks to out; their texts share one new string.
func appendDigests(out []TaskDigest, tasks []*TaskResult) ([]TaskDigest, error) {
	parts := func(t *TaskResult) [5]string {
		file := ""
		if t.Source != nil {
			file = t.Source.File
		}
		return [5]string{t.ID, t.Name, file, t.DefinitionHash, t.GradersHash}
	}
	size := 0
	for _, t := range tasks {
		for _, p := range parts(t) {
			size += len(p)
		}
	}
	buf := make([]byte, 0, size)
	for _, t := range tasks {
		start := len(buf)
		for _, p := range parts(t) {
			buf = append(buf, p...)
		}
		if len(buf)-start > math.MaxUint32 {
			return out, errDigest
		}
	}
	text := string(buf)
	start := 0
	for _, t := range tasks {
		var d TaskDigest
		n := 0
		for i, p := range parts(t) {
			n += len(p)
			d.ends[i] = uint32(n)
		}
		d.text = text[start : start+n]
		start += n
		d.fill(t)
		out = append(out, d)
	}
	return out, nil
}

// fill sets the figures of a digest.
func (d *TaskDigest) fill(t *TaskResult) {
	var rare digestRare
	if i := slices.Index(knownStatuses, t.Status); i >= 0 {
		d.status = uint8(i + 1)
	} else {
		rare.status = t.Status
	}
	var line, col, trials, passed, errored int
	if t.Source != nil {
		d.flags |= digestHasSource
		line, col = t.Source.Line, t.Source.Col
	}
	if st := t.TrialStats(); st != nil {
		d.flags |= digestHasStats
		trials, passed, errored = st.Trials, st.PassedTrials, st.ErrorTrials
		d.passRate, d.score, d.variance, d.passAtK = st.PassRate, st.AvgScore, st.ScoreVariance, st.PassAtK
		d.durationMS = st.AvgDurationMS
	}
	runs := len(t.Runs)
	d.line, d.col, d.trials, d.passed, d.errored, d.runs = int32(line), int32(col), int32(trials), int32(passed), int32(errored), int32(runs)
	for _, n := range []int{line, col, trials, passed, errored, runs} {
		if n != int(int32(n)) {
			rare.wide = true
			rare.line, rare.col, rare.trials, rare.passed, rare.errored, rare.runs = line, col, trials, passed, errored, runs
			break
		}
	}
	for _, r := range t.Confirmations {
		switch {
		case r == nil:
		case r.Status == StatusError:
			rare.confirmErrors++
		default:
			rare.confirmTrials++
			if r.Status == StatusPassed {
				rare.confirmPassed++
			}
		}
	}
	rare.pairwise, rare.skillImpact = t.Pairwise, t.SkillImpact
	if rare != (digestRare{}) {
		d.rare = &rare
	}
	if t.GradedByChecks {
		d.flags |= digestGradedByChecks
	}
	if t.NotGraded() {
		d.flags |= digestNotGraded
	}
	if ShardSkipped(t) {
		d.flags |= digestShardSkipped
	}
	var keyed bool
	if d.runKeys, keyed = runKeysHash(t.Runs); keyed {
		d.flags |= digestKeyed
	}
}

// runKeySeed seeds the hash of a task's run keys: the same within a process, so digests compare.
var runKeySeed = maphash.MakeSeed()

// runKeysHash hashes the multiset of a task's run keys; ok is false when a run has none (or
// there are no runs), which InputsUnchanged never takes as unchanged.
func runKeysHash(runs []*RunResult) (uint64, bool) {
	if len(runs) == 0 {
		return 0, false
	}
	keys := make([]string, len(runs))
	for i, r := range runs {
		if r == nil || r.RunKey == "" {
			return 0, false
		}
		keys[i] = r.RunKey
	}
	slices.Sort(keys)
	var h maphash.Hash
	h.SetSeed(runKeySeed)
	for _, k := range keys {
		h.WriteString(k)
		h.WriteByte(0)
	}
	return h.Sum64(), true
}

// TaskDigests returns a digest of every task, in order (null tasks left out): those kept when
// OpenFile read the file, else new ones from Tasks.
func (s *SuiteResult) TaskDigests() []TaskDigest {
	if s.file != nil {
		return s.digests
	}
	tasks := make([]*TaskResult, 0, len(s.Tasks))
	for _, t := range s.Tasks {
		if t != nil {
			tasks = append(tasks, t)
		}
	}
	out, err := appendDigests(make([]TaskDigest, 0, len(tasks)), tasks)
	if err != nil {
		// A task of over 4 GiB of text: digest the others one by one.
		out = out[:0]
		for _, t := range tasks {
			if d, err := appendDigests(nil, []*TaskResult{t}); err == nil {
				out = append(out, d...)
			} else {
				out = append(out, TaskDigest{})
			}
		}
	}
	return out
}
