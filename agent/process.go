package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/skillgate/skillgate/internal/childenv"
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
	Env   []string  // nil: a child's environment in Dir (childenv.For)
	Stdin io.Reader // nil: the agent reads an empty stdin
	// StderrLine, when set, is handed every line of standard error as it comes (cut at
	// maxStderrLine): some CLIs report what they are doing only there (Gemini CLI's retries).
	StderrLine func(line []byte)
	// Interrupt, when closed, interrupts the agent (SIGINT to its group, as Ctrl-C would) and
	// gives it interruptGrace to exit by itself before its group is killed.
	Interrupt <-chan struct{}
}

// interruptGrace is how long an interrupted agent may take to print its last report and exit
// (Claude Code prints its result line with the session's usage within about a second).
var interruptGrace = 5 * time.Second

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
	if cmd.Env == nil {
		cmd.Env = childenv.For(c.Dir)
	}
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
		if c.StderrLine == nil {
			_, _ = io.Copy(tail, stderrR)
		} else {
			lines := &lineSplitter{fn: c.StderrLine}
			_, _ = io.Copy(io.MultiWriter(tail, lines), stderrR)
			lines.flush()
		}
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
	expired := func() {
		mu.Lock()
		// The caller's deadline passing is a timeout too, not a cancellation.
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			out.Canceled = true
		} else {
			out.TimedOut = true
		}
		mu.Unlock()
	}
	go func() {
		defer close(watchdogDone)
		select {
		case <-runCtx.Done():
			expired()
			_ = killProcessGroup(cmd.Process)
		case <-c.Interrupt:
			_ = interruptProcessGroup(cmd.Process)
			select {
			case <-exited:
			case <-time.After(interruptGrace):
			case <-runCtx.Done():
				expired()
			}
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
	return o.failureWhile(timeout, "")
}

// failureWhile is failure with what the agent was doing when it timed out (" while the API
// answered 429 (3 retries)"), from its stream.
func (o outcome) failureWhile(timeout time.Duration, while string) []string {
	var reasons []string
	switch {
	case o.TimedOut && while != "":
		reasons = append(reasons, fmt.Sprintf("timed out after %s%s; the agent's process group was killed", timeout, while))
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

// stderrNoisePrefixes start the notices the released CLIs print on standard error whether or not
// anything fails (seen on Codex 0.171, Gemini CLI 0.61, Copilot CLI 1.0.102 under load and Qwen
// Code 0.24; Claude Code and opencode print none).
var stderrNoisePrefixes = []string{
	// Codex when CODEX_HOME is under a temporary folder.
	"WARNING: proceeding, even though we could not create PATH aliases",
	// Gemini CLI without a 256-colour terminal, and announcing --yolo.
	"Warning: 256-color support not detected.",
	"YOLO mode is enabled.",
	// Qwen Code announcing --yolo.
	"Warning: running headless with --yolo",
	// Copilot CLI 1.0.102 when unpacking itself was slow (a loaded machine, a first run).
	"Package extraction took ",
}

// noise reports whether a stderr line says nothing: a known notice, a frame of a stack trace
// ("at f (file.js:1:2)"), or no letter or digit at all (the closing brace of a JSON dump, a row
// of dashes).
func noise(line string) bool {
	if stderrNoise[line] {
		return true
	}
	for _, p := range stderrNoisePrefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	if rest, ok := strings.CutPrefix(line, "at "); ok && (strings.HasSuffix(rest, ")") || strings.HasSuffix(rest, "{") ||
		strings.Contains(rest, "file:") || strings.Contains(rest, "node:")) {
		return true
	}
	for _, r := range line {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// dumpProperty is a line inside an object dump: "status: 500", "code: 'ECONNRESET',".
var dumpProperty = regexp.MustCompile(`^["']?[A-Za-z_$][\w$-]*["']?\s*:\s`)

// lastLine returns the last meaningful line of a text, bounded, to explain a failed exit. The
// inside of a trailing object dump (Node's "Error … {\n  status: 500\n}") is skipped with it.
func lastLine(s string) string {
	depth := 0 // closing braces of a dump seen, whose openings are not reached yet
	for len(s) > 0 {
		i := len(s) - 1
		for i >= 0 && s[i] != '\n' {
			i--
		}
		line := strings.TrimSpace(s[i+1:])
		switch {
		case line != "" && noise(line):
			depth += strings.Count(line, "}") + strings.Count(line, "]") - strings.Count(line, "{") - strings.Count(line, "[")
			depth = max(depth, 0)
		case depth > 0 && (strings.HasSuffix(line, "{") || strings.HasSuffix(line, "[")):
			depth--
		case depth > 0 && dumpProperty.MatchString(line):
		case line != "":
			return shorten(line, 300)
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
