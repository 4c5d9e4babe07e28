package schemas

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/skillgate/skillgate/schemas/internal/build"
)

// The checked-in files must be exactly what internal/build generates.
func TestFilesAreGenerated(t *testing.T) {
	for name, def := range build.Files() {
		want, err := build.Render(def)
		if err != nil {
			t.Fatal(err)
		}
		if got := Bytes(name); !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run `go generate ./schemas`", name)
		}
	}
}

func compile(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(BaseURL+name, bytes.NewReader(Bytes(name))); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(BaseURL + name)
	if err != nil {
		t.Fatalf("%s does not compile: %v", name, err)
	}
	return s
}

func TestGraderTypesFromSchema(t *testing.T) {
	got := GraderTypes()
	if strings.Join(got, ",") != strings.Join(build.GraderTypes, ",") {
		t.Fatalf("GraderTypes() = %v, want %v", got, build.GraderTypes)
	}
	for _, typ := range got {
		if !strings.Contains(string(Bytes(EvalFile)), `"`+build.ConfigDefName(typ)+`"`) {
			t.Errorf("no config definition for grader type %s", typ)
		}
	}
}

func TestSchemasValidate(t *testing.T) {
	cases := []struct {
		schema string
		doc    string
		valid  bool
		want   string // fragment of the error when invalid
	}{
		{EvalFile, `{"name":"s","config":{"trials_per_task":2,"executor":"claude-code"},"tasks":["tasks/*.yaml",{"task_files":["a/**/*.yaml"]},{"id":"t","inputs":{"prompt":"hi"}}]}`, true, ""},
		{EvalFile, `{"config":{"executor":"gpt"}}`, false, "value must be one of"},
		{EvalFile, `{"config":{"trials_per_task":0}}`, false, "must be >= 1"},
		{EvalFile, `{"graders":[{"type":"text","name":"t","config":{"contains":["a"],"regex_match":["b"]}}]}`, true, ""},
		{EvalFile, `{"graders":[{"type":"text","name":"t","config":{"contain":["a"]}}]}`, false, "additionalProperties 'contain' not allowed"},
		{EvalFile, `{"graders":[{"type":"textual","name":"t"}]}`, false, "value must be one of"},
		{EvalFile, `{"graders":[{"name":"t","config":{}}]}`, false, "missing properties: 'type'"},
		{EvalFile, `{"graders":[{"type":"llm","name":"j","model":"m","rubric":"r","threshold":0.5}]}`, true, ""},
		{EvalFile, `{"graders":[{"type":"text","name":"j","model":"m"}]}`, false, "not allowed"},
		{EvalFile, `{"graders":[{"type":"program","name":"p"}]}`, false, "missing properties: 'config'"},
		{EvalFile, `{"graders":[{"type":"tool_constraint","name":"c","config":{"expect_tools":["bash",{"tool":"edit","path_pattern":"x"}],"max_turns":3}}]}`, true, ""},
		{EvalFile, `{"graders":[{"type":"tool_constraint","name":"c","config":{"expect_tools":[{"tool":"edit","pattern":"x"}]}}]}`, false, "additionalProperties 'pattern' not allowed"},
		{EvalFile, `{"tasks":[{"inputs":{"prompt":"x"}}]}`, false, "missing properties: 'id'"},
		{EvalFile, `{"unknown_top":1}`, false, "additionalProperties 'unknown_top' not allowed"},
		{TaskFile, `{"inputs":{"prompt":"x","files":[{"path":"a.txt"}]},"expected":{"output_contains":"x","graders":["g",{"name":"h"},{"type":"code","name":"c","assertions":["len(output) > 0"]}]}}`, true, ""},
		{TaskFile, `{"inputs":{"prompt":"x"},"graders":[{"type":"text","name":"t","assertions":["x"]}]}`, false, "not allowed"},
		{TaskFile, `{"inputs":{"prompt":"x"},"expected":{"outcomes":[{"type":"file_created","value":"a"}]}}`, false, "value must be one of"},
		{TriggerTestsFile, `{"skill":"s","should_trigger_prompts":[{"prompt":"p","confidence":"medium"}]}`, true, ""},
		{TriggerTestsFile, `{"skill":"s","should_trigger_prompts":[{"prompt":"p","confidence":"low"}]}`, false, "value must be one of"},
		{TriggerTestsFile, `{"should_trigger_prompts":[]}`, false, "missing properties: 'skill'"},
	}
	compiled := map[string]*jsonschema.Schema{}
	for _, name := range []string{EvalFile, TaskFile, TriggerTestsFile} {
		compiled[name] = compile(t, name)
	}
	for _, c := range cases {
		var v any
		if err := json.Unmarshal([]byte(c.doc), &v); err != nil {
			t.Fatal(err)
		}
		err := compiled[c.schema].Validate(v)
		if c.valid && err != nil {
			t.Errorf("%s %s: unexpected error %#v", c.schema, c.doc, err)
		}
		if !c.valid {
			if err == nil {
				t.Errorf("%s %s: no error", c.schema, c.doc)
			} else if !strings.Contains(goString(err), c.want) {
				t.Errorf("%s %s: error %s lacks %q", c.schema, c.doc, goString(err), c.want)
			}
		}
	}
}

func goString(err error) string {
	if ve, ok := err.(*jsonschema.ValidationError); ok {
		return ve.GoString()
	}
	return err.Error()
}

func TestStrictMarkers(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(Bytes(EvalFile), &doc); err != nil {
		t.Fatal(err)
	}
	defs := doc["$defs"].(map[string]any)
	for _, name := range []string{"graderItem", "config_text", "config_diff"} {
		if defs[name].(map[string]any)[StrictKey] != "error" {
			t.Errorf("%s is not strict", name)
		}
	}
	for _, name := range []string{"config", "task", "expected", "hook"} {
		if _, ok := defs[name].(map[string]any)[StrictKey]; ok {
			t.Errorf("%s should report unknown keys as warnings", name)
		}
	}
}
