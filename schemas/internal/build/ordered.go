// Package build describes skillgate's JSON Schemas in Go so the shared definitions (graders,
// tasks) are written once and copied into each self-contained schema file. `go generate` in the
// schemas folder writes the files; a test keeps them in sync.
package build

import (
	"bytes"
	"encoding/json"
)

// Obj is a JSON object that keeps its keys in insertion order, so the generated files read
// naturally ($schema first, properties in the order the docs list them).
type Obj struct {
	keys []string
	vals map[string]any
}

// O builds an object from alternating keys and values.
func O(kv ...any) *Obj {
	o := &Obj{vals: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// Set adds or replaces a key (a replaced key keeps its place).
func (o *Obj) Set(k string, v any) *Obj {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
	return o
}

// Get returns a key's value.
func (o *Obj) Get(k string) any { return o.vals[k] }

// Keys returns the keys in order.
func (o *Obj) Keys() []string { return o.keys }

// MarshalJSON writes the keys in insertion order.
func (o *Obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := marshal(o.vals[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// Render returns the indented JSON text of a schema, ending in a newline.
func Render(o *Obj) ([]byte, error) {
	raw, err := marshal(o)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
