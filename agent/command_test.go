package agent

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/results"
)

// loadCommandSettings decodes a config block from YAML, as the runner would hand it over.
func loadCommandSettings(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var settings map[string]any
	if err := yaml.Unmarshal(data, &settings); err != nil {
		t.Fatal(err)
	}
	return settings
}

// TestCommandExecutorWorkedExample runs the worked example of docs/agents.md: the fictional
// acme-agent's JSON lines mapped to the normalized run.
func TestCommandExecutorWorkedExample(t *testing.T) {
	settings := loadCommandSettings(t, "testdata/command/acme-agent.yaml")
	if err := ValidateSettings("command", settings); err != nil {
		t.Fatalf("the documented example does not validate: %v", err)
	}
	run, rec, err := fakeRun{executor: "command", mode: "replay", settings: settings,
		fixture: "testdata/command/acme-agent.jsonl",
		opts:    Options{Args: []string{"--fast"}},
		req:     Request{Prompt: "list the files", SkillDirs: writeSkills(t)}}.run(t)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if want := []string{"run", "--json", "--prompt", "list the files", "--fast"}; !slices.Equal(rec.Args, want) {
		t.Errorf("args = %q, want %q", rec.Args, want)
	}
	if !slices.Contains(rec.Files, ".acme/skills/pdf/SKILL.md") {
		t.Errorf("skills not installed under skills_dir: %v", rec.Files)
	}
	ok, failed := true, false
	want := []results.Event{
		{Type: "message", Role: "assistant", Content: "I'll look at the files."},
		{Type: "tool_call", ID: "c1", Name: "shell", Arguments: map[string]any{"cmd": "ls"}, Result: "README.md\n", Success: &ok},
		{Type: "tool_call", ID: "c2", Name: "load_skill", Arguments: map[string]any{"skill": "pdf"}, Result: "loaded", Success: &ok},
		{Type: "skill_invocation", Name: "pdf", Path: ".acme/skills/pdf"},
		{Type: "tool_call", ID: "c3", Name: "shell", Arguments: map[string]any{"cmd": "cat missing"}, Result: "cat: missing: No such file or directory", Success: &failed},
		{Type: "raw", Raw: []byte(`{"event":"warning","message":"rate limited, retrying"}`)},
		{Type: "message", Role: "assistant", Content: "There is one file: README.md."},
	}
	got, _ := jsonMarshal(run.Transcript)
	wantJSON, _ := jsonMarshal(want)
	assertSameJSON(t, got, wantJSON)
	if run.FinalOutput != "There is one file: README.md." || run.SessionDigest.SessionID != "sess-42" || run.UnknownEvents != 1 {
		t.Errorf("final %q session %q unknown %d", run.FinalOutput, run.SessionDigest.SessionID, run.UnknownEvents)
	}
	wantUsage := results.Usage{Turns: 2, InputTokens: 2000, OutputTokens: 400, CacheReadTokens: 800, CostUSD: 0.0063}
	u := run.SessionDigest.Usage
	if u == nil || u.Turns != wantUsage.Turns || u.InputTokens != 2000 || u.OutputTokens != 400 || u.CacheReadTokens != 800 ||
		u.CostUSD < 0.00629 || u.CostUSD > 0.00631 {
		t.Errorf("usage = %+v, want %+v", u, wantUsage)
	}
	if got := run.SessionDigest.ToolsUsed; !slices.Equal(got, []string{"shell", "load_skill", "shell"}) {
		t.Errorf("tools used = %q", got)
	}
}

func TestCommandExecutorRequireFinalAndFatalErrors(t *testing.T) {
	stream := `{"event":"say","from":"assistant","text":"working"}
{"event":"error","message":"quota exceeded"}
`
	script := writeScript(t, "s.jsonl", stream)
	settings := loadCommandSettings(t, "testdata/command/acme-agent.yaml")
	run, _, err := fakeRun{executor: "command", mode: "stdout-script", settings: settings, fixture: script}.run(t)
	if err == nil || err.Error() != "command: quota exceeded; the output ended before its final event (require_final)" {
		t.Fatalf("error = %v", err)
	}
	if !slices.Equal(run.SessionDigest.Errors, []string{"quota exceeded"}) || run.FinalOutput != "working" {
		t.Errorf("errors %q final %q", run.SessionDigest.Errors, run.FinalOutput)
	}
}

func TestCommandExecutorTextOutputAndStdinPrompt(t *testing.T) {
	script := writeScript(t, "out.txt", "plain answer\nsecond line\n")
	settings := map[string]any{"command": map[string]any{
		"argv": []any{"any-agent", "--quiet"}, "prompt_via": "stdin", "output": "text",
	}}
	run, rec, err := fakeRun{executor: "command", mode: "stdout-script", settings: settings, fixture: script,
		req: Request{Prompt: "from stdin"}}.run(t)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Stdin != "from stdin" || !slices.Equal(rec.Args, []string{"--quiet"}) {
		t.Errorf("stdin %q args %q", rec.Stdin, rec.Args)
	}
	if run.FinalOutput != "plain answer\nsecond line\n" {
		t.Errorf("final output = %q", run.FinalOutput)
	}
}

func TestCommandExecutorJSONDocument(t *testing.T) {
	// output: json — one document; an array is mapped element by element.
	doc := `[
  {"kind": "text", "value": "hello"},
  {"kind": "tool", "id": 7, "tool": "grep", "args": "{\"pattern\": \"x\"}", "out": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "ok": true},
  {"kind": "end", "answer": "bye", "session": 99}
]`
	script := writeScript(t, "out.json", doc)
	settings := map[string]any{"command": map[string]any{
		"argv": []any{"doc-agent"}, "output": "json",
		"map": map[string]any{"rules": []any{
			map[string]any{"when": map[string]any{"kind": "text"}, "emit": "message", "content": "value", "role": map[string]any{"const": "assistant"}},
			map[string]any{"when": map[string]any{"kind": "tool"}, "emit": "tool_call", "id": "id", "name": "tool", "arguments": "args", "result": "out", "success": "ok"},
			map[string]any{"when": map[string]any{"kind": "end"}, "emit": "final", "content": "answer", "session_id": "session"},
		}},
	}}
	run, _, err := fakeRun{executor: "command", mode: "stdout-script", settings: settings, fixture: script}.run(t)
	if err != nil {
		t.Fatal(err)
	}
	calls := run.SessionDigest.ToolCalls
	if len(calls) != 1 || calls[0].ID != "7" || calls[0].Arguments["pattern"] != "x" || calls[0].Result != "a\nb" || !calls[0].Success {
		t.Errorf("tool calls = %+v", calls)
	}
	if run.FinalOutput != "bye" || run.SessionDigest.SessionID != "99" {
		t.Errorf("final %q session %q", run.FinalOutput, run.SessionDigest.SessionID)
	}
}

func TestCommandVersion(t *testing.T) {
	t.Setenv("SKILLGATE_FAKE_AGENT", "replay")
	settings := loadCommandSettings(t, "testdata/command/acme-agent.yaml")
	e, err := New("command", Options{Path: fakeExe(t), Settings: settings})
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.(Versioner).Version(context.Background())
	if err != nil || v != "9.9.9 (Fake Agent)" {
		t.Errorf("Version() = %q, %v", v, err)
	}
	delete(settings["command"].(map[string]any), "version_argv")
	e, _ = New("command", Options{Path: fakeExe(t), Settings: settings})
	if v, err := e.(Versioner).Version(context.Background()); v != "" || err != nil {
		t.Errorf("without version_argv Version() = %q, %v; want unknown", v, err)
	}
}

func TestValidateSettings(t *testing.T) {
	rule := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	cmd := func(extra map[string]any, rules ...any) map[string]any {
		c := map[string]any{"argv": []any{"agent"}, "map": map[string]any{"rules": rules}}
		for k, v := range extra {
			c[k] = v
		}
		return map[string]any{"command": c}
	}
	okRule := rule("when", map[string]any{"type": "text"}, "emit", "message", "content", "text")
	tests := []struct {
		name     string
		executor string
		settings map[string]any
		wantErr  string
	}{
		{"valid command", "command", cmd(nil, okRule), ""},
		{"no command block", "command", nil, "command: the command executor needs config.command"},
		{"command not a mapping", "command", map[string]any{"command": "agent --json"}, `command: expected a mapping, got the string "agent --json"`},
		{"unknown key", "command", cmd(map[string]any{"args": []any{"x"}}, okRule), `command: unknown key "args"; known keys: argv, map, output, prompt_via, require_final, skills_dir, version_argv`},
		{"argv not a list", "command", map[string]any{"command": map[string]any{"argv": "agent"}}, `command.argv: expected a list of strings, got the string "agent"`},
		{"empty argv", "command", map[string]any{"command": map[string]any{"argv": []any{}}}, "command.argv: give the agent's command line as a list"},
		{"bad prompt_via", "command", cmd(map[string]any{"prompt_via": "file"}, okRule), `command.prompt_via: unknown value "file"; use one of arg, stdin`},
		{"bad output", "command", cmd(map[string]any{"output": "xml"}, okRule), `command.output: unknown value "xml"; use one of jsonl, json, text`},
		{"placeholder with stdin", "command", cmd(map[string]any{"argv": []any{"agent", "{prompt}"}, "prompt_via": "stdin"}, okRule), "command.argv: contains {prompt} but command.prompt_via is stdin"},
		{"map missing", "command", map[string]any{"command": map[string]any{"argv": []any{"agent"}}}, "command.map: output jsonl needs a map"},
		{"map with text", "command", cmd(map[string]any{"output": "text"}, okRule), "command.map: output text has no events to map"},
		{"no rules", "command", cmd(nil), "command.map.rules: expected a non-empty list of rules"},
		{"unknown emit", "command", cmd(nil, rule("emit", "tool")), `command.map.rules[0].emit: unknown value "tool"; use one of message, tool_call, tool_result, skill_invocation, error, final, none`},
		{"field of another kind", "command", cmd(nil, okRule, rule("emit", "message", "content", "x", "name", "y")), `command.map.rules[1]: unknown key "name"; known keys: content, emit, fatal, role, session_id, usage, usage_mode, when (emit message takes: role, content)`},
		{"missing required", "command", cmd(nil, rule("emit", "tool_call", "id", "id")), "command.map.rules[0]: emit tool_call needs name"},
		{"bad path", "command", cmd(nil, rule("emit", "message", "content", "a..b")), `command.map.rules[0].content: path "a..b": empty key`},
		{"bad index", "command", cmd(nil, rule("emit", "message", "content", "a[x]")), `command.map.rules[0].content: path "a[x]": index "x" is not a non-negative number`},
		{"when not a map", "command", cmd(nil, rule("emit", "none", "when", "type=x")), "command.map.rules[0].when: expected a mapping of paths"},
		{"when value a map", "command", cmd(nil, rule("emit", "none", "when", map[string]any{"type": map[string]any{"x": 1}})), "command.map.rules[0].when.type: expected a string, number, boolean or null"},
		{"unknown usage key", "command", cmd(nil, rule("emit", "none", "usage", map[string]any{"tokens": "t"})), `command.map.rules[0].usage: unknown key "tokens"`},
		{"usage_mode alone", "command", cmd(nil, rule("emit", "none", "usage_mode", "add")), "command.map.rules[0].usage_mode: set without usage"},
		{"each", "command", cmd(nil, rule("when", map[string]any{"type": "assistant"}, "each", "message.content", "rules", []any{okRule}, "session_id", "sid")), ""},
		{"each with emit", "command", cmd(nil, rule("each", "content", "rules", []any{okRule}, "emit", "message")), `command.map.rules[0]: unknown key "emit"; known keys: each, rules, session_id, usage, usage_mode, when (a rule with each maps`},
		{"each without rules", "command", cmd(nil, rule("each", "content")), "command.map.rules[0].rules: expected a non-empty list of rules for the elements of content"},
		{"each not a path", "command", cmd(nil, rule("each", []any{"a"}, "rules", []any{okRule})), "command.map.rules[0].each: expected the path of a list"},
		{"nested each", "command", cmd(nil, rule("each", "content", "rules", []any{rule("each", "x", "rules", []any{okRule})})), "command.map.rules[0].rules[0].each: the rules of an each rule cannot have each rules of their own"},
		{"bad element rule", "command", cmd(nil, rule("each", "content", "rules", []any{rule("emit", "tool_call")})), "command.map.rules[0].rules[0]: emit tool_call needs name"},
		{"rules without each", "command", cmd(nil, rule("emit", "none", "rules", []any{okRule})), "command.map.rules[0].rules: rules go with each"},
		{"input twice", "command", cmd(nil, rule("emit", "none", "usage", map[string]any{"input_tokens": "a", "uncached_input_tokens": "b"})), "command.map.rules[0].usage: input_tokens and uncached_input_tokens both set"},
		{"fatal on message", "command", cmd(nil, rule("emit", "message", "content", "c", "fatal", true)), "command.map.rules[0].fatal: only an error rule can be fatal"},
		{"field spec const and path", "command", cmd(nil, rule("emit", "message", "content", map[string]any{"const": "x", "path": "y"})), "command.map.rules[0].content: const cannot be combined with other keys"},
		{"skills_dir escapes", "command", cmd(map[string]any{"skills_dir": "../skills"}, okRule), `command.skills_dir: "../skills" must be a folder inside the workspace`},
		{"builtin valid", "claude-code", map[string]any{"claude-code": map[string]any{"permission_mode": "acceptEdits", "skills_dir": ".claude/skills"}}, ""},
		{"claude 2.1.330 permission modes", "claude-code", map[string]any{"claude-code": map[string]any{"permission_mode": "auto"}}, ""},
		{"claude manual permission mode", "claude-code", map[string]any{"claude-code": map[string]any{"permission_mode": "manual"}}, ""},
		{"builtin unknown key", "codex", map[string]any{"codex": map[string]any{"model": "x"}}, `codex settings: unknown key "model"; known keys: sandbox, skills_dir`},
		{"builtin bad value", "gemini", map[string]any{"gemini": map[string]any{"approval_mode": "always"}}, `gemini.approval_mode: unknown value "always"; use one of yolo, auto_edit, default, plan`},
		{"builtin alias", "copilot-sdk", map[string]any{"copilot-sdk": map[string]any{"skills_dir": "/abs"}}, `copilot-sdk.skills_dir: "/abs" must be a folder inside the workspace`},
		{"builtin not a map", "claude-code", map[string]any{"claude-code": []any{"x"}}, "claude-code settings: expected a mapping of setting names to values, got a list"},
		{"builtin other executors' keys ignored", "claude-code", map[string]any{"command": 42}, ""},
		{"executor without settings", "mock", map[string]any{"anything": 1}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateSettings(tt.executor, tt.settings)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("unexpected error: %v", err)
			case tt.wantErr != "" && err == nil:
				t.Errorf("no error, want %q", tt.wantErr)
			case tt.wantErr != "" && !strings.HasPrefix(err.Error(), tt.wantErr):
				t.Errorf("error = %q\nwant prefix %q", err, tt.wantErr)
			}
			if _, newErr := New(tt.executor, Options{Settings: tt.settings}); tt.wantErr != "" && tt.executor != "mock" && newErr == nil {
				t.Errorf("New accepted settings ValidateSettings rejects")
			}
		})
	}
}

func TestParsePath(t *testing.T) {
	ev := map[string]any{"a": map[string]any{"b": []any{"x", map[string]any{"c": 3.0}}}, "top": "t"}
	tests := []struct {
		path string
		want any
	}{
		{"top", "t"},
		{"$.top", "t"},
		{"a.b[0]", "x"},
		{"a.b[1].c", 3.0},
		{"a.b[2]", nil},
		{"a.missing.c", nil},
		{"top[0]", nil},
		{"$", ev},
	}
	for _, tt := range tests {
		p, err := parsePath(tt.path)
		if err != nil {
			t.Fatalf("parsePath(%q): %v", tt.path, err)
		}
		got := p.lookup(ev)
		if tt.path == "$" {
			if _, ok := got.(map[string]any); !ok {
				t.Errorf("$ = %v", got)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("lookup(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
	for _, bad := range []string{"", "a.", ".a", "a[1", "a[-1]", "a[0]x"} {
		if _, err := parsePath(bad); err == nil {
			t.Errorf("parsePath(%q) accepted", bad)
		}
	}
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// TestAgentEnv: agents get skillgate's environment (their API keys, PATH…) with the request's
// variables on top and PWD naming the workspace, but neither the judge's settings nor the
// runner's and the workflow's tokens; Copilot alone gets its own GitHub token.
func TestAgentEnv(t *testing.T) {
	t.Setenv("SKILLGATE_JUDGE_API_KEY", "sk-judge-secret")
	t.Setenv("ANTHROPIC_API_KEY", "sk-agent-key-0123")
	t.Setenv("GITHUB_TOKEN", "ghs_workflowToken0123")
	t.Setenv("ACTIONS_RUNTIME_TOKEN", "runtime-token-0123")
	t.Setenv("COPILOT_GITHUB_TOKEN", "github_pat_copilot0123")
	t.Setenv("SKILLGATE_TEST_OVERRIDE", "outer")
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, executor := range []string{"claude-code", "codex", "gemini", "copilot", commandExecutorName} {
		var hand []string
		if spec := cliSpecs[executor]; spec != nil {
			hand = spec.hand
		}
		env := agentEnv(ws, hand, map[string]string{"SKILLGATE_TEST_OVERRIDE": "inner"})
		for _, prefix := range []string{"SKILLGATE_JUDGE_", "GITHUB_TOKEN=", "ACTIONS_"} {
			if slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, prefix) }) {
				t.Errorf("%s: the agent's environment holds %s…", executor, prefix)
			}
		}
		if !slices.Contains(env, "ANTHROPIC_API_KEY=sk-agent-key-0123") || !slices.Contains(env, "SKILLGATE_TEST_OVERRIDE=inner") || slices.Contains(env, "SKILLGATE_TEST_OVERRIDE=outer") {
			t.Errorf("%s: agent environment lost or doubled a variable", executor)
		}
		if !slices.Contains(env, "PWD="+ws) {
			t.Errorf("%s: PWD is not the workspace %s", executor, ws)
		}
		if got, want := slices.Contains(env, "COPILOT_GITHUB_TOKEN=github_pat_copilot0123"), executor == "copilot"; got != want {
			t.Errorf("%s: COPILOT_GITHUB_TOKEN handed %v, want %v", executor, got, want)
		}
	}
}

// The repro of issue 26: a `command` agent printing process.env.PWD and process.cwd() (Node, as
// Bun- and Node-based CLIs read them) gives the workspace twice, not the folder skillgate was
// started from.
func TestCommandAgentSeesTheWorkspaceAsPWD(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	t.Setenv("PWD", "/the/folder/skillgate/was/started/from")
	ex, err := New("command", Options{Settings: map[string]any{"command": map[string]any{
		"argv": []any{node, "-e", "console.log(process.env.PWD + ' ' + process.cwd())"}, "output": "text",
	}}})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	run, err := ex.Run(context.Background(), &Request{Prompt: "where am I", Workspace: ws, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(run.FinalOutput), ws+" "+ws; got != want {
		t.Errorf("the agent printed %q, want %q", got, want)
	}
}

// One event holding several blocks maps to one entry per block (each): Qwen Code 0.24.4 prints
// the model's two parallel tool calls as one assistant event with two tool_use blocks (recorded
// against the scripted model, testdata/command/README.md).
func TestCommandExecutorMapsEveryBlockOfAnEvent(t *testing.T) {
	settings := loadCommandSettings(t, "testdata/command/qwen-code.yaml")
	if err := ValidateSettings("command", settings); err != nil {
		t.Fatal(err)
	}
	run, _, err := fakeRun{executor: "command", mode: "replay", settings: settings,
		fixture: "testdata/command/qwen-code-0.24.4-parallel-calls.jsonl"}.run(t)
	if err != nil {
		t.Fatal(err)
	}
	var commands []string
	for _, c := range run.SessionDigest.ToolCalls {
		if c.Outcome != results.ToolSucceeded {
			t.Errorf("call %s: %s", c.Command, c.Outcome)
		}
		commands = append(commands, c.Command)
	}
	if !slices.Equal(commands, []string{"cat notes.txt", "ls"}) {
		t.Errorf("commands %q, want both parallel calls", commands)
	}
	if run.FinalOutput != "FINAL ANSWER: Welcome aboard, Ada." || run.UnknownEvents != 0 || run.SessionDigest.SessionID == "" {
		t.Errorf("final %q, %d unknown events, session %q", run.FinalOutput, run.UnknownEvents, run.SessionDigest.SessionID)
	}
	if u := run.SessionDigest.Usage; u == nil || u.InputTokens != 2000 || u.OutputTokens != 40 || u.Turns == 0 {
		t.Errorf("usage %+v", u)
	}
	// An element no rule maps is kept, raw.
	settings = map[string]any{"command": map[string]any{"argv": []any{"qwen"}, "map": map[string]any{"rules": []any{
		map[string]any{"when": map[string]any{"type": "assistant"}, "each": "message.content",
			"rules": []any{map[string]any{"when": map[string]any{"type": "text"}, "emit": "message", "content": "text"}}},
		map[string]any{"emit": "none"},
	}}}}
	run, _, _ = fakeRun{executor: "command", mode: "replay", settings: settings,
		fixture: "testdata/command/qwen-code-0.24.4-parallel-calls.jsonl"}.run(t)
	raws := 0
	for _, ev := range run.Transcript {
		if ev.Type == results.EventRaw && strings.Contains(string(ev.Raw), `"type":"tool_use"`) {
			raws++
		}
	}
	if run.UnknownEvents != 2 || raws != 2 {
		t.Errorf("%d unknown events, %d raw tool_use blocks; want the 2 unmapped blocks kept", run.UnknownEvents, raws)
	}
}

// An agent whose input figure leaves cached tokens out says so with uncached_input_tokens:
// opencode 1.18.33 reports input 950 and cache reads 50 for each of two calls the scripted model
// served 1000 prompt tokens to.
func TestCommandExecutorUncachedInput(t *testing.T) {
	settings := loadCommandSettings(t, "testdata/command/opencode.yaml")
	if err := ValidateSettings("command", settings); err != nil {
		t.Fatal(err)
	}
	run, _, err := fakeRun{executor: "command", mode: "replay", settings: settings,
		fixture: "testdata/command/opencode-1.18.33-parallel-calls.jsonl"}.run(t)
	if err != nil {
		t.Fatal(err)
	}
	if u := run.SessionDigest.Usage; u == nil || u.InputTokens != 2000 || u.CacheReadTokens != 100 || u.ReasoningTokens != 6 {
		t.Errorf("usage %+v, want 2000 input of which 100 cached", u)
	}
	if n := run.SessionDigest.ToolCallCount; n != 2 || run.UnknownEvents != 0 {
		t.Errorf("%d tool calls, %d unknown events", n, run.UnknownEvents)
	}
}
