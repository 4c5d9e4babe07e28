package graders

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strings"
	"time"

	"github.com/skillgate/skillgate/internal/procgroup"
)

// Bounds of what is kept from a grader program's output.
const (
	maxProgramStdout  = 1 << 20 // the result JSON (or program feedback) must fit
	maxProgramStderr  = 8 << 10 // the last 8 KiB are kept in details
	maxMessageStderr  = 1000    // … and the last 1,000 characters in error messages
	programPipeGrace  = 2 * time.Second
	defaultGradeLimit = 30 * time.Second
)

// procResult is how a grader program ended.
type procResult struct {
	stdout   []byte
	stderr   string // the tail
	exitCode int    // -1 when killed or never started
	timedOut bool
}

// runProgram runs a grader program with stdin, in dir, with env, killing its whole process
// group when the timeout passes or ctx ends. err is for a program that could not be started.
func runProgram(ctx context.Context, path string, args []string, dir string, env []string, stdin []byte, timeout time.Duration) (procResult, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, path, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = bytes.NewReader(stdin)
	stdout := &headBuffer{limit: maxProgramStdout}
	stderr := &tailBuffer{limit: maxProgramStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	procgroup.Set(cmd)
	// A descendant that left the process group may hold the pipes open; stop waiting for it.
	cmd.WaitDelay = programPipeGrace
	err := cmd.Run()
	res := procResult{stdout: stdout.Bytes(), stderr: stderr.String(), exitCode: -1}
	if errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
		res.timedOut = true
		return res, nil
	}
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		res.exitCode = 0
	case errors.As(err, &exitErr):
		res.exitCode = exitErr.ExitCode()
	case errors.Is(err, exec.ErrWaitDelay):
		res.exitCode = cmd.ProcessState.ExitCode()
	default:
		return res, err
	}
	return res, nil
}

// headBuffer keeps the first limit bytes written and drops the rest.
type headBuffer struct {
	buf       bytes.Buffer
	limit     int
	truncated bool
}

func (b *headBuffer) Write(p []byte) (int, error) {
	if room := b.limit - b.buf.Len(); room > 0 {
		if len(p) > room {
			b.buf.Write(p[:room])
			b.truncated = true
		} else {
			b.buf.Write(p)
		}
	} else if len(p) > 0 {
		b.truncated = true
	}
	return len(p), nil
}

func (b *headBuffer) Bytes() []byte { return b.buf.Bytes() }

// tailBuffer keeps the last limit bytes written.
type tailBuffer struct {
	buf   []byte
	limit int
	cut   bool
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.limit; over > 0 {
		b.buf = append(b.buf[:0], b.buf[over:]...)
		b.cut = true
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	s := string(b.buf)
	if b.cut {
		return "…" + strings.ToValidUTF8(s, "")
	}
	return s
}

// stderrTail is the end of a program's stderr for an error message.
func stderrTail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > maxMessageStderr {
		s = "…" + strings.ToValidUTF8(s[len(s)-maxMessageStderr:], "")
	}
	return s
}
