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

// UnmarshalJSON reads an object (in key order) or null (waza writes null for errored runs).
func (v *Validations) UnmarshalJSON(data []byte) error {
	*v = nil
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return fmt.Errorf("validations: expected an object, got %v", tok)
	}
	for dec.More() {
		keyTok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := keyTok.(string)
		r := &GraderResult{}
		if err := dec.Decode(r); err != nil {
			return fmt.Errorf("validations[%q]: %w", key, err)
		}
		if r.Name == "" {
			r.Name = key
		}
		*v = append(*v, r)
	}
	_, err = dec.Token() // closing brace
	return err
}
