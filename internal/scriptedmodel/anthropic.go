package scriptedmodel

import (
	"cmp"
	"encoding/json"
)

// anthropic answers POST /v1/messages (Claude Code): streamed when the request asks for it.
func (x *exchange) anthropic() {
	var tools []tool
	for _, t := range list(x.body["tools"]) {
		m := obj(t)
		if name := str(m["name"]); name != "" {
			tools = append(tools, tool{Name: name, Schema: obj(m["input_schema"])})
		}
	}
	k := 0
	for _, msg := range list(x.body["messages"]) {
		for _, block := range list(obj(msg)["content"]) {
			if str(obj(block)["type"]) == "tool_result" {
				k++
			}
		}
	}
	rep, ok := x.decide(tools, k)
	if !ok {
		return
	}
	u := x.s.script.Usage
	model := cmp.Or(str(x.body["model"]), "claude-standin")
	msgID := x.s.id("msg")
	usageStart := map[string]any{
		"input_tokens":                u.Input - u.Cached - u.CacheWrite,
		"cache_read_input_tokens":     u.Cached,
		"cache_creation_input_tokens": u.CacheWrite,
		"output_tokens":               1,
	}
	var blocks []map[string]any // what the model says, then its tool call
	if rep.text != "" || rep.kind != "tool" {
		blocks = append(blocks, map[string]any{"type": "text", "text": rep.text})
	}
	stop := "end_turn"
	if rep.kind == "tool" {
		stop = "tool_use"
		for _, call := range rep.calls() {
			blocks = append(blocks, map[string]any{"type": "tool_use", "id": x.s.id("toolu"), "name": call.Name, "input": call.Arguments})
		}
	}
	if stream, _ := x.body["stream"].(bool); !stream {
		usageStart["output_tokens"] = u.Output
		content := make([]any, len(blocks))
		for i, b := range blocks {
			content[i] = b
		}
		writeJSON(x.w, map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usageStart,
		})
		return
	}
	s := newSSE(x.w)
	s.event("message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usageStart,
	}})
	for i, block := range blocks {
		if block["type"] == "tool_use" {
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{
				"type": "tool_use", "id": block["id"], "name": block["name"], "input": map[string]any{},
			}})
			args, _ := json.Marshal(block["input"])
			for _, piece := range chunks(string(args), 15) {
				s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": piece}})
			}
		} else {
			s.event("content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, piece := range chunks(rep.text, 20) {
				s.event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
					"delta": map[string]any{"type": "text_delta", "text": piece}})
			}
		}
		s.event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	s.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": u.Output}})
	s.event("message_stop", map[string]any{"type": "message_stop"})
}
