package agent

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/skillgate/skillgate/results"
)

func TestLineReader(t *testing.T) {
	long := strings.Repeat("a", 200<<10) // longer than the reader's buffer
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"empty", "", nil},
		{"terminated", "a\nb\n", []string{"a", "b"}},
		{"unterminated last line", "a\nb", []string{"a", "b"}},
		{"crlf", "a\r\nb\r\n", []string{"a", "b"}},
		{"carriage return inside a line is kept", "a\rb\n", []string{"a\rb"}},
		{"blank lines", "\n\na\n", []string{"", "", "a"}},
		{"long line", long + "\nz", []string{long, "z"}},
		{"long unterminated", long, []string{long}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tt.input), iotest.OneByteReader(strings.NewReader(tt.input))} {
				lr := newLineReader(r)
				var got []string
				for {
					line, err := lr.next()
					if err != nil {
						if !errors.Is(err, io.EOF) {
							t.Fatal(err)
						}
						break
					}
					got = append(got, string(line))
				}
				if !slices.Equal(got, tt.want) {
					t.Errorf("lines = %q, want %q", short(got), short(tt.want))
				}
			}
		})
	}
}

func short(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) > 20 {
			l = l[:20] + "…"
		}
		out[i] = l
	}
	return out
}

type collect struct{ lines []string }

func (c *collect) line(b []byte) { c.lines = append(c.lines, string(b)) }

func TestFeedLinesDocuments(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string
	}{
		{"json lines", "{\"a\":1}\n\n{\"b\":2}\n", []string{`{"a":1}`, `{"b":2}`}},
		{"pretty object", "{\n  \"a\": 1,\n  \"b\": [1, 2]\n}\n", []string{`{"a":1,"b":[1,2]}`}},
		{"array of messages", "[{\"type\":\"system\"},\n {\"type\":\"result\"}]", []string{`{"type":"system"}`, `{"type":"result"}`}},
		{"one-line array", `[{"a":1},{"b":2}]`, []string{`{"a":1}`, `{"b":2}`}},
		// From a value that does not decode on, the rest is read as lines (raw events for the
		// parsers), so nothing is lost.
		{"truncated document", "{\n  \"a\": 1,\n  \"b\": \"cut", []string{"{", `  "a": 1,`, `  "b": "cut`}},
		{"truncated array keeps its complete elements", "[{\"a\":1},\n{\"b\":", []string{`{"a":1}`, `{"b":`}},
		{"lines after a malformed document", "{\n \"type\": \"result\",\n}\n{\"x\":1}\n", []string{"{", ` "type": "result",`, "}", `{"x":1}`}},
		{"documents after a document", "{\n\"a\": 1\n}\n{\"b\": 2}\n", []string{`{"a":1}`, `{"b":2}`}},
		{"text first", "hello\n{\"a\":1}\n", []string{"hello", `{"a":1}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &collect{}
			if err := feedLines(strings.NewReader(tt.input), c); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(c.lines, tt.want) {
				t.Errorf("values = %q, want %q", c.lines, tt.want)
			}
		})
	}
}

func TestDetectFormat(t *testing.T) {
	tests := map[string]string{
		`{"type":"system","subtype":"init","session_id":"x"}`:                             FormatClaudeCode,
		`{"is_error":false,"type":"result","subtype":"success","session_id":"x"}`:         FormatClaudeCode,
		`{"type":"stream_event","event":{}}`:                                              FormatClaudeCode,
		`{"type":"thread.started","thread_id":"t"}`:                                       FormatCodex,
		`{"type":"item.completed","item":{}}`:                                             FormatCodex,
		`{"id":"1","msg":{"type":"task_started"}}`:                                        FormatCodex,
		`{"sandbox":"danger-full-access","approval":"Never","model":"codex-mini-latest"}`: FormatCodex,
		`{"type":"error","message":"boom"}`:                                               FormatCodex,
		`{"type":"session.skills_loaded","data":{}}`:                                      FormatCopilot,
		`{"type":"result","sessionId":"s","exitCode":0}`:                                  FormatCopilot,
		`{"type":"init","timestamp":"t","session_id":"s"}`:                                FormatGemini,
		`{"type":"result","status":"success","stats":{}}`:                                 FormatGemini,
		`{"type":"error","severity":"error","message":"m","timestamp":"t"}`:               FormatGemini,
		`{"response":"hi","stats":{}}`:                                                    FormatGemini,
		`{"shipyard_fixture":{}}`:                                                         "",
		`Loaded cached credentials.`:                                                      "",
		`{"type":"something_else"}`:                                                       "",
	}
	for line, want := range tests {
		if got := DetectFormat([]byte(line)); got != want {
			t.Errorf("DetectFormat(%s) = %q, want %q", line, got, want)
		}
	}
}

func TestParseTranscriptDetectionSkipsUndecidedLines(t *testing.T) {
	input := "Loaded cached credentials.\n{\"shipyard_fixture\":{}}\n" +
		`{"type":"init","timestamp":"t","session_id":"s1","model":"m"}` + "\n" +
		`{"type":"message","role":"assistant","content":"hi","delta":true}` + "\n" +
		`{"type":"result","status":"success","stats":{"input_tokens":3,"output_tokens":1}}`
	run, err := ParseTranscript("", strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	if run.FinalOutput != "hi" || run.SessionDigest.SessionID != "s1" || run.UnknownEvents != 2 {
		t.Errorf("final %q session %q unknown %d", run.FinalOutput, run.SessionDigest.SessionID, run.UnknownEvents)
	}
	if _, err := ParseTranscript("", strings.NewReader("")); err == nil || err.Error() != "the transcript is empty" {
		t.Errorf("empty input: %v", err)
	}
	if _, err := ParseTranscript("", strings.NewReader("just text\n")); err == nil || !strings.Contains(err.Error(), "cannot tell which agent") {
		t.Errorf("undetectable input: %v", err)
	}
	if _, err := ParseTranscript("cursor", strings.NewReader("{}")); err == nil || !strings.Contains(err.Error(), `unknown transcript format "cursor"`) {
		t.Errorf("unknown format: %v", err)
	}
}

// parseCase is one stream and what its normalized run must show.
type parseCase struct {
	name    string
	format  string
	input   string
	final   string
	err     string // "" for success
	tools   []string
	skills  []results.SkillInvocation
	errors  []string
	check   func(t *testing.T, run *results.AgentRun)
	unknown int
}

func runParseCases(t *testing.T, cases []parseCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			run, err := ParseTranscript(tc.format, strings.NewReader(tc.input))
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.err != "" && (err == nil || err.Error() != tc.err):
				t.Fatalf("error = %v, want %q", err, tc.err)
			}
			d := run.SessionDigest
			if run.FinalOutput != tc.final {
				t.Errorf("final output = %q, want %q", run.FinalOutput, tc.final)
			}
			if tools := d.ToolsUsed; !slices.Equal(tools, nonNil(tc.tools)) {
				t.Errorf("tools used = %q, want %q", tools, tc.tools)
			}
			if !slices.Equal(d.SkillInvocations, tc.skills) {
				t.Errorf("skills = %+v, want %+v", d.SkillInvocations, tc.skills)
			}
			if !slices.Equal(d.Errors, nonNil(tc.errors)) {
				t.Errorf("errors = %q, want %q", d.Errors, tc.errors)
			}
			if run.UnknownEvents != tc.unknown {
				t.Errorf("unknown events = %d, want %d", run.UnknownEvents, tc.unknown)
			}
			if tc.check != nil {
				tc.check(t, run)
			}
		})
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func lines(l ...string) string { return strings.Join(l, "\n") + "\n" }

func TestClaudeParser(t *testing.T) {
	result := `{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s","num_turns":1,"total_cost_usd":0.5,"usage":{"input_tokens":1,"output_tokens":2}}`
	runParseCases(t, []parseCase{
		{
			name: "verbose json prints an array of messages", format: "claude-code",
			input: `[{"type":"system","subtype":"init","session_id":"s"},` +
				`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Read","input":{"file_path":"a"}}]}},` +
				`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"line1"},{"type":"text","text":"line2"}]}]}},` +
				result + `]`,
			final: "ok", tools: []string{"Read"},
			check: func(t *testing.T, run *results.AgentRun) {
				if r := run.SessionDigest.ToolCalls[0].Result; r != "line1\nline2" {
					t.Errorf("array tool result = %q", r)
				}
			},
		},
		{
			name: "several results restate the running cost", format: "claude-code",
			input: lines(
				`{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"first"}]}}`,
				`{"type":"result","subtype":"success","is_error":false,"result":"first","session_id":"s","total_cost_usd":0.12}`,
				`{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"second"}]}}`,
				`{"type":"result","subtype":"success","is_error":false,"result":"second","session_id":"s","total_cost_usd":0.15,"num_turns":2}`),
			final: "second",
			check: func(t *testing.T, run *results.AgentRun) {
				if u := run.SessionDigest.Usage; u == nil || u.CostUSD != 0.15 || u.Turns != 2 {
					t.Errorf("usage = %+v, want the last cumulative cost", u)
				}
			},
		},
		{
			name: "old CLIs report cost_usd", format: "claude-code",
			input: lines(`{"type":"result","subtype":"success","is_error":false,"result":"r","session_id":"s","cost_usd":0.25,"usage":{"input_tokens":5,"output_tokens":6,"cache_read_input_tokens":7}}`),
			final: "r",
			check: func(t *testing.T, run *results.AgentRun) {
				u := run.SessionDigest.Usage
				if u.CostUSD != 0.25 || u.InputTokens != 12 || u.CacheReadTokens != 7 || u.OutputTokens != 6 {
					t.Errorf("usage = %+v", u)
				}
			},
		},
		{
			name: "error subtype without is_error", format: "claude-code",
			input: lines(`{"type":"result","subtype":"error_max_turns","is_error":false,"session_id":"s","num_turns":10}`),
			err:   "run ended with error_max_turns", errors: []string{"run ended with error_max_turns"},
		},
		{
			name: "error result with an errors list", format: "claude-code",
			input: lines(`{"type":"result","subtype":"error_during_execution","is_error":true,"errors":["tool crashed","again"],"session_id":"s"}`),
			err:   "tool crashed; again (subtype error_during_execution)", errors: []string{"tool crashed; again"},
		},
		{
			name: "a tool call announced twice is one call; a Skill call is one invocation", format: "claude-code",
			input: lines(
				`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Skill","input":{"skill":"superpowers:brainstorming"}}]}}`,
				`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Skill","input":{"skill":"superpowers:brainstorming"}}]}}`,
				`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"Launching skill: superpowers:brainstorming"}]},"tool_use_result":{"success":true}}`,
				`{"type":"user","message":{"content":[{"type":"text","text":"Base directory for this skill: /ws/.claude/skills/brainstorming\n\n# Body"}]},"isSynthetic":true}`,
				`{"type":"user","message":{"content":[{"type":"text","text":"<system-reminder>injected</system-reminder>"}]},"isSynthetic":true}`,
				result),
			final: "ok", tools: []string{"Skill"},
			skills: []results.SkillInvocation{{Name: "superpowers:brainstorming", Path: "/ws/.claude/skills/brainstorming"}},
			check: func(t *testing.T, run *results.AgentRun) {
				last := run.Transcript[len(run.Transcript)-2]
				if last.Role != roleSystem || last.Content != "<system-reminder>injected</system-reminder>" {
					t.Errorf("injected text = %+v, want a system message", last)
				}
			},
		},
		{
			name: "subagent calls are kept in stream order", format: "claude-code",
			input: lines(
				`{"type":"assistant","message":{"id":"m","content":[{"type":"tool_use","id":"t1","name":"Task","input":{"prompt":"look"}}]},"parent_tool_use_id":null}`,
				`{"type":"assistant","message":{"id":"s1","content":[{"type":"tool_use","id":"t2","name":"Grep","input":{"pattern":"x"}}]},"parent_tool_use_id":"t1"}`,
				`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t2","content":"found","is_error":false}]},"parent_tool_use_id":"t1"}`,
				`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"done"}]}}`,
				result),
			final: "ok", tools: []string{"Task", "Grep"},
		},
		{
			name: "user text typed by the user", format: "claude-code",
			input: lines(`{"type":"user","message":{"role":"user","content":"hello"},"isReplay":true}`, result),
			final: "ok",
			check: func(t *testing.T, run *results.AgentRun) {
				if run.Transcript[0].Role != roleUser || run.Transcript[0].Content != "hello" {
					t.Errorf("first event = %+v", run.Transcript[0])
				}
			},
		},
	})
}

func TestCodexParser(t *testing.T) {
	done := `{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":2}}`
	runParseCases(t, []parseCase{
		{
			name: "transitional shape: item_type and assistant_message", format: "codex",
			input: lines(`{"type":"thread.started","thread_id":"th"}`, `{"type":"turn.started"}`,
				`{"type":"item.completed","item":{"id":"item_0","item_type":"assistant_message","text":"hi"}}`, done),
			final: "hi",
		},
		{
			name: "mcp tool calls, web search and a plan", format: "codex",
			input: lines(`{"type":"thread.started","thread_id":"th"}`, `{"type":"turn.started"}`,
				`{"type":"item.started","item":{"id":"item_1","type":"mcp_tool_call","server":"github","tool":"get_issue","arguments":{"number":7},"status":"in_progress"}}`,
				`{"type":"item.completed","item":{"id":"item_1","type":"mcp_tool_call","server":"github","tool":"get_issue","arguments":{"number":7},"result":{"content":[{"type":"text","text":"issue 7"}],"structured_content":null},"error":null,"status":"completed"}}`,
				`{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"github","tool":"close","arguments":{},"result":null,"error":{"message":"forbidden"},"status":"failed"}}`,
				`{"type":"item.started","item":{"id":"item_3","type":"web_search","query":"go fuzzing"}}`,
				`{"type":"item.completed","item":{"id":"item_3","type":"web_search","query":"go fuzzing"}}`,
				`{"type":"item.started","item":{"id":"item_4","type":"todo_list","items":[{"text":"a","completed":false}]}}`,
				`{"type":"item.updated","item":{"id":"item_4","type":"todo_list","items":[{"text":"a","completed":true}]}}`,
				`{"type":"item.completed","item":{"id":"item_4","type":"todo_list","items":[{"text":"a","completed":true}]}}`,
				`{"type":"item.completed","item":{"id":"item_5","type":"agent_message","text":"done"}}`, done),
			final: "done", tools: []string{"mcp__github__get_issue", "mcp__github__close", "web_search", "todo_list"},
			check: func(t *testing.T, run *results.AgentRun) {
				calls := run.SessionDigest.ToolCalls
				if calls[0].Result != "issue 7" || !calls[0].Success || calls[0].Arguments["number"] != 7.0 {
					t.Errorf("mcp call = %+v", calls[0])
				}
				if calls[1].Result != "forbidden" || calls[1].Success {
					t.Errorf("failed mcp call = %+v", calls[1])
				}
				items, _ := calls[3].Arguments["items"].([]any)
				if len(items) != 1 || items[0].(map[string]any)["completed"] != true {
					t.Errorf("todo list keeps its latest state: %+v", calls[3].Arguments)
				}
				if u := run.SessionDigest.Usage; u.InputTokens != 10 || u.CacheReadTokens != 4 || u.Turns != 1 {
					t.Errorf("usage = %+v", u)
				}
			},
		},
		{
			name: "a skill is invoked when its SKILL.md is read", format: "codex",
			input: lines(`{"type":"thread.started","thread_id":"th"}`, `{"type":"turn.started"}`,
				`{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"bash -lc 'sed -n 1,200p .agents/skills/pdf/SKILL.md'","aggregated_output":"...","exit_code":0,"status":"completed"}}`,
				`{"type":"item.completed","item":{"id":"item_2","type":"command_execution","command":"bash -lc 'sed -n 200,400p .agents/skills/pdf/SKILL.md'","aggregated_output":"...","exit_code":0,"status":"completed"}}`,
				`{"type":"item.completed","item":{"id":"item_3","type":"command_execution","command":"cat ~/.codex/skills/docx/SKILL.md","aggregated_output":"","exit_code":1,"status":"failed"}}`,
				`{"type":"item.completed","item":{"id":"item_4","type":"command_execution","command":"Get-Content .agents\\skills\\xlsx\\SKILL.md","aggregated_output":"","exit_code":0,"status":"completed"}}`,
				`{"type":"item.completed","item":{"id":"item_5","type":"command_execution","command":"cat SKILL.md","aggregated_output":"","exit_code":0,"status":"declined"}}`,
				done),
			tools: []string{"command_execution", "command_execution", "command_execution", "command_execution", "command_execution"},
			skills: []results.SkillInvocation{{Name: "pdf", Path: ".agents/skills/pdf"}, {Name: "docx", Path: "~/.codex/skills/docx"},
				{Name: "xlsx", Path: `.agents\skills\xlsx`}},
			check: func(t *testing.T, run *results.AgentRun) {
				calls := run.SessionDigest.ToolCalls
				if calls[2].Success || calls[4].Success || calls[4].Result != "declined" {
					t.Errorf("failed and declined commands = %+v / %+v", calls[2], calls[4])
				}
			},
		},
		{
			name: "reconnect notices are warnings", format: "codex",
			input: lines(`{"type":"thread.started","thread_id":"th"}`, `{"type":"turn.started"}`,
				`{"type":"error","message":"Reconnecting to the response stream (1/5)"}`,
				`{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"ok"}}`, done),
			final: "ok",
		},
		{
			name: "unknown item types are kept raw", format: "codex",
			input: lines(`{"type":"thread.started","thread_id":"th"}`, `{"type":"turn.started"}`,
				`{"type":"item.completed","item":{"id":"item_0","type":"hologram","x":1}}`, `{"type":"turn.weird"}`, done),
			unknown: 2,
		},
		{
			name: "legacy patches, mcp calls and token counts", format: "codex",
			input: lines(`{"id":"0","msg":{"type":"session_configured","session_id":"legacy-1","model":"m"}}`,
				`{"id":"1","msg":{"type":"task_started"}}`,
				`{"id":"1","msg":{"type":"patch_apply_begin","call_id":"p1","auto_approved":true,"changes":{"b.txt":{"update":{"unified_diff":"@@"}},"a.txt":{"add":{"content":"x"}}}}}`,
				`{"id":"1","msg":{"type":"patch_apply_end","call_id":"p1","stdout":"Success","stderr":"","success":true}}`,
				`{"id":"1","msg":{"type":"mcp_tool_call_begin","call_id":"m1","invocation":{"server":"fs","tool":"read","arguments":{"path":"a"}}}}`,
				`{"id":"1","msg":{"type":"mcp_tool_call_end","call_id":"m1","result":{"Ok":{"content":[{"type":"text","text":"body"}]}}}}`,
				`{"id":"1","msg":{"type":"mcp_tool_call_begin","call_id":"m2","invocation":{"server":"fs","tool":"write","arguments":{}}}}`,
				`{"id":"1","msg":{"type":"mcp_tool_call_end","call_id":"m2","result":{"Err":"denied"}}}`,
				`{"id":"1","msg":{"type":"token_count","input_tokens":100,"cached_input_tokens":20,"output_tokens":7,"reasoning_output_tokens":3}}`,
				`{"id":"1","msg":{"type":"agent_message","message":"patched"}}`,
				`{"id":"1","msg":{"type":"task_complete","last_agent_message":"patched"}}`),
			final: "patched", tools: []string{"file_change", "mcp__fs__read", "mcp__fs__write"},
			check: func(t *testing.T, run *results.AgentRun) {
				d := run.SessionDigest
				changes := d.ToolCalls[0].Arguments["changes"].([]any)
				if len(changes) != 2 || changes[0].(map[string]any)["path"] != "a.txt" || changes[0].(map[string]any)["kind"] != "add" {
					t.Errorf("changes = %+v", changes)
				}
				if d.ToolCalls[1].Result != "body" || !d.ToolCalls[1].Success || d.ToolCalls[2].Result != "denied" || d.ToolCalls[2].Success {
					t.Errorf("mcp calls = %+v", d.ToolCalls[1:])
				}
				if d.SessionID != "legacy-1" || d.Usage.InputTokens != 100 || d.Usage.ReasoningTokens != 3 {
					t.Errorf("session %q usage %+v", d.SessionID, d.Usage)
				}
				if n := strings.Count(mustJSON(run.Transcript), `"patched"`); n != 1 {
					t.Errorf("the final message appears %d times", n)
				}
			},
		},
		{
			name: "no events at all", format: "codex", input: "",
			err: "the stream ended before any turn started",
		},
	})
}

func TestCopilotParser(t *testing.T) {
	result := `{"type":"result","sessionId":"cs","exitCode":0,"usage":{"premiumRequests":2,"sessionDurationMs":900}}`
	runParseCases(t, []parseCase{
		{
			name: "skill.invoked confirms a skill tool call, or stands alone", format: "copilot",
			input: lines(
				`{"type":"assistant.message","data":{"messageId":"m1","content":"","toolRequests":[{"toolCallId":"c1","name":"skill","arguments":{"skill":"pdf"}},{"toolCallId":"c2","name":"report_intent","arguments":{"intent":"Reading"}}],"outputTokens":5,"model":"gpt-5"}}`,
				`{"type":"tool.execution_start","data":{"toolCallId":"c2","toolName":"report_intent","arguments":{}}}`,
				`{"type":"tool.execution_complete","data":{"toolCallId":"c2","success":true,"result":{"content":"Intent logged"}}}`,
				`{"type":"skill.invoked","data":{"name":"pdf","path":"/ws/.github/skills/pdf/SKILL.md"}}`,
				`{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":true,"result":{"content":"loaded"}}}`,
				`{"type":"skill.invoked","data":{"name":"docx"}}`,
				`{"type":"assistant.message","data":{"messageId":"m2","content":"done","toolRequests":[],"outputTokens":7,"model":"gpt-5"}}`,
				result),
			final: "done", tools: []string{"skill"},
			skills: []results.SkillInvocation{{Name: "pdf", Path: "/ws/.github/skills/pdf/SKILL.md"}, {Name: "docx"}},
			check: func(t *testing.T, run *results.AgentRun) {
				u := run.SessionDigest.Usage
				if u.OutputTokens != 12 || u.PremiumRequests != 2 || u.ModelMetrics["gpt-5"].OutputTokens != 12 {
					t.Errorf("usage = %+v", u)
				}
				if run.DurationMS != 900 || run.SessionDigest.SessionID != "cs" {
					t.Errorf("duration %d session %q", run.DurationMS, run.SessionDigest.SessionID)
				}
			},
		},
		{
			name: "failed tool with an error object", format: "copilot",
			input: lines(
				`{"type":"tool.execution_start","data":{"toolCallId":"c1","toolName":"bash","arguments":{"command":"false"}}}`,
				`{"type":"tool.execution_complete","data":{"toolCallId":"c1","success":false,"error":{"message":"exit 1","code":"failure"}}}`,
				result),
			tools: []string{"bash"},
			check: func(t *testing.T, run *results.AgentRun) {
				if c := run.SessionDigest.ToolCalls[0]; c.Success || c.Result != "exit 1" {
					t.Errorf("call = %+v", c)
				}
			},
		},
		{
			name: "session errors and non-zero exit codes", format: "copilot",
			input: lines(`{"type":"session.error","data":{"errorType":"quota","message":"out of premium requests"}}`,
				`{"type":"result","sessionId":"cs","exitCode":1}`),
			err:    "quota: out of premium requests; the Copilot CLI reported exit code 1",
			errors: []string{"quota: out of premium requests"},
		},
		{
			name: "no result line", format: "copilot",
			input: lines(`{"type":"assistant.message_delta","data":{"messageId":"m","deltaContent":"partial "}}`,
				`{"type":"assistant.message_delta","data":{"messageId":"m","deltaContent":"answer"}}`),
			final: "partial answer",
			err:   "the stream ended before the Copilot CLI's result line (the run did not finish)",
		},
		{
			// Copilot CLI 1.0.102 with a BYOK provider reports no token counts at all: usage is
			// unknown (absent), not zero, so max_tokens says it could not check.
			name: "no token counts means unknown usage", format: "copilot",
			input: lines(`{"type":"assistant.turn_start","data":{"turnId":"0"}}`,
				`{"type":"assistant.message","data":{"messageId":"m","content":"hi","toolRequests":[]}}`,
				`{"type":"result","sessionId":"cs","exitCode":0,"usage":{"premiumRequests":0,"totalApiDurationMs":499,"sessionDurationMs":2957}}`),
			final: "hi",
			check: func(t *testing.T, run *results.AgentRun) {
				if u := run.SessionDigest.Usage; u != nil {
					t.Errorf("usage = %+v, want none", u)
				}
			},
		},
		{
			name: "copilot 1.0.102 bookkeeping events are not unknown", format: "copilot",
			input: lines(`{"type":"session.mcp_servers_loaded","data":{"servers":[]}}`,
				`{"type":"model.call_finished","data":{"turnId":"0","outcome":"success"}}`,
				`{"type":"model.call_final_result","data":{"turnId":"0"}}`,
				`{"type":"tool.shell_output","data":{"toolCallId":"c1","output":"x"}}`, result),
		},
		{
			name: "unknown events are kept", format: "copilot",
			input:   lines(`{"type":"session.hologram","data":{"x":1}}`, `{"type":"assistant.message","data":"not an object"}`, result),
			unknown: 2,
		},
	})
}

func TestGeminiParser(t *testing.T) {
	runParseCases(t, []parseCase{
		{
			name: "deltas, tools, skills, warnings and errors", format: "gemini",
			input: lines(`{"type":"init","timestamp":"t","session_id":"gs","model":"auto"}`,
				`{"type":"message","timestamp":"t","role":"assistant","content":"Let me ","delta":true}`,
				`{"type":"message","timestamp":"t","role":"assistant","content":"check.","delta":true}`,
				`{"type":"tool_use","timestamp":"t","tool_name":"activate_skill","tool_id":"a1","parameters":{"name":"pdf"}}`,
				`{"type":"tool_result","timestamp":"t","tool_id":"a1","status":"success","output":"activated"}`,
				`{"type":"tool_use","timestamp":"t","tool_name":"read_file","tool_id":"r1","parameters":{"path":"x"}}`,
				`{"type":"tool_result","timestamp":"t","tool_id":"r1","status":"error","error":{"type":"invalid_tool_params","message":"no such file"}}`,
				`{"type":"error","timestamp":"t","severity":"warning","message":"Loop detected"}`,
				`{"type":"error","timestamp":"t","severity":"error","message":"Maximum session turns exceeded"}`,
				`{"type":"message","timestamp":"t","role":"assistant","content":" Done.","delta":true}`,
				`{"type":"result","timestamp":"t","status":"success","stats":{"input_tokens":30,"output_tokens":5,"cached":10,"duration_ms":77,"models":{"gemini-3":{"input_tokens":30,"output_tokens":5,"cached":10}}}}`),
			final: "Let me check. Done.", tools: []string{"activate_skill", "read_file"},
			skills: []results.SkillInvocation{{Name: "pdf"}},
			errors: []string{"Maximum session turns exceeded"},
			check: func(t *testing.T, run *results.AgentRun) {
				var msgs []string
				for _, ev := range run.Transcript {
					if ev.Type == results.EventMessage {
						msgs = append(msgs, ev.Role+":"+ev.Content)
					}
				}
				want := []string{"assistant:Let me check.", "warning:Loop detected", "assistant: Done."}
				if !slices.Equal(msgs, want) {
					t.Errorf("messages = %q, want %q", msgs, want)
				}
				if c := run.SessionDigest.ToolCalls[1]; c.Success || c.Result != "no such file" {
					t.Errorf("failed call = %+v", c)
				}
				u := run.SessionDigest.Usage
				if u.InputTokens != 30 || u.CacheReadTokens != 10 || u.ModelMetrics["gemini-3"].CacheReadTokens != 10 || run.DurationMS != 77 {
					t.Errorf("usage = %+v duration %d", u, run.DurationMS)
				}
			},
		},
		{
			name: "result with an error status", format: "gemini",
			input: lines(`{"type":"init","timestamp":"t","session_id":"gs"}`,
				`{"type":"result","timestamp":"t","status":"error","error":{"type":"FatalTurnLimitedError","message":"Reached max session turns"}}`),
			err: "Reached max session turns", errors: []string{"Reached max session turns"},
		},
		{
			name: "json output with an error", format: "gemini",
			input: `{"session_id":"j1","response":"","error":{"type":"ApiError","message":"quota","code":429}}`,
			err:   "quota", errors: []string{"quota"},
		},
		{
			name: "stream cut before the result", format: "gemini",
			input: lines(`{"type":"init","timestamp":"t","session_id":"gs"}`,
				`{"type":"message","timestamp":"t","role":"assistant","content":"half","delta":true}`),
			final: "half", err: "the stream ended before Gemini CLI's result line (the run did not finish)",
		},
	})
}

func mustJSON(v any) string {
	b, _ := jsonMarshal(v)
	return string(b)
}

func TestInstallSkills(t *testing.T) {
	ws := t.TempDir()
	dirs := writeSkills(t)
	installed, err := installSkills(ws, ".claude/skills", dirs)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range installed {
		names = append(names, s.Name+"="+s.Dir)
	}
	want := []string{"docx=.claude/skills/docx", "pdf=.claude/skills/pdf", "code-explainer=.claude/skills/code-explainer"}
	if !slices.Equal(names, want) {
		t.Errorf("installed %q, want %q", names, want)
	}
	// Installing again replaces, it does not merge.
	if err := writeFile(ws+"/.claude/skills/pdf/stale.txt", "old"); err != nil {
		t.Fatal(err)
	}
	if _, err := installSkills(ws, ".claude/skills", dirs); err != nil {
		t.Fatal(err)
	}
	if fileExists(ws + "/.claude/skills/pdf/stale.txt") {
		t.Error("a stale file survived reinstalling the skill")
	}
	if _, err := installSkills(ws, ".x", append(dirs, dirs[1])); err == nil || !strings.Contains(err.Error(), `two skills are named "code-explainer"`) {
		t.Errorf("duplicate skill error = %v", err)
	}
	empty := t.TempDir()
	if _, err := installSkills(ws, ".x", []string{empty}); err == nil || !strings.Contains(err.Error(), "has no SKILL.md and no child folder with one") {
		t.Errorf("empty skill dir error = %v", err)
	}
}

func TestAttributeSkillsMakesWorkspacePathsRelative(t *testing.T) {
	run := &results.AgentRun{Transcript: []results.Event{
		{Type: results.EventSkillInvocation, Name: "a", Path: "/ws/.claude/skills/a"},
		{Type: results.EventSkillInvocation, Name: "b", Path: "/elsewhere/b"},
		{Type: results.EventSkillInvocation, Name: "c"},
	}}
	attributeSkills(run, "/ws", []installedSkill{{Name: "c", Dir: ".claude/skills/c"}})
	want := []results.SkillInvocation{{Name: "a", Path: ".claude/skills/a"}, {Name: "b", Path: "/elsewhere/b"}, {Name: "c", Path: ".claude/skills/c"}}
	if !slices.Equal(run.SessionDigest.SkillInvocations, want) {
		t.Errorf("skills = %+v, want %+v", run.SessionDigest.SkillInvocations, want)
	}
}

// With a relative --out the workspace is relative while the agent reports absolute paths.
func TestAttributeSkillsRelativeWorkspace(t *testing.T) {
	t.Chdir(t.TempDir())
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	run := &results.AgentRun{Transcript: []results.Event{
		{Type: results.EventSkillInvocation, Name: "a", Path: filepath.Join(cwd, "out", "ws-1", ".claude", "skills", "a")},
	}}
	attributeSkills(run, filepath.Join("out", "ws-1"), nil)
	want := []results.SkillInvocation{{Name: "a", Path: ".claude/skills/a"}}
	if !slices.Equal(run.SessionDigest.SkillInvocations, want) {
		t.Errorf("skills = %+v, want %+v", run.SessionDigest.SkillInvocations, want)
	}
}

func TestRawEventsAreBounded(t *testing.T) {
	b := newBuilder()
	big := `{"type":"x","data":"` + strings.Repeat("y", maxRawBytes) + `"}`
	b.raw([]byte(big))
	b.raw(bytes.Repeat([]byte{0xff}, 10)) // not UTF-8, not JSON
	ev := b.events[0]
	if len(ev.Raw) > 5000 || !strings.Contains(string(ev.Raw), `"truncated":true`) {
		t.Errorf("an oversized raw event is kept as %d bytes", len(ev.Raw))
	}
	if got := b.events[1].Content; got != "\uFFFD" {
		t.Errorf("invalid UTF-8 content = %q", got)
	}
	if b.unknown != 2 {
		t.Errorf("unknown = %d", b.unknown)
	}
}

func writeFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o644) }

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
