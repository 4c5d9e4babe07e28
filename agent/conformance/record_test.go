//go:build record

package conformance

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/scriptedmodel"
)

// TestRecord records what a released CLI prints (stdout and stderr) in one scenario against the
// scripted model, through its executor: the source of the skillgate-recorded-* streams under
// agent/testdata/transcripts/ and of agent/testdata/stderr/.
//
//	RECORD_DIR=/tmp/rec go test -tags record -run 'TestRecord/copilot/failed-command' -v ./agent/conformance/
//
// Streams land in $RECORD_DIR (default: a temporary folder, printed) as <executor>-<scenario>.jsonl
// and .stderr. The signal scenario sends RECORD_SIGNAL (INT, TERM) during the third tool call.
func TestRecord(t *testing.T) {
	out := os.Getenv("RECORD_DIR")
	if out == "" {
		out = t.TempDir()
	}
	type scenario struct {
		name    string
		script  func(c cli) scriptedmodel.Script
		env     map[string]string // overrides; "" removes
		timeout time.Duration
		stop    *agent.StopRule
		home    func(home string) // adjusts the CLI's configuration
	}
	steps := func(s ...scriptedmodel.Step) func(cli) scriptedmodel.Script {
		return func(cli) scriptedmodel.Script {
			return scriptedmodel.Script{Steps: s, Final: finalAnswer, Usage: usage}
		}
	}
	geminiRetries := func(home string) {
		write(t, filepath.Join(home, ".gemini", "settings.json"), `{"security": {"auth": {"selectedType": "gemini-api-key"}}}`)
	}
	scenarios := []scenario{
		{name: "failed-command", script: steps(scriptedmodel.Step{Shell: "cat missing.txt"}), timeout: 3 * time.Minute},
		{name: "ok", script: func(c cli) scriptedmodel.Script {
			return scriptedmodel.Script{Steps: []scriptedmodel.Step{
				{Skill: skillName, SkillFile: c.standin().SkillsDir + "/" + skillName + "/SKILL.md"}, {Shell: "cat notes.txt"},
			}, Final: finalAnswer, Usage: usage}
		}, timeout: 3 * time.Minute},
		{name: "500", script: steps(scriptedmodel.Step{Fault: &scriptedmodel.Fault{Status: 500}}), timeout: 90 * time.Second},
		{name: "429-retrying", script: steps(scriptedmodel.Step{Fault: &scriptedmodel.Fault{Status: 429, RetryAfter: 1}}),
			env: map[string]string{"CLAUDE_CODE_MAX_RETRIES": ""}, home: geminiRetries, timeout: 40 * time.Second},
		{name: "500-retrying", script: steps(scriptedmodel.Step{Fault: &scriptedmodel.Fault{Status: 500}}),
			env: map[string]string{"CLAUDE_CODE_MAX_RETRIES": ""}, home: geminiRetries, timeout: 40 * time.Second},
		{name: "signal", script: steps(scriptedmodel.Step{Shell: "ls"}, scriptedmodel.Step{Shell: "sleep 3"},
			scriptedmodel.Step{Shell: "sleep 20"}, scriptedmodel.Step{Shell: "date"}), timeout: 3 * time.Minute},
		{name: "early-stop", script: steps(scriptedmodel.Step{Shell: "ls"}, scriptedmodel.Step{Shell: "cat notes.txt"},
			scriptedmodel.Step{Shell: "pwd"}, scriptedmodel.Step{Shell: "echo hi"}, scriptedmodel.Step{Shell: "date"}),
			stop: &agent.StopRule{SkillCall: skillName, ToolCallCount: 3}, timeout: 3 * time.Minute},
	}
	only := regexp.MustCompile(os.Getenv("RECORD_ONLY"))
	for _, c := range clis {
		for _, sc := range scenarios {
			t.Run(c.executor+"/"+sc.name, func(t *testing.T) {
				if !only.MatchString(c.executor + "/" + sc.name) {
					t.Skip()
				}
				bin, srv, env := startModel(t, c, sc.script(c))
				for k, v := range sc.env {
					if v == "" {
						delete(env, k)
					} else {
						env[k] = v
					}
				}
				if sc.home != nil {
					sc.home(env["HOME"])
				}
				base := filepath.Join(out, c.executor+"-"+sc.name)
				wrapper := filepath.Join(t.TempDir(), "wrap.sh")
				script := "#!/bin/bash\nset -o pipefail\n\"" + bin + "\" \"$@\" 2> >(tee \"" + base + ".stderr\" >&2) | tee \"" + base + ".jsonl\"\n"
				if sc.name == "signal" {
					// The CLI is sent RECORD_SIGNAL during its third tool call (sleep 20).
					script = "#!/bin/bash\n\"" + bin + "\" \"$@\" 2>\"" + base + ".stderr\" >\"" + base + ".jsonl\" &\npid=$!\n" +
						"sleep 12; kill -" + os.Getenv("RECORD_SIGNAL") + " $pid; for i in $(seq 20); do kill -0 $pid 2>/dev/null || break; sleep 1; done\n" +
						"kill -KILL $pid 2>/dev/null; cat \"" + base + ".jsonl\"\n"
				}
				write(t, wrapper, script)
				if err := os.Chmod(wrapper, 0o755); err != nil {
					t.Fatal(err)
				}
				ex, err := agent.New(c.executor, agent.Options{Path: wrapper, Args: []string{}})
				if err != nil {
					t.Fatal(err)
				}
				ws := t.TempDir()
				write(t, filepath.Join(ws, "notes.txt"), notes)
				skills, _ := filepath.Abs(filepath.Join("testdata", "skills"))
				run, err := ex.Run(t.Context(), &agent.Request{
					Prompt: "Please greet Ada using the house style. Read notes.txt first.", Workspace: ws,
					SkillDirs: []string{skills}, Skill: skillName, Timeout: sc.timeout, Environment: env,
					Suite: "record", TaskID: sc.name, Trial: 1, WithSkill: true, Stop: sc.stop,
				})
				t.Logf("recorded %s.jsonl / .stderr", base)
				t.Logf("error: %v", err)
				if run != nil {
					t.Logf("stopped early %q; usage %+v; unknown %d", run.StoppedEarly, run.SessionDigest.Usage, run.UnknownEvents)
					for _, call := range run.SessionDigest.ToolCalls {
						t.Logf("call %s %q outcome %s result %.200v", call.Name, call.Command, call.Outcome, call.Result)
					}
				}
				var replies []string
				for _, r := range srv.Requests() {
					replies = append(replies, r.Reply)
				}
				t.Logf("served %+v; replies %s", srv.Served(), strings.Join(replies, ","))
			})
		}
	}
}

// TestServeModel serves a scripted model for RECORD_SERVE (a duration) and writes its URL to
// $RECORD_DIR/url, to drive a CLI by hand: RECORD_FAULT=500|429|hang makes every request with
// tools fail, else the model says RECORD_SAY, calls its shell tool with RECORD_SHELL (and, in
// parallel, the commas-separated RECORD_PARALLEL), and answers.
func TestServeModel(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("RECORD_SERVE"))
	if err != nil {
		t.Skip("RECORD_SERVE is not a duration")
	}
	script := scriptedmodel.Script{Final: finalAnswer, Usage: usage}
	switch f := os.Getenv("RECORD_FAULT"); f {
	case "500", "429":
		status := 500
		if f == "429" {
			status = 429
		}
		script.Steps = []scriptedmodel.Step{{Fault: &scriptedmodel.Fault{Status: status, RetryAfter: 1}}}
	case "hang":
		script.Steps = []scriptedmodel.Step{{Fault: &scriptedmodel.Fault{Hang: true}}}
	default:
		var parallel []string
		if p := os.Getenv("RECORD_PARALLEL"); p != "" {
			parallel = strings.Split(p, ",")
		}
		script.Steps = []scriptedmodel.Step{{Say: os.Getenv("RECORD_SAY"), Shell: os.Getenv("RECORD_SHELL"), Parallel: parallel}}
	}
	srv := scriptedmodel.Start(script)
	defer srv.Close()
	write(t, filepath.Join(os.Getenv("RECORD_DIR"), "url"), srv.URL)
	time.Sleep(d)
	for _, r := range srv.Requests() {
		t.Logf("%s %s reply %s", r.Method, r.Path, r.Reply)
	}
}
