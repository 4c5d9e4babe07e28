// Package scriptedmodel is a stand-in language model for tests: an HTTP server on 127.0.0.1
// that speaks the wire formats the released agent CLIs use (Anthropic Messages, OpenAI
// Responses, OpenAI Chat Completions, Gemini generateContent, all streamed as SSE) and answers
// from a small per-test script instead of a model. It records every request, so a test can
// assert what the CLI sent (the tools it offered, the skill it advertised).
//
// How each CLI is pointed at it: docs/agents.md ("Conformance tests").
package scriptedmodel

import (
	"cmp"
	"fmt"
	"sort"
	"strings"
)

// Script is what the model does in one conversation. The step taken for a request is chosen by
// how many tool results the request already carries: the first request gets Steps[0], the
// request after the first tool result Steps[1], and so on (a step making n parallel calls
// counts for n results); past the last step the model answers with Final. Requests that offer no tools (title generation, Gemini's router and next-speaker
// checks) get a plain answer (Aux) and never consume a step.
type Script struct {
	Steps []Step
	// Final is the final answer's text.
	Final string
	// Usage is the token usage reported with every answered request (auxiliary ones included).
	Usage Usage
	// Aux is the answer to requests without tools; "OK" when empty.
	Aux string
}

// Step is one reply of the model to a request with tools: exactly one of Shell, Skill, Tool, Text
// and Fault is set; Say may come with a tool call.
type Step struct {
	// Shell runs a command with the request's shell tool (Bash, bash, exec_command,
	// run_shell_command…), its arguments built from the tool's JSON schema.
	Shell string
	// Skill invokes a skill with the request's skill tool (Skill, skill, activate_skill). A CLI
	// without a skill tool (Codex) reads SkillFile with the shell tool instead.
	Skill     string
	SkillFile string
	// Tool calls a named tool with the given arguments.
	Tool *ToolCall
	// Text answers with text, ending the conversation early.
	Text string
	// Say is text the model says before its tool call, in the same response (one message with
	// a text block and a tool call).
	Say string
	// Parallel are more shell commands called in the same response as Shell (parallel tool
	// calls).
	Parallel []string
	// Fault answers with an HTTP error or never answers.
	Fault *Fault
}

// ToolCall is an explicit tool call.
type ToolCall struct {
	Name      string
	Arguments map[string]any
}

// Fault is an error reply.
type Fault struct {
	// Status is the HTTP status (500, 429…); 0 with Hang.
	Status int
	// RetryAfter, in seconds, is sent as Retry-After when positive.
	RetryAfter int
	// Hang holds the request open until the client goes away or the server closes.
	Hang bool
}

// Usage is the token usage of one response. Input counts every prompt token, cached or not
// (as skillgate normalizes it); Cached and CacheWrite are parts of it. Output counts every output
// token, reasoning included (OpenAI's convention); Reasoning is part of it, which the Gemini API
// reports apart from its candidates.
type Usage struct {
	Input, Cached, CacheWrite, Output, Reasoning int64
}

// Add returns the sum of two usages.
func (u Usage) Add(o Usage) Usage {
	return Usage{u.Input + o.Input, u.Cached + o.Cached, u.CacheWrite + o.CacheWrite, u.Output + o.Output, u.Reasoning + o.Reasoning}
}

// tool is a tool as the request offers it.
type tool struct {
	Name   string
	Schema map[string]any // JSON schema of the arguments (may be nil)
}

// Tool names in order of preference, as the CLIs name them.
var (
	shellTools = []string{"Bash", "bash", "shell_command", "shell", "exec_command", "run_shell_command", "local_shell"}
	skillTools = []string{"Skill", "skill", "activate_skill"}
)

func findTool(tools []tool, names []string) *tool {
	for _, n := range names {
		for i := range tools {
			if tools[i].Name == n {
				return &tools[i]
			}
		}
	}
	return nil
}

// reply is what the server answers to one request.
type reply struct {
	kind  string // "text", "tool", "fault", "aux"
	text  string // the answer; with a tool call, what the model says before it (Step.Say)
	call  *ToolCall
	more  []*ToolCall // calls made in parallel with call (Step.Parallel)
	fault *Fault
}

// decide picks the reply to a request offering tools and carrying k tool results.
func (s *Script) decide(tools []tool, k int) (reply, error) {
	if len(tools) == 0 {
		return reply{kind: "aux", text: cmp.Or(s.Aux, "OK")}, nil
	}
	i := 0
	for seen := 0; i < len(s.Steps) && seen < k; i++ {
		seen += 1 + len(s.Steps[i].Parallel)
	}
	if i >= len(s.Steps) {
		return reply{kind: "text", text: s.Final}, nil
	}
	st := s.Steps[i]
	rep, err := s.step(st, tools, i)
	if rep.kind == "tool" {
		rep.text = st.Say
		for _, cmd := range st.Parallel {
			more, err := shellReply(tools, cmd)
			if err != nil {
				return reply{}, err
			}
			rep.more = append(rep.more, more.call)
		}
	}
	return rep, err
}

// calls are the reply's tool calls, in order.
func (r *reply) calls() []*ToolCall {
	if r.call == nil {
		return nil
	}
	return append([]*ToolCall{r.call}, r.more...)
}

func (s *Script) step(st Step, tools []tool, k int) (reply, error) {
	switch {
	case st.Fault != nil:
		return reply{kind: "fault", fault: st.Fault}, nil
	case st.Text != "":
		return reply{kind: "text", text: st.Text}, nil
	case st.Tool != nil:
		return reply{kind: "tool", call: st.Tool}, nil
	case st.Skill != "":
		if t := findTool(tools, skillTools); t != nil {
			return reply{kind: "tool", call: &ToolCall{Name: t.Name, Arguments: skillArgs(t, st.Skill)}}, nil
		}
		if st.SkillFile == "" {
			return reply{}, fmt.Errorf("no skill tool among %s and no SkillFile to read", toolNames(tools))
		}
		return shellReply(tools, "cat "+st.SkillFile)
	case st.Shell != "":
		return shellReply(tools, st.Shell)
	}
	return reply{}, fmt.Errorf("step %d is empty", k)
}

func shellReply(tools []tool, cmd string) (reply, error) {
	t := findTool(tools, shellTools)
	if t == nil {
		return reply{}, fmt.Errorf("no shell tool among %s", toolNames(tools))
	}
	return reply{kind: "tool", call: &ToolCall{Name: t.Name, Arguments: shellArgs(t, cmd)}}, nil
}

func toolNames(tools []tool) string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	sort.Strings(names)
	return "[" + strings.Join(names, " ") + "]"
}

func properties(t *tool) map[string]any {
	props, _ := t.Schema["properties"].(map[string]any)
	return props
}

func propType(props map[string]any, key string) (string, bool) {
	p, ok := props[key].(map[string]any)
	if !ok {
		return "", false
	}
	typ, _ := p["type"].(string)
	if typ == "" {
		if types, ok := p["type"].([]any); ok && len(types) > 0 {
			typ, _ = types[0].(string)
		}
	}
	return strings.ToLower(typ), true
}

// shellArgs builds a shell tool's arguments from its schema: a `command` string, or an argv
// array run through bash -lc, or `cmd`; plus a description when the schema has one.
func shellArgs(t *tool, cmd string) map[string]any {
	props := properties(t)
	args := map[string]any{}
	switch typ, ok := propType(props, "command"); {
	case ok && typ == "array":
		args["command"] = []any{"bash", "-lc", cmd}
	case ok:
		args["command"] = cmd
	default:
		if _, ok := props["cmd"]; ok {
			args["cmd"] = cmd
		} else {
			args["command"] = cmd
		}
	}
	if _, ok := props["description"]; ok {
		args["description"] = "Run " + cmd
	}
	return args
}

// skillArgs names the skill under the key the tool's schema has: skill (Claude, Copilot) or
// name (Gemini's activate_skill).
func skillArgs(t *tool, name string) map[string]any {
	props := properties(t)
	if _, ok := props["skill"]; !ok {
		if _, ok := props["name"]; ok {
			return map[string]any{"name": name}
		}
	}
	return map[string]any{"skill": name}
}
