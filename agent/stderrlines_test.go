package agent

import (
	"os"
	"strings"
	"testing"
)

// What the released CLIs print on standard error (recorded, testdata/stderr) is quoted only
// when it says something: their notices, Node stack frames and the object dump closing an
// error are skipped.
func TestLastLineOfRealStderr(t *testing.T) {
	for _, tt := range []struct{ file, want string }{
		// Codex 0.171: the PATH-aliases warning and the stdin notice, nothing else.
		{"codex-0.171.0-500.stderr", ""},
		// Gemini CLI 0.61 with one attempt: the error line above its stack trace and the
		// "{ status: 500 }" dump.
		{"gemini-0.61.0-500.stderr", "Error when talking to Gemini API Full report available at: /tmp/gemini-client-error-Turn.run-sendMessageStream-"},
		{"gemini-0.61.0-429-retries.stderr", "Attempt 4 failed with status 429. Retrying with backoff..."},
		// Qwen Code 0.24 killed while retrying: its --yolo warning is skipped.
		{"qwen-code-0.24.4-500-killed.stderr", "Operation cancelled."},
		{"claude-code-2.1.332-root-bypass.stderr", "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"},
	} {
		data, err := os.ReadFile("testdata/stderr/" + tt.file)
		if err != nil {
			t.Fatal(err)
		}
		got := lastLine(string(data))
		if (tt.want == "") != (got == "") || !strings.HasPrefix(got, tt.want) {
			t.Errorf("%s: last line %q, want %q…", tt.file, got, tt.want)
		}
		if len(got) > 300+len("…") {
			t.Errorf("%s: %d bytes quoted", tt.file, len(got))
		}
	}
}

func TestLastLineSkipsOnlyDumps(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Error: boom\n  at f (file:///x.js:1:2)\n  at async g (node:internal/x:3:4) {\n  code: 'E1',\n  status: 500\n}\n", "Error: boom"},
		{"[API Error: 500]\n  }\n}\n", "[API Error: 500]"},
		{"fatal: status: 500\n", "fatal: status: 500"},
		{"at the end of the day it failed\n", "at the end of the day it failed"},
		{"line one\r\nline two\r\n", "line two"},
		// Copilot CLI 1.0.102 on a loaded machine (seen in the conformance tests).
		{"Error: quota\nPackage extraction took 29751ms\n", "Error: quota"},
	} {
		if got := lastLine(tt.in); got != tt.want {
			t.Errorf("lastLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestLineSplitter(t *testing.T) {
	var got []string
	s := &lineSplitter{fn: func(l []byte) { got = append(got, string(l)) }}
	long := strings.Repeat("x", maxStderrLine+10)
	for _, chunk := range []string{"one\r\ntw", "o\n", long[:100], long[100:] + "\nthree", ""} {
		s.Write([]byte(chunk))
	}
	s.flush()
	want := []string{"one", "two", long[:maxStderrLine], "three"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("lines %q", got)
	}
}

// FuzzStderr feeds arbitrary standard error, in arbitrary chunks, through the line splitter into
// Gemini CLI's retry reader, and checks what a failed exit would quote: one line of the input,
// bounded.
func FuzzStderr(f *testing.F) {
	for _, name := range []string{"gemini-0.61.0-429-retries.stderr", "gemini-0.61.0-500.stderr", "codex-0.171.0-500.stderr", "qwen-code-0.24.4-500-killed.stderr"} {
		data, err := os.ReadFile("testdata/stderr/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(7))
	}
	f.Add([]byte("}\n]\n{\nat x\n"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		p := newGeminiParser()
		var lines int
		s := &lineSplitter{fn: func(l []byte) {
			lines++
			if len(l) > maxStderrLine {
				t.Fatalf("line of %d bytes", len(l))
			}
			p.stderrLine(l)
		}}
		size := int(chunk) + 1
		for rest := data; len(rest) > 0; {
			n := min(size, len(rest))
			s.Write(rest[:n])
			rest = rest[n:]
		}
		s.flush()
		if p.b.retry.count > lines {
			t.Fatalf("%d retries from %d lines", p.b.retry.count, lines)
		}
		got := lastLine(string(data))
		if len(got) > 300+len("…") || strings.Contains(got, "\n") {
			t.Fatalf("quoted %q", got)
		}
		if trimmed := strings.TrimSuffix(got, "…"); got != "" && !strings.Contains(string(data), trimmed) {
			t.Fatalf("quoted %q, not in the input", got)
		}
	})
}
