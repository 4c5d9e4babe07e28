package results

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestValidationsKeepKeyOrder(t *testing.T) {
	data := `{ "z\"q": {"score": 1, "details": {"a": [1, {"b": "}"}], "c": "\"{"}},
	  "a": {"identifier": "a", "feedback": "x, y: {z}"},
	  "m": {},
	  "a": {"identifier": "dup"} }`
	var v Validations
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range v {
		names = append(names, r.Name)
	}
	// Names come from identifier when present, else the key; a duplicate key keeps its first
	// position and, as encoding/json does, its last value.
	if got := strings.Join(names, "|"); got != `z"q|dup|m` {
		t.Errorf("order %q", got)
	}
	if err := json.Unmarshal([]byte(`null`), &v); err != nil || v != nil {
		t.Errorf("null: %v %v", v, err)
	}
	if err := json.Unmarshal([]byte(`[1]`), &v); err == nil {
		t.Error("an array is not validations")
	}
}

func FuzzObjectKeys(f *testing.F) {
	f.Add([]byte(`{"a": {"b": [1, "}"]}, "c\"": null}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil || m == nil {
			return
		}
		keys, err := objectKeys(data)
		if err != nil {
			t.Fatalf("valid object %q: %v", data, err)
		}
		if len(keys) != len(m) {
			t.Fatalf("%q: keys %q vs map %d", data, keys, len(m))
		}
		for _, k := range keys {
			if _, ok := m[k]; !ok {
				t.Fatalf("%q: key %q not in object", data, k)
			}
		}
	})
}
