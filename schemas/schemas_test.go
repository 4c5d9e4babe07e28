package schemas

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/skillgate/skillgate/agent"
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
	want, err := build.LoaderSource()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(build.LoaderFile); err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is stale (%v): run `go generate ./schemas`", build.LoaderFile, err)
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
		{EvalFile, `{"config":{"executor":"gpt"}}`, true, ""}, // checked against the executors of the build when the suite runs
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
		{ResultsFile, `{"schema_version":1,"eval_name":"s","config":{"shard":{"index":2,"count":4,"method":"hash"}},"summary":{},"tasks":[{"test_id":"t","status":"passed","runs":[{"status":"passed","validations":{"g":{"identifier":"g","score":1,"passed":true,"status":""}},"changed_files":[{"path":"a.txt","change":"added"}]}]}],"baseline_outcome":{"schema_version":1,"eval_name":"s","config":{},"summary":{},"tasks":[]}}`, true, ""},
		{ResultsFile, `{"schema_version":1,"eval_name":"s","config":{},"summary":{},"tasks":[{"test_id":"t","status":"great"}]}`, false, "value must be one of"},
		{ResultsFile, `{"schema_version":1,"eval_name":"s","config":{},"summary":{},"tasks":[{"test_id":"t","status":"passed","runs":[{"status":"passed","changed_files":[{"path":"a","change":"renamed"}]}]}]}`, false, "value must be one of"},
		{ResultsFile, `{"schema_version":1,"eval_name":"s","config":{},"summary":{},"tasks":[],"baseline_outcome":{"eval_name":"s"}}`, false, "missing properties"},
		{ResultsFile, `{"eval_name":"s","tasks":[]}`, false, "missing properties"},
		{PRFile, `{"version":1,"number":7,"head_sha":"4c2e8a6b0d9f1e3c5a7b9d1f3e5c7a9b1d3f5e71","head_repo":"octodev/demo","head_ref":"main","base_ref":"main","base_sha":"9a1f0c3b5d7e2f4a6c8b0d1e3f5a7c9b1d3e5f70","key":"evals/1a2b3c4d","workflow":"evals.yml","needs_report":true,"reason":"fork","suites":[{"name":"greet","results":"results/greet.json","suite_file":"evals/greet/eval.yaml"}],"unaffected":[],"skillgate_version":"v1","deferred_grades":2}`, true, ""},
		{PRFile, `{"version":1,"number":0}`, false, "must be >= 1"},
		{PRFile, `{"version":2}`, false, `value must be "1"`},
		{PRFile, `{"version":1,"number":7,"head_sha":"4c2e8a6b0d9f1e3c5a7b9d1f3e5c7a9b1d3f5e71","head_repo":"octodev/demo","head_ref":"main","base_ref":"main","base_sha":"9a1f0c3b5d7e2f4a6c8b0d1e3f5a7c9b1d3e5f70","key":"evals; rm -rf /","workflow":"evals.yml","needs_report":true,"reason":"","suites":[],"unaffected":[],"skillgate_version":"","deferred_grades":0}`, false, "does not match pattern"},
		{PRFile, `{"version":1,"number":7,"head_sha":"4c2e8a6b0d9f1e3c5a7b9d1f3e5c7a9b1d3f5e71","head_repo":"octodev/demo","head_ref":"main","base_ref":"main","base_sha":"9a1f0c3b5d7e2f4a6c8b0d1e3f5a7c9b1d3e5f70","key":"evals","workflow":"evals.yml","needs_report":true,"reason":"","suites":[{"name":"g","results":"../../x.json","suite_file":"e"}],"unaffected":[],"skillgate_version":"","deferred_grades":0}`, false, "does not match pattern"},
	}
	compiled := map[string]*jsonschema.Schema{}
	for _, name := range []string{EvalFile, TaskFile, TriggerTestsFile, ResultsFile, PRFile} {
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

// The schema's description of config.executor names every executor of the build.
func TestExecutorsAreTheBuilds(t *testing.T) {
	if got, want := strings.Join(slices.Sorted(slices.Values(build.Executors)), ","), strings.Join(agent.Names(), ","); got != want {
		t.Errorf("build.Executors = %s\nagent.Names()   = %s", got, want)
	}
}
