package report

import (
	"fmt"
	"hash/maphash"
	"strconv"
	"sync"

	"github.com/skillgate/skillgate/results"
)

// The reports never hold every task of a suite: a results file of a million tasks is read with
// results.OpenFile, which keeps one results.TaskDigest per task. What is decided or counted
// before anything is written (the comparison, the suite tables, JUnit's counts) reads the
// digests; what lists every task (JUnit, report.html, SARIF, the markdown lists) visits the
// tasks one at a time in one pass (visitTasks), which reads them from the file again.

// suiteCache is what the reports compute once per suite and share between renderers.
type suiteCache struct {
	tasksOnce sync.Once
	tasks     *suiteTasks
	baseOnce  sync.Once
	base      *suiteTasks

	verdictsOnce sync.Once
	verdicts     map[string]unitVerdict
	deltasOnce   sync.Once
	deltas       map[string]*TaskComparison

	factsMu sync.Mutex
	facts   *taskFacts
}

// suiteTasks are a suite's tasks as the reports know them without holding them: a digest of each
// and its key.
type suiteTasks struct {
	digests   []results.TaskDigest
	dup       map[int]string // the keys of repeated ids, by index: "id#2", "id#3"…
	threshold float64        // the suite's task pass threshold
}

// newSuiteTasks digests a suite's tasks and keys them by id (the display name when a waza file
// has no id; a repeated id gets "#2", "#3"… in file order). r may be nil: no tasks.
func newSuiteTasks(r *results.SuiteResult) *suiteTasks {
	l := &suiteTasks{}
	if r == nil {
		return l
	}
	l.digests, l.threshold = r.TaskDigests(), r.Config.TaskPassThreshold
	// Ids are almost always unique: a set of their hashes shows it without a map of strings;
	// on a repeated hash the keys are counted exactly.
	seed := maphash.MakeSeed()
	hashes := make(map[uint64]struct{}, len(l.digests))
	for i := range l.digests {
		h := maphash.String(seed, taskKey(&l.digests[i]))
		if _, seen := hashes[h]; seen {
			l.dup = dupKeys(l.digests)
			break
		}
		hashes[h] = struct{}{}
	}
	return l
}

// dupKeys are the keys of repeated ids ("id#2", "id#3"… in file order), by index.
func dupKeys(digests []results.TaskDigest) map[int]string {
	var dup map[int]string
	seen := make(map[string]int32, len(digests))
	for i := range digests {
		key := taskKey(&digests[i])
		seen[key]++
		if n := seen[key]; n > 1 {
			if dup == nil {
				dup = map[int]string{}
			}
			dup[i] = key + "#" + strconv.Itoa(int(n))
		}
	}
	return dup
}

// taskKey is a task's id, or its name when a waza file has no id.
func taskKey(d *results.TaskDigest) string {
	if id := d.ID(); id != "" {
		return id
	}
	return d.Name()
}

func (l *suiteTasks) len() int { return len(l.digests) }

// key is the i-th task's key.
func (l *suiteTasks) key(i int) string {
	if k, ok := l.dup[i]; ok {
		return k
	}
	return taskKey(&l.digests[i])
}

// sample is the sample of the i-th task (without the task itself).
func (l *suiteTasks) sample(i int) taskSample {
	smp := sampleDigest(&l.digests[i])
	smp.key = l.key(i)
	smp.threshold = l.threshold
	return smp
}

// tasks is the suite's task list, made once.
func (s *Suite) tasks() *suiteTasks {
	s.cache.tasksOnce.Do(func() { s.cache.tasks = newSuiteTasks(s.Result) })
	return s.cache.tasks
}

// baseTasks is the baseline's task list, made once.
func (s *Suite) baseTasks() *suiteTasks {
	s.cache.baseOnce.Do(func() { s.cache.base = newSuiteTasks(s.Baseline) })
	return s.cache.base
}

// eachSample calls fn with the sample of every task of the suite, in order, without the tasks.
func (s *Suite) eachSample(fn func(smp taskSample)) {
	l := s.tasks()
	for i := range l.len() {
		fn(l.sample(i))
	}
}

// deltas indexes the comparison's tasks by key (nil without a comparison).
func (s *Suite) deltas() map[string]*TaskComparison {
	s.cache.deltasOnce.Do(func() { s.cache.deltas = taskComparisons(s.Comparison) })
	return s.cache.deltas
}

// eachTask calls fn with the sample of every task, in order, each with its whole task
// (taskSample.task): from Tasks, or read from the results file again (results.EachTask).
func (s *Suite) eachTask(fn func(smp taskSample) error) error {
	l := s.tasks()
	i := 0
	return s.Result.EachTask(func(t *results.TaskResult) error {
		if i == l.len() {
			return fmt.Errorf("suite %s: its tasks changed while the reports were written", suiteName(s.Result))
		}
		smp := l.sample(i)
		smp.task = t
		i++
		return fn(smp)
	})
}

// verdictOf is what a task is against its baseline: its word, why, level and whether it blocks.
// Without a baseline a failing task blocks (every failure is new) and has no word.
func (s *Suite) verdictOf(smp taskSample) unitVerdict {
	c := s.Comparison
	if c == nil || c.NoBaseline {
		if failing(smp) {
			return unitVerdict{level: LevelError, blocking: true}
		}
		return unitVerdict{}
	}
	s.cache.verdictsOnce.Do(func() {
		out := make(map[string]unitVerdict, len(c.Tasks)+len(c.NewTasks)+len(c.NotInBaseline))
		for _, t := range c.Tasks {
			out[t.ID] = unitVerdict{change: t.Change, why: t.Why, level: t.Level, blocking: t.Blocking}
		}
		for _, t := range c.NewTasks {
			out[t.ID] = unitVerdict{change: t.Change, why: t.Why, level: t.Level, blocking: t.Blocking}
		}
		for _, t := range c.NotInBaseline {
			out[t.ID] = unitVerdict{change: t.Change, why: t.Why, level: LevelNotice}
		}
		s.cache.verdicts = out
	})
	return s.cache.verdicts[smp.key]
}

// taskFacts are the counts of a suite's grader results the reports mention: grades awaiting a
// person or deferred to the report workflow, checks no judge graded, and the grader types.
type taskFacts struct {
	pendingHuman, deferred int
	awaitingJudge          int
	judgeWhy               string // the first unjudged check's message
	graderTypes            map[string]bool
}

func (f *taskFacts) add(t *results.TaskResult) {
	for _, run := range t.Runs {
		for _, v := range run.Validations {
			if v == nil {
				continue
			}
			if f.graderTypes == nil {
				f.graderTypes = map[string]bool{}
			}
			f.graderTypes[v.Type] = true
			switch {
			case v.Deferred():
				f.deferred++
			case v.AwaitsJudge():
				f.awaitingJudge++
				if f.judgeWhy == "" {
					f.judgeWhy = v.Feedback
				}
			case v.Status == results.StatusPending:
				f.pendingHuman++
			}
		}
	}
}

// taskFacts are the suite's facts: kept from the pass that wrote the reports, else counted now.
func (s *Suite) taskFacts() *taskFacts {
	s.cache.factsMu.Lock()
	defer s.cache.factsMu.Unlock()
	if s.cache.facts == nil {
		f := &taskFacts{}
		s.Result.EachTask(func(t *results.TaskResult) error {
			f.add(t)
			return nil
		})
		s.cache.facts = f
	}
	return s.cache.facts
}

// keepFacts keeps the facts a pass counted, so the terminal table does not read the tasks again.
func (s *Suite) keepFacts(f *taskFacts) {
	s.cache.factsMu.Lock()
	defer s.cache.factsMu.Unlock()
	if s.cache.facts == nil {
		s.cache.facts = f
	}
}

// taskVisitor is a renderer in a pass over the tasks (visitTasks): it is told when each suite
// starts, given each of its tasks in order, told when it ends, and finishes after the last.
type taskVisitor interface {
	suiteStart(st *suiteState)
	task(st *suiteState, smp taskSample)
	suiteEnd(st *suiteState)
	finish() error
}

// visitBatch is how many tasks go to the renderers at a time.
const visitBatch = 64

// visitTasks runs one pass over the tasks of every suite, in order, for every visitor: each
// task is read once (results.EachTask) and handed to each visitor, every visitor working on its
// own goroutine with a bounded number of batches queued. It returns the error of reading the
// tasks, else the first visitor's error from finish, and each visitor's own error.
func visitTasks(sts []*suiteState, vs ...taskVisitor) ([]error, error) {
	errs := make([]error, len(vs))
	if len(vs) == 1 {
		v := vs[0]
		var err error
		for _, st := range sts {
			v.suiteStart(st)
			err = st.s.eachTask(func(smp taskSample) error {
				v.task(st, smp)
				return nil
			})
			v.suiteEnd(st)
			if err != nil {
				break
			}
		}
		errs[0] = v.finish()
		return errs, firstError(err, errs)
	}
	type event struct {
		st    *suiteState
		start bool
		end   bool
		batch []taskSample
	}
	chans := make([]chan event, len(vs))
	var wg sync.WaitGroup
	for i, v := range vs {
		ch := make(chan event, 4)
		chans[i] = ch
		wg.Go(func() {
			for ev := range ch {
				switch {
				case ev.start:
					v.suiteStart(ev.st)
				case ev.end:
					v.suiteEnd(ev.st)
				default:
					for _, smp := range ev.batch {
						v.task(ev.st, smp)
					}
				}
			}
			errs[i] = v.finish()
		})
	}
	send := func(ev event) {
		for _, ch := range chans {
			ch <- ev
		}
	}
	var err error
	for _, st := range sts {
		send(event{st: st, start: true})
		batch := make([]taskSample, 0, visitBatch)
		err = st.s.eachTask(func(smp taskSample) error {
			batch = append(batch, smp)
			if len(batch) == visitBatch {
				send(event{st: st, batch: batch})
				batch = make([]taskSample, 0, visitBatch)
			}
			return nil
		})
		if len(batch) > 0 {
			send(event{st: st, batch: batch})
		}
		send(event{st: st, end: true})
		if err != nil {
			break
		}
	}
	for _, ch := range chans {
		close(ch)
	}
	wg.Wait()
	return errs, firstError(err, errs)
}

func firstError(err error, errs []error) error {
	if err != nil {
		return err
	}
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
