package agent

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// argumentsOf turns a tool call's arguments into the transcript's object form. Agents send an
// object, sometimes an object encoded as a JSON string (OpenAI-style function arguments); any
// other value is kept under "input" rather than dropped.
func argumentsOf(raw json.RawMessage) map[string]any {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil
	}
	return argumentsValue(v)
}

func argumentsValue(v any) map[string]any {
	switch t := v.(type) {
	case nil:
		return nil
	case map[string]any:
		return t
	case string:
		var m map[string]any
		if strings.HasPrefix(strings.TrimSpace(t), "{") && json.Unmarshal([]byte(t), &m) == nil {
			return m
		}
		if t == "" {
			return nil
		}
	}
	return map[string]any{"input": v}
}

// textOf returns the text of a content value: a string, or an array of content blocks whose
// text parts are joined (Anthropic-style `[{"type":"text","text":…}]`). Anything else is
// returned as compact JSON so nothing is lost.
func textOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '[':
		var blocks []struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(raw, &blocks) == nil {
			var parts []string
			allText := true
			for _, bl := range blocks {
				if bl.Text == nil {
					allText = false
					break
				}
				parts = append(parts, *bl.Text)
			}
			if allText {
				return strings.Join(parts, "\n")
			}
		}
	}
	return string(compact(raw))
}

// valueOf decodes a JSON value into the transcript's `any` form: strings stay strings, content
// block arrays of text become their text, other values are decoded generically.
func valueOf(raw json.RawMessage) any {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if raw[0] == '"' || raw[0] == '[' {
		s := textOf(raw)
		if raw[0] == '"' || !strings.HasPrefix(s, "[") {
			return s
		}
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return v
}

// stringOf renders a decoded JSON scalar as text (numbers without exponent noise).
func stringOf(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case json.Number:
		return t.String()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// isJSONObject reports whether a line looks like a JSON object (cheap check before decoding).
func isJSONObject(line []byte) bool {
	line = bytes.TrimSpace(line)
	return len(line) > 1 && line[0] == '{'
}
