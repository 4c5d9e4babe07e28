package results

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/skillgate/skillgate/internal/redact"
)

// A journal sits beside a suite's results file while the suite runs (<results>.journal): a
// header line (the suite's result without tasks) and then one line per finished task, written
// as the task finishes (so it survives the process being killed) and synced to disk within
// journalSync of being written (so a machine crash loses at most that much, and a fast suite of
// thousands of tasks does not wait for a disk flush per task, nor a small one for any: the first
// sync of a new file costs milliseconds). The run turns it into the results file and
// removes it; after a crash or `kill -9` the next run with the same output folder, or
// `skillgate report`, recovers every task that finished, marked incomplete. The writer holds
// an exclusive lock on the journal while it runs, so a journal that can be locked belongs to a
// run that is gone (docs/results.md#journal).

// JournalSuffix is appended to a results file's path to name its journal.
const JournalSuffix = ".journal"

// JournalPath is the journal of a results file.
func JournalPath(resultsFile string) string { return resultsFile + JournalSuffix }

// MaxJournalLine bounds one line of a journal (one task's results, transcripts included).
const MaxJournalLine = 256 << 20

// ErrJournalInUse means the journal's run is still going (it holds the lock).
var ErrJournalInUse = errors.New("the journal belongs to a run still in progress")

type journalHeader struct {
	Journal   int          `json:"skillgate_journal"`
	PID       int          `json:"pid"`
	StartedAt time.Time    `json:"started_at"`
	Suite     *SuiteResult `json:"suite"`
}

// Journal appends finished tasks to a journal file.
type Journal struct {
	mu       sync.Mutex
	f        *os.File
	path     string
	err      error
	lastSync time.Time   // the last sync, or the journal's creation
	syncing  *time.Timer // a sync due for lines written since lastSync
	closed   bool
}

// journalSync is the longest a finished task stays in the journal unsynced.
var journalSync = time.Second // a variable for the tests

// CreateJournal starts a journal at path (replacing any old one) with head's suite fields.
func CreateJournal(path string, head *SuiteResult) (*Journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lockFile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, ErrJournalInUse)
	}
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, err
	}
	h := *head
	h.Tasks = nil
	line, err := json.Marshal(journalHeader{Journal: 1, PID: os.Getpid(), StartedAt: time.Now().UTC(), Suite: &h})
	if err != nil {
		f.Close()
		return nil, err
	}
	line = redact.Bytes(line)
	// The header alone is worth nothing after a crash: it is synced with the first task.
	j := &Journal{f: f, path: path, lastSync: time.Now()}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return nil, err
	}
	return j, nil
}

// Append records a finished task durably. After a write error the journal stops (the run goes
// on; only crash recovery is lost) and Err says why.
func (j *Journal) Append(t *TaskResult) error {
	line, err := json.Marshal(t)
	if err != nil {
		return err
	}
	line = redact.Bytes(line)
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	if _, err := j.f.Write(append(line, '\n')); err != nil {
		j.err = err
		return err
	}
	switch since := time.Since(j.lastSync); {
	case since >= journalSync:
		if err := j.sync(); err != nil {
			j.err = err
			return err
		}
	case j.syncing == nil:
		j.syncing = time.AfterFunc(journalSync-since, j.syncDue)
	}
	return nil
}

// syncDue syncs the lines written since the last sync, journalSync after the first of them.
func (j *Journal) syncDue() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.syncing = nil
	if !j.closed && j.err == nil {
		if err := j.sync(); err != nil {
			j.err = err
		}
	}
}

func (j *Journal) sync() error {
	if j.syncing != nil {
		j.syncing.Stop()
		j.syncing = nil
	}
	j.lastSync = time.Now()
	return j.f.Sync()
}

// stop ends the journal's writing; the caller holds mu.
func (j *Journal) stop() {
	j.closed = true
	if j.syncing != nil {
		j.syncing.Stop()
		j.syncing = nil
	}
}

// Remove closes and deletes the journal (the results file has been written).
func (j *Journal) Remove() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.stop()
	err := os.Remove(j.path)
	j.f.Close()
	return err
}

// Close closes the journal and leaves it on disk. It does not sync: the run writes its results
// file next, and a process that is killed loses nothing the kernel holds.
func (j *Journal) Close() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.stop()
	return j.f.Close()
}

// ReadJournal decodes a journal: the suite of its header with every task that was completely
// written, marked incomplete, summarized and gated. A torn last line (the crash came while it
// was written) is dropped; anything else malformed is an error.
func ReadJournal(r io.Reader) (*SuiteResult, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var res *SuiteResult
	var started time.Time
	pid := 0
	for n := 1; ; n++ {
		line, err := readLine(br)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("journal line %d: %w", n, err)
		}
		complete := bytes.HasSuffix(line, []byte("\n"))
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if res == nil {
			var h journalHeader
			if err := json.Unmarshal(line, &h); err != nil || h.Journal != 1 || h.Suite == nil {
				return nil, fmt.Errorf("journal line 1: not a skillgate journal header")
			}
			res, started, pid = h.Suite, h.StartedAt, h.PID
			res.Tasks = nil
			continue
		}
		var t TaskResult
		if err := json.Unmarshal(line, &t); err != nil {
			if !complete {
				break // torn by the crash
			}
			return nil, fmt.Errorf("journal line %d: %w", n, err)
		}
		if t.ID == "" {
			return nil, fmt.Errorf("journal line %d: a task without test_id", n)
		}
		res.Tasks = append(res.Tasks, &t)
	}
	if res == nil {
		return nil, errors.New("the journal is empty")
	}
	res.Incomplete = true
	res.IncompleteReason = fmt.Sprintf("recovered from the journal of a run that stopped before it finished (pid %d, started %s): %d finished task(s)",
		pid, started.Format(time.RFC3339), len(res.Tasks))
	clampFigures(res)
	for _, t := range res.Tasks {
		if t.Runs == nil {
			t.Runs = []*RunResult{}
		}
		t.FinishAt(res.Config.TaskPassThreshold)
	}
	Summarize(res)
	res.Gate = ComputeGate(res)
	return res, nil
}

// readLine reads one line (with its newline, absent at the end of the input) of at most
// MaxJournalLine bytes.
func readLine(br *bufio.Reader) ([]byte, error) {
	var out []byte
	for {
		chunk, err := br.ReadSlice('\n')
		out = append(out, chunk...)
		if len(out) > MaxJournalLine {
			return nil, fmt.Errorf("line over %d bytes", MaxJournalLine)
		}
		switch {
		case err == nil:
			return out, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(out) > 0:
			return out, nil
		default:
			return nil, err
		}
	}
}

// RecoverJournal reads the journal at path when no run holds it: ErrJournalInUse otherwise.
func RecoverJournal(path string) (*SuiteResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, ErrJournalInUse)
	}
	defer unlockFile(f)
	res, err := ReadJournal(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return res, nil
}
