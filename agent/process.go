package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
	"unicode"
)

// maxStderrBytes bounds the standard error kept from an agent process: its last 64 KiB.
const maxStderrBytes = 64 << 10

// pipeGrace is how long output pipes may stay open after the agent process is gone (held by a
// process that left the agent's process group) before they are closed on our side.
var pipeGrace = 2 * time.Second

// command is one agent process to run.
type command struct {
	Path  string
	Args  []string
	Dir   string
	Env   []string
	Stdin io.Reader // nil: the agent reads an empty stdin
}

// outcome is how an agent process ended.
type outcome struct {
	ExitCode int // -1 when killed by a signal or never waited for
	Stderr   string
	TimedOut bool
	Canceled bool
	// ReadErr is an error reading stdout (not EOF).
	ReadErr error
}

// runCommand runs an agent, handing its stdout to consume as it is produced (never buffered
// whole). The timeout (0: none) and ctx cancellation kill the agent's whole process group; the
// pipes are then closed even if a stray descendant keeps them open, so consume always returns.
// The error is only for an agent that could not be started.
func runCommand(ctx context.Context, c command, timeout time.Duration, consume func(io.Reader) error) (outcome, error) {
	runCtx, cancel := ctx, context.CancelFunc(func() {})
	if timeout > 0 {
		runCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	defer cancel()

	cmd := exec.Command(c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = c.Env
	cmd.Stdin = c.Stdin
	setProcessGroup(cmd)

	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		return outcome{}, err
	}
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		stdoutR.Close()
		stdoutW.Close()
		return outcome{}, err
	}
	cmd.Stdout, cmd.Stderr = stdoutW, stderrW
	err = cmd.Start()
	processStarted(cmd)
	if err != nil {
		for _, f := range []*os.File{stdoutR, stdoutW, stderrR, stderrW} {
			f.Close()
		}
		return outcome{}, err
	}
	// Only the agent holds the write ends now: EOF comes when it and its descendants are done.
	stdoutW.Close()
	stderrW.Close()

	tail := &tailBuffer{limit: maxStderrBytes}
	stderrDone := make(chan struct{})
	go func() {
		_, _ = io.Copy(tail, stderrR)
		close(stderrDone)
	}()

	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()

	var out outcome
	var mu sync.Mutex
	consumed := make(chan struct{})
	watchdogDone := make(chan struct{})
	go func() {
		defer close(watchdogDone)
		select {
		case <-runCtx.Done():
			mu.Lock()
			// The caller's deadline passing is a timeout too, not a cancellation.
			if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
				out.Canceled = true
			} else {
				out.TimedOut = true
			}
			mu.Unlock()
			_ = killProcessGroup(cmd.Process)
		case <-exited:
			// Reap what the agent left running in its group.
			_ = killProcessGroup(cmd.Process)
		}
		select {
		case <-consumed:
		case <-time.After(pipeGrace):
			stdoutR.Close()
		}
	}()

	readErr := consume(capOutput(stdoutR, func() { _ = killProcessGroup(cmd.Process) }))
	// A consumer that stopped early (a document it could not decode) must not leave the agent
	// blocked on a full pipe.
	_, _ = io.Copy(io.Discard, stdoutR)
	close(consumed)
	<-exited
	<-watchdogDone
	select {
	case <-stderrDone:
	case <-time.After(pipeGrace):
		stderrR.Close()
		<-stderrDone
	}
	stdoutR.Close()
	stderrR.Close()

	mu.Lock()
	defer mu.Unlock()
	out.ExitCode = -1
	if cmd.ProcessState != nil {
		out.ExitCode = cmd.ProcessState.ExitCode()
	}
	out.Stderr = tail.String()
	if readErr != nil && !errors.Is(readErr, os.ErrClosed) {
		out.ReadErr = readErr
	}
	return out, nil
}

// failure describes, for the run's error, how the process ended; "" when it ended well. A failed
// exit quotes the last meaningful line of stderr.
func (o outcome) failure(timeout time.Duration) []string {
	var reasons []string
	switch {
	case o.TimedOut:
		reasons = append(reasons, fmt.Sprintf("timed out after %s (the agent's process group was killed)", timeout))
	case o.Canceled:
		reasons = append(reasons, "canceled (the agent's process group was killed)")
	case o.ExitCode != 0:
		reason := fmt.Sprintf("exited with status %d", o.ExitCode)
		if line := lastLine(o.Stderr); line != "" {
			reason += ": " + line
		}
		reasons = append(reasons, reason)
	}
	if o.ReadErr != nil {
		reasons = append(reasons, "reading the agent's output: "+o.ReadErr.Error())
	}
	return reasons
}

// stderrNoise are stderr lines agents print on every run, which explain no failure.
var stderrNoise = map[string]bool{
	// Codex, whenever stdin is not a terminal (skillgate gives it /dev/null).
	"Reading additional input from stdin...": true,
}

// noise reports whether a stderr line says nothing: a known notice, or no letter or digit at all
// (the closing brace of a JSON dump, a row of dashes).
func noise(line string) bool {
	if stderrNoise[line] {
		return true
	}
	for _, r := range line {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// lastLine returns the last meaningful line of a text, bounded, to explain a failed exit.
func lastLine(s string) string {
	for len(s) > 0 {
		i := len(s) - 1
		for i >= 0 && s[i] != '\n' {
			i--
		}
		line := strings.TrimSpace(s[i+1:])
		if line != "" && !noise(line) {
			if len(line) > 300 {
				line = line[:300] + "…"
			}
			return line
		}
		if i < 0 {
			break
		}
		s = s[:i]
	}
	return ""
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	limit   int
	buf     []byte
	dropped int64
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.limit; over > 0 && len(t.buf) > 2*t.limit {
		t.dropped += int64(over)
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	b := t.buf
	dropped := t.dropped
	if over := len(b) - t.limit; over > 0 {
		dropped += int64(over)
		b = b[over:]
	}
	if dropped > 0 {
		return fmt.Sprintf("[skillgate: first %d bytes of stderr dropped]\n", dropped) + string(b)
	}
	return string(b)
}
