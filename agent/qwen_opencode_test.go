package agent

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/skillgate/skillgate/results"
)

func TestQwenParser(t *testing.T) {
	const (
		init1  = `{"type":"system","subtype":"init","session_id":"qs","cwd":"/w","model":"m","qwen_code_version":"0.24.4"}`
		goal   = `{"type":"stream_event","session_id":"qs","event":{"type":"goal_state","goal_state":{"v":2,"goal":null,"activity":"idle"}}}`
		skill  = `{"type":"assistant","session_id":"qs","message":{"id":"m1","role":"assistant","content":[{"type":"thinking","thinking":"The greeter fits."},{"type":"tool_use","id":"c1","name":"skill","input":{"skill":"pdf"}}],"usage":{"input_tokens":1000,"output_tokens":20,"cache_read_input_tokens":50}}}`
		result = `{"type":"user","session_id":"qs","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","is_error":false,"content":"loaded"}]}}`
		shell  = `{"type":"assistant","session_id":"qs","message":{"id":"m2","role":"assistant","content":[{"type":"tool_use","id":"c2","name":"run_shell_command","input":{"command":"cat x"}}],"usage":{"input_tokens":1100,"output_tokens":10,"cache_read_input_tokens":900}}}`
		failed = `{"type":"user","session_id":"qs","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c2","is_error":true,"content":"Exit Code: 1"}]}}`
	)
	runParseCases(t, []parseCase{
		{
			name: "input already counts cached tokens", format: "qwen-code",
			input: lines(init1, goal, skill, result, shell, failed,
				`{"type":"assistant","session_id":"qs","message":{"id":"m3","role":"assistant","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":1200,"output_tokens":5}}}`,
				`{"type":"result","subtype":"success","session_id":"qs","is_error":false,"duration_ms":900,"num_turns":3,"result":"Done.","usage":{"input_tokens":3300,"output_tokens":35,"cache_read_input_tokens":950}}`),
			final: "Done.", tools: []string{"skill", "run_shell_command"},
			skills: []results.SkillInvocation{{Name: "pdf"}},
			check: func(t *testing.T, run *results.AgentRun) {
				u := run.SessionDigest.Usage
				if u.InputTokens != 3300 || u.OutputTokens != 35 || u.CacheReadTokens != 950 || u.Turns != 3 || run.DurationMS != 900 {
					t.Errorf("usage = %+v, duration %d", *u, run.DurationMS)
				}
				if c := run.SessionDigest.ToolCalls[1]; c.Kind != results.ToolShell || c.Success || c.Outcome != results.ToolFailed {
					t.Errorf("failed shell call = %+v", c)
				}
				if m := run.Transcript[0]; m.Role != roleReasoning || m.Content != "The greeter fits." {
					t.Errorf("first event = %+v, want the reasoning", m)
				}
			},
		},
		{
			// A run stopped or killed before its result keeps what its responses reported.
			name: "stream cut before the result keeps the streamed usage", format: "qwen-code",
			input: lines(init1, skill, result, shell, shell),
			err:   "the stream ended before Qwen Code's result line (the run did not finish)",
			tools: []string{"skill", "run_shell_command"}, skills: []results.SkillInvocation{{Name: "pdf"}},
			check: func(t *testing.T, run *results.AgentRun) {
				u := run.SessionDigest.Usage
				if u == nil || u.InputTokens != 2100 || u.OutputTokens != 30 || u.CacheReadTokens != 950 || u.Turns != 2 {
					t.Errorf("usage = %+v, want the two responses' sum (m2 counted once)", u)
				}
			},
		},
		{
			name: "api error: the error text is not an assistant message", format: "qwen-code",
			input: lines(init1,
				`{"type":"system","subtype":"retry","session_id":"qs","data":{"reason":"retry","attempt":1,"maxRetries":10,"delayMs":60000}}`,
				`{"type":"assistant","session_id":"qs","message":{"id":"e1","role":"assistant","content":[{"type":"text","text":"[API Error: 429 quota]"}],"usage":{"input_tokens":0,"output_tokens":0}}}`,
				`{"type":"result","subtype":"error_during_execution","session_id":"qs","is_error":true,"num_turns":1,"usage":{"input_tokens":0,"output_tokens":0},"error":{"message":"[API Error: 429 quota]"}}`),
			err:    "[API Error: 429 quota] (subtype error_during_execution)",
			errors: []string{"[API Error: 429 quota]"},
			check: func(t *testing.T, run *results.AgentRun) {
				want := []results.Event{
					{Type: results.EventMessage, Role: roleWarning, Content: "Qwen Code is retrying the model request (attempt 1 of 10, in 60s)"},
					{Type: results.EventError, Message: "[API Error: 429 quota]"},
				}
				if !slices.EqualFunc(run.Transcript, want, func(a, b results.Event) bool {
					return a.Type == b.Type && a.Role == b.Role && a.Content == b.Content && a.Message == b.Message
				}) {
					t.Errorf("transcript = %+v, want %+v", run.Transcript, want)
				}
			},
		},
		{
			name: "unknown lines and events are kept", format: "qwen-code",
			input: lines(init1, `{"type":"system","subtype":"compacted","session_id":"qs"}`,
				`{"type":"stream_event","session_id":"qs","event":{"type":"brand_new"}}`,
				`{"type":"control_request","session_id":"qs"}`,
				`{"type":"result","subtype":"success","session_id":"qs","is_error":false,"result":"ok"}`),
			final: "ok", unknown: 3,
		},
	})
}

func TestOpencodeParser(t *testing.T) {
	const (
		start = `{"type":"step_start","timestamp":1000,"sessionID":"ses_1","part":{"id":"p1","type":"step-start"}}`
		skill = `{"type":"tool_use","timestamp":1100,"sessionID":"ses_1","part":{"type":"tool","tool":"skill","callID":"c1","state":{"status":"completed","input":{"name":"pdf"},"output":"<skill_content name=\"pdf\">\nBase directory for this skill: /w/.opencode/skills/pdf\nRelative paths…","time":{"start":1000,"end":1040}}}}`
		tools = `{"type":"step_finish","timestamp":1200,"sessionID":"ses_1","part":{"type":"step-finish","reason":"tool-calls","tokens":{"input":950,"output":17,"reasoning":3,"cache":{"read":50,"write":5}},"cost":0.01}}`
		stop  = `{"type":"step_finish","timestamp":2000,"sessionID":"ses_1","part":{"type":"step-finish","reason":"stop","tokens":{"input":100,"output":10,"reasoning":0,"cache":{"read":900,"write":0}},"cost":0.002}}`
	)
	bash := func(id string, exit int, output string) string {
		return `{"type":"tool_use","timestamp":1500,"sessionID":"ses_1","part":{"type":"tool","tool":"bash","callID":"` + id +
			`","state":{"status":"completed","input":{"command":"make"},"output":` + mustJSON(output) +
			`,"metadata":{"exit":` + mustJSON(exit) + `},"time":{"start":1400,"end":1500}}}}`
	}
	runParseCases(t, []parseCase{
		{
			name: "a skill, commands and the usage added back", format: "opencode",
			input: lines(start, skill, tools, start, bash("c2", 0, "ok\n"), bash("c3", 2, "make: *** [all] Error 2\n"),
				`{"type":"tool_use","timestamp":1600,"sessionID":"ses_1","part":{"type":"tool","tool":"read","callID":"c4","state":{"status":"error","input":{"filePath":"x"},"error":"File not found: x","time":{"start":1550,"end":1600}}}}`,
				tools, start,
				`{"type":"reasoning","timestamp":1900,"sessionID":"ses_1","part":{"type":"reasoning","text":"All done."}}`,
				`{"type":"text","timestamp":1950,"sessionID":"ses_1","part":{"type":"text","text":"Built."}}`,
				`{"type":"text","timestamp":1960,"sessionID":"ses_1","part":{"type":"text","text":"Bye."}}`,
				stop),
			final: "Built.\nBye.", tools: []string{"skill", "bash", "bash", "read"},
			skills: []results.SkillInvocation{{Name: "pdf", Path: "/w/.opencode/skills/pdf"}},
			check: func(t *testing.T, run *results.AgentRun) {
				d := run.SessionDigest
				u := d.Usage
				// 2 × (950 + 50 + 5) + (100 + 900): every prompt token; 2 × (17 + 3) + 10 generated.
				if u.InputTokens != 3010 || u.OutputTokens != 50 || u.CacheReadTokens != 1000 || u.CacheWriteTokens != 10 ||
					u.ReasoningTokens != 6 || u.Turns != 3 || u.CostUSD < 0.0219 || u.CostUSD > 0.0221 {
					t.Errorf("usage = %+v", *u)
				}
				outcomes := []results.ToolOutcome{}
				for _, c := range d.ToolCalls {
					outcomes = append(outcomes, c.Outcome)
				}
				if want := []results.ToolOutcome{results.ToolSucceeded, results.ToolSucceeded, results.ToolFailed, results.ToolFailed}; !slices.Equal(outcomes, want) {
					t.Errorf("outcomes = %q, want %q (exit 2 and an error state fail)", outcomes, want)
				}
				if d.ToolCalls[3].Result != "File not found: x" || d.ToolCalls[0].DurationMS != 40 {
					t.Errorf("calls = %+v", d.ToolCalls)
				}
				if d.SessionID != "ses_1" || run.DurationMS != 1000 {
					t.Errorf("session %q duration %d", d.SessionID, run.DurationMS)
				}
				if m := run.Transcript[len(run.Transcript)-3]; m.Role != roleReasoning || m.Content != "All done." {
					t.Errorf("reasoning = %+v", m)
				}
			},
		},
		{
			name: "a session error fails the run", format: "opencode",
			input: lines(`{"type":"error","timestamp":1,"sessionID":"ses_2","error":{"name":"APIError","data":{"message":"Rate limited","statusCode":429,"isRetryable":true}}}`),
			err:   "Rate limited (HTTP 429)", errors: []string{"Rate limited (HTTP 429)"},
		},
		{
			// A stopped or killed run keeps the tokens of the steps that finished.
			name: "stream cut after a tool step", format: "opencode",
			input: lines(start, skill, tools, start),
			err:   "the stream ended before opencode finished its last step (the run did not finish)",
			tools: []string{"skill"}, skills: []results.SkillInvocation{{Name: "pdf", Path: "/w/.opencode/skills/pdf"}},
			check: func(t *testing.T, run *results.AgentRun) {
				if u := run.SessionDigest.Usage; u == nil || u.InputTokens != 1005 || u.OutputTokens != 20 {
					t.Errorf("usage = %+v", u)
				}
			},
		},
		{
			name: "a skill that did not load is no invocation", format: "opencode",
			input: lines(start,
				`{"type":"tool_use","timestamp":1100,"sessionID":"ses_1","part":{"type":"tool","tool":"skill","callID":"c1","state":{"status":"error","input":{"name":"pdf"},"error":"Skill \"pdf\" not found. Available skills: other"}}}`,
				`{"type":"tool_use","timestamp":1100,"sessionID":"ses_1","part":{"type":"tool","tool":"skill","callID":"c2","state":{"status":"running","input":{"name":"pdf"}}}}`,
				stop),
			tools: []string{"skill"}, unknown: 1,
			check: func(t *testing.T, run *results.AgentRun) {
				if c := run.SessionDigest.ToolCalls[0]; c.Outcome != results.ToolFailed || c.Result != `Skill "pdf" not found. Available skills: other` {
					t.Errorf("skill call = %+v", c)
				}
			},
		},
		{
			name: "no step at all", format: "opencode", input: "\n",
			err: "the stream ended before opencode's first step (no model response came)",
		},
		{
			name: "unknown lines are kept", format: "opencode",
			input: lines(start, `{"type":"patch","timestamp":3,"sessionID":"ses_1","part":{"type":"patch"}}`,
				`{"type":"text","timestamp":3,"sessionID":"ses_1"}`, "! permission requested: external_directory; auto-rejecting",
				`{"type":"text","timestamp":4,"sessionID":"ses_1","part":{"type":"text","text":"hi"}}`, stop),
			final: "hi", unknown: 3,
		},
	})
}

func TestDetectQwenAndOpencode(t *testing.T) {
	tests := map[string]string{
		`{"type":"system","subtype":"init","session_id":"x","qwen_code_version":"0.24.4"}`:           FormatQwenCode,
		`{"type":"stream_event","event":{"type":"goal_state"}}`:                                      FormatQwenCode,
		`{"type":"system","subtype":"init","session_id":"x","claude_code_version":"2.1.330"}`:        FormatClaudeCode,
		`{"type":"step_start","timestamp":1,"sessionID":"ses_1","part":{"type":"step-start"}}`:       FormatOpencode,
		`{"type":"tool_use","timestamp":1,"sessionID":"ses_1","part":{"type":"tool"}}`:               FormatOpencode,
		`{"type":"error","timestamp":1,"sessionID":"ses_1","error":{"name":"APIError"}}`:             FormatOpencode,
		`{"type":"tool_use","timestamp":"t","tool_name":"read_file","tool_id":"r1","parameters":{}}`: FormatGemini,
		`{"type":"error","severity":"error","message":"m","timestamp":"t"}`:                          FormatGemini,
		`{"type":"result","sessionId":"s","exitCode":0}`:                                             FormatCopilot,
		`{"type":"tool_use","timestamp":"1","sessionID":"ses_1","part":{"type":"tool"}}`:             FormatGemini,
		`{"type":"step_start","timestamp":1,"sessionID":"ses_1","part":"p"}`:                         "",
	}
	for line, want := range tests {
		if got := DetectFormat([]byte(line)); got != want {
			t.Errorf("DetectFormat(%s) = %q, want %q", line, got, want)
		}
	}
}

// opencode's message arguments are joined and re-quoted; the prompt goes through stdin, as it
// is. Qwen Code reads a positional prompt as it is, and one starting with "-" through --prompt=.
func TestRunPromptReachesTheAgentVerbatim(t *testing.T) {
	const prompt = `Say "hi" to Ada`
	_, rec, err := fakeRun{executor: "opencode", mode: "replay",
		fixture: "testdata/transcripts/opencode/opencode-1.18.33-scripted-json-skill-shell.jsonl",
		opts:    Options{Args: []string{}}, req: Request{Prompt: prompt}}.run(t)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stdin != prompt || slices.Contains(rec.Args, prompt) {
		t.Errorf("opencode: stdin %q, args %q; want the prompt on stdin only", rec.Stdin, rec.Args)
	}
	for _, tt := range []struct{ prompt, lastArg string }{
		{prompt, prompt},
		{"-x marks the spot", "--prompt=-x marks the spot"},
	} {
		_, rec, err := fakeRun{executor: "qwen-code", mode: "replay",
			fixture: "testdata/transcripts/qwen-code/qwen-code-0.24.4-scripted-stream-json-skill-shell.jsonl",
			opts:    Options{Args: []string{}}, req: Request{Prompt: tt.prompt}}.run(t)
		if err != nil {
			t.Fatal(err)
		}
		if last := rec.Args[len(rec.Args)-1]; last != tt.lastArg || rec.Stdin != "" {
			t.Errorf("qwen-code: last argument %q, stdin %q; want %q", last, rec.Stdin, tt.lastArg)
		}
	}
}

// CLIs that trust $PWD over their working directory (opencode) must find the workspace there,
// not the folder skillgate was started from.
func TestRunAgentPWDIsTheWorkspace(t *testing.T) {
	t.Setenv("PWD", t.TempDir()) // skillgate's own folder, which the agent must not inherit
	fixtures := map[string]string{
		"claude-code": "claude-code/gleam-golden-basic-query-2.1.7.jsonl",
		"codex":       "codex/agentcmd-0.46.0-file-change.jsonl",
		"copilot":     "copilot/copilot-sdk-cli-1.0.76-json-skill-invocations.TRIMMED.jsonl",
		"gemini":      "gemini/agentcmd-doc-0.11.0-stream-json-say-hello.jsonl",
		"qwen-code":   "qwen-code/qwen-code-0.24.4-scripted-stream-json-skill-shell.jsonl",
		"opencode":    "opencode/opencode-1.18.33-scripted-json-skill-shell.jsonl",
	}
	for name := range cliSpecs {
		fixture, ok := fixtures[name]
		if !ok {
			t.Errorf("no fixture for executor %s", name)
			continue
		}
		ws := filepath.Join(t.TempDir(), "ws")
		if err := os.MkdirAll(ws, 0o755); err != nil {
			t.Fatal(err)
		}
		_, rec, _ := fakeRun{executor: name, mode: "replay", fixture: filepath.Join("testdata/transcripts", fixture),
			req: Request{Workspace: ws, Timeout: time.Minute}}.run(t)
		if rec.Pwd != ws || filepath.Base(rec.Cwd) != "ws" {
			t.Errorf("%s: PWD = %q, cwd %q; want the workspace %s", name, rec.Pwd, rec.Cwd, ws)
		}
	}
}

// opencode prints a step's usage after its tool calls; a run stopped on the skill call of a step
// still counts that step's tokens, and nothing after the stop.
func TestOpencodeEarlyStopCountsTheStoppingStep(t *testing.T) {
	stream := []string{
		`{"type":"step_start","timestamp":1,"sessionID":"ses_1","part":{"type":"step-start"}}`,
		`{"type":"tool_use","timestamp":2,"sessionID":"ses_1","part":{"type":"tool","tool":"skill","callID":"c1","state":{"status":"completed","input":{"name":"pdf"},"output":"loaded"}}}`,
		`{"type":"step_finish","timestamp":2,"sessionID":"ses_1","part":{"type":"step-finish","reason":"tool-calls","tokens":{"input":950,"output":17,"reasoning":3,"cache":{"read":50,"write":0}}}}`,
		`{"type":"step_start","timestamp":3,"sessionID":"ses_1","part":{"type":"step-start"}}`,
		`{"type":"text","timestamp":4,"sessionID":"ses_1","part":{"type":"text","text":"after the stop"}}`,
		`{"type":"step_finish","timestamp":4,"sessionID":"ses_1","part":{"type":"step-finish","reason":"stop","tokens":{"input":990,"output":20,"reasoning":0,"cache":{"read":10,"write":0}}}}`,
	}
	p := newOpencodeParser()
	canceled := false
	w := watchStream(&StopRule{SkillCall: "pdf"}, p, func() { canceled = true }, nil)
	for _, line := range stream {
		w.line([]byte(line))
	}
	reason, _ := w.outcome()
	run, _ := p.finish()
	if reason != StopSkillCall || !canceled {
		t.Fatalf("stopped %q (canceled %v), want a stop on the skill call", reason, canceled)
	}
	if u := run.SessionDigest.Usage; u == nil || u.InputTokens != 1000 || u.OutputTokens != 20 || u.Turns != 1 {
		t.Errorf("usage = %+v, want the first step's 1000 in / 20 out", u)
	}
	if run.FinalOutput != "" || len(run.SessionDigest.SkillInvocations) != 1 {
		t.Errorf("final %q, skills %+v: nothing after the stop may be recorded", run.FinalOutput, run.SessionDigest.SkillInvocations)
	}
}

// opencode names models provider/model and fails a run on any other name ("Unexpected server
// error"): a suite's bare model id (waza's claude-sonnet-4-20250514) is left off its command
// line, with a note; the other CLIs take any name.
func TestOpencodeModelNames(t *testing.T) {
	tests := []struct {
		executor, model string
		passed          bool
	}{
		{"opencode", "anthropic/claude-sonnet-4-5", true},
		{"opencode", "claude-sonnet-4-20250514", false},
		{"opencode", "", false},
		{"claude-code", "claude-sonnet-4-20250514", true},
		{"codex", "gpt-5", true},
		{"mock", "anything", false},
	}
	for _, tt := range tests {
		note := ModelNote(tt.executor, tt.model)
		spec := cliSpecs[tt.executor]
		if spec == nil {
			if note != "" {
				t.Errorf("%s: note %q for an executor that is not an agent CLI", tt.executor, note)
			}
			continue
		}
		args := spec.commandLine(&Request{Model: tt.model}, nil, nil, "")
		if passed := slices.Contains(args, "--model"); passed != tt.passed {
			t.Errorf("%s %q: args %q", tt.executor, tt.model, args)
		}
		if wantNote := tt.model != "" && !tt.passed; (note != "") != wantNote {
			t.Errorf("%s %q: note %q", tt.executor, tt.model, note)
		}
	}
}
