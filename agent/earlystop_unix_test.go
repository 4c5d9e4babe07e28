//go:build unix

package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/internal/regex"
)

// turnScript is an agent that makes one "model turn" per line it prints, logging each turn to
// turns.log, and pauses after each turn, logging the pause's end: a run stopped at a turn's
// decision is killed during that turn's pause.
const turnScript = `
turn() { echo turn >> "$LOG"; echo "$1"; sleep "$PAUSE"; echo paused >> "$LOG"; }
turn '{"event":"call","call":{"id":"c1","tool":"%FIRST%","input":{"skill":"pdf","cmd":"ls"}}}'
turn '{"event":"usage","tokens":{"in":500,"out":50}}'
turn '{"event":"call","call":{"id":"c2","tool":"shell","input":{"cmd":"ls"}}}'
turn '{"event":"say","from":"assistant","text":"all done"}'
turn '{"event":"call","call":{"id":"c3","tool":"shell","input":{"cmd":"pwd"}}}'
echo '{"event":"done","answer":"finished"}'
`

func TestEarlyStop(t *testing.T) {
	t.Parallel() // the agents mostly sleep between turns
	rules := []any{
		map[string]any{"when": map[string]any{"event": "call", "call.tool": "load_skill"}, "emit": "tool_call", "id": "call.id", "name": "call.tool", "skill": "call.input.skill"},
		map[string]any{"when": map[string]any{"event": "call"}, "emit": "tool_call", "id": "call.id", "name": "call.tool", "arguments": "call.input"},
		map[string]any{"when": map[string]any{"event": "say"}, "emit": "message", "content": "text"},
		map[string]any{"when": map[string]any{"event": "usage"}, "emit": "none", "usage": map[string]any{"input_tokens": "tokens.in", "output_tokens": "tokens.out"}, "usage_mode": "add"},
		map[string]any{"when": map[string]any{"event": "done"}, "emit": "final", "content": "answer"},
	}
	cases := []struct {
		name      string
		first     string
		rule      *StopRule
		pause     string
		wantTurns int
		wantStop  string
		wantErr   string
	}{
		{"skill on the first turn", "load_skill", &StopRule{SkillCall: "pdf", ToolCallCount: 3}, "5", 1, StopSkillCall, ""},
		{"tool call limit without the skill", "shell", &StopRule{SkillCall: "pdf", ToolCallCount: 2}, "2", 3, StopToolCallCount, ""},
		{"output matches", "shell", &StopRule{OutputMatches: regex.MustCompile("done$", regex.RE2, 0)}, "2", 4, StopOutputMatches, ""},
		{"token budget", "shell", &StopRule{MaxTokens: 100}, "2", 2, "", "token budget"},
		{"no rule runs to the end", "load_skill", nil, "0", 5, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			script := filepath.Join(dir, "agent.sh")
			os.WriteFile(script, []byte(strings.ReplaceAll(turnScript, "%FIRST%", c.first)), 0o755)
			log := filepath.Join(dir, "turns.log")
			ex, err := New("command", Options{Settings: map[string]any{"command": map[string]any{
				"argv": []any{"sh", script}, "map": map[string]any{"rules": rules},
			}}})
			if err != nil {
				t.Fatal(err)
			}
			ws := t.TempDir()
			run, err := ex.Run(context.Background(), &Request{
				Prompt: "go", Workspace: ws, Timeout: time.Minute, Stop: c.rule,
				Environment: map[string]string{"LOG": log, "PAUSE": c.pause},
			})
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("err = %v, want %q", err, c.wantErr)
			}
			data, _ := os.ReadFile(log)
			if turns := strings.Count(string(data), "turn"); turns != c.wantTurns {
				t.Errorf("the agent made %d turns, want %d", turns, c.wantTurns)
			}
			if run.StoppedEarly != c.wantStop {
				t.Errorf("stopped_early = %q, want %q", run.StoppedEarly, c.wantStop)
			}
			// A run stopped at its decision does not wait out the pause after that turn (a run
			// that is not stopped ends every pause).
			wantPauses := c.wantTurns
			if c.rule != nil {
				wantPauses--
			}
			if pauses := strings.Count(string(data), "paused"); pauses != wantPauses {
				t.Errorf("%d pauses ended, want %d", pauses, wantPauses)
			}
			if c.wantStop == StopSkillCall && len(run.SessionDigest.SkillInvocations) != 1 {
				t.Errorf("skill invocations %+v", run.SessionDigest.SkillInvocations)
			}
		})
	}
}
