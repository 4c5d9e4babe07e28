package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"runtime"
	"sync"
)

// ReadFile reads a results file written by skillgate or waza. waza files (no schema_version) are
// normalized: Copilot-native transcript events become normalized events, and statuses and
// statistics are recomputed with skillgate's rules (docs/results.md) so both sides of a comparison
// mean the same thing.
//
// The file is streamed: each element of the top-level tasks array is cut from the input as it is
// read and decoded on one of the CPUs, so neither the file nor its tasks' JSON is ever held whole.
// A file the stream cannot read (invalid or truncated JSON, a wrong type) is read again with
// Decode, whose errors say where the problem is.
func ReadFile(path string) (*SuiteResult, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &ReadError{Path: path, Msg: err.Error()}
	}
	s, version, ok := decodeStream(f)
	f.Close()
	if ok {
		return finishDecode(s, version, path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &ReadError{Path: path, Msg: err.Error()}
	}
	return Decode(data, path)
}

// errStream stops the stream; the caller falls back to Decode for the error message.
var errStream = errors.New("results: not readable as a stream")

// decodeStream decodes a results file from r. ok is false when the input is not a well-formed
// results object (the caller then reports the problem from a full decode).
func decodeStream(r io.Reader) (s *SuiteResult, version *int, ok bool) {
	sc := &streamScanner{r: r, buf: make([]byte, 0, 256<<10)}
	var rest bytes.Buffer // every top-level member but the tasks, re-assembled into one object
	rest.WriteByte('{')
	var (
		tasks    []*TaskResult
		errs     []error
		sawTasks bool
		wg       sync.WaitGroup
		mu       sync.Mutex
		sem      = make(chan struct{}, runtime.GOMAXPROCS(0)*2)
	)
	decodeTask := func(i int, data []byte) {
		defer wg.Done()
		defer func() { <-sem }()
		var t *TaskResult
		err := json.Unmarshal(data, &t)
		mu.Lock()
		tasks[i] = t
		if err != nil {
			errs = append(errs, err)
		}
		mu.Unlock()
	}
	err := func() error {
		if c, err := sc.nonSpace(); err != nil || c != '{' {
			return errStream
		}
		sc.pos++
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
			if string(key) == `"tasks"` && c == '[' && !sawTasks {
				sawTasks = true
				sc.pos++
				tasks = []*TaskResult{}
				for i := 0; ; i++ {
					done, err := sc.nextItem(i == 0, ']')
					if err != nil {
						return err
					}
					if done {
						break
					}
					data, err := sc.value(nil)
					if err != nil {
						return err
					}
					mu.Lock()
					tasks = append(tasks, nil)
					mu.Unlock()
					sem <- struct{}{}
					wg.Add(1)
					go decodeTask(i, data)
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
	wg.Wait()
	if err != nil || len(errs) > 0 {
		return nil, nil, false
	}
	rest.WriteByte('}')
	var file struct {
		*SuiteResult
		SchemaVersion *int `json:"schema_version"`
	}
	file.SuiteResult = &SuiteResult{}
	if err := json.Unmarshal(rest.Bytes(), &file); err != nil {
		return nil, nil, false
	}
	if sawTasks {
		file.SuiteResult.Tasks = tasks
	}
	return file.SuiteResult, file.SchemaVersion, true
}

// streamScanner cuts JSON values out of a reader without decoding them.
type streamScanner struct {
	r   io.Reader
	buf []byte
	pos int
	eof bool
	off int64 // the input's bytes before buf[0]
}

// offset is the position in the input of the next byte.
func (sc *streamScanner) offset() int64 { return sc.off + int64(sc.pos) }

// fill reads more input, keeping what is unread. It returns io.EOF at the end.
func (sc *streamScanner) fill() error {
	if sc.eof {
		return io.EOF
	}
	if sc.pos > 0 {
		sc.off += int64(sc.pos)
		n := copy(sc.buf, sc.buf[sc.pos:])
		sc.buf = sc.buf[:n]
		sc.pos = 0
	}
	if len(sc.buf) == cap(sc.buf) {
		sc.buf = append(sc.buf, 0)[:len(sc.buf)]
	}
	n, err := sc.r.Read(sc.buf[len(sc.buf):cap(sc.buf)])
	sc.buf = sc.buf[:len(sc.buf)+n]
	if err == io.EOF {
		sc.eof = true
		if n == 0 {
			return io.EOF
		}
		return nil
	}
	return err
}

// nextItem moves to the next member of an object, or element of an array, whose closing byte
// is end, consuming the comma before every item but the first. done is true, with end
// consumed, when there is no further item.
func (sc *streamScanner) nextItem(first bool, end byte) (done bool, err error) {
	c, err := sc.nonSpace()
	if err != nil {
		return false, err
	}
	if c == end {
		sc.pos++
		return true, nil
	}
	if !first {
		if c != ',' {
			return false, errStream
		}
		sc.pos++
		if _, err := sc.nonSpace(); err != nil {
			return false, err
		}
	}
	return false, nil
}

// nonSpace skips whitespace and returns the next byte without consuming it.
func (sc *streamScanner) nonSpace() (byte, error) {
	for {
		for sc.pos < len(sc.buf) {
			switch c := sc.buf[sc.pos]; c {
			case ' ', '\n', '\t', '\r':
				sc.pos++
			default:
				return c, nil
			}
		}
		if err := sc.fill(); err != nil {
			return 0, err
		}
	}
}

// value appends the next JSON value's bytes (a string, number, literal, object or array,
// checked only for balance; the decoder checks the rest) to dst and consumes them.
func (sc *streamScanner) value(dst []byte) ([]byte, error) {
	depth := 0
	inString := false
	base := len(dst)
	for {
		start := sc.pos
		for sc.pos < len(sc.buf) {
			c := sc.buf[sc.pos]
			if inString {
				// Jump to the next quote or escape.
				i := bytes.IndexAny(sc.buf[sc.pos:], "\"\\")
				if i < 0 {
					sc.pos = len(sc.buf)
					break
				}
				sc.pos += i
				if sc.buf[sc.pos] == '\\' {
					if sc.pos+1 >= len(sc.buf) {
						break // the escaped byte is in the next read
					}
					sc.pos += 2
					continue
				}
				sc.pos++
				inString = false
				if depth == 0 {
					return append(dst, sc.buf[start:sc.pos]...), nil
				}
				continue
			}
			switch c {
			case '"':
				inString = true
			case '{', '[':
				depth++
			case '}', ']':
				if depth == 0 {
					if sc.pos == start && len(dst) == base {
						return nil, errStream
					}
					return append(dst, sc.buf[start:sc.pos]...), nil // a number or literal ends
				}
				depth--
				if depth == 0 {
					sc.pos++
					return append(dst, sc.buf[start:sc.pos]...), nil
				}
			case ',', ' ', '\n', '\t', '\r', ':':
				if depth == 0 {
					if sc.pos == start && len(dst) == base {
						return nil, errStream
					}
					return append(dst, sc.buf[start:sc.pos]...), nil // end of a number or literal
				}
			}
			sc.pos++
		}
		dst = append(dst, sc.buf[start:sc.pos]...)
		if err := sc.fill(); err != nil {
			if err == io.EOF && depth == 0 && !inString && len(dst) > base {
				return dst, nil // a number or literal at the very end
			}
			return nil, errStream
		}
	}
}
