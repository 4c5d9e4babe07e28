package spec

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/schemas"
)

func validateBothWays(t *testing.T, name string, data []byte, schemaName string) {
	t.Helper()
	doc, _ := parseYAML(name, data)
	if doc.Root == nil {
		return
	}
	run := func(full bool) []string {
		validateWithFullSchema = full
		defer func() { validateWithFullSchema = false }()
		var out []string
		for _, d := range validateSchema(doc, schemaName) {
			out = append(out, d.Error())
		}
		sort.Strings(out)
		return out
	}
	full, fast := run(true), run(false)
	if !reflect.DeepEqual(full, fast) {
		t.Errorf("%s (%s): two-step validation differs from the published schema\nfull:\n  %s\nfast:\n  %s",
			name, schemaName, strings.Join(full, "\n  "), strings.Join(fast, "\n  "))
	}
}

// The loader's two-step validation of grader declarations reports exactly what validating with
// the published schema reports, for every suite file in testdata and for crafted grader cases.
func TestTwoStepValidationMatchesSchema(t *testing.T) {
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (filepath.Ext(p) != ".yaml" && filepath.Ext(p) != ".yml") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, s := range []string{schemas.EvalFile, schemas.TaskFile, schemas.TriggerTestsFile} {
			validateBothWays(t, p, data, s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	crafted := []string{
		"graders:\n  - {type: text, name: a, config: {contain: [x]}, model: m}\n  - {type: program, name: p}\n  - {type: llm, name: j, rubric: r, config: {threshold: 2}}\n  - {type: nope, assertions: [x]}\n  - text\n",
		"tasks:\n  - id: t\n    inputs: {prompt: p}\n    graders: [{type: code, assertions: [1]}, {type: regex, name: r, assertions: [x], config: {must_match: x}}]\n    expected: {graders: [g, {type: diff, name: d, config: {expected_files: [{snapshot: s}]}}]}\n  - task_files: [x]\n    graders: [{type: text, config: {bad: 1}}]\n",
		"graders:\n  - type: tool_constraint\n    name: c\n    config: {expect_tools: [bash, {tool: x, pattern: y}], max_turns: -1}\n  - {type: trigger, name: tr, config: {skill: s}}\n",
	}
	for i, c := range crafted {
		validateBothWays(t, "crafted-"+string(rune('a'+i))+".yaml", []byte(c), schemas.EvalFile)
		validateBothWays(t, "crafted-"+string(rune('a'+i))+".yaml", []byte(c), schemas.TaskFile)
	}
}
