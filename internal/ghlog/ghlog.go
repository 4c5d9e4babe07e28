// Package ghlog writes text to a GitHub Actions log so that none of it is read as a workflow
// command. The runner reads a step's output line by line — a line ends at "\n", "\r" or "\r\n"
// (.NET's StreamReader.ReadLine) — and takes a line whose first characters after white space are
// `::` (or the legacy `##[`) as a command: a suite or task name, a grader message or an agent's
// output holding a line break followed by `::add-mask::…`, `::error::…` or `::stop-commands::…`
// would otherwise forge annotations or hide the log. Every such line written through a Writer
// gets a visible "› " in front; the commands skillgate means to give go through Command.
package ghlog

import (
	"bytes"
	"fmt"
	"io"
	"sync"
	"unicode"
)

// Mark is what a line that would be a workflow command gets in front.
const Mark = "› "

// Writer defuses workflow commands in what is written to it. Complete lines are written through
// at once; a partial line waits for its end (or Flush). It is safe for concurrent use.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// New returns a Writer writing to w.
func New(w io.Writer) *Writer { return &Writer{w: w} }

func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		end := lineEnd(w.buf)
		if end < 0 {
			break
		}
		if err := w.writeLine(w.buf[:end]); err != nil {
			return len(p), err
		}
		w.buf = w.buf[end:]
	}
	if len(w.buf) == 0 {
		w.buf = nil // do not keep a large buffer alive
	}
	return len(p), nil
}

// lineEnd is the length of the first complete line of b (its terminator included), or -1. A
// "\r" at the very end waits: a "\n" may follow.
func lineEnd(b []byte) int {
	i := bytes.IndexAny(b, "\r\n")
	switch {
	case i < 0:
		return -1
	case b[i] == '\n':
		return i + 1
	case i+1 == len(b):
		return -1
	case b[i+1] == '\n':
		return i + 2
	}
	return i + 1
}

// Command writes line (a workflow command skillgate gives, e.g. `::group::…` from
// go-githubactions, whose message is escaped) on a line of its own, unchanged.
func (w *Writer) Command(line string) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.flush(true); err != nil {
		return err
	}
	_, err := io.WriteString(w.w, line+"\n")
	return err
}

// Flush writes a pending partial line, ended with a line break.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flush(true)
}

func (w *Writer) flush(newline bool) error {
	if len(w.buf) == 0 {
		return nil
	}
	line := w.buf
	if newline {
		line = append(line, '\n')
	}
	w.buf = nil
	return w.writeLine(line)
}

func (w *Writer) writeLine(line []byte) error {
	if IsCommand(line) {
		if _, err := io.WriteString(w.w, Mark); err != nil {
			return err
		}
	}
	_, err := w.w.Write(line)
	return err
}

// IsCommand reports whether the runner would read line as a workflow command: after Unicode
// white space (which the runner trims), it starts with `::` or `##[`.
func IsCommand(line []byte) bool {
	trimmed := bytes.TrimLeftFunc(line, unicode.IsSpace)
	return bytes.HasPrefix(trimmed, []byte("::")) || bytes.HasPrefix(trimmed, []byte("##["))
}

// Commander is a writer that gives workflow commands on lines of their own (a *Writer).
type Commander interface {
	Command(line string) error
}

// Command writes the workflow command line to w: through w's Command when w defuses commands,
// else as a line of its own.
func Command(w io.Writer, line string) error {
	if c, ok := w.(Commander); ok {
		return c.Command(line)
	}
	_, err := fmt.Fprintln(w, line)
	return err
}
