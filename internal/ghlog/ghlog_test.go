package ghlog

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

func TestWriterDefusesCommands(t *testing.T) {
	cases := []struct {
		name   string
		writes []string
		want   string
	}{
		{"plain", []string{"plain line\n"}, "plain line\n"},
		{"commands", []string{"::add-mask::secret\n  ::error file=x::boom\n##[error]legacy\n\u00a0::warning::nbsp\n"},
			"› ::add-mask::secret\n›   ::error file=x::boom\n› ##[error]legacy\n› \u00a0::warning::nbsp\n"},
		{"group markers written as text", []string{"::group::x\n::endgroup::\n"}, "› ::group::x\n› ::endgroup::\n"},
		{"a name with a line break", []string{"✓ [1/2] say hi\n::error::forged — 1/1 passed\n"}, "✓ [1/2] say hi\n› ::error::forged — 1/1 passed\n"},
		{"a carriage return ends a line", []string{"task x\r::add-mask::y\n"}, "task x\r› ::add-mask::y\n"},
		{"CRLF", []string{"a\r\n::notice::b\r\n"}, "a\r\n› ::notice::b\r\n"},
		{"split across writes", []string{"partial ::set-output", " name=x::y\n:", ":stop-commands::t\n"}, "partial ::set-output name=x::y\n› ::stop-commands::t\n"},
		{"a CR at the end of a write", []string{"a\r", "\n::x::\n"}, "a\r\n› ::x::\n"},
		{"no final newline", []string{"::notice::no newline"}, "› ::notice::no newline\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			w := New(&out)
			for _, s := range c.writes {
				io.WriteString(w, s)
			}
			w.Flush()
			if out.String() != c.want {
				t.Errorf("got  %q\nwant %q", out.String(), c.want)
			}
			for _, line := range strings.FieldsFunc(out.String(), func(r rune) bool { return r == '\n' || r == '\r' }) {
				if IsCommand([]byte(line)) {
					t.Errorf("a command got through: %q", line)
				}
			}
		})
	}
}

func TestCommandPassesOnALineOfItsOwn(t *testing.T) {
	var out bytes.Buffer
	w := New(&out)
	io.WriteString(w, "half a line")
	Command(w, "::group::suite")
	io.WriteString(w, "inside\n")
	Command(w, "::endgroup::")
	want := "half a line\n::group::suite\ninside\n::endgroup::\n"
	if out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	var plain bytes.Buffer
	Command(&plain, "::endgroup::")
	if plain.String() != "::endgroup::\n" {
		t.Errorf("to a plain writer: %q", plain.String())
	}
}

// Whatever is written, and however it is split into writes, no line that reaches the log is a
// workflow command, and removing the marks gives back what was written.
func FuzzWriter(f *testing.F) {
	f.Add("name\n::error::x\r::add-mask::y\r\n  ##[group]z", 3)
	f.Add("::", 1)
	f.Fuzz(func(t *testing.T, s string, cut int) {
		var out bytes.Buffer
		w := New(&out)
		if cut < 0 || cut > len(s) {
			cut = len(s) / 2
		}
		io.WriteString(w, s[:cut])
		io.WriteString(w, s[cut:])
		w.Flush()
		got := out.String()
		for _, line := range splitLines(got) {
			if IsCommand([]byte(line)) {
				t.Fatalf("a command got through: %q in %q", line, got)
			}
		}
		want := s
		if want != "" && !strings.HasSuffix(want, "\n") {
			want += "\n"
		}
		if restored := strings.ReplaceAll(got, Mark, ""); restored != want && !strings.Contains(s, Mark) {
			t.Fatalf("written %q, logged %q", s, got)
		}
	})
}

// splitLines splits as the runner reads: at "\n", "\r" and "\r\n".
func splitLines(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' })
}
