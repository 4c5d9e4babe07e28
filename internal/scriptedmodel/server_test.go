package scriptedmodel

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

var testUsage = Usage{Input: 1000, Cached: 50, CacheWrite: 5, Output: 20, Reasoning: 3}

func testScript() Script {
	return Script{
		Steps: []Step{{Skill: "sg-greeter", SkillFile: ".agents/skills/sg-greeter/SKILL.md"}, {Shell: "cat notes.txt"}},
		Final: "FINAL ANSWER: done",
		Usage: testUsage,
	}
}

// post sends a JSON body and returns the response with its SSE data payloads decoded.
func post(t *testing.T, url string, body any, header map[string]string) (*http.Response, []map[string]any) {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(string(data)))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var events []map[string]any
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if payload, ok := strings.CutPrefix(line, "data: "); ok && payload != "[DONE]" {
			var ev map[string]any
			if err := json.Unmarshal([]byte(payload), &ev); err != nil {
				t.Fatalf("bad SSE data %q: %v", payload, err)
			}
			events = append(events, ev)
		} else if strings.HasPrefix(line, "{") {
			var ev map[string]any
			if err := json.Unmarshal([]byte(line), &ev); err == nil {
				events = append(events, ev)
			}
		}
	}
	return resp, events
}

func TestAnthropicMessages(t *testing.T) {
	s := Start(testScript())
	defer s.Close()
	tools := []any{
		map[string]any{"name": "Bash", "description": "run", "input_schema": map[string]any{"properties": map[string]any{"command": map[string]any{"type": "string"}, "description": map[string]any{"type": "string"}}}},
		map[string]any{"name": "Skill", "description": "Skills: sg-greeter: Greets people", "input_schema": map[string]any{"properties": map[string]any{"skill": map[string]any{"type": "string"}}}},
	}
	msgs := []any{map[string]any{"role": "user", "content": "greet Ada"}}
	_, evs := post(t, s.URL+"/v1/messages?beta=true", map[string]any{"model": "m", "stream": true, "tools": tools, "messages": msgs},
		map[string]string{"x-api-key": "sk-ant-standin-key-123456"})
	var partial strings.Builder
	var name string
	var usage map[string]any
	for _, ev := range evs {
		switch ev["type"] {
		case "content_block_start":
			name = str(obj(ev["content_block"])["name"])
		case "content_block_delta":
			partial.WriteString(str(obj(ev["delta"])["partial_json"]))
		case "message_start":
			usage = obj(obj(ev["message"])["usage"])
		case "message_delta":
			if obj(ev["delta"])["stop_reason"] != "tool_use" || obj(ev["usage"])["output_tokens"] != 20.0 {
				t.Errorf("message_delta %v", ev)
			}
		}
	}
	if name != "Skill" || partial.String() != `{"skill":"sg-greeter"}` {
		t.Errorf("tool call %s %s", name, partial.String())
	}
	if usage["input_tokens"] != 945.0 || usage["cache_read_input_tokens"] != 50.0 || usage["cache_creation_input_tokens"] != 5.0 {
		t.Errorf("usage %v", usage)
	}
	// After one tool result: the shell step; not streamed this time.
	msgs = append(msgs, map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "x", "content": "ok"}}})
	_, evs = post(t, s.URL+"/v1/messages", map[string]any{"model": "m", "tools": tools, "messages": msgs}, nil)
	block := obj(list(evs[0]["content"])[0])
	if block["name"] != "Bash" || !reflect.DeepEqual(block["input"], map[string]any{"command": "cat notes.txt", "description": "Run cat notes.txt"}) {
		t.Errorf("second reply %v", evs[0])
	}
	// After two: the final text.
	msgs = append(msgs, map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "y", "content": "ok"}}})
	_, evs = post(t, s.URL+"/v1/messages", map[string]any{"model": "m", "stream": true, "tools": tools, "messages": msgs}, nil)
	var text strings.Builder
	for _, ev := range evs {
		text.WriteString(str(obj(ev["delta"])["text"]))
	}
	if text.String() != "FINAL ANSWER: done" {
		t.Errorf("final text %q", text.String())
	}
	reqs := s.ModelRequests()
	if len(reqs) != 3 || reqs[0].Reply != "tool:Skill" || reqs[1].Reply != "tool:Bash" || reqs[2].Reply != "text" {
		t.Fatalf("requests %+v", reqs)
	}
	if !reqs[0].Mentions("sg-greeter: Greets people") || !reflect.DeepEqual(reqs[0].Tools, []string{"Bash", "Skill"}) || reqs[2].ToolResults != 2 {
		t.Errorf("recorded %+v", reqs[0])
	}
	if got := reqs[0].Header.Get("X-Api-Key"); got != "sk-ant-stand…" {
		t.Errorf("key not redacted: %q", got)
	}
	if got := s.Served(); got != (Usage{3000, 150, 15, 60, 9}) {
		t.Errorf("served %+v", got)
	}
}

func TestOpenAIResponses(t *testing.T) {
	s := Start(testScript()) // Codex has no skill tool: the skill step reads SKILL.md
	defer s.Close()
	tools := []any{map[string]any{"type": "function", "name": "exec_command", "parameters": map[string]any{"properties": map[string]any{"cmd": map[string]any{"type": "string"}}}}}
	input := []any{map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "hi"}}}}
	_, evs := post(t, s.URL+"/v1/responses", map[string]any{"model": "gpt", "stream": true, "tools": tools, "input": input}, nil)
	var done, completed map[string]any
	for _, ev := range evs {
		switch ev["type"] {
		case "response.output_item.done":
			done = obj(ev["item"])
		case "response.completed":
			completed = obj(ev["response"])
		}
	}
	if done["type"] != "function_call" || done["name"] != "exec_command" || done["arguments"] != `{"cmd":"cat .agents/skills/sg-greeter/SKILL.md"}` || done["call_id"] == "" {
		t.Errorf("item %v", done)
	}
	u := obj(completed["usage"])
	if u["input_tokens"] != 1000.0 || obj(u["input_tokens_details"])["cached_tokens"] != 50.0 || obj(u["output_tokens_details"])["reasoning_tokens"] != 3.0 {
		t.Errorf("usage %v", u)
	}
	input = append(input, map[string]any{"type": "function_call_output", "call_id": "c", "output": "x"},
		map[string]any{"type": "function_call_output", "call_id": "d", "output": "y"})
	_, evs = post(t, s.URL+"/v1/responses", map[string]any{"model": "gpt", "stream": true, "tools": tools, "input": input}, nil)
	var text strings.Builder
	for _, ev := range evs {
		if ev["type"] == "response.output_text.delta" {
			text.WriteString(str(ev["delta"]))
		}
	}
	if text.String() != "FINAL ANSWER: done" {
		t.Errorf("text %q", text.String())
	}
	resp, _ := post(t, s.URL+"/v1/models", nil, nil)
	if resp.StatusCode != http.StatusNotFound { // models is a GET
		t.Errorf("POST /v1/models status %d", resp.StatusCode)
	}
	r, err := http.Get(s.URL + "/v1/models")
	if err != nil || r.StatusCode != 200 {
		t.Errorf("GET /v1/models: %v %v", r, err)
	}
}

func TestOpenAIChatCompletions(t *testing.T) {
	s := Start(Script{Steps: []Step{{Shell: "cat notes.txt"}}, Final: "done", Usage: testUsage})
	defer s.Close()
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "bash", "parameters": map[string]any{
		"properties": map[string]any{"command": map[string]any{"type": "array"}}}}}}
	msgs := []any{map[string]any{"role": "user", "content": "hi"}}
	_, evs := post(t, s.URL+"/v1/chat/completions", map[string]any{"stream": true, "tools": tools, "messages": msgs}, nil)
	var call map[string]any
	var finish string
	var usage map[string]any
	for _, ev := range evs {
		for _, c := range list(ev["choices"]) {
			if tc := list(obj(obj(c)["delta"])["tool_calls"]); len(tc) > 0 {
				call = obj(obj(tc[0])["function"])
			}
			if f := str(obj(c)["finish_reason"]); f != "" {
				finish = f
			}
		}
		if u := obj(ev["usage"]); u != nil {
			usage = u
		}
	}
	if call["name"] != "bash" || call["arguments"] != `{"command":["bash","-lc","cat notes.txt"]}` || finish != "tool_calls" {
		t.Errorf("call %v finish %q", call, finish)
	}
	if usage["prompt_tokens"] != 1000.0 || usage["completion_tokens"] != 20.0 || obj(usage["prompt_tokens_details"])["cached_tokens"] != 50.0 {
		t.Errorf("usage %v", usage)
	}
	msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": "c", "content": "x"})
	_, evs = post(t, s.URL+"/v1/chat/completions", map[string]any{"tools": tools, "messages": msgs}, nil)
	if m := obj(obj(list(evs[0]["choices"])[0])["message"]); m["content"] != "done" {
		t.Errorf("final %v", evs[0])
	}
}

func TestGemini(t *testing.T) {
	s := Start(testScript())
	defer s.Close()
	tools := []any{map[string]any{"functionDeclarations": []any{
		map[string]any{"name": "run_shell_command", "parametersJsonSchema": map[string]any{"properties": map[string]any{"command": map[string]any{"type": "string"}}}},
		map[string]any{"name": "activate_skill", "parameters": map[string]any{"type": "OBJECT", "properties": map[string]any{"name": map[string]any{"type": "STRING"}}}},
	}}}
	contents := []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "greet"}}}}
	_, evs := post(t, s.URL+"/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", map[string]any{"contents": contents, "tools": tools}, nil)
	part := obj(list(obj(obj(list(evs[0]["candidates"])[0])["content"])["parts"])[0])
	if !reflect.DeepEqual(part["functionCall"], map[string]any{"name": "activate_skill", "args": map[string]any{"name": "sg-greeter"}}) {
		t.Errorf("part %v", part)
	}
	// Output (20) counts the thoughts (3), which Gemini reports apart from the candidates.
	if u := obj(evs[0]["usageMetadata"]); u["promptTokenCount"] != 1000.0 || u["cachedContentTokenCount"] != 50.0 ||
		u["thoughtsTokenCount"] != 3.0 || u["candidatesTokenCount"] != 17.0 || u["totalTokenCount"] != 1020.0 {
		t.Errorf("usage %v", u)
	}
	// The router's request has no tools and asks for JSON.
	_, evs = post(t, s.URL+"/v1beta/models/flash:generateContent", map[string]any{"contents": contents,
		"generationConfig": map[string]any{"responseMimeType": "application/json"}}, nil)
	part = obj(list(obj(obj(list(evs[0]["candidates"])[0])["content"])["parts"])[0])
	if !strings.Contains(str(part["text"]), `"next_speaker":"user"`) {
		t.Errorf("router answer %v", part)
	}
	if r := s.ModelRequests(); len(r) != 2 || r[1].Reply != "aux" || r[1].ToolResults != 0 {
		t.Errorf("requests %+v", r)
	}
}

func TestFaults(t *testing.T) {
	tools := []any{map[string]any{"name": "Bash", "input_schema": map[string]any{}}}
	body := map[string]any{"stream": true, "tools": tools, "messages": []any{}}
	s := Start(Script{Steps: []Step{{Fault: &Fault{Status: 500}}}})
	resp, _ := post(t, s.URL+"/v1/messages", body, nil)
	if resp.StatusCode != 500 {
		t.Errorf("status %d", resp.StatusCode)
	}
	s.Close()

	s = Start(Script{Steps: []Step{{Fault: &Fault{Status: 429, RetryAfter: 1}}}})
	resp, _ = post(t, s.URL+"/v1/messages", body, nil)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" {
		t.Errorf("status %d retry-after %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if r := s.Requests(); r[0].Reply != "fault:429" || r[0].Usage != (Usage{}) {
		t.Errorf("recorded %+v", r[0])
	}
	s.Close()

	// A hang holds the request until the client gives up.
	s = Start(Script{Steps: []Step{{Fault: &Fault{Hang: true}}}})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/messages", strings.NewReader(string(data)))
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Error("a hung request got an answer")
	}
	// A hang does not block Close either.
	s2 := Start(Script{Steps: []Step{{Fault: &Fault{Hang: true}}}})
	go func() { _, _ = http.Post(s2.URL+"/v1/messages", "application/json", strings.NewReader(string(data))) }()
	for len(s2.Requests()) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if r := s2.Requests()[0]; r.Reply != "hang" {
		t.Errorf("reply %q", r.Reply)
	}
	s2.Close()
}

func TestScriptErrors(t *testing.T) {
	s := Start(Script{Steps: []Step{{Shell: "ls"}}})
	defer s.Close()
	resp, _ := post(t, s.URL+"/v1/messages", map[string]any{"tools": []any{map[string]any{"name": "Read"}}, "messages": []any{}}, nil)
	if resp.StatusCode != 400 {
		t.Errorf("status %d", resp.StatusCode)
	}
	if r := s.Requests()[0]; r.Reply != "error: no shell tool among [Read]" {
		t.Errorf("reply %q", r.Reply)
	}
	resp, _ = post(t, s.URL+"/v2/unknown", map[string]any{}, nil)
	if resp.StatusCode != 404 {
		t.Errorf("unknown path status %d", resp.StatusCode)
	}
}

func FuzzServe(f *testing.F) {
	for _, seed := range []string{`{"tools":[{"name":"Bash"}],"messages":[]}`, `{"input":[{"type":"function_call_output"}],"tools":[{"type":"function","name":"shell","parameters":{"properties":{"command":{"type":["array"]}}}}]}`, `{"contents":[{"parts":[{"functionResponse":{}}]}],"tools":[{"functionDeclarations":[{"name":"activate_skill"}]}]}`, `[]`, `{"tools":"x"}`} {
		for _, p := range []string{"/v1/messages", "/v1/responses", "/v1/chat/completions", "/v1beta/models/m:generateContent"} {
			f.Add(p, seed)
		}
	}
	s := &Server{script: testScript(), stop: make(chan struct{})}
	f.Fuzz(func(t *testing.T, path, body string) {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.URL.Path = path
		s.serve(httptest.NewRecorder(), req)
	})
}

// A step that says something before its tool call answers with both in one response, on every
// API: a text block (part, item, content) and then the tool call.
func TestSayBeforeToolCall(t *testing.T) {
	s := Start(Script{Steps: []Step{{Say: "Let me look.", Shell: "ls"}}, Final: "done", Usage: testUsage})
	defer s.Close()
	shell := func(name string) map[string]any {
		return map[string]any{"name": name, "type": "function", "input_schema": map[string]any{"properties": map[string]any{"command": map[string]any{"type": "string"}}},
			"parameters": map[string]any{"properties": map[string]any{"command": map[string]any{"type": "string"}}}}
	}
	user := []any{map[string]any{"role": "user", "content": "list"}}
	for _, tt := range []struct {
		api, path string
		body      map[string]any
	}{
		{"anthropic", "/v1/messages", map[string]any{"stream": true, "messages": user, "tools": []any{shell("Bash")}}},
		{"chat", "/v1/chat/completions", map[string]any{"stream": true, "messages": user, "tools": []any{map[string]any{"type": "function", "function": shell("bash")}}}},
		{"responses", "/v1/responses", map[string]any{"input": user, "tools": []any{shell("exec_command")}}},
		{"gemini", "/v1beta/models/m:streamGenerateContent", map[string]any{"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "list"}}}},
			"tools": []any{map[string]any{"functionDeclarations": []any{shell("run_shell_command")}}}}},
	} {
		_, evs := post(t, s.URL+tt.path, tt.body, nil)
		raw, _ := json.Marshal(evs)
		text, call := strings.Index(string(raw), "Let me look."), strings.Index(string(raw), `ls\"`)
		if call < 0 {
			call = strings.Index(string(raw), `"command":"ls"`)
		}
		if text < 0 || call < 0 || text > call {
			t.Errorf("%s: text at %d, tool call at %d in %s", tt.api, text, call, raw)
		}
	}
}

// Parallel calls come in one response on every API, and count for as many tool results when the
// next step is chosen.
func TestParallelToolCalls(t *testing.T) {
	s := Start(Script{Steps: []Step{{Shell: "ls", Parallel: []string{"pwd"}}, {Shell: "date"}}, Final: "done", Usage: testUsage})
	defer s.Close()
	tools := []any{map[string]any{"type": "function", "function": map[string]any{"name": "bash",
		"parameters": map[string]any{"properties": map[string]any{"command": map[string]any{"type": "string"}}}}}}
	msgs := []any{map[string]any{"role": "user", "content": "list"}}
	_, evs := post(t, s.URL+"/v1/chat/completions", map[string]any{"messages": msgs, "tools": tools}, nil)
	calls := list(obj(obj(list(evs[0]["choices"])[0])["message"])["tool_calls"])
	if len(calls) != 2 || str(obj(obj(calls[1])["function"])["arguments"]) != `{"command":"pwd"}` {
		t.Fatalf("calls %v", calls)
	}
	// Both results: the next step (date); one more: the final answer.
	for range 2 {
		msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": "x", "content": "ok"})
	}
	post(t, s.URL+"/v1/chat/completions", map[string]any{"messages": msgs, "tools": tools}, nil)
	msgs = append(msgs, map[string]any{"role": "tool", "tool_call_id": "y", "content": "ok"})
	post(t, s.URL+"/v1/chat/completions", map[string]any{"messages": msgs, "tools": tools}, nil)
	reqs := s.ModelRequests()
	if len(reqs) != 3 || reqs[1].Reply != "tool:bash" || !reqs[1].Mentions("ok") || reqs[2].Reply != "text" || reqs[2].ToolResults != 3 {
		t.Errorf("requests %+v", reqs)
	}
	for _, tt := range []struct {
		path string
		body map[string]any
	}{
		{"/v1/messages", map[string]any{"messages": []any{map[string]any{"role": "user", "content": "x"}},
			"tools": []any{map[string]any{"name": "Bash", "input_schema": map[string]any{"properties": map[string]any{"command": map[string]any{"type": "string"}}}}}}},
		{"/v1/responses", map[string]any{"input": []any{}, "tools": []any{map[string]any{"type": "function", "name": "exec_command",
			"parameters": map[string]any{"properties": map[string]any{"command": map[string]any{"type": "string"}}}}}}},
		{"/v1beta/models/m:generateContent", map[string]any{"contents": []any{}, "tools": []any{map[string]any{"functionDeclarations": []any{
			map[string]any{"name": "run_shell_command", "parameters": map[string]any{"properties": map[string]any{"command": map[string]any{"type": "string"}}}}}}}}},
	} {
		_, evs := post(t, s.URL+tt.path, tt.body, nil)
		raw, _ := json.Marshal(evs)
		if !strings.Contains(string(raw), "pwd") || !strings.Contains(string(raw), "ls") {
			t.Errorf("%s: %s", tt.path, raw)
		}
	}
}

// Await fires on the request that satisfies it, or at once for one recorded already; a hang is
// recorded when it starts, so a test can wait for it.
func TestAwait(t *testing.T) {
	s := Start(Script{Steps: []Step{{Fault: &Fault{Hang: true}}}})
	defer s.Close()
	hung := s.Await(func(r Request) bool { return r.Reply == "hang" })
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/v1/messages", strings.NewReader(`{"messages":[],"tools":[{"name":"Bash"}]}`))
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case <-hung:
	case <-time.After(time.Minute):
		t.Fatal("the hang was never recorded")
	}
	select {
	case <-s.Await(func(r Request) bool { return r.Faulted() }):
	default:
		t.Error("Await did not fire at once for a request recorded already")
	}
}
