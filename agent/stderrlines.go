package agent

import "bytes"

// maxStderrLine bounds one standard-error line handed to a CLI's stderr reader: the start of a
// longer line is enough to recognise a notice.
const maxStderrLine = 4 << 10

// lineSplitter hands each line written to it to fn, without its newline; a line longer than
// maxStderrLine is handed over cut.
type lineSplitter struct {
	fn       func(line []byte)
	buf      []byte
	overlong bool // the line being read has passed maxStderrLine and was handed over already
}

func (s *lineSplitter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		if !s.overlong {
			room := maxStderrLine - len(s.buf)
			if len(chunk) > room {
				s.buf = append(s.buf, chunk[:room]...)
				s.fn(bytes.TrimSuffix(s.buf, []byte("\r")))
				s.buf = s.buf[:0]
				s.overlong = true
			} else {
				s.buf = append(s.buf, chunk...)
			}
		}
		if i < 0 {
			break
		}
		if !s.overlong {
			s.fn(bytes.TrimSuffix(s.buf, []byte("\r")))
		}
		s.buf = s.buf[:0]
		s.overlong = false
		p = p[i+1:]
	}
	return n, nil
}

// flush hands over a last line without a newline.
func (s *lineSplitter) flush() {
	if len(s.buf) > 0 && !s.overlong {
		s.fn(s.buf)
	}
	s.buf = s.buf[:0]
}
