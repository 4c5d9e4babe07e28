package spec

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/skillgate/skillgate/schemas"
)

// trustedDraft must skip meta-validation (its point) and nothing else.
func TestTrustedDraftSkipsOnlyMetaValidation(t *testing.T) {
	compile := func(d *jsonschema.Draft, schema string) (*jsonschema.Schema, error) {
		c := jsonschema.NewCompiler()
		c.Draft = d
		if err := c.AddResource("mem://s.json", strings.NewReader(schema)); err != nil {
			return nil, err
		}
		return c.Compile("mem://s.json")
	}
	// Valid to the compiler, invalid to the metaschema (required's items must be unique).
	const metaInvalid = `{"type": "object", "required": ["a", "a"]}`
	if _, err := compile(jsonschema.Draft2020, metaInvalid); err == nil {
		t.Fatal("Draft2020 accepted a schema its metaschema rejects; the test no longer tells anything")
	}
	if _, err := compile(trustedDraft, metaInvalid); err != nil {
		t.Fatalf("trustedDraft still meta-validates: %v", err)
	}
	const schema = `{"type": "object", "properties": {"a": {"prefixItems": [{"type": "string"}], "items": false}}, "additionalProperties": false}`
	for _, d := range []*jsonschema.Draft{jsonschema.Draft2020, trustedDraft} {
		s, err := compile(d, schema)
		if err != nil {
			t.Fatal(err)
		}
		for doc, valid := range map[string]bool{`{"a": ["x"]}`: true, `{"a": ["x", "y"]}`: false, `{"a": [1]}`: false, `{"b": 1}`: false} {
			var v any
			json.Unmarshal([]byte(doc), &v)
			if got := s.Validate(v) == nil; got != valid {
				t.Errorf("%s: %s valid = %v, want %v", d, doc, got, valid)
			}
		}
	}
}

// Without a metaschema every vocabulary is on, format and content assertion included; the
// embedded schemas must not use those keywords for trustedDraft to validate as draft 2020-12.
func TestEmbeddedSchemasUseNoAssertingAnnotations(t *testing.T) {
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				switch k {
				case "format", "contentEncoding", "contentMediaType", "contentSchema", "$vocabulary", "$dynamicAnchor", "$dynamicRef":
					if _, isSchema := e.(map[string]any); !isSchema || k == "contentSchema" {
						t.Errorf("%s/%s: keyword %s would validate differently without the metaschema", path, k, k)
					}
				}
				walk(path+"/"+k, e)
			}
		case []any:
			for _, e := range v {
				walk(path, e)
			}
		}
	}
	for _, name := range []string{schemas.EvalFile, schemas.TaskFile, schemas.TriggerTestsFile} {
		var doc any
		if err := json.Unmarshal(schemas.Bytes(name), &doc); err != nil {
			t.Fatal(err)
		}
		walk(name+"#", doc)
	}
}
