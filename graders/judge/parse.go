package judge

import (
	"encoding/json"
	"strings"
)

// maxObjects bounds how many candidate objects JSONObjects returns from one reply.
const maxObjects = 32

// maxStarts bounds how many opening braces of prose are tried as the start of an object.
const maxStarts = 256

// JSONObjects finds the JSON objects in a model's reply, in order: the whole reply when it is
// one object, else the objects inside fenced code blocks, else every balanced {…} span of the
// prose that parses. Models asked for JSON often wrap it in a fence or a sentence; endpoints
// without response_format support do so most.
func JSONObjects(text string) []map[string]any {
	text = strings.TrimSpace(text)
	if obj, ok := parseObject(text); ok {
		return []map[string]any{obj}
	}
	var out []map[string]any
	for _, block := range fencedBlocks(text) {
		if obj, ok := parseObject(strings.TrimSpace(block)); ok {
			out = append(out, obj)
		}
	}
	if len(out) > 0 {
		return out
	}
	// Each start scans to its closing brace; bounding the starts keeps a reply full of stray
	// braces linear.
	starts := 0
	for i := 0; i < len(text) && len(out) < maxObjects && starts < maxStarts; i++ {
		if text[i] != '{' {
			continue
		}
		starts++
		end := balancedEnd(text, i)
		if end < 0 {
			continue
		}
		if obj, ok := parseObject(text[i : end+1]); ok {
			out = append(out, obj)
			i = end
		}
	}
	return out
}

func parseObject(s string) (map[string]any, bool) {
	if !strings.HasPrefix(s, "{") {
		return nil, false
	}
	var obj map[string]any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&obj); err != nil || obj == nil {
		return nil, false
	}
	if dec.More() {
		return nil, false
	}
	return obj, true
}

// fencedBlocks returns the contents of ``` fences (any info string, e.g. ```json).
func fencedBlocks(text string) []string {
	var out []string
	rest := text
	for len(out) < maxObjects {
		start := strings.Index(rest, "```")
		if start < 0 {
			break
		}
		body := rest[start+3:]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.Contains(body[:nl], "{") {
			body = body[nl+1:] // skip the info string
		}
		end := strings.Index(body, "```")
		if end < 0 {
			break
		}
		out = append(out, body[:end])
		rest = body[end+3:]
	}
	return out
}

// balancedEnd returns the index of the } closing the { at start, skipping braces inside JSON
// strings; -1 when it is not closed.
func balancedEnd(s string, start int) int {
	depth := 0
	inString, escaped := false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}
