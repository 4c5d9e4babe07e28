package agent

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/results"
)

// A run that outlasts its timeout while the agent retries a failing API says so, with the status
// and the number of retries, on the released CLIs' real output: Claude Code's system/api_retry
// lines, Copilot CLI's model.call_failure and assistant.turn_retry events, and Gemini CLI's
// "Attempt N failed with status 429" lines on standard error (its stream has none).
func TestRunTimeoutWhileRetrying(t *testing.T) {
	t.Parallel() // each run waits out its timeout
	if runtime.GOOS == "windows" {
		t.Skip("process groups are a unix feature")
	}
	geminiStderr, err := os.ReadFile("testdata/stderr/gemini-0.61.0-429-retries.stderr")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, executor, fixture, lines, stderr, want string
	}{
		{"claude-code", "claude-code", "testdata/transcripts/claude-code/skillgate-recorded-2.1.332-429-retries-killed.jsonl", "-1", "",
			"claude-code: timed out after 1s while the API answered 429 (7 retries); the agent's process group was killed"},
		// Cut before the CLI gave up (its session.error).
		{"copilot", "copilot", "testdata/transcripts/copilot/skillgate-recorded-1.0.102-429-retries.jsonl", "29", "",
			"copilot: timed out after 1s while the API answered 429 (5 retries); the agent's process group was killed"},
		{"gemini", "gemini", "testdata/stderr/gemini-0.61.0-429-retries.jsonl", "-1", string(geminiStderr),
			"gemini: timed out after 1s while the API answered 429 (4 retries); the agent's process group was killed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			run, _, err := fakeRun{executor: tt.executor, mode: "hang", fixture: tt.fixture,
				env: map[string]string{"FAKE_LINES": tt.lines, "FAKE_STDERR": tt.stderr, "FAKE_PIDFILE": filepath.Join(t.TempDir(), "pid")},
				req: Request{Timeout: time.Second}}.run(t)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v\nwant prefix %q", err, tt.want)
			}
			warnings := 0
			for _, ev := range run.Transcript {
				if ev.Role == roleWarning && strings.HasPrefix(ev.Content, "API error 429") {
					warnings++
				}
			}
			if warnings == 0 {
				t.Errorf("no retry kept in the transcript: %+v", run.Transcript)
			}
		})
	}
	// A timeout after the model answered again is a plain timeout.
	_, _, err = fakeRun{executor: "codex", mode: "hang", fixture: "testdata/transcripts/codex/agent-harness-command-execution.jsonl",
		env: map[string]string{"FAKE_LINES": "4", "FAKE_PIDFILE": filepath.Join(t.TempDir(), "pid")},
		req: Request{Timeout: time.Second}}.run(t)
	if err == nil || !strings.HasPrefix(err.Error(), "codex: timed out after 1s (the agent's process group was killed)") {
		t.Errorf("error = %v", err)
	}
}

// The retry streak ends when the model answers: a run that retried, then went on, is not said
// to have timed out retrying.
func TestRetryStreakEndsWhenTheModelAnswers(t *testing.T) {
	b := newBuilder()
	b.apiRetried("429", "API error 429")
	b.apiRetried("500", "API error 500")
	if got := b.retrying(); got != " while the API answered 500 (2 retries)" {
		t.Errorf("retrying = %q", got)
	}
	b.toolCall("c1", "Bash", nil)
	if got := b.retrying(); got != "" {
		t.Errorf("after a tool call, retrying = %q", got)
	}
	b.apiRetried("", "API error")
	if got := b.retrying(); got != " while the agent was retrying failed API calls (1 retry)" {
		t.Errorf("retrying = %q", got)
	}
	b.message(roleAssistant, "answer")
	if got := b.retrying(); got != "" {
		t.Errorf("after a message, retrying = %q", got)
	}
}

// Every retry line Gemini CLI 0.61 prints (packages/core retryWithBackoff and logRetryAttempt),
// and lines that are not retries.
func TestGeminiRetryLines(t *testing.T) {
	for _, tt := range []struct{ line, want, status string }{
		{`Attempt 2 failed with status 429. Retrying with backoff... _ApiError: {"error":{"code":429}}`, "API error 429, attempt 2 failed; retrying", "429"},
		{"Attempt 1 failed with status 503. Retrying with backoff...", "API error 503, attempt 1 failed; retrying", "503"},
		{"Attempt 3 failed with 429 error (no Retry-After header). Retrying with backoff...", "API error 429, attempt 3 failed; retrying", "429"},
		{"Attempt 1 failed with 5xx error. Retrying with backoff...", "API error 5xx, attempt 1 failed; retrying", "5xx"},
		{"Attempt 4 failed. Retrying with backoff...", "API error, attempt 4 failed; retrying", ""},
		{"Attempt 1 failed: You have exhausted your capacity on this model. Retrying after 1200ms...",
			"API error 429: You have exhausted your capacity on this model, attempt 1 failed; retrying", "429"},
		{`Attempt 1 failed: {"error":{"code":500}}. Max attempts reached`, "", ""},
		{"YOLO mode is enabled. All tool calls will be automatically approved.", "", ""},
	} {
		p := newGeminiParser()
		p.stderrLine([]byte(tt.line))
		got := ""
		if len(p.b.events) > 0 {
			got = p.b.events[0].Content
		}
		if got != tt.want || p.b.retry.status != tt.status {
			t.Errorf("%q: warning %q status %q, want %q %q", tt.line, got, p.b.retry.status, tt.want, tt.status)
		}
	}
}

// What the released CLIs' real streams say, read as they mean it (recorded against the scripted
// model; testdata/transcripts/README.md): Copilot CLI's failed shell command is failed (its
// stream carries the exit code under shellExecution while success stays true), Gemini CLI's
// thought tokens are output tokens (the stats' total minus input and output), and an
// interrupted Claude Code reports the whole session's usage.
func TestRecordedStreamsReadHonestly(t *testing.T) {
	parse := func(format, path string) *results.AgentRun {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		run, _ := ParseTranscript(format, f)
		if run == nil {
			t.Fatalf("%s: no run", path)
		}
		return run
	}
	run := parse("copilot", "testdata/transcripts/copilot/skillgate-recorded-1.0.102-failed-command.jsonl")
	if c := run.SessionDigest.ToolCalls; len(c) != 1 || c[0].Outcome != results.ToolFailed || c[0].Command != "cat missing.txt" {
		t.Errorf("copilot failed command: %+v", c)
	}
	run = parse("gemini", "testdata/transcripts/gemini/skillgate-recorded-0.61.0-failed-command.jsonl")
	if u := run.SessionDigest.Usage; u == nil || u.OutputTokens != 69 || u.ReasoningTokens != 9 || u.InputTokens != 3000 {
		t.Errorf("gemini usage %+v, want 3000 in, 69 out of which 9 thoughts", u)
	}
	p := newClaudeParser()
	data, err := os.ReadFile("testdata/transcripts/claude-code/skillgate-recorded-2.1.332-interrupted.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	after := p.afterStop()
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, l := range lines[len(lines)-3:] { // what Claude Code printed once interrupted
		after.line([]byte(l))
	}
	if u := after.reportedUsage(); u == nil || u.InputTokens != 3000 || u.OutputTokens != 60 {
		t.Errorf("usage reported after the interrupt %+v, want 3000 in / 60 out (what the model served)", u)
	}
}

// An early-stopped Claude Code is interrupted, not killed, and the usage of the result line it
// prints then (the whole session's, as recorded from Claude Code 2.1.332) is the run's; what it
// printed after the stop is not in the transcript.
func TestEarlyStopInterruptKeepsTheSessionUsage(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT on windows")
	}
	run, _, err := fakeRun{executor: "claude-code", mode: "interrupt",
		fixture: "testdata/transcripts/claude-code/skillgate-recorded-2.1.332-interrupted.jsonl",
		env:     map[string]string{"FAKE_LINES": "10"},
		req:     Request{Timeout: time.Minute, Stop: &StopRule{ToolCallCount: 3}}}.run(t)
	if err != nil {
		t.Fatal(err)
	}
	if run.StoppedEarly != StopToolCallCount {
		t.Errorf("stopped_early %q", run.StoppedEarly)
	}
	if u := run.SessionDigest.Usage; u == nil || u.InputTokens != 3000 || u.OutputTokens != 60 || u.CostUSD == 0 {
		t.Errorf("usage %+v, want the result line's 3000 in / 60 out", u)
	}
	calls := run.SessionDigest.ToolCalls
	if len(calls) != 3 || calls[2].Outcome != results.ToolUnknown {
		t.Errorf("calls %+v: the rejection printed after the stop leaked into the run", calls)
	}
	for _, ev := range run.Transcript {
		if ev.Type == results.EventError {
			t.Errorf("error event %q from after the stop", ev.Message)
		}
	}
}
