package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"sync/atomic"
)

// A results file of a million tasks takes gigabytes once decoded, though the reports read one
// task at a time. OpenFile therefore reads a large file without holding its tasks: a first pass
// cuts the tasks array into batches of elements (byte ranges) and keeps every other member, the
// shell; a second decodes the tasks on every CPU, finishes each as ReadFile would, computes
// every aggregate of the file from them (summary, spend, calibration) and keeps one TaskDigest
// per task. EachTask reads the tasks again, the same way, whenever a report lists them.

// DefaultResident is the size up to which OpenFile reads a results file whole (ReadFile): a
// file this size decodes into a few hundred megabytes at most, and is read once instead of
// twice.
const DefaultResident = 64 << 20

// OpenOptions tune OpenFileWith.
type OpenOptions struct {
	// Resident is the largest file read whole; 0 means DefaultResident, a negative value reads
	// every file in passes.
	Resident int64
}

// OpenFile reads a results file for the commands that report on it (report, compare): a file
// up to DefaultResident bytes as ReadFile does, a larger one without holding its tasks (Tasks
// is nil; EachTask reads them from the file again, TaskDigests has what the comparison reads).
// Figures, read warnings and errors are those ReadFile gives for the same file.
func OpenFile(path string) (*SuiteResult, error) { return OpenFileWith(path, OpenOptions{}) }

// OpenFileWith is OpenFile with options.
func OpenFileWith(path string, opts OpenOptions) (*SuiteResult, error) {
	limit := opts.Resident
	if limit == 0 {
		limit = DefaultResident
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &ReadError{Path: path, Msg: err.Error()}
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || (limit > 0 && info.Size() <= limit) {
		f.Close()
		return ReadFile(path)
	}
	shell, batches, elements, ok := scanTasks(f)
	f.Close()
	if !ok {
		return ReadFile(path) // its errors say what is wrong with the file
	}
	s, err := openShell(path, info, shell, batches, elements)
	if errors.Is(err, errStream) {
		return ReadFile(path)
	}
	return s, err
}

// taskBatch is a run of elements of a file's tasks array: the bytes from the first element's
// start to the last one's end.
type taskBatch struct {
	start, end int64
}

// Batches close at whichever comes first: a number of elements or a size, so that a batch is
// worth a goroutine and a few batches in flight stay small.
const (
	batchTasks = 64
	batchBytes = 1 << 20
)

// scanTasks is the first pass: it cuts the top-level tasks array into batches without decoding
// it, and returns every other member re-assembled into one object (the shell) and the number of
// elements. ok is false when the input is not a results object this reader can split (the
// caller reads the file whole, which says what is wrong).
func scanTasks(r io.Reader) (shell []byte, batches []taskBatch, elements int, ok bool) {
	sc := &streamScanner{r: r, buf: make([]byte, 0, 256<<10)}
	var rest bytes.Buffer
	rest.WriteByte('{')
	sawTasks := false
	err := func() error {
		if c, err := sc.nonSpace(); err != nil || c != '{' {
			return errStream
		}
		sc.pos++
		var elem []byte
		for first := true; ; first = false {
			done, err := sc.nextItem(first, '}')
			if err != nil {
				return err
			}
			if done {
				break
			}
			key, err := sc.value(nil)
			if err != nil || len(key) == 0 || key[0] != '"' {
				return errStream
			}
			if c, err := sc.nonSpace(); err != nil || c != ':' {
				return errStream
			}
			sc.pos++
			c, err := sc.nonSpace()
			if err != nil {
				return err
			}
			if string(key) == `"tasks"` {
				if c != '[' || sawTasks {
					return errStream // null tasks, or a second tasks key: ReadFile's reading of it
				}
				sawTasks = true
				sc.pos++
				var cur taskBatch
				n := 0
				for i := 0; ; i++ {
					done, err := sc.nextItem(i == 0, ']')
					if err != nil {
						return err
					}
					if done {
						break
					}
					start := sc.offset()
					if elem, err = sc.value(elem[:0]); err != nil {
						return err
					}
					if n == 0 {
						cur.start = start
					}
					cur.end = sc.offset()
					n++
					elements++
					if n == batchTasks || cur.end-cur.start >= batchBytes {
						batches = append(batches, cur)
						n = 0
					}
				}
				if n > 0 {
					batches = append(batches, cur)
				}
				continue
			}
			if rest.Len() > 1 {
				rest.WriteByte(',')
			}
			rest.Write(key)
			rest.WriteByte(':')
			v, err := sc.value(rest.AvailableBuffer())
			if err != nil {
				return err
			}
			rest.Write(v)
		}
		if c, err := sc.nonSpace(); err != io.EOF || c != 0 {
			return errStream // something after the object
		}
		return nil
	}()
	if err != nil || !sawTasks {
		return nil, nil, 0, false
	}
	rest.WriteByte('}')
	return rest.Bytes(), batches, elements, true
}

// openShell decodes the shell, then reads every task once (the second pass) for the figures
// and digests. errStream means the file is one ReadFile should read.
func openShell(path string, info os.FileInfo, shell []byte, batches []taskBatch, elements int) (*SuiteResult, error) {
	var file struct {
		*SuiteResult
		SchemaVersion *int `json:"schema_version"`
	}
	file.SuiteResult = &SuiteResult{}
	if err := json.Unmarshal(shell, &file); err != nil {
		return nil, errStream
	}
	s, version := file.SuiteResult, file.SchemaVersion
	if version != nil {
		var bad error
		switch v := *version; {
		case v > SchemaVersion:
			bad = newerVersion(path, v)
		case v < 1:
			bad = &ReadError{Path: path, Msg: fmt.Sprintf("unknown schema_version %d", v)}
		}
		if bad != nil {
			// ReadFile reports a task that does not decode first: decode them (and drop them).
			tf := &taskFile{path: path, info: info, batches: batches}
			if err := tf.read(&figureClamps{}, func([]*TaskResult) error { return nil }); err != nil {
				return nil, errStream
			}
			return nil, bad
		}
		s.SchemaVersion = *version
	}
	if s.Metrics == nil {
		s.Metrics = map[string]*MetricResult{}
	}
	// What finishDecode does to a whole file, in the same order: the shell's parts here, each
	// task's in taskFinish.
	dropNulls(s)
	restoreShared(s.BaselineOutcome)
	shared := s.SharedDetails
	s.SharedDetails = nil
	var clamps figureClamps
	clamps.suiteHead(s)
	s.file = &taskFile{path: path, info: info, batches: batches, finish: taskFinish{
		shared: shared, waza: version == nil, threshold: s.Config.TaskPassThreshold,
	}}

	z := newSummarizer(s)
	digests := make([]TaskDigest, 0, elements)
	err := s.file.read(&clamps, func(batch []*TaskResult) error {
		for _, t := range batch {
			z.add(t)
		}
		var err error
		digests, err = appendDigests(digests, batch)
		return err
	})
	if err != nil {
		var re *ReadError
		if errors.As(err, &re) {
			return nil, err
		}
		return nil, errStream // a task this reader cannot decode: ReadFile's message says why
	}
	s.file.count = len(digests)
	s.digests = digests
	clamps.suiteTail(s)
	if s.BaselineOutcome != nil {
		clamps.suite(s.BaselineOutcome)
	}
	s.ReadWarnings = append(s.ReadWarnings, clamps.warnings()...)
	z.finish()
	if version == nil {
		s.Gate = ComputeGate(s)
		if b := s.BaselineOutcome; b != nil {
			finishWaza(b)
		}
		for _, tr := range s.TriggerResults {
			tr.Transcript = NormalizeTranscript(tr.Transcript)
		}
	} else if b := s.BaselineOutcome; b != nil {
		refreshFigures(b)
	}
	return s, nil
}

// taskFile is where a suite OpenFile did not hold reads its tasks from.
type taskFile struct {
	path    string
	info    os.FileInfo // the file read first: a file changed since is not read again
	batches []taskBatch
	count   int // tasks (null elements left out)
	finish  taskFinish
	// ahead counts the batches decoded and not yet handed on; mostAhead is the most there
	// have been at once (what a reading holds besides what its caller keeps).
	ahead, mostAhead atomic.Int64
}

// taskFinish finishes a task read from a file as finishDecode finishes a whole file's tasks:
// null runs dropped, the file's shared grader details restored, figures clamped, then waza's
// statuses and statistics recomputed or missing statistics computed.
type taskFinish struct {
	shared    map[string]map[string]any
	waza      bool
	threshold float64
}

func (f *taskFinish) task(t *TaskResult, c *figureClamps) {
	t.Runs = slices.DeleteFunc(t.Runs, func(r *RunResult) bool { return r == nil })
	t.Confirmations = slices.DeleteFunc(t.Confirmations, func(r *RunResult) bool { return r == nil })
	restoreTaskShared(t, f.shared)
	c.task(t)
	if f.waza {
		finishWazaTask(t, f.threshold)
	} else if len(t.Runs) > 0 && !t.Stats.finite() {
		t.Stats = ComputeTaskStats(t.Runs)
	}
}

// read decodes every task in order, batch by batch, and hands each batch to fn in order, its
// tasks finished; the clamps of their figures are noted in c in file order. Batches are read,
// decoded and finished on every CPU, with a bounded number in flight.
func (tf *taskFile) read(c *figureClamps, fn func([]*TaskResult) error) error {
	f, err := os.Open(tf.path)
	if err != nil {
		return &ReadError{Path: tf.path, Msg: err.Error()}
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !os.SameFile(info, tf.info) || info.Size() != tf.info.Size() || !info.ModTime().Equal(tf.info.ModTime()) {
		return &ReadError{Path: tf.path, Msg: "the file changed after it was first read; read it again"}
	}
	type decoded struct {
		tasks  []*TaskResult
		clamps figureClamps
		err    error
	}
	workers := runtime.GOMAXPROCS(0)
	order := make(chan chan decoded, 2*workers)
	stop := make(chan struct{})
	go func() {
		defer close(order)
		sem := make(chan struct{}, workers)
		for _, b := range tf.batches {
			done := make(chan decoded, 1)
			select {
			case order <- done:
			case <-stop:
				return
			}
			sem <- struct{}{}
			go func() {
				defer func() { <-sem }()
				var d decoded
				d.tasks, d.err = decodeBatch(f, b)
				for _, t := range d.tasks {
					tf.finish.task(t, &d.clamps)
				}
				for n := tf.ahead.Add(1); ; {
					if most := tf.mostAhead.Load(); n <= most || tf.mostAhead.CompareAndSwap(most, n) {
						break
					}
				}
				done <- d
			}()
		}
	}()
	var first error
	for done := range order {
		d := <-done
		tf.ahead.Add(-1)
		if first != nil {
			continue
		}
		if d.err != nil {
			first = d.err
			close(stop)
			continue
		}
		c.merge(&d.clamps)
		if err := fn(d.tasks); err != nil {
			first = err
			close(stop)
		}
	}
	return first
}

// decodeBatch reads one batch's bytes and decodes its elements; null elements are left out.
func decodeBatch(f *os.File, b taskBatch) ([]*TaskResult, error) {
	data := make([]byte, b.end-b.start)
	if n, err := f.ReadAt(data, b.start); n < len(data) {
		return nil, &ReadError{Path: f.Name(), Msg: fmt.Sprintf("reading tasks again: %v", err)}
	}
	sc := &streamScanner{buf: data, eof: true}
	var tasks []*TaskResult
	var elem []byte
	for i := 0; ; i++ {
		done, err := sc.nextItem(i == 0, 0)
		if err == io.EOF {
			return tasks, nil
		}
		if err != nil || done {
			return nil, errStream
		}
		if elem, err = sc.value(elem[:0]); err != nil {
			return nil, err
		}
		var t *TaskResult
		if err := json.Unmarshal(elem, &t); err != nil {
			return nil, err
		}
		if t != nil {
			tasks = append(tasks, t)
		}
	}
}

// EachTask calls fn with every task of the suite, in order, until fn returns an error, which it
// returns. A suite OpenFile did not hold reads its tasks from its file again, finished as they
// were the first time; they are fresh copies each time, and changing them changes nothing.
func (s *SuiteResult) EachTask(fn func(*TaskResult) error) error {
	if s.file == nil {
		for _, t := range s.Tasks {
			if t == nil {
				continue
			}
			if err := fn(t); err != nil {
				return err
			}
		}
		return nil
	}
	var c figureClamps
	return s.file.read(&c, func(batch []*TaskResult) error {
		for _, t := range batch {
			addTaskSpend(s, t, nil) // as Summarize set it
			if err := fn(t); err != nil {
				return err
			}
		}
		return nil
	})
}

// eachTask is EachTask for the aggregates of this package, whose callers cannot fail: a file
// that can no longer be read leaves the figures of the tasks read so far.
func (s *SuiteResult) eachTask(fn func(*TaskResult) error) {
	s.EachTask(fn)
}

// TaskCount is the number of tasks (null ones left out).
func (s *SuiteResult) TaskCount() int {
	if s.file != nil {
		return s.file.count
	}
	n := 0
	for _, t := range s.Tasks {
		if t != nil {
			n++
		}
	}
	return n
}

// Streamed reports whether the suite's tasks are read from its file when visited (OpenFile of a
// large file) rather than held in Tasks.
func (s *SuiteResult) Streamed() bool { return s.file != nil }
