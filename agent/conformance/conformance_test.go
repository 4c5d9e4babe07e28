// Package conformance runs the released agent CLIs pinned in versions.txt through skillgate's
// executors against the scripted model (internal/scriptedmodel) on 127.0.0.1: no API key, no
// network. install.sh installs the CLIs into .cache/agent-clis (SKILLGATE_AGENT_CLIS chooses
// another folder); without them every test skips and says how to install them, unless
// SKILLGATE_CONFORMANCE_REQUIRED is set (as .ci/run does).
package conformance

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/agent/doctor"
	"github.com/skillgate/skillgate/internal/scriptedmodel"
	"github.com/skillgate/skillgate/results"
)

const (
	skillName   = "sg-greeter"
	skillDesc   = "Greets people by name in the house style."
	notes       = "notes: the launch is on Tuesday\n"
	finalAnswer = "FINAL ANSWER: Welcome aboard, Ada."
)

var usage = scriptedmodel.Usage{Input: 1000, Cached: 50, CacheWrite: 5, Output: 20, Reasoning: 3}

// cli is one agent CLI under test; doctor.Standins says how it reaches a local model.
type cli struct {
	executor string
	binary   string
	pkg      string // npm package, as in versions.txt
}

var clis = []cli{
	{"claude-code", "claude", "@anthropic-ai/claude-code"},
	{"codex", "codex", "@openai/codex"},
	{"gemini", "gemini", "@google/gemini-cli"},
	{"copilot", "copilot", "@github/copilot"},
	{"qwen-code", "qwen", "@qwen-code/qwen-code"},
	{"opencode", "opencode", "opencode-ai"},
}

func (c cli) standin() doctor.Standin { return doctor.Standins[c.executor] }

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pinned reads versions.txt: npm package → version.
func pinned(t *testing.T) map[string]string {
	t.Helper()
	f, err := os.Open("versions.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && !strings.HasPrefix(fields[0], "#") {
			out[fields[0]] = fields[1]
		}
	}
	return out
}

// binary finds an installed CLI at its pinned version, or skips the test saying how to install.
func binary(t *testing.T, c cli) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the conformance tests run the real agent CLIs (minutes)")
	}
	dir := os.Getenv("SKILLGATE_AGENT_CLIS")
	if dir == "" {
		dir = filepath.Join("..", "..", ".cache", "agent-clis")
	}
	path, err := filepath.Abs(filepath.Join(dir, "node_modules", ".bin", c.binary))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("SKILLGATE_CONFORMANCE_REQUIRED") != "" { // .ci/run: CI must exercise every CLI
			t.Fatalf("%s is not installed in %s (agent/conformance/install.sh)", c.binary, dir)
		}
		t.Skipf("%s is not installed in %s: run agent/conformance/install.sh (npm) to run the conformance tests", c.binary, dir)
	}
	v := versionOnce(path)
	if _, err := os.Stat(filepath.Join(dir, ".latest")); err == nil {
		// install.sh --latest: the newest release, whatever its version.
		t.Logf("%s: the newest release, %s", c.pkg, strings.TrimSpace(v.out))
		return path
	}
	want := pinned(t)[c.pkg]
	// What matters is the version printed: under load a CLI (gemini) may print it and then
	// linger past the deadline, and its kill is no failure of the install.
	if !strings.Contains(v.out, want) {
		t.Fatalf("%s --version = %q (%v), want %s %s: rerun agent/conformance/install.sh", c.binary, v.out, v.err, c.pkg, want)
	}
	return path
}

type versionResult struct {
	out string
	err error
}

var (
	versionsMu sync.Mutex
	versions   = map[string]func() versionResult{}
)

// versionOnce runs `path --version` once per process: every subtest of a CLI shares the
// answer, instead of starting eight slow node processes at once on a two-core machine.
func versionOnce(path string) versionResult {
	versionsMu.Lock()
	f, ok := versions[path]
	if !ok {
		f = sync.OnceValue(func() versionResult {
			home, err := os.MkdirTemp("", "skillgate-conformance-home-*")
			if err != nil {
				return versionResult{err: err}
			}
			defer os.RemoveAll(home)
			ctx, cancel := context.WithTimeout(context.Background(), 2*agent.VersionTimeout)
			defer cancel()
			cmd := exec.CommandContext(ctx, path, "--version")
			cmd.Env = append(os.Environ(), "HOME="+home)
			out, err := cmd.Output()
			return versionResult{out: string(out), err: err}
		})
		versions[path] = f
	}
	versionsMu.Unlock()
	return f()
}

// session is one run of a CLI against a scripted model.
type session struct {
	srv *scriptedmodel.Server
	run *results.AgentRun
	err error
}

// startModel finds the CLI's binary and starts a scripted model serving script, with the
// environment that points the CLI at it.
func startModel(t *testing.T, c cli, script scriptedmodel.Script) (bin string, srv *scriptedmodel.Server, env map[string]string) {
	t.Helper()
	bin = binary(t, c)
	srv = scriptedmodel.Start(script)
	t.Cleanup(srv.Close)
	env, err := doctor.Environment(c.executor, t.TempDir(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if c.executor == "claude-code" && os.Geteuid() == 0 {
		env["IS_SANDBOX"] = "1" // as the job's environment would (docs/agents.md): CI runs as root
	}
	return bin, srv, env
}

func runCLI(t *testing.T, c cli, script scriptedmodel.Script, prompt string, timeout time.Duration) session {
	t.Helper()
	return runCLIWith(t, c, script, prompt, timeout, nil)
}

// runCLIWith is runCLI with an early-stop rule.
func runCLIWith(t *testing.T, c cli, script scriptedmodel.Script, prompt string, timeout time.Duration, stop *agent.StopRule) session {
	t.Helper()
	bin, srv, env := startModel(t, c, script)
	return runCLIIn(context.Background(), t, c, bin, srv, env, prompt, timeout, stop)
}

// runCLIIn runs the CLI against a model started already, under ctx.
func runCLIIn(ctx context.Context, t *testing.T, c cli, bin string, srv *scriptedmodel.Server, env map[string]string,
	prompt string, timeout time.Duration, stop *agent.StopRule) session {
	t.Helper()
	ex, err := agent.New(c.executor, agent.Options{Path: bin, Args: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	write(t, filepath.Join(ws, "notes.txt"), notes)
	skills, _ := filepath.Abs(filepath.Join("testdata", "skills"))
	run, err := ex.Run(ctx, &agent.Request{
		Prompt: prompt, Workspace: ws, SkillDirs: []string{skills}, Skill: skillName,
		Timeout: timeout, Environment: env, InputFiles: []string{"notes.txt"},
		Suite: "conformance", TaskID: t.Name(), Trial: 1, WithSkill: true, Stop: stop,
	})
	if run == nil {
		t.Fatalf("no run; error %v", err)
	}
	return session{srv: srv, run: run, err: err}
}

func (s session) logOnFailure(t *testing.T) {
	t.Helper()
	if !t.Failed() {
		return
	}
	for i, r := range s.srv.Requests() {
		t.Logf("request %d: %s %s api=%s tools=%v results=%d reply=%q", i+1, r.Method, r.Path, r.API, r.Tools, r.ToolResults, r.Reply)
	}
	t.Logf("error: %v\nstderr: %s", s.err, s.run.Stderr)
	for _, ev := range s.run.Transcript {
		t.Logf("event %s %s %s %v %s", ev.Type, ev.Role, ev.Name, ev.Arguments, truncate(ev.Content+ev.Message+string(ev.Raw), 300))
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// The happy path: the skill is advertised, invoked, a shell command runs, the final answer and
// the usage are what the script served.
func TestConformance(t *testing.T) {
	for _, c := range clis {
		t.Run(c.executor, func(t *testing.T) {
			script := scriptedmodel.Script{
				Steps: []scriptedmodel.Step{
					{Skill: skillName, SkillFile: c.standin().SkillsDir + "/" + skillName + "/SKILL.md"},
					{Shell: "cat notes.txt"},
				},
				Final: finalAnswer,
				Usage: usage,
			}
			s := runCLI(t, c, script, "Please greet Ada using the house style. Read notes.txt first.", 3*time.Minute)
			defer s.logOnFailure(t)
			if s.err != nil {
				t.Fatalf("run error: %v", s.err)
			}
			run := s.run
			if !strings.Contains(run.FinalOutput, finalAnswer) {
				t.Errorf("final output %q, want %q", run.FinalOutput, finalAnswer)
			}
			advertised := false
			for _, r := range s.srv.ModelRequests() {
				if len(r.Tools) > 0 && r.Mentions(skillName) && r.Mentions(skillDesc) {
					advertised = true
				}
			}
			if !advertised {
				t.Errorf("no request advertised the skill %s with its description to the model", skillName)
			}
			d := run.SessionDigest
			var shell *results.ToolCall
			for i, call := range d.ToolCalls {
				if call.Command == "cat notes.txt" {
					shell = &d.ToolCalls[i]
				}
			}
			if shell == nil {
				t.Fatalf("no tool call ran `cat notes.txt`: %+v", d.ToolCalls)
			}
			if shell.Kind != results.ToolShell || !shell.Success || !strings.Contains(fmt.Sprint(shell.Result), "launch is on Tuesday") {
				t.Errorf("shell call %+v", *shell)
			}
			want := []results.SkillInvocation{{Name: skillName, Path: c.standin().SkillsDir + "/" + skillName}}
			if len(d.SkillInvocations) != 1 || d.SkillInvocations[0] != want[0] {
				t.Errorf("skill invocations %+v, want %+v", d.SkillInvocations, want)
			}
			served := s.srv.Served()
			switch u := d.Usage; {
			case c.standin().NoUsage:
				if u != nil {
					t.Errorf("usage %+v, want none (the CLI reports no token counts)", *u)
				}
			case u == nil:
				t.Errorf("no usage; the server served %+v", served)
			case u.InputTokens != served.Input || u.OutputTokens != served.Output || u.CacheReadTokens != served.Cached:
				t.Errorf("usage in %d out %d cached %d, the server served in %d out %d cached %d",
					u.InputTokens, u.OutputTokens, u.CacheReadTokens, served.Input, served.Output, served.Cached)
			}
			if d.SessionID == "" || run.DurationMS <= 0 {
				t.Errorf("session id %q duration %d", d.SessionID, run.DurationMS)
			}
			if run.UnknownEvents != 0 {
				t.Errorf("%d unknown events", run.UnknownEvents)
			}
		})
	}
}

// Faults: an HTTP 500 or 429 from the model is an errored run; a model that never answers is a
// timeout, reported as one. How long a CLI takes to start and reach the model depends on the
// machine's load, so the run's deadline is armed by the scripted model's own request log: it
// passes a while after the CLI reached the faulting step, however long that took, and the run's
// hard bound is minutes.
func TestConformanceFaults(t *testing.T) {
	const bound = 4 * time.Minute // the run's timeout: never reached on a healthy machine
	for _, c := range clis {
		for _, f := range []struct {
			name  string
			fault scriptedmodel.Fault
			// after is how long the CLI has, once it reached the fault, to end the run itself
			// (give up, retry) before the deadline ends it.
			after time.Duration
			want  string
		}{
			{"500", scriptedmodel.Fault{Status: 500}, 60 * time.Second, c.executor + ": "},
			{"429", scriptedmodel.Fault{Status: 429, RetryAfter: 1}, 20 * time.Second, c.executor + ": "},
			{"hang", scriptedmodel.Fault{Hang: true}, 5 * time.Second, c.executor + ": timed out after " + bound.String()},
		} {
			t.Run(c.executor+"/"+f.name, func(t *testing.T) {
				t.Parallel() // mostly waiting: for retries, for the deadline
				fault := f.fault
				bin, srv, env := startModel(t, c, scriptedmodel.Script{Steps: []scriptedmodel.Step{{Fault: &fault}}, Usage: usage})
				ctx := armedDeadline(srv.Await(func(r scriptedmodel.Request) bool { return r.Faulted() }), f.after)
				s := runCLIIn(ctx, t, c, bin, srv, env, "What does notes.txt say?", bound, nil)
				defer s.logOnFailure(t)
				if s.err == nil {
					t.Fatalf("no error; final output %q", s.run.FinalOutput)
				}
				t.Logf("error: %v", s.err)
				if strings.Contains(s.err.Error(), "canceled") {
					t.Errorf("error %q says canceled", s.err)
				}
				if !strings.HasPrefix(s.err.Error(), f.want) {
					t.Errorf("error %q, want prefix %q", s.err, f.want)
				}
				faulted := 0
				for _, r := range s.srv.Requests() {
					if r.Faulted() {
						faulted++
					}
				}
				if faulted == 0 {
					t.Errorf("the CLI never reached the faulting step")
				}
			})
		}
	}
}

// deadlineAfter is a context whose deadline passes after `after` once reached is closed: a
// deadline set by what happened rather than by the clock alone. Its Err is DeadlineExceeded, so
// a run it ends reads as timed out, as under the runner's own deadline.
type deadlineAfter struct {
	context.Context
	done chan struct{}
}

func armedDeadline(reached <-chan struct{}, after time.Duration) context.Context {
	d := &deadlineAfter{Context: context.Background(), done: make(chan struct{})}
	go func() {
		<-reached
		time.Sleep(after)
		close(d.done)
	}()
	return d
}

func (d *deadlineAfter) Done() <-chan struct{} { return d.done }

func (d *deadlineAfter) Err() error {
	select {
	case <-d.done:
		return context.DeadlineExceeded
	default:
		return nil
	}
}

// A CLI that is not installed stops the run before it starts (the CLI exits 2 on a preflight
// error).
func TestConformanceMissingCLI(t *testing.T) {
	for _, c := range clis {
		ex, err := agent.New(c.executor, agent.Options{Path: filepath.Join(t.TempDir(), c.binary)})
		if err != nil {
			t.Fatal(err)
		}
		pf, ok := ex.(agent.Preflighter)
		if !ok {
			t.Fatalf("%s has no preflight", c.executor)
		}
		if err := pf.Preflight(); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("%s preflight: %v", c.executor, err)
		}
	}
}

// doctor on every CLI: all checks pass with the suite's skill; a skill installed where the CLI
// does not look is reported as not advertised, and the report fails.
func TestDoctor(t *testing.T) {
	skills, _ := filepath.Abs(filepath.Join("testdata", "skills"))
	for _, c := range clis {
		t.Run(c.executor, func(t *testing.T) {
			bin := binary(t, c)
			ex, err := agent.New(c.executor, agent.Options{Path: bin, Args: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			if c.executor == "claude-code" && os.Geteuid() == 0 {
				// doctor runs the CLI as a run would: as root without IS_SANDBOX, Claude Code
				// refuses bypassPermissions, and doctor says so with the fix.
				t.Setenv("IS_SANDBOX", "") // restored after the test
				os.Unsetenv("IS_SANDBOX")
				r := doctor.Run(context.Background(), ex, doctor.Options{SkillDirs: []string{skills}, Timeout: 3 * time.Minute})
				last := r.Checks[len(r.Checks)-1]
				if !r.Failed() || last.Name != "flags accepted" || !strings.Contains(last.Detail, "as root") ||
					!strings.Contains(last.Detail, "set IS_SANDBOX=1") {
					t.Errorf("as root without IS_SANDBOX: %+v", r.Checks)
				}
				t.Setenv("IS_SANDBOX", "1")
			}
			r := doctor.Run(context.Background(), ex, doctor.Options{SkillDirs: []string{skills}, Timeout: 3 * time.Minute})
			names := map[string]string{}
			for _, ch := range r.Checks {
				names[ch.Name] = ch.Status
				if ch.Status == doctor.Fail {
					t.Errorf("%s: %s %s", ch.Name, ch.Status, ch.Detail)
				}
			}
			for _, want := range []string{"CLI found", "version", "flags accepted", "skill advertised", "skill call parsed", "usage parsed"} {
				if names[want] == "" {
					t.Errorf("no %q check in %+v", want, r.Checks)
				}
			}

			hidden, err := agent.New(c.executor, agent.Options{Path: bin, Args: []string{},
				Settings: map[string]any{c.executor: map[string]any{"skills_dir": "not-a-skills-folder"}}})
			if err != nil {
				t.Fatal(err)
			}
			r = doctor.Run(context.Background(), hidden, doctor.Options{SkillDirs: []string{skills}, Timeout: 3 * time.Minute})
			if !r.Failed() {
				t.Errorf("a skill the CLI cannot see passed: %+v", r.Checks)
			}
			for _, ch := range r.Checks {
				if ch.Name == "skill advertised" && ch.Status != doctor.Fail {
					t.Errorf("skill advertised: %s %s", ch.Status, ch.Detail)
				}
			}
		})
	}
}
