package agent

import (
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// A multi-turn conversation continues the session a real transcript reports: the second turn
// is started with each CLI's resume flag and the session id parsed from the first turn's stream
// (Claude's init session_id, Codex's thread_id, Copilot's result sessionId, Gemini's init
// session_id), placed where each CLI takes it.
func TestResumeContinuesTheRecordedSession(t *testing.T) {
	tests := []struct {
		executor string
		fixture  string
		wantArgs func(session string) []string
	}{
		{"claude-code", "claude-code/skael-skill-invocation-2.1.220.jsonl", func(id string) []string {
			return []string{"-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions", "--extra", "--resume", id, "--", "next turn"}
		}},
		{"codex", "codex/agent-harness-command-execution.jsonl", func(id string) []string {
			return []string{"exec", "--json", "--skip-git-repo-check", "--sandbox", "workspace-write", "--extra", "resume", id, "--", "next turn"}
		}},
		{"copilot", "copilot/copilot-sdk-cli-1.0.76-json-skill-invocations.TRIMMED.jsonl", func(id string) []string {
			return []string{"--output-format", "json", "--yolo", "--extra", "--resume=" + id, "--prompt=next turn"}
		}},
		{"gemini", "gemini/agentcmd-doc-0.11.0-stream-json-say-hello.jsonl", func(id string) []string {
			return []string{"--output-format", "stream-json", "--yolo", "--extra", "--resume", id, "--prompt=next turn"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.executor, func(t *testing.T) {
			f := fakeRun{executor: tt.executor, mode: "replay", fixture: filepath.Join("testdata/transcripts", tt.fixture),
				opts: Options{Args: []string{"--extra"}}, req: Request{Timeout: time.Minute}}
			first, _, err := f.run(t)
			if err != nil {
				t.Fatalf("first turn: %v", err)
			}
			session := first.SessionDigest.SessionID
			if session == "" {
				t.Fatal("the recorded session reports no session id")
			}
			f.req = Request{Timeout: time.Minute, Prompt: "next turn", ResumeSession: session}
			if _, rec, err := f.run(t); err != nil || !slices.Equal(rec.Args, tt.wantArgs(session)) {
				t.Errorf("second turn: %v\nargs %q\nwant %q", err, rec.Args, tt.wantArgs(session))
			}
			exec, err := New(tt.executor, Options{Path: fakeExe(t)})
			if err != nil {
				t.Fatal(err)
			}
			if c, ok := exec.(Conversational); !ok || !c.ContinuesSessions() {
				t.Errorf("%s does not say it continues sessions", tt.executor)
			}
		})
	}
	if _, ok := any(&commandExecutor{}).(Conversational); ok {
		t.Error("the command executor cannot continue a session: it must get the first turn only")
	}
}
