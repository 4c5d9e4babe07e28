package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// lineReader returns the lines of a stream one at a time, whatever their length: bufio.Scanner
// stops at 64 KiB by default, and agents print single JSON lines of many megabytes (file reads,
// command output, skill bodies). A final line without a newline is returned too, and a trailing
// "\r" is dropped so Windows line endings parse.
type lineReader struct {
	r   *bufio.Reader
	buf []byte
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64*1024)}
}

// next returns the next line without its terminator. The slice is only valid until the next call.
// At the end of the stream it returns io.EOF (after the last, possibly unterminated, line).
func (l *lineReader) next() ([]byte, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		if err == nil {
			if len(l.buf) == 0 {
				// The common case: the whole line is in the reader's buffer; no copy.
				return trimEOL(chunk), nil
			}
			l.buf = append(l.buf, chunk...)
			return trimEOL(l.buf), nil
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			l.buf = append(l.buf, chunk...)
			continue
		}
		l.buf = append(l.buf, chunk...)
		if len(l.buf) > 0 {
			return trimEOL(l.buf), nil // unterminated last line; the error comes on the next call
		}
		return nil, err
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// lineSink consumes the lines (or JSON documents) of one agent's output.
type lineSink interface {
	// line receives one non-blank line; it may not be JSON.
	line(b []byte)
}

// feedLines reads r to its end and hands every non-blank line to sink. Output printed as one JSON
// document instead of JSON lines (`--output-format json`, pretty-printed or an array of messages)
// is recognised from its first line and handed over one value at a time (each array element, or
// the whole object), still without reading the whole stream into memory.
func feedLines(r io.Reader, sink lineSink) error {
	return feedLineMode(newLineReader(r), sink, true)
}

func feedLineMode(lr *lineReader, sink lineSink, detectDocument bool) error {
	first := detectDocument
	for {
		line, err := lr.next()
		if len(bytes.TrimSpace(line)) > 0 {
			if first {
				first = false
				trimmed := bytes.TrimLeft(line, " \t\ufeff")
				if startsDocument(trimmed) {
					rest := io.MultiReader(bytes.NewReader(append(append([]byte(nil), line...), '\n')), lr.r)
					return feedDocument(rest, sink)
				}
			}
			sink.line(line)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// startsDocument reports whether a first line opens a JSON document spread over several lines or
// an array of messages rather than being one complete JSON line.
func startsDocument(line []byte) bool {
	if len(line) == 0 {
		return false
	}
	switch line[0] {
	case '[':
		return true
	case '{':
		return !json.Valid(line)
	}
	return false
}

// feedDocument decodes JSON documents one after the other: an array is handed over element by
// element (decoded one at a time, so a long array of messages is never held whole), anything else
// as one value. From the first value that does not decode on, the rest of the output is read as
// lines again, so nothing after a malformed document is lost.
func feedDocument(r io.Reader, sink lineSink) error {
	br := bufio.NewReader(r)
	dec := json.NewDecoder(br)
	asLines := func() error {
		return feedLineMode(newLineReader(io.MultiReader(dec.Buffered(), br)), sink, false)
	}
	for {
		if !dec.More() {
			// More is false at EOF and before a stray closing delimiter.
			return asLines()
		}
		if peekNonSpace(dec) == '[' {
			if _, err := dec.Token(); err != nil {
				return asLines()
			}
			for dec.More() {
				var elem json.RawMessage
				if err := dec.Decode(&elem); err != nil {
					return asLines()
				}
				sink.line(compact(elem))
			}
			if _, err := dec.Token(); err != nil {
				return asLines()
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return asLines()
		}
		sink.line(compact(raw))
	}
}

// peekNonSpace returns the first non-space byte the decoder has not consumed yet, or 0.
func peekNonSpace(dec *json.Decoder) byte {
	buf := dec.Buffered()
	one := make([]byte, 1)
	for {
		if _, err := buf.Read(one); err != nil {
			return 0
		}
		switch one[0] {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return one[0]
	}
}

func compact(b []byte) []byte {
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return b
	}
	return out.Bytes()
}
