package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/skillgate/skillgate/results"
)

// Transcript formats ParseTranscript reads.
const (
	FormatClaudeCode = "claude-code"
	FormatCodex      = "codex"
	FormatCopilot    = "copilot"
	FormatGemini     = "gemini"
	FormatQwenCode   = "qwen-code"
	FormatOpencode   = "opencode"
)

// formatList names the transcript formats, for errors.
const formatList = FormatClaudeCode + ", " + FormatCodex + ", " + FormatCopilot + ", " + FormatGemini + ", " +
	FormatQwenCode + " or " + FormatOpencode

// transcriptParser turns one agent's output into the normalized run.
type transcriptParser interface {
	lineSink
	// finish ends the stream. The error says why the stream shows a failed or unfinished run;
	// the run holds whatever was parsed either way.
	finish() (*results.AgentRun, error)
}

var formatAliases = map[string]string{
	"claude-code": FormatClaudeCode, "claude": FormatClaudeCode,
	"codex":   FormatCodex,
	"copilot": FormatCopilot, "copilot-sdk": FormatCopilot, "copilot-cli": FormatCopilot,
	"gemini": FormatGemini, "gemini-cli": FormatGemini,
	"qwen-code": FormatQwenCode, "qwen": FormatQwenCode,
	"opencode": FormatOpencode,
}

func newParser(format string) (transcriptParser, error) {
	switch formatAliases[format] {
	case FormatClaudeCode:
		return newClaudeParser(), nil
	case FormatCodex:
		return newCodexParser(), nil
	case FormatCopilot:
		return newCopilotParser(), nil
	case FormatGemini:
		return newGeminiParser(), nil
	case FormatQwenCode:
		return newQwenParser(), nil
	case FormatOpencode:
		return newOpencodeParser(), nil
	}
	return nil, fmt.Errorf("unknown transcript format %q; use one of %s (or empty to detect it)", format, formatList)
}

// ParseTranscript reads an agent's native machine-readable output (a recorded session) into the
// normalized run, streaming: Claude Code stream-json or json, Codex `exec --json` (every
// version), Copilot CLI json, Gemini CLI stream-json or json, Qwen Code stream-json or json,
// `opencode run --format json`. With format "" the agent is recognised from the content.
//
// A nil run with an error means the input could not be read as a transcript at all. A run with
// an error means the recorded session itself failed or stopped early (the error says why); the
// run still holds everything recorded, for graders and reports.
func ParseTranscript(format string, r io.Reader) (*results.AgentRun, error) {
	if format != "" {
		p, err := newParser(format)
		if err != nil {
			return nil, err
		}
		if err := feedLines(r, p); err != nil {
			run, _ := p.finish()
			return run, fmt.Errorf("reading transcript: %w", err)
		}
		return p.finish()
	}
	d := &detector{}
	if err := feedLines(r, d); err != nil && d.parser == nil {
		return nil, fmt.Errorf("reading transcript: %w", err)
	}
	if d.err != nil {
		return nil, d.err
	}
	if d.parser == nil {
		if d.lines == 0 {
			return nil, errors.New("the transcript is empty")
		}
		return nil, fmt.Errorf("cannot tell which agent wrote this transcript (read %d lines); name the format: %s",
			d.lines, formatList)
	}
	return d.parser.finish()
}

// DetectFormat names the agent whose output this line is, or "" when the line does not tell.
func DetectFormat(line []byte) string {
	if !isJSONObject(line) {
		return ""
	}
	if format := detectQwenOrOpencode(line); format != "" {
		return format
	}
	var probe struct {
		Type      string          `json:"type"`
		Subtype   *string         `json:"subtype"`
		IsError   *bool           `json:"is_error"`
		SessionID *string         `json:"session_id"`
		Data      json.RawMessage `json:"data"`
		Msg       json.RawMessage `json:"msg"`
		Prompt    *string         `json:"prompt"`
		Sandbox   json.RawMessage `json:"sandbox"`
		Approval  json.RawMessage `json:"approval"`
		Timestamp *string         `json:"timestamp"`
		Severity  *string         `json:"severity"`
		Response  *string         `json:"response"`
		Stats     json.RawMessage `json:"stats"`
		ExitCode  *int            `json:"exitCode"`
		CopilotID *string         `json:"sessionId"`
		Status    *string         `json:"status"`
	}
	if json.Unmarshal(line, &probe) != nil {
		return ""
	}
	t := probe.Type
	switch {
	case len(probe.Msg) > 0:
		return FormatCodex
	case t == "":
		switch {
		case probe.Response != nil || len(probe.Stats) > 0:
			return FormatGemini
		case probe.Prompt != nil || len(probe.Sandbox) > 0 || len(probe.Approval) > 0:
			return FormatCodex
		}
		return ""
	case strings.HasPrefix(t, "thread.") || strings.HasPrefix(t, "turn.") || strings.HasPrefix(t, "item."):
		return FormatCodex
	case strings.Contains(t, ".") && len(probe.Data) > 0:
		return FormatCopilot
	case t == "result":
		switch {
		case probe.ExitCode != nil || probe.CopilotID != nil:
			return FormatCopilot
		case probe.IsError != nil || probe.Subtype != nil || probe.SessionID != nil:
			return FormatClaudeCode
		case len(probe.Stats) > 0 || probe.Status != nil:
			return FormatGemini
		}
		return ""
	case t == "system" || t == "assistant" || t == "user" || t == "stream_event" || t == "rate_limit_event":
		return FormatClaudeCode
	case t == "init" || t == "message" || t == "tool_use" || t == "tool_result" || t == "retry":
		return FormatGemini
	case t == "error":
		if probe.Severity != nil || probe.Timestamp != nil {
			return FormatGemini
		}
		return FormatCodex
	}
	return ""
}

// detector buffers the first lines of a transcript until one tells which agent wrote it, then
// hands them and the rest of the stream to that agent's parser.
type detector struct {
	parser   transcriptParser
	buffered [][]byte
	size     int
	lines    int
	err      error
}

// Bounds on what detection buffers before giving up.
const (
	detectMaxLines = 1000
	detectMaxBytes = 16 << 20
)

func (d *detector) line(b []byte) {
	d.lines++
	if d.parser != nil {
		d.parser.line(b)
		return
	}
	if d.err != nil {
		return
	}
	if format := DetectFormat(b); format != "" {
		d.parser, _ = newParser(format)
		for _, l := range d.buffered {
			d.parser.line(l)
		}
		d.buffered = nil
		d.parser.line(b)
		return
	}
	d.buffered = append(d.buffered, append([]byte(nil), b...))
	d.size += len(b)
	if len(d.buffered) >= detectMaxLines || d.size >= detectMaxBytes {
		d.err = fmt.Errorf("cannot tell which agent wrote this transcript from its first %d lines; name the format: %s",
			len(d.buffered), formatList)
		d.buffered = nil
	}
}
