package scriptedmodel

import (
	"cmp"
	"encoding/json"
	"time"
)

// responses answers POST /v1/responses (Codex), always streamed.
func (x *exchange) responses() {
	var tools []tool
	for _, t := range list(x.body["tools"]) {
		m := obj(t)
		if str(m["type"]) == "function" && str(m["name"]) != "" {
			tools = append(tools, tool{Name: str(m["name"]), Schema: obj(m["parameters"])})
		}
	}
	k := 0
	for _, item := range list(x.body["input"]) {
		switch str(obj(item)["type"]) {
		case "function_call_output", "custom_tool_call_output":
			k++
		}
	}
	rep, ok := x.decide(tools, k)
	if !ok {
		return
	}
	u := x.s.script.Usage
	respID := x.s.id("resp")
	model := cmp.Or(str(x.body["model"]), "gpt-standin")
	message := func(text string) map[string]any {
		return map[string]any{"type": "message", "id": x.s.id("msg"), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	}
	var items []map[string]any // what the model says, then its tool call
	if rep.text != "" || rep.kind != "tool" {
		items = append(items, message(rep.text))
	}
	for _, call := range rep.calls() {
		args, _ := json.Marshal(call.Arguments)
		items = append(items, map[string]any{"type": "function_call", "id": x.s.id("fc"), "call_id": x.s.id("call"),
			"name": call.Name, "arguments": string(args), "status": "completed"})
	}
	response := func(status string, output []any, usage any) map[string]any {
		return map[string]any{"id": respID, "object": "response", "created_at": time.Now().Unix(), "status": status,
			"model": model, "output": output, "usage": usage}
	}
	seq := 0
	s := newSSE(x.w)
	emit := func(typ string, fields map[string]any) {
		fields["type"] = typ
		fields["sequence_number"] = seq
		seq++
		s.event(typ, fields)
	}
	emit("response.created", map[string]any{"response": response("in_progress", []any{}, nil)})
	var output []any
	for i, item := range items {
		added := map[string]any{}
		for k, v := range item {
			added[k] = v
		}
		added["status"] = "in_progress"
		if item["type"] == "function_call" {
			added["arguments"] = ""
		} else {
			added["content"] = []any{}
		}
		emit("response.output_item.added", map[string]any{"output_index": i, "item": added})
		if item["type"] == "function_call" {
			emit("response.function_call_arguments.delta", map[string]any{"output_index": i, "item_id": item["id"], "delta": item["arguments"]})
			emit("response.function_call_arguments.done", map[string]any{"output_index": i, "item_id": item["id"], "arguments": item["arguments"]})
		} else {
			for _, piece := range chunks(rep.text, 20) {
				emit("response.output_text.delta", map[string]any{"output_index": i, "content_index": 0, "item_id": item["id"], "delta": piece})
			}
			emit("response.output_text.done", map[string]any{"output_index": i, "content_index": 0, "item_id": item["id"], "text": rep.text})
		}
		emit("response.output_item.done", map[string]any{"output_index": i, "item": item})
		output = append(output, item)
	}
	emit("response.completed", map[string]any{"response": response("completed", output, map[string]any{
		"input_tokens":          u.Input,
		"input_tokens_details":  map[string]any{"cached_tokens": u.Cached},
		"output_tokens":         u.Output,
		"output_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
		"total_tokens":          u.Input + u.Output,
	})})
}

// chat answers POST /v1/chat/completions (Copilot CLI with an OpenAI provider): streamed when
// asked, with a usage chunk at the end.
func (x *exchange) chat() {
	var tools []tool
	for _, t := range list(x.body["tools"]) {
		f := obj(obj(t)["function"])
		if name := str(f["name"]); name != "" {
			tools = append(tools, tool{Name: name, Schema: obj(f["parameters"])})
		}
	}
	k := 0
	for _, msg := range list(x.body["messages"]) {
		if str(obj(msg)["role"]) == "tool" {
			k++
		}
	}
	rep, ok := x.decide(tools, k)
	if !ok {
		return
	}
	u := x.s.script.Usage
	id := x.s.id("chatcmpl")
	model := cmp.Or(str(x.body["model"]), "gpt-standin")
	created := time.Now().Unix()
	usage := map[string]any{
		"prompt_tokens": u.Input, "completion_tokens": u.Output, "total_tokens": u.Input + u.Output,
		"prompt_tokens_details":     map[string]any{"cached_tokens": u.Cached},
		"completion_tokens_details": map[string]any{"reasoning_tokens": u.Reasoning},
	}
	var message map[string]any
	finish := "stop"
	if rep.kind == "tool" {
		finish = "tool_calls"
		var content any
		if rep.text != "" {
			content = rep.text
		}
		var calls []any
		for i, call := range rep.calls() {
			args, _ := json.Marshal(call.Arguments)
			calls = append(calls, map[string]any{"index": i, "id": x.s.id("call"), "type": "function",
				"function": map[string]any{"name": call.Name, "arguments": string(args)}})
		}
		message = map[string]any{"role": "assistant", "content": content, "tool_calls": calls}
	} else {
		message = map[string]any{"role": "assistant", "content": rep.text}
	}
	if stream, _ := x.body["stream"].(bool); !stream {
		writeJSON(x.w, map[string]any{"id": id, "object": "chat.completion", "created": created, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": message, "finish_reason": finish}}, "usage": usage})
		return
	}
	chunk := func(choices []any, usage any) map[string]any {
		c := map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": model, "choices": choices}
		if usage != nil {
			c["usage"] = usage
		}
		return c
	}
	choice := func(delta map[string]any, finish any) []any {
		return []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}
	}
	s := newSSE(x.w)
	s.event("", chunk(choice(map[string]any{"role": "assistant", "content": ""}, nil), nil))
	if rep.text != "" || rep.kind != "tool" {
		for _, piece := range chunks(rep.text, 20) {
			s.event("", chunk(choice(map[string]any{"content": piece}, nil), nil))
		}
	}
	if rep.kind == "tool" {
		s.event("", chunk(choice(map[string]any{"tool_calls": message["tool_calls"]}, nil), nil))
	}
	s.event("", chunk(choice(map[string]any{}, finish), nil))
	s.event("", chunk([]any{}, usage))
	s.raw("data: [DONE]")
}
