package scriptedmodel

import "strings"

// gemini answers POST /v1beta/models/<m>:streamGenerateContent?alt=sse and :generateContent
// (Gemini CLI).
func (x *exchange) gemini(stream bool) {
	var tools []tool
	for _, t := range list(x.body["tools"]) {
		for _, d := range list(obj(t)["functionDeclarations"]) {
			m := obj(d)
			schema := obj(m["parametersJsonSchema"])
			if schema == nil {
				schema = lowerTypes(obj(m["parameters"]))
			}
			if name := str(m["name"]); name != "" {
				tools = append(tools, tool{Name: name, Schema: schema})
			}
		}
	}
	k := 0
	for _, c := range list(x.body["contents"]) {
		for _, p := range list(obj(c)["parts"]) {
			if obj(p)["functionResponse"] != nil {
				k++
			}
		}
	}
	rep, ok := x.decide(tools, k)
	if !ok {
		return
	}
	text := rep.text
	if rep.kind == "aux" && wantsJSON(obj(x.body["generationConfig"])) {
		// The router's and the next-speaker check's structured answers.
		text = `{"reasoning":"scripted","model_choice":"flash","next_speaker":"user","complexity_reasoning":"scripted","complexity_score":10}`
	}
	var parts []any // what the model says, then its tool call
	if text != "" || rep.kind != "tool" {
		parts = append(parts, map[string]any{"text": text})
	}
	if rep.kind == "tool" {
		for _, call := range rep.calls() {
			parts = append(parts, map[string]any{"functionCall": map[string]any{"name": call.Name, "args": call.Arguments}})
		}
	}
	// Gemini counts thought tokens apart from the candidates; both are output.
	u := x.s.script.Usage
	resp := map[string]any{
		"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
			"content": map[string]any{"role": "model", "parts": parts}}},
		"usageMetadata": map[string]any{
			"promptTokenCount": u.Input, "cachedContentTokenCount": u.Cached, "candidatesTokenCount": u.Output - u.Reasoning,
			"thoughtsTokenCount": u.Reasoning, "totalTokenCount": u.Input + u.Output,
		},
		"modelVersion": "gemini-standin",
		"responseId":   x.s.id("resp"),
	}
	if !stream {
		writeJSON(x.w, resp)
		return
	}
	newSSE(x.w).event("", resp)
}

func wantsJSON(cfg map[string]any) bool {
	return strings.Contains(str(cfg["responseMimeType"]), "json") || cfg["responseJsonSchema"] != nil || cfg["responseSchema"] != nil
}

// lowerTypes makes an OpenAPI-style schema (type "STRING", "ARRAY") readable as JSON schema.
func lowerTypes(schema map[string]any) map[string]any {
	if schema == nil {
		return nil
	}
	out := map[string]any{}
	for k, v := range schema {
		switch {
		case k == "type":
			if s, ok := v.(string); ok {
				v = strings.ToLower(s)
			}
		case k == "properties":
			props := map[string]any{}
			for name, p := range obj(v) {
				props[name] = lowerTypes(obj(p))
			}
			v = props
		}
		out[k] = v
	}
	return out
}
