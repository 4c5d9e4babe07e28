package graders

import (
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func TestJSONSchema(t *testing.T) {
	cases := []struct {
		name, grader, output string
		score                float64
		feedback             string // prefix
	}{
		{"valid", "api_response", `{"status": "success", "data": {}}`, 1, "Output matches JSON schema"},
		{"valid inside a single json fence", "api_response", "```json\n{\"status\": \"error\", \"data\": {\"x\": 1}}\n```\n", 1, "Output matches JSON schema"},
		{"valid inside a bare fence", "api_response", "```\n{\"status\": \"error\", \"data\": {}}\n```", 1, "Output matches JSON schema"},
		{"prose around JSON is not JSON", "api_response", "Here you go: {\"status\": \"success\", \"data\": {}}", 0, "Output is not valid JSON: "},
		{"two fenced blocks are not one", "api_response", "```json\n{}\n```\ntext\n```json\n{}\n```", 0, "Output is not valid JSON: "},
		{"trailing data", "api_response", `{"status": "success", "data": {}} {}`, 0, "Output is not valid JSON: unexpected data after the JSON value"},
		{"mock output", "api_response", "Mock response for: Explain this", 0, "Output is not valid JSON: invalid character 'M'"},
		{"schema violations are listed", "api_response", `{"status": "ok"}`, 0, "Schema validation failed: "},
		{"schema_file relative to the declaring file", "validate_manifest", `{"name": "app", "version": "1.2.3"}`, 1, "Output matches JSON schema"},
		{"schema_file violation", "validate_manifest", `{"name": "", "version": "1.2"}`, 0, "Schema validation failed: "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := grade(t, mustCompile(t, seedDef(t, "json_schema.yaml", c.grader)), &Input{Run: runWith(c.output)})
			if r.Score != c.score || r.Passed != (c.score == 1) || !strings.HasPrefix(r.Feedback, c.feedback) {
				t.Errorf("got %.1f %v %q", r.Score, r.Passed, r.Feedback)
			}
		})
	}
	r := grade(t, mustCompile(t, seedDef(t, "json_schema.yaml", "api_response")), &Input{Run: runWith(`{"status": "ok"}`)})
	fs := r.Details["failures"].([]string)
	if len(fs) != 2 || !strings.Contains(strings.Join(fs, "\n"), "/: missing properties: 'data'") || !strings.Contains(strings.Join(fs, "\n"), "/status: value must be one of") {
		t.Errorf("failures: %q", fs)
	}
	r = grade(t, mustCompile(t, seedDef(t, "json_schema.yaml", "api_response")), &Input{Run: runWith("nope")})
	if _, ok := r.Details["error"].(string); !ok {
		t.Errorf("details: %v", r.Details)
	}
}

func TestJSONSchemaCompileErrors(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"broken.json":     `{"type": `,
		"invalid.json":    `{"type": 5}`,
		"schema.yaml":     "type: object\nrequired: [a]\n",
		"bad.yaml":        "type: [",
		"ref.json":        `{"$ref": "other.json"}`,
		"other.json":      `{"type": "string"}`,
		"remote-ref.json": `{"$ref": "https://example.com/s.json"}`,
	})
	checkCompileErrors(t, []compileErrorCase{
		{"both", "type: json_schema\nname: j\nconfig:\n  schema: {type: object}\n  schema_file: x.json\n", "5:16", "both schema and schema_file are set"},
		{"missing file", "type: json_schema\nname: j\nconfig:\n  schema_file: nope.json\n", "4:16", "schema file nope.json not found"},
		{"not JSON", "type: json_schema\nname: j\nconfig:\n  schema_file: broken.json\n", "4:16", "is not valid JSON"},
		{"not YAML", "type: json_schema\nname: j\nconfig:\n  schema_file: bad.yaml\n", "4:16", "is not valid YAML"},
		{"not a schema", "type: json_schema\nname: j\nconfig:\n  schema_file: invalid.json\n", "4:16", "not a valid JSON Schema"},
		{"inline not a schema", "type: json_schema\nname: j\nconfig:\n  schema:\n    type: 5\n", "5:5", "not a valid JSON Schema"},
		{"remote refs are not fetched", "type: json_schema\nname: j\nconfig:\n  schema_file: remote-ref.json\n", "4:16", "not a valid JSON Schema"},
	}, func(def *spec.Grader) { def.Dir = dir })
	// YAML schema files and relative $refs work.
	for _, file := range []string{"schema.yaml", "ref.json"} {
		def := defFromYAML(t, "type: json_schema\nname: j\nconfig:\n  schema_file: "+file+"\n")
		def.Dir = dir
		g := mustCompile(t, def)
		if file == "ref.json" {
			assertResult(t, grade(t, g, &Input{Run: runWith(`"text"`)}), 1, true, "Output matches JSON schema")
			assertResult(t, grade(t, g, &Input{Run: runWith(`3`)}), 0, false, "Schema validation failed: /: expected string, but got number")
		} else {
			assertResult(t, grade(t, g, &Input{Run: runWith(`{"a": 1}`)}), 1, true, "Output matches JSON schema")
		}
	}
}

// A schema whose nested $ids collide (as form-js's does, used by camunda/skills) is graded
// without them, with a warning, instead of refusing the suite.
func TestJSONSchemaCollidingNestedIDs(t *testing.T) {
	def := defFromYAML(t, `type: json_schema
name: j
config:
  schema:
    $schema: http://json-schema.org/draft-07/schema
    $id: http://example.com/form
    type: object
    required: [a]
    properties:
      $id: {type: string}
      a: {$id: "/#component/a", type: boolean}
      b: {$id: "/#component/b", type: boolean}
`)
	g, diags := CompileOne(def, &Env{})
	if diags.HasErrors() || !strings.Contains(diagText(diags), "subschemas share a canonical URI); it is used without its nested $id keys") {
		t.Fatalf("diags: %v", diags)
	}
	assertResult(t, grade(t, g, &Input{Run: runWith(`{"a": true, "$id": "x"}`)}), 1, true, "Output matches JSON schema")
	if r := grade(t, g, &Input{Run: runWith(`{"a": 1}`)}); r.Passed {
		t.Errorf("a wrong type must fail: %+v", r)
	}
}

// extract_json, skip_if_no_match and description: keys real suites write (waza ignores them).
func TestJSONSchemaExtractAndSkip(t *testing.T) {
	base := "type: json_schema\nname: j\nconfig:\n  description: the answer object\n  schema: {type: object, required: [ok]}\n"
	extract := mustCompile(t, defFromYAML(t, base+"  extract_json: true\n"))
	r := grade(t, extract, &Input{Run: runWith("Here it is:\n\n```json\n{\"ok\": true}\n```\nDone.")})
	assertResult(t, r, 1, true, "Output matches JSON schema")
	if r.Details["description"] != "the answer object" {
		t.Errorf("details %v", r.Details)
	}
	assertResult(t, grade(t, extract, &Input{Run: runWith(`The result {"ok": 1} and {"x": 2}`)}), 1, true, "Output matches JSON schema")
	assertResult(t, grade(t, extract, &Input{Run: runWith(`Only {"x": 2}`)}), 0, false, "Schema validation failed: /: missing properties: 'ok'")
	plain := mustCompile(t, defFromYAML(t, base))
	if r := grade(t, plain, &Input{Run: runWith(`The result {"ok": 1}`)}); r.Passed {
		t.Errorf("without extract_json prose is not JSON: %+v", r)
	}
	skip := mustCompile(t, defFromYAML(t, base+"  extract_json: true\n  skip_if_no_match: true\n"))
	r = grade(t, skip, &Input{Run: runWith("No JSON here.")})
	if r.Status != results.StatusSkipped || !strings.Contains(r.Feedback, "Skipped") {
		t.Errorf("skip_if_no_match: %+v", r)
	}
}
