package results

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Validations are a run's grader results in execution order. In JSON they are an object keyed by
// grader name, as waza writes them, but the keys keep execution order instead of being sorted.
type Validations []*GraderResult

// Get returns the result of the grader with that name, or nil.
func (v Validations) Get(name string) *GraderResult {
	for _, r := range v {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// MarshalJSON writes the results as one object in execution order.
func (v Validations) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, r := range v {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, err := json.Marshal(r.Name)
		if err != nil {
			return nil, err
		}
		buf.Write(key)
		buf.WriteByte(':')
		val, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		buf.Write(val)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// UnmarshalJSON reads an object, keeping its key order, or null (waza writes null for errored
// runs). Each member is decoded as it is found by a scan of the object, without a map between.
func (v *Validations) UnmarshalJSON(data []byte) error {
	*v = nil
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, []byte("null")) {
		return nil
	}
	out := Validations{}
	at := map[string]int{} // a duplicate key keeps its first place and its last value
	err := objectMembers(data, func(k, value []byte) error {
		key := string(k)
		r, err := decodeGraderResult(value)
		if err != nil {
			return err
		}
		if r == nil {
			r = &GraderResult{}
		}
		if r.Name == "" {
			r.Name = key
		}
		if i, dup := at[key]; dup {
			out[i] = r
			return nil
		}
		at[key] = len(out)
		out = append(out, r)
		return nil
	})
	if err != nil {
		return fmt.Errorf("validations: %w", err)
	}
	*v = out
	return nil
}

// objectKeys returns the top-level keys of a valid JSON object in order (a duplicate key is
// listed once, at its first position).
func objectKeys(data []byte) ([]string, error) {
	var keys []string
	seen := map[string]bool{}
	err := objectMembers(data, func(k, _ []byte) error {
		if key := string(k); !seen[key] {
			seen[key] = true
			keys = append(keys, key)
		}
		return nil
	})
	return keys, err
}

// objectMembers calls fn with each member of a valid JSON object, in order. The key is decoded
// only when it has escapes or non-ASCII bytes; otherwise it is the bytes between the quotes.
func objectMembers(data []byte, fn func(key, value []byte) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return fmt.Errorf("expected an object")
	}
	i++
	for {
		i = skipSpace(data, i)
		if i < len(data) && data[i] == '}' {
			return nil
		}
		if i < len(data) && data[i] == ',' {
			i = skipSpace(data, i+1)
		}
		if i >= len(data) || data[i] != '"' {
			return fmt.Errorf("malformed object at byte %d", i)
		}
		end := stringEnd(data, i)
		if end < 0 {
			return fmt.Errorf("unterminated key at byte %d", i)
		}
		key := data[i+1 : end-1]
		if !plainASCII(key) {
			var decoded string
			if err := json.Unmarshal(data[i:end], &decoded); err != nil {
				return err
			}
			key = []byte(decoded)
		}
		i = skipSpace(data, end)
		if i >= len(data) || data[i] != ':' {
			return fmt.Errorf("expected ':' at byte %d", i)
		}
		start := skipSpace(data, i+1)
		i = skipValue(data, start)
		if i < 0 {
			return fmt.Errorf("malformed value")
		}
		if err := fn(key, data[start:i]); err != nil {
			return err
		}
	}
}

// plainASCII reports whether a JSON string's content decodes to itself: printable ASCII without
// escapes.
func plainASCII(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index just past the string starting at data[i] == '"', or -1.
func stringEnd(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index just past the value starting at i, or -1.
func skipValue(data []byte, i int) int {
	depth := 0
	for i < len(data) {
		switch c := data[i]; c {
		case '"':
			if i = stringEnd(data, i); i < 0 {
				return -1
			}
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i
			}
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	if depth == 0 {
		return i
	}
	return -1
}
