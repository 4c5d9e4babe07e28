package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/scriptedmodel"
	"github.com/skillgate/skillgate/results"
)

// fakeClaude plays a Claude Code that talks to the model at ANTHROPIC_BASE_URL: it offers a
// Skill tool (advertising the installed skill when advertise is set) and records what the
// model called.
type fakeClaude struct {
	advertise bool
	preflight error
	// refuse, when set, is the refusal every run ends with (Claude Code as root).
	refuse *agent.RefusedError
}

func (f fakeClaude) Name() string                            { return "claude-code" }
func (f fakeClaude) Preflight() error                        { return f.preflight }
func (f fakeClaude) Version(context.Context) (string, error) { return "9.9.9 (fake)", nil }
func (f fakeClaude) Run(ctx context.Context, req *agent.Request) (*results.AgentRun, error) {
	if f.refuse != nil {
		return &results.AgentRun{}, f.refuse
	}
	desc := "Skill tool."
	if f.advertise {
		skills, err := ReadSkills(req.SkillDirs)
		if err != nil {
			return nil, err
		}
		desc += " Available: " + skills[0].Name + ": " + skills[0].Description
	}
	body, _ := json.Marshal(map[string]any{"model": "m", "messages": []any{map[string]any{"role": "user", "content": req.Prompt}},
		"tools": []any{map[string]any{"name": "Skill", "description": desc, "input_schema": map[string]any{"properties": map[string]any{"skill": map[string]any{}}}}}})
	resp, err := http.Post(req.Environment["ANTHROPIC_BASE_URL"]+"/v1/messages", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var msg struct {
		Content []struct {
			Name  string         `json:"name"`
			Input map[string]any `json:"input"`
		} `json:"content"`
		Usage struct {
			Input  int64 `json:"input_tokens"`
			Read   int64 `json:"cache_read_input_tokens"`
			Write  int64 `json:"cache_creation_input_tokens"`
			Output int64 `json:"output_tokens"`
		} `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		return nil, err
	}
	run := &results.AgentRun{SessionDigest: results.SessionDigest{Usage: &results.Usage{
		InputTokens: msg.Usage.Input + msg.Usage.Read + msg.Usage.Write, OutputTokens: msg.Usage.Output}}}
	if len(msg.Content) > 0 && msg.Content[0].Name == "Skill" {
		run.SessionDigest.SkillInvocations = []results.SkillInvocation{{Name: msg.Content[0].Input["skill"].(string)}}
	}
	return run, nil
}

func statuses(r *Report) map[string]string {
	m := map[string]string{}
	for _, c := range r.Checks {
		m[c.Name] = c.Status
	}
	return m
}

func TestDoctorChecks(t *testing.T) {
	skills := filepath.Join("testdata", "skills")
	r := Run(context.Background(), fakeClaude{advertise: true}, Options{SkillDirs: []string{skills}})
	want := map[string]string{"CLI found": OK, "version": OK, "flags accepted": OK, "skill advertised": OK, "skill call parsed": OK, "usage parsed": OK}
	if got := statuses(r); !equal(got, want) || r.Failed() {
		t.Errorf("checks %+v", r.Checks)
	}
	r = Run(context.Background(), fakeClaude{}, Options{SkillDirs: []string{skills}})
	if got := statuses(r); got["skill advertised"] != Fail || !r.Failed() {
		t.Errorf("an unadvertised skill: %+v", r.Checks)
	}
	// With no suite, the built-in sample skill is used.
	r = Run(context.Background(), fakeClaude{advertise: true}, Options{})
	if r.Failed() || !strings.Contains(r.Checks[len(r.Checks)-2].Detail, "skillgate-doctor invoked") {
		t.Errorf("sample skill: %+v", r.Checks)
	}
	r = Run(context.Background(), fakeClaude{preflight: errors.New(`agent CLI "claude" not found`)}, Options{})
	if len(r.Checks) != 1 || r.Checks[0].Status != Fail || !r.Failed() {
		t.Errorf("missing CLI: %+v", r.Checks)
	}
	r = Run(context.Background(), agent.Mock{}, Options{})
	if r.Failed() || r.Checks[0].Status != Warn {
		t.Errorf("mock: %+v", r.Checks)
	}
}

// A CLI that refuses to run in this setup is reported with what it refused and the fix, and
// nothing else is checked.
func TestDoctorReportsARefusal(t *testing.T) {
	refused := &agent.RefusedError{Err: errors.New("claude-code: exited with status 1"),
		Said: "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons",
		What: "Claude Code refuses permission_mode bypassPermissions when run as root", Fix: "set IS_SANDBOX=1"}
	r := Run(context.Background(), fakeClaude{refuse: refused}, Options{})
	last := r.Checks[len(r.Checks)-1]
	if !r.Failed() || last.Name != "flags accepted" || last.Status != Fail ||
		!strings.Contains(last.Detail, "when run as root") || !strings.Contains(last.Detail, "fix: set IS_SANDBOX=1") ||
		!strings.Contains(last.Detail, "root/sudo privileges") {
		t.Errorf("checks %+v", r.Checks)
	}
}

// doctor gives the CLI no IS_SANDBOX of its own: a run as root sees what skillgate run sees.
func TestStandinsSetNoSandbox(t *testing.T) {
	for name := range Standins {
		env, err := Environment(name, t.TempDir(), "http://127.0.0.1:1")
		if err != nil {
			t.Fatal(err)
		}
		if _, set := env["IS_SANDBOX"]; set {
			t.Errorf("%s: the stand-in environment sets IS_SANDBOX", name)
		}
	}
}

func equal(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Copilot lists skills in XML, escaping the description.
func TestAdvertisedToleratesEscaping(t *testing.T) {
	s := Skill{Name: "x-skill", Description: "Answers Bob's questions about <things>."}
	reqs := []scriptedmodel.Request{{Tools: []string{"skill"}, Body: []byte(`{"system":"<name>x-skill</name><description>Answers Bob&apos;s questions</description>"}`)}}
	if !advertised(reqs, s) {
		t.Error("an escaped description was not recognised")
	}
	reqs[0].Body = []byte(`{"system":"<name>x-skill</name>","messages":[{"content":"Answers Bob"}]}`)
	reqs[0].Tools = nil // a request offering no tools (a title call) does not count
	if advertised(reqs, s) {
		t.Error("a request without tools counted")
	}
}

func TestReadSkills(t *testing.T) {
	skills, err := ReadSkills([]string{filepath.Join("testdata", "skills")})
	if err != nil || len(skills) != 1 || skills[0].Name != "sg-greeter" || !strings.HasPrefix(skills[0].Description, "Greets people by name") {
		t.Errorf("skills %+v, %v", skills, err)
	}
	if _, err := ReadSkills([]string{"no-such-dir"}); err == nil {
		t.Error("no error for a missing folder")
	}
}
