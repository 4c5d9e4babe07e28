package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/internal/proctest"
	"github.com/skillgate/skillgate/internal/testtree"
	"github.com/skillgate/skillgate/results"
)

// fakeExe is the path of the test binary, which acts as the fake agent.
func fakeExe(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func abs(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeRun describes one run of the fake agent.
type fakeRun struct {
	executor string
	mode     string
	fixture  string
	env      map[string]string
	settings map[string]any
	opts     Options
	req      Request
}

// run executes the fake agent through the named executor and returns what the executor
// produced and what the fake agent saw.
func (f fakeRun) run(t *testing.T) (*results.AgentRun, fakeRecord, error) {
	t.Helper()
	dir := t.TempDir()
	recordPath := filepath.Join(dir, "record.json")
	opts := f.opts
	if opts.Path == "" {
		opts.Path = fakeExe(t)
	}
	opts.Settings = f.settings
	exec, err := New(f.executor, opts)
	if err != nil {
		t.Fatalf("New(%s): %v", f.executor, err)
	}
	req := f.req
	if req.Workspace == "" {
		req.Workspace = filepath.Join(dir, "ws")
		if err := os.MkdirAll(req.Workspace, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if req.Prompt == "" {
		req.Prompt = "do the task"
	}
	env := map[string]string{"SKILLGATE_FAKE_AGENT": f.mode, "FAKE_RECORD": recordPath}
	if f.fixture != "" {
		env["FAKE_FIXTURE"] = abs(t, f.fixture)
	}
	for k, v := range f.env {
		env[k] = v
	}
	for k, v := range req.Environment {
		env[k] = v
	}
	req.Environment = env
	runResult, runErr := exec.Run(context.Background(), &req)
	var rec fakeRecord
	if data, err := os.ReadFile(recordPath); err == nil {
		_ = json.Unmarshal(data, &rec)
	}
	return runResult, rec, runErr
}

// writeSkills makes two skills in a folder of skills and one standalone skill folder.
func writeSkills(t *testing.T) []string {
	t.Helper()
	root := t.TempDir()
	testtree.WriteSame(t, root, []byte("---\nname: x\n---\n"),
		"group/pdf/SKILL.md", "group/pdf/scripts/run.sh", "group/docx/SKILL.md", "group/notes.txt", "single/code-explainer/SKILL.md")
	return []string{filepath.Join(root, "group"), filepath.Join(root, "single", "code-explainer")}
}

func loadGolden(t *testing.T, name string) *results.AgentRun {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata/golden", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatal(err)
	}
	var run results.AgentRun
	if err := json.Unmarshal(g.Run, &run); err != nil {
		t.Fatal(err)
	}
	return &run
}

// TestExecutorsRunRecordedSessions runs every agent CLI executor against a fake agent replaying
// a real transcript: the run must equal the golden, the agent must have been started in the
// workspace with its flags, its environment and the skills where it looks for them.
func TestExecutorsRunRecordedSessions(t *testing.T) {
	tests := []struct {
		executor  string
		fixture   string
		skillsDir string
		wantArgs  []string
	}{
		{"claude-code", "claude-code/skael-skill-invocation-2.1.220.jsonl", ".claude/skills",
			[]string{"-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions", "--model", "m-1", "--extra", "--", "do the task"}},
		{"codex", "codex/agent-harness-command-execution.jsonl", ".agents/skills",
			[]string{"exec", "--json", "--skip-git-repo-check", "--sandbox", "workspace-write", "--model", "m-1", "--extra", "--", "do the task"}},
		{"copilot", "copilot/copilot-sdk-cli-1.0.76-json-skill-invocations.TRIMMED.jsonl", ".github/skills",
			[]string{"--output-format", "json", "--yolo", "--model", "m-1", "--extra", "--prompt=do the task"}},
		{"copilot-sdk", "copilot/copilot-sdk-cli-1.0.76-json-skill-invocations.TRIMMED.jsonl", ".github/skills",
			[]string{"--output-format", "json", "--yolo", "--model", "m-1", "--extra", "--prompt=do the task"}},
		{"gemini", "gemini/agentcmd-doc-0.11.0-stream-json-read-replace-read.jsonl", ".gemini/skills",
			[]string{"--output-format", "stream-json", "--yolo", "--model", "m-1", "--extra", "--prompt=do the task"}},
		{"qwen-code", "qwen-code/qwen-code-0.24.4-scripted-stream-json-skill-shell.jsonl", ".qwen/skills",
			[]string{"--output-format", "stream-json", "--yolo", "--model", "m-1", "--extra", "do the task"}},
		{"opencode", "opencode/opencode-1.18.33-scripted-json-skill-shell.jsonl", ".opencode/skills",
			[]string{"run", "--format", "json", "--title", "skillgate", "--thinking", "--auto", "--model", "p/m-1", "--extra"}},
	}
	for _, tt := range tests {
		t.Run(tt.executor, func(t *testing.T) {
			model := "m-1"
			if tt.executor == "opencode" {
				model = "p/m-1" // opencode names models provider/model
			}
			f := fakeRun{
				executor: tt.executor, mode: "replay",
				fixture: filepath.Join("testdata/transcripts", tt.fixture),
				env:     map[string]string{"FAKE_SECRET": "s3cret"},
				opts:    Options{Args: []string{"--extra"}},
				req:     Request{Model: model, SkillDirs: writeSkills(t), Timeout: time.Minute},
			}
			run, rec, err := f.run(t)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if !slices.Equal(rec.Args, tt.wantArgs) {
				t.Errorf("agent args = %q\nwant %q", rec.Args, tt.wantArgs)
			}
			if rec.Secret != "s3cret" {
				t.Errorf("the request environment did not reach the agent")
			}
			if filepath.Base(rec.Cwd) != "ws" {
				t.Errorf("agent cwd = %s, want the workspace", rec.Cwd)
			}
			for _, skill := range []string{"pdf/SKILL.md", "pdf/scripts/run.sh", "docx/SKILL.md", "code-explainer/SKILL.md"} {
				if !slices.Contains(rec.Files, tt.skillsDir+"/"+skill) {
					t.Errorf("agent does not see %s/%s; it saw %v", tt.skillsDir, skill, rec.Files)
				}
			}
			if slices.Contains(rec.Files, tt.skillsDir+"/notes.txt") {
				t.Errorf("a file that is not a skill folder was installed")
			}
			name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(tt.fixture), ".jsonl"), ".json")
			want := loadGolden(t, name)
			if run.DurationMS <= 0 {
				t.Errorf("duration not measured")
			}
			run.DurationMS = want.DurationMS
			got, _ := json.Marshal(run)
			wantJSON, _ := json.Marshal(want)
			assertSameJSON(t, got, wantJSON)
		})
	}
}

func TestRunAttributesInstalledSkillPaths(t *testing.T) {
	// Gemini reports activate_skill without a folder: the executor knows where it put the skill.
	lines := `{"type":"init","session_id":"s","model":"m"}
{"type":"tool_use","tool_name":"activate_skill","tool_id":"t1","parameters":{"name":"pdf"}}
{"type":"tool_result","tool_id":"t1","status":"success","output":"activated"}
{"type":"message","role":"assistant","content":"ok","delta":true}
{"type":"result","status":"success","stats":{"input_tokens":1,"output_tokens":1}}
`
	script := writeScript(t, "gemini.jsonl", lines)
	run, _, err := fakeRun{executor: "gemini", mode: "stdout-script", fixture: script,
		req: Request{SkillDirs: writeSkills(t)}}.run(t)
	if err != nil {
		t.Fatal(err)
	}
	want := []results.SkillInvocation{{Name: "pdf", Path: ".gemini/skills/pdf"}}
	if !slices.Equal(run.SessionDigest.SkillInvocations, want) {
		t.Errorf("skill invocations = %+v, want %+v", run.SessionDigest.SkillInvocations, want)
	}
}

func TestRunCrashKeepsPartialOutput(t *testing.T) {
	run, _, err := fakeRun{executor: "claude-code", mode: "crash",
		fixture: "testdata/transcripts/claude-code/agent-harness-bash-thinking-2.1.220.jsonl",
		env:     map[string]string{"FAKE_LINES": "5"}}.run(t)
	if err == nil {
		t.Fatal("no error for a crashed agent")
	}
	for _, want := range []string{"claude-code: exited with status 3: panic: agent crashed", "the stream ended before Claude Code's result line"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if run == nil {
		t.Fatal("no partial run")
	}
	d := run.SessionDigest
	if d.ToolCallCount != 1 || d.ToolCalls[0].Name != "Bash" || d.ToolCalls[0].Success || d.ToolCalls[0].Arguments["command"] != "echo one" {
		t.Errorf("partial tool calls = %+v", d.ToolCalls)
	}
	if d.SessionID != "30b3e9a3-4fac-468c-a5b1-f2824b027ab3" {
		t.Errorf("session id = %q", d.SessionID)
	}
	if run.UnknownEvents != 1 { // the half-written last line
		t.Errorf("unknown events = %d, want 1", run.UnknownEvents)
	}
	if !strings.Contains(run.Stderr, "panic: agent crashed") {
		t.Errorf("stderr = %q", run.Stderr)
	}
}

func TestRunTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel() // waits out the timeout
	if runtime.GOOS == "windows" {
		t.Skip("process groups are a unix feature")
	}
	pidFile := filepath.Join(t.TempDir(), "grandchild.pid")
	// The fake and its grandchild sleep an hour: a Run that did not kill them would not return
	// within the test binary's timeout.
	run, _, err := fakeRun{executor: "codex", mode: "hang",
		fixture: "testdata/transcripts/codex/agent-harness-command-execution.jsonl",
		env:     map[string]string{"FAKE_LINES": "4", "FAKE_PIDFILE": pidFile},
		req:     Request{Timeout: time.Second}}.run(t)
	if err == nil || !strings.Contains(err.Error(), "codex: timed out after 1s (the agent's process group was killed)") {
		t.Fatalf("error = %v, want a timeout", err)
	}
	if !strings.Contains(err.Error(), "the stream ended mid-turn") {
		t.Errorf("error %q does not say the stream ended mid-turn", err)
	}
	if run == nil || run.SessionDigest.ToolCallCount != 1 {
		t.Fatalf("partial run = %+v", run)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the grandchild never started: %v", err)
	}
	pid, _ := strconv.Atoi(string(data))
	if !proctest.WaitGone(pid, 5*time.Second) {
		t.Fatalf("grandchild %d survived the timeout", pid)
	}
}

func TestRunStrayDescendantDoesNotBlock(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("process groups are a unix feature")
	}
	old := pipeGrace
	pipeGrace = 300 * time.Millisecond
	t.Cleanup(func() { pipeGrace = old })
	pidFile := filepath.Join(t.TempDir(), "stray.pid")
	t.Cleanup(func() {
		if data, err := os.ReadFile(pidFile); err == nil {
			pid, _ := strconv.Atoi(string(data))
			proctest.Kill(pid)
		}
	})
	// The stray descendant sleeps an hour holding stdout: a Run that waited for it would not
	// return within the test binary's timeout.
	run, _, err := fakeRun{executor: "codex", mode: "escape",
		fixture: "testdata/transcripts/codex/agentcmd-0.46.0-command-execution.jsonl",
		env:     map[string]string{"FAKE_PIDFILE": pidFile}}.run(t)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if run.FinalOutput != "Files here: `stream-output-1.jsonl`, `stream-output-2.jsonl`, `test.js`." {
		t.Errorf("final output = %q", run.FinalOutput)
	}
}

func TestRunHugeLines(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	result := strings.Repeat("r", 1536<<10)
	stream := `{"type":"system","subtype":"init","session_id":"huge"}
{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"` + big + `"}]}}
{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cat big"}}]}}
{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"` + result + `"}]}}
{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"huge","num_turns":1}
`
	script := writeScript(t, "huge.jsonl", stream)
	run, _, err := fakeRun{executor: "claude-code", mode: "stdout-script", fixture: script}.run(t)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if run.FinalOutput != "done" || run.SessionDigest.ToolCallCount != 1 {
		t.Fatalf("final %q, %d tool calls", run.FinalOutput, run.SessionDigest.ToolCallCount)
	}
	msg := run.Transcript[0].Content
	if !strings.HasPrefix(msg, big[:maxTextBytes]) || !strings.HasSuffix(msg, "[skillgate: truncated 2097152 bytes]") {
		t.Errorf("a 3 MiB message is kept as %d bytes ending %q", len(msg), msg[len(msg)-60:])
	}
	res, _ := run.SessionDigest.ToolCalls[0].Result.(string)
	if !strings.HasPrefix(res, result[:maxTextBytes]) || !strings.Contains(res, "truncated 524288 bytes") {
		t.Errorf("a 1.5 MiB tool result is kept as %d bytes", len(res))
	}
}

func TestRunToleratesGarbage(t *testing.T) {
	stream := "Loaded cached credentials.\r\n" +
		"\n" +
		`{"type":"system","subtype":"init","session_id":"g"}` + "\r\n" +
		"   \n" +
		`{"type":"brand_new_event","payload":{"x":1}}` + "\n" +
		`{"type":"system","subtype":"brand_new_subtype"}` + "\n" +
		`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"hi"}]}` + "\n" + // cut short
		`[1,2,3]` + "\n" +
		`{"type":"assistant","message":{"id":"m2","content":[{"type":"text","text":"answer"}]}}` + "\n" +
		`{"type":"result","subtype":"success","is_error":false,"result":"answer","session_id":"g"}` // no newline
	script := writeScript(t, "garbage.jsonl", stream)
	run, _, err := fakeRun{executor: "claude-code", mode: "stdout-script", fixture: script}.run(t)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if run.FinalOutput != "answer" || run.SessionDigest.SessionID != "g" {
		t.Errorf("final %q session %q", run.FinalOutput, run.SessionDigest.SessionID)
	}
	if run.UnknownEvents != 5 {
		t.Errorf("unknown events = %d, want 5 (text line, new type, new subtype, cut line, array)", run.UnknownEvents)
	}
	var raws []string
	for _, ev := range run.Transcript {
		if ev.Type == results.EventRaw {
			raws = append(raws, cmp.Or(string(ev.Raw), ev.Content))
		}
	}
	want := []string{"Loaded cached credentials.", `{"type":"brand_new_event","payload":{"x":1}}`,
		`{"type":"system","subtype":"brand_new_subtype"}`,
		`{"type":"assistant","message":{"id":"m","content":[{"type":"text","text":"hi"}]}`, `[1,2,3]`}
	if !slices.Equal(raws, want) {
		t.Errorf("raw events = %q\nwant %q", raws, want)
	}
}

func TestRunNonZeroExitIsAnError(t *testing.T) {
	run, _, err := fakeRun{executor: "gemini", mode: "replay",
		fixture: "testdata/transcripts/gemini/agentcmd-doc-0.11.0-stream-json-say-hello.jsonl",
		env:     map[string]string{"FAKE_EXIT": "42", "FAKE_STDERR": "Loaded cached credentials.\nError: invalid input\n\n"}}.run(t)
	if err == nil || err.Error() != "gemini: exited with status 42: Error: invalid input" {
		t.Fatalf("error = %v", err)
	}
	if run.FinalOutput != "Hello! I'm ready to help. What can I do for you?" {
		t.Errorf("final output = %q", run.FinalOutput)
	}
	if run.Stderr != "Loaded cached credentials.\nError: invalid input\n\n" {
		t.Errorf("stderr = %q", run.Stderr)
	}
}

func TestRunCopilotAbortWithExitZeroIsAnError(t *testing.T) {
	_, _, err := fakeRun{executor: "copilot", mode: "replay",
		fixture: "testdata/transcripts/copilot/copilot-sdk-cli-1.0.76-json-user-abort.TRIMMED.jsonl"}.run(t)
	if err == nil || err.Error() != "copilot: the run was aborted (user_initiated)" {
		t.Fatalf("error = %v", err)
	}
}

func TestRunStderrIsBounded(t *testing.T) {
	run, _, err := fakeRun{executor: "codex", mode: "stderr-flood",
		fixture: "testdata/transcripts/codex/agentcmd-0.46.0-file-change.jsonl"}.run(t)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(run.Stderr, "[skillgate: first ") || !strings.HasSuffix(run.Stderr, "last words\n") {
		t.Errorf("stderr starts %q and ends %q", run.Stderr[:40], run.Stderr[len(run.Stderr)-20:])
	}
	if len(run.Stderr) > maxStderrBytes+100 {
		t.Errorf("stderr kept %d bytes", len(run.Stderr))
	}
}

func TestRunLongPromptGoesThroughStdin(t *testing.T) {
	long := strings.Repeat("p", maxPromptArg+1)
	for _, tt := range []struct {
		executor string
		lastArg  string
	}{
		{"claude-code", "bypassPermissions"},
		{"codex", "-"},
		{"gemini", "--yolo"},
		{"copilot", "--yolo"},
		{"qwen-code", "--yolo"},
		{"opencode", "--auto"},
	} {
		t.Run(tt.executor, func(t *testing.T) {
			_, rec, _ := fakeRun{executor: tt.executor, mode: "replay",
				fixture: "testdata/transcripts/codex/agentcmd-0.46.0-file-change.jsonl",
				opts:    Options{Args: []string{}},
				req:     Request{Prompt: long}}.run(t)
			if rec.Stdin != long {
				t.Errorf("stdin has %d bytes, want the %d-byte prompt", len(rec.Stdin), len(long))
			}
			if last := rec.Args[len(rec.Args)-1]; last != tt.lastArg {
				t.Errorf("last argument = %q, want %q", last, tt.lastArg)
			}
		})
	}
}

func TestBinaryAndArgsFromEnvironment(t *testing.T) {
	t.Setenv("SKILLGATE_CLAUDE_CODE_PATH", fakeExe(t))
	t.Setenv("SKILLGATE_CLAUDE_CODE_ARGS", `--append-system-prompt "be brief" --max-turns 3`)
	_, rec, err := fakeRun{executor: "claude-code", mode: "replay",
		fixture: "testdata/transcripts/claude-code/gleam-golden-basic-query-2.1.7.jsonl",
		opts:    Options{Path: ""}}.run(t)
	// fakeRun fills in Options.Path itself; run the executor again with the environment only.
	if err != nil {
		t.Fatal(err)
	}
	_ = rec
	e, err := New("claude-code", Options{})
	if err != nil {
		t.Fatal(err)
	}
	ce := e.(*cliExecutor)
	if ce.path != fakeExe(t) {
		t.Errorf("path = %q, want SKILLGATE_CLAUDE_CODE_PATH", ce.path)
	}
	if want := []string{"--append-system-prompt", "be brief", "--max-turns", "3"}; !slices.Equal(ce.extra, want) {
		t.Errorf("extra args = %q, want %q", ce.extra, want)
	}
	// Options win over the environment.
	e, _ = New("claude-code", Options{Path: "/opt/claude", Args: []string{"--x"}})
	if ce := e.(*cliExecutor); ce.path != "/opt/claude" || !slices.Equal(ce.extra, []string{"--x"}) {
		t.Errorf("options did not override the environment: %q %q", ce.path, ce.extra)
	}
	t.Setenv("SKILLGATE_CODEX_ARGS", `--bad "quote`)
	if _, err := New("codex", Options{}); err == nil || !strings.Contains(err.Error(), "SKILLGATE_CODEX_ARGS: unterminated double quote") {
		t.Errorf("bad ARGS error = %v", err)
	}
}

func TestRunMissingBinary(t *testing.T) {
	e, err := New("claude-code", Options{Path: filepath.Join(t.TempDir(), "no-such-claude")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Run(context.Background(), &Request{Prompt: "x", Workspace: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "SKILLGATE_CLAUDE_CODE_PATH") {
		t.Errorf("error = %v, want a hint about SKILLGATE_CLAUDE_CODE_PATH", err)
	}
}

func TestVersionIsCachedPerExecutor(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	t.Setenv("SKILLGATE_FAKE_AGENT", "replay")
	t.Setenv("FAKE_VERSION_COUNT", count)
	for _, name := range []string{"claude-code", "codex", "copilot", "gemini"} {
		e, err := New(name, Options{Path: fakeExe(t)})
		if err != nil {
			t.Fatal(err)
		}
		v, ok := e.(Versioner)
		if !ok {
			t.Fatalf("%s does not report its version", name)
		}
		for i := 0; i < 3; i++ {
			got, err := v.Version(context.Background())
			if err != nil || got != "9.9.9 (Fake Agent)" {
				t.Fatalf("%s Version() = %q, %v", name, got, err)
			}
		}
	}
	data, _ := os.ReadFile(count)
	if n := strings.Count(string(data), "called"); n != 4 {
		t.Errorf("--version ran %d times for 4 executors, want once each", n)
	}
}

func TestRunCanceledContextKillsTheAgent(t *testing.T) {
	t.Parallel() // waits for the cancellation
	if runtime.GOOS == "windows" {
		t.Skip("process groups are a unix feature")
	}
	exe := fakeExe(t)
	e, err := New("gemini", Options{Path: exe})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The agent and its grandchild sleep an hour: a Run that did not kill them on cancellation
	// would not return within the test binary's timeout.
	run, err := e.Run(ctx, &Request{Prompt: "x", Workspace: t.TempDir(), Environment: map[string]string{
		"SKILLGATE_FAKE_AGENT": "hang", "FAKE_LINES": "2", "FAKE_PIDFILE": pidFile,
		"FAKE_FIXTURE": abs(t, "testdata/transcripts/gemini/agentcmd-doc-0.11.0-stream-json-say-hello.jsonl"),
	}})
	if err == nil || !strings.HasPrefix(err.Error(), "gemini: canceled (the agent's process group was killed)") {
		t.Fatalf("error = %v", err)
	}
	if data, err := os.ReadFile(pidFile); err != nil {
		t.Errorf("the grandchild never started: %v", err)
	} else if pid, _ := strconv.Atoi(string(data)); !proctest.WaitGone(pid, 5*time.Second) {
		t.Errorf("grandchild %d survived the cancellation", pid)
	}
	if run == nil || run.SessionDigest.SessionID != "2aa2472d-f175-41f6-a5a9-fd4f42cc345a" {
		t.Errorf("partial run = %+v", run)
	}
}

func TestExecutorIsSafeForConcurrentRuns(t *testing.T) {
	exe := fakeExe(t)
	e, err := New("codex", Options{Path: exe})
	if err != nil {
		t.Fatal(err)
	}
	fixture := abs(t, "testdata/transcripts/codex/agentcmd-0.46.0-zsh-stderr-noise.jsonl")
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		ws := t.TempDir()
		go func() {
			run, err := e.Run(context.Background(), &Request{Prompt: "x", Workspace: ws,
				Environment: map[string]string{"SKILLGATE_FAKE_AGENT": "replay", "FAKE_FIXTURE": fixture}})
			if err == nil && run.SessionDigest.ToolCallCount != 1 {
				err = errors.New("wrong run")
			}
			errs <- err
		}()
	}
	for i := 0; i < 4; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestRunDrainsOutputAfterAnUndecodableDocument(t *testing.T) {
	// A pretty-printed document that breaks off, followed by far more output than a pipe holds:
	// the agent must not block writing it.
	stream := "{\n  \"type\": \"result\",\n}\n" + strings.Repeat(`{"type":"assistant"}`+"\n", 50000)
	script := writeScript(t, "doc.json", stream)
	type outcome struct {
		run *results.AgentRun
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		run, _, err := fakeRun{executor: "claude-code", mode: "stdout-script", fixture: script,
			req: Request{Timeout: 20 * time.Second}}.run(t)
		done <- outcome{run, err}
	}()
	select {
	case o := <-done:
		if o.err == nil || strings.Contains(o.err.Error(), "timed out") {
			t.Errorf("error = %v, want the stream's failure, not a timeout", o.err)
		}
		// The lines after the malformed document are still read.
		if o.run == nil || o.run.UnknownEvents != 3+50000 {
			t.Errorf("unknown events = %d, want the 3 document lines and 50000 assistant lines without message", o.run.UnknownEvents)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run blocked")
	}
}

// The runner's deadline passing is a timeout, whichever timer fires first: before, a caller
// deadline equal to the run's timeout was reported as "canceled".
func TestRunCallerDeadlineIsATimeout(t *testing.T) {
	t.Parallel() // waits for the deadline
	if runtime.GOOS == "windows" {
		t.Skip("process groups are a unix feature")
	}
	e, err := New("codex", Options{Path: fakeExe(t)})
	if err != nil {
		t.Fatal(err)
	}
	// The caller's deadline comes well before the executor's own timer.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	_, err = e.Run(ctx, &Request{Prompt: "x", Workspace: t.TempDir(), Timeout: time.Hour, Environment: map[string]string{
		"SKILLGATE_FAKE_AGENT": "hang", "FAKE_LINES": "2", "FAKE_PIDFILE": filepath.Join(t.TempDir(), "pid"),
		"FAKE_FIXTURE": abs(t, "testdata/transcripts/codex/agent-harness-command-execution.jsonl"),
	}})
	if err == nil || !strings.HasPrefix(err.Error(), "codex: timed out after 1h0m0s") {
		t.Fatalf("error = %v, want a timeout", err)
	}
}

// Gemini CLI 0.61 exits 55 in a folder it does not trust, which every fresh workspace is; the
// executor trusts it unless the user's environment or the task says otherwise.
func TestRunGeminiTrustsTheWorkspace(t *testing.T) {
	fixture := "testdata/transcripts/gemini/agentcmd-doc-0.11.0-stream-json-say-hello.jsonl"
	_, rec, err := fakeRun{executor: "gemini", mode: "replay", fixture: fixture}.run(t)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Trust != "true" {
		t.Errorf("GEMINI_CLI_TRUST_WORKSPACE = %q, want true", rec.Trust)
	}
	_, rec, _ = fakeRun{executor: "gemini", mode: "replay", fixture: fixture,
		req: Request{Environment: map[string]string{"GEMINI_CLI_TRUST_WORKSPACE": "false"}}}.run(t)
	if rec.Trust != "false" {
		t.Errorf("the task's GEMINI_CLI_TRUST_WORKSPACE was overridden: %q", rec.Trust)
	}
	t.Setenv("GEMINI_CLI_TRUST_WORKSPACE", "0")
	_, rec, _ = fakeRun{executor: "gemini", mode: "replay", fixture: fixture}.run(t)
	if rec.Trust != "0" {
		t.Errorf("the user's GEMINI_CLI_TRUST_WORKSPACE was overridden: %q", rec.Trust)
	}
	_, rec, _ = fakeRun{executor: "claude-code", mode: "replay",
		fixture: "testdata/transcripts/claude-code/gleam-golden-basic-query-2.1.7.jsonl"}.run(t)
	if rec.Trust != "0" {
		t.Errorf("claude-code got GEMINI_CLI_TRUST_WORKSPACE=%q", rec.Trust)
	}
}

// A failed exit never quotes stderr noise (Codex's stdin notice, the closing brace of a JSON
// dump) but the last line that says something.
func TestRunFailureSkipsStderrNoise(t *testing.T) {
	for _, tt := range []struct {
		name, executor, fixture, stderr, want string
	}{
		{"codex stdin notice", "codex", "testdata/transcripts/codex/agentcmd-0.46.0-file-change.jsonl",
			"Error: boom\nReading additional input from stdin...\n", "codex: exited with status 1: Error: boom"},
		{"gemini brace", "gemini", "testdata/transcripts/gemini/agentcmd-doc-0.11.0-stream-json-say-hello.jsonl",
			"[API Error: 500]\n  }\n}\n", "gemini: exited with status 1: [API Error: 500]"},
		{"nothing but noise", "codex", "testdata/transcripts/codex/agent-harness-error-turn-failed.jsonl",
			"Reading additional input from stdin...\n}\n", "codex: exited with status 1; "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := fakeRun{executor: tt.executor, mode: "replay", fixture: tt.fixture,
				env: map[string]string{"FAKE_EXIT": "1", "FAKE_STDERR": tt.stderr}}.run(t)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error = %v, want prefix %q", err, tt.want)
			}
		})
	}
}

func TestCommandLine(t *testing.T) {
	withModel := &Request{Model: "m-1"}
	tests := []struct {
		executor string
		cfg      map[string]string
		req      *Request
		prompt   string
		want     []string
	}{
		{"claude-code", nil, withModel, "-x",
			[]string{"-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions", "--model", "m-1", "--extra", "--", "-x"}},
		{"claude-code", map[string]string{"permission_mode": "plan"}, &Request{}, "",
			[]string{"-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "plan", "--extra"}},
		{"codex", map[string]string{"sandbox": "read-only"}, &Request{}, "hi",
			[]string{"exec", "--json", "--skip-git-repo-check", "--sandbox", "read-only", "--extra", "--", "hi"}},
		{"codex", nil, withModel, "",
			[]string{"exec", "--json", "--skip-git-repo-check", "--sandbox", "workspace-write", "--model", "m-1", "--extra", "-"}},
		{"gemini", map[string]string{"approval_mode": "auto_edit"}, withModel, "-x",
			[]string{"--output-format", "stream-json", "--approval-mode", "auto_edit", "--model", "m-1", "--extra", "--prompt=-x"}},
		{"gemini", nil, &Request{}, "",
			[]string{"--output-format", "stream-json", "--yolo", "--extra"}},
		{"copilot", nil, withModel, "hi",
			[]string{"--output-format", "json", "--yolo", "--model", "m-1", "--extra", "--prompt=hi"}},
		{"qwen-code", nil, withModel, "hi there",
			[]string{"--output-format", "stream-json", "--yolo", "--model", "m-1", "--extra", "hi there"}},
		{"qwen-code", map[string]string{"approval_mode": "auto-edit"}, &Request{}, "-x",
			[]string{"--output-format", "stream-json", "--approval-mode", "auto-edit", "--extra", "--prompt=-x"}},
		{"qwen-code", map[string]string{"approval_mode": "yolo"}, &Request{}, "",
			[]string{"--output-format", "stream-json", "--yolo", "--extra"}},
		{"opencode", nil, &Request{Model: "p/m-1"}, "",
			[]string{"run", "--format", "json", "--title", "skillgate", "--thinking", "--auto", "--model", "p/m-1", "--extra"}},
		// A model without its provider is one opencode cannot run (ModelNote).
		{"opencode", nil, withModel, "",
			[]string{"run", "--format", "json", "--title", "skillgate", "--thinking", "--auto", "--extra"}},
		{"opencode", map[string]string{"auto_approve": "false"}, &Request{}, "",
			[]string{"run", "--format", "json", "--title", "skillgate", "--thinking", "--extra"}},
	}
	for _, tt := range tests {
		got := cliSpecs[tt.executor].commandLine(tt.req, tt.cfg, []string{"--extra"}, tt.prompt)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s %v: command line\n%q\nwant\n%q", tt.executor, tt.cfg, got, tt.want)
		}
	}
}
