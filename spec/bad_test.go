package spec

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// Every case is a real suite under testdata/bad/<case>/ or testdata/warn/<case>/. The test checks
// the exact `file:line:col: severity: key` prefix and a fragment of the message or fix. Cases
// under bad/ that are warnings by default (the value is ignored, as waza ignores it) must be
// errors under --strict: `validate --strict` catches every class of bad input.
func TestBadInputs(t *testing.T) {
	cases := []struct {
		name      string
		file      string // relative to the case folder
		line, col int
		sev       Severity
		key       string
		fragment  string
	}{
		{"bad/malformed-yaml", "eval.yaml", 4, 1, SevError, "", "invalid YAML: did not find expected key"},
		{"bad/malformed-task-yaml", "tasks/t.yaml", 2, 1, SevError, "", "invalid YAML: found unexpected end of stream"},
		{"bad/wrong-type", "eval.yaml", 2, 20, SevWarning, "config.trials_per_task", `expected an integer, got a string ("three")`},
		{"bad/wrong-type", "eval.yaml", 3, 13, SevWarning, "config.parallel", "expected true or false"},
		{"warn/unknown-top-level-key", "eval.yaml", 2, 1, SevWarning, "retry_policy", "unknown key `retry_policy` is ignored"},
		{"bad/unknown-grader-config-key", "eval.yaml", 5, 7, SevWarning, "graders[0].config.contain", "did you mean `contains`?"},
		{"bad/config-key-of-other-type", "eval.yaml", 5, 7, SevWarning, "graders[0].config.must_match", "(fix: `must_match` is a key of regex graders; text graders take: contains, contains_any, contains_cs, not_contains, not_contains_cs, pattern, regex_match, regex_not_match)"},
		{"bad/grader-missing-type", "eval.yaml", 2, 5, SevWarning, "graders[0]", "missing required key `type`; this grader errors in every run (fix: add `type:` with one of: code, text, regex,"},
		{"bad/unknown-task-grader-key", "tasks/t.yaml", 8, 5, SevWarning, "graders[0].wieght", "did you mean `weight`?"},
		{"bad/grader-without-type", "eval.yaml", 9, 9, SevError, "tasks[0].graders[0]", `no top-level grader is named "unknown" (fix: did you mean ` + "`known`" + `? top-level graders: known)`},
		{"bad/reference-unknown-in-expected", "eval.yaml", 9, 17, SevError, "tasks[0].expected.graders[0]", `no top-level grader is named "toen"`},
		{"bad/task-glob-no-match", "eval.yaml", 2, 5, SevError, "tasks[0]", `no file matches "tasks/**/*.yml"`},
		{"bad/missing-task-file", "eval.yaml", 3, 9, SevError, "tasks[0].task_files[0]", "task file tasks/gone.yaml not found"},
		{"bad/duplicate-task-ids", "tasks/b.yaml", 1, 5, SevWarning, "id", `duplicate task id "same" (also used at testdata/bad/duplicate-task-ids/tasks/a.yaml:1:5)`},
		{"bad/duplicate-grader-names", "eval.yaml", 5, 5, SevWarning, "graders[1]", `duplicate grader name "check" (first defined at testdata/bad/duplicate-grader-names/eval.yaml:2:5)`},
		{"bad/duplicate-task-grader-names", "eval.yaml", 6, 9, SevWarning, "tasks[0].graders[1]", `duplicate grader name "g"`},
		{"bad/inline-file-absolute", "eval.yaml", 6, 17, SevError, "tasks[0].inputs.files[0].path", `input file path "/etc/hosts" is absolute`},
		{"bad/inline-file-escaping", "eval.yaml", 6, 17, SevError, "tasks[0].inputs.files[0].path", `"a/../../secret.txt" escapes the workspace`},
		{"bad/missing-fixture-file", "eval.yaml", 6, 17, SevWarning, "tasks[0].inputs.files[0].path", `input file "src/main.py" not found in the context dir`},
		{"bad/missing-template-fixture", "eval.yaml", 4, 15, SevWarning, "tasks[0].inputs.prompt", `fixture "sample.go" not found in the context dir`},
		{"bad/csv-ragged-row", "data.csv", 3, 1, SevError, "", "row 2 has 3 columns, the header has 2"},
		{"bad/csv-escaping-path", "eval.yaml", 1, 13, SevError, "tasks_from", `tasks_from "../shared/data.csv" escapes the suite folder`},
		{"bad/csv-template-variable-missing", "data.csv", 2, 3, SevWarning, "prompt", `row 1: template variable "topic" is not defined`},
		{"bad/template-variable-missing", "eval.yaml", 6, 15, SevWarning, "tasks[0].inputs.prompt", `template variable "langauge" is not defined; the prompt is sent as written (fix: did you mean ` + "`language`"},
		{"bad/template-syntax", "eval.yaml", 4, 15, SevWarning, "tasks[0].inputs.prompt", "the prompt is not a valid template"},
		{"bad/range-out-of-order", "eval.yaml", 2, 8, SevError, "range", "range start 3 is after its end 2 (fix: write it as [2, 3])"},
		{"bad/trials-per-task-zero", "eval.yaml", 2, 20, SevWarning, "config.trials_per_task", "must be ≥ 1, got 0 (fix: use a value ≥ 1)"},
		{"bad/timeout-seconds-zero", "eval.yaml", 2, 20, SevWarning, "config.timeout_seconds", "must be ≥ 1, got 0"},
		{"bad/timeout-seconds-zero", "eval.yaml", 6, 22, SevWarning, "tasks[0].timeout_seconds", "must be ≥ 1, got 0"},
		{"bad/trigger-bad-confidence", "trigger_tests.yaml", 4, 17, SevWarning, "should_trigger_prompts[0].confidence", "unknown value `low`; it is ignored (fix: use one of: high, medium)"},
		{"bad/trigger-no-prompts", "trigger_tests.yaml", 1, 1, SevWarning, "", "trigger tests need at least one prompt"},
		{"bad/trigger-duplicate-ids", "trigger_tests.yaml", 6, 5, SevWarning, "should_not_trigger_prompts[0].id", `duplicate trigger prompt id "should-not-1"`},
		{"bad/required-skills-without-dirs", "eval.yaml", 2, 3, SevError, "config.required_skills", "required_skills needs skill_directories"},
		{"bad/required-skill-not-found", "eval.yaml", 3, 21, SevError, "config.required_skills[0]", "skills found: code-explainr"},
		{"bad/skill-directory-missing", "eval.yaml", 2, 31, SevWarning, "config.skill_directories[1]", "does not exist"},
		{"bad/duplicate-yaml-key", "eval.yaml", 4, 3, SevError, "model", `duplicate key "model" (first defined at testdata/bad/duplicate-yaml-key/eval.yaml:3:3)`},
		{"bad/unknown-anchor", "eval.yaml", 4, 13, SevError, "", "alias *common names no anchor"},
		{"bad/unknown-outcome-type", "eval.yaml", 6, 17, SevWarning, "tasks[0].expected.outcomes[0].type", "unknown value `file_created`; it is ignored (fix: use one of: task_completed, file_exists"},
		{"bad/should-trigger-without-skill", "eval.yaml", 5, 7, SevWarning, "tasks[0].expected.should_trigger", "needs the name of the skill under test"},
		{"bad/llm-key-on-text-grader", "eval.yaml", 4, 5, SevWarning, "graders[0].rubric", "a text grader does not take the key `rubric`"},
		{"bad/alias-and-key", "eval.yaml", 3, 3, SevWarning, "config.workers", "give only one of them"},
		{"bad/no-tasks", "eval.yaml", 1, 1, SevError, "tasks", "the suite has no tasks"},
		{"bad/inline-task-without-id", "eval.yaml", 2, 5, SevError, "tasks[0]", "missing required key `id`"},
		{"bad/task-without-prompt", "tasks/t.yaml", 3, 3, SevError, "inputs", "missing required key `prompt`"},
		{"bad/context-dir-missing", "tasks/t.yaml", 1, 14, SevWarning, "context_dir", "tasks/nowhere does not exist"},
		{"bad/metric-threshold-out-of-range", "eval.yaml", 3, 16, SevWarning, "metrics[0].threshold", "must be ≤ 1, got 1.5"},
		{"bad/csv-missing-prompt-column", "data.csv", 1, 1, SevError, "", "the CSV header has no prompt column (columns: id, question)"},
		{"bad/csv-range-start-beyond", "eval.yaml", 2, 8, SevError, "range", "range starts at row 5, but data.csv has 2 data rows"},
		{"bad/inputs-file-is-folder", "eval.yaml", 5, 22, SevWarning, "tasks[0].inputs.files[0].path", `input file "src" is a folder; the task runs without it, as in waza`},
		{"bad/task-file-two-documents", "tasks/t.yaml", 3, 1, SevWarning, "", "the file holds 2 YAML documents"},
		{"warn/expected-text-not-graded", "eval.yaml", 5, 7, SevWarning, "tasks[0].expected.output_contains", "expected.output_contains is not graded, as in waza v0.12, skillgate's reference (waza releases since March 2026 grade it as `_output_contains`) (fix: to check it, add a grader: {type: text, config: {contains: [\"Python\", \"JavaScript\"]}})"},
		{"warn/expected-text-not-graded", "eval.yaml", 7, 11, SevWarning, "tasks[0].expected.outcomes[0]", `outcome output_matches is not graded, as in waza`},
		{"warn/context-fixture-missing", "eval.yaml", 6, 18, SevWarning, "tasks[0].inputs.context.fixture", `inputs.context.fixture "not-here" not found next to eval.yaml; the task's runs error, as in waza`},
		{"bad/implicit-name-collision", "eval.yaml", 9, 7, SevWarning, "tasks[0].expected", `expected.behavior creates the grader "expected_behavior"`},
		{"bad/task-grader-missing-type", "eval.yaml", 5, 9, SevWarning, "tasks[0].graders[0]", `grader "g" has no type; it errors in every run (fix: add ` + "`type:`"},
		{"warn/one-glob-matches-nothing", "eval.yaml", 3, 5, SevWarning, "tasks[1]", `no file matches "more/*.yaml"; the other task patterns are used`},
		{"warn/unknown-metric", "eval.yaml", 2, 11, SevWarning, "metrics[0].name", "did you mean `trigger_accuracy`?"},
		{"warn/unknown-expected-key", "eval.yaml", 5, 7, SevWarning, "tasks[0].expected.output_contains_anything", "unknown key `output_contains_anything` is ignored (fix: did you mean `output_contains_any`?)"},
		{"warn/unknown-config-key", "eval.yaml", 2, 3, SevWarning, "config.verbose", "allowed keys: agent_args"},
		{"warn/group-by-other", "eval.yaml", 2, 13, SevWarning, "config.group_by", `group_by "executor" is not supported`},
		{"warn/outcome-condition", "eval.yaml", 6, 45, SevWarning, "tasks[0].expected.outcomes[0].condition", "not evaluated"},
		{"warn/llm-key-twice", "eval.yaml", 4, 5, SevWarning, "graders[0].model", "config.model is used"},
		{"warn/trigger-skill-mismatch", "trigger_tests.yaml", 1, 8, SevWarning, "skill", `trigger tests check the skill "beta", but eval.yaml's skill is "alpha"`},
		{"warn/csv-no-rows", "data.csv", 1, 1, SevWarning, "", "the CSV file has a header but no rows"},
		{"warn/assertions-twice", "eval.yaml", 7, 9, SevWarning, "tasks[0].graders[0].assertions", "the top-level list is used"},
	}

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join("testdata", filepath.FromSlash(c.name))
			_, diags := Load(filepath.Join(dir, "eval.yaml"), Options{})
			prefix := fmt.Sprintf("%s:%d:%d: %s: ", filepath.Join(dir, c.file), c.line, c.col, c.sev)
			if c.key != "" {
				prefix += c.key + ": "
			}
			found := false
			for _, d := range diags {
				if msg := d.Error(); strings.HasPrefix(msg, prefix) && strings.Contains(msg, c.fragment) {
					found = true
				}
			}
			if !found {
				t.Errorf("no diagnostic %q…%q; got:\n%s", prefix, c.fragment, render(diags))
			}
			if c.sev == SevError && !diags.HasErrors() {
				t.Errorf("diagnostics have no error")
			}
			if c.sev == SevWarning && diags.HasErrors() {
				t.Errorf("a warning case must load without errors; got:\n%s", render(diags))
			}
			if strings.HasPrefix(c.name, "bad/") && !diags.Strict().HasErrors() {
				t.Errorf("a bad input must be an error under --strict")
			}
		})
	}
}

func render(ds Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString("  " + d.Error() + "\n")
	}
	return b.String()
}

// Every problem is reported, not just the first, and in position order.
func TestAllProblemsSorted(t *testing.T) {
	_, diags := Load("testdata/bad/wrong-type/eval.yaml", Options{})
	if len(diags) != 2 {
		t.Fatalf("want 2 diagnostics, got:\n%s", render(diags))
	}
	_, diags = Load("testdata/bad/timeout-seconds-zero/eval.yaml", Options{})
	if len(diags) != 2 || diags[0].Pos.Line != 2 || diags[1].Pos.Line != 6 {
		t.Fatalf("want the two timeouts in line order, got:\n%s", render(diags))
	}
}

func TestMissingSuiteFile(t *testing.T) {
	_, diags := Load("testdata/bad/does-not-exist/eval.yaml", Options{})
	if !diags.HasErrors() || !strings.Contains(diags[0].Error(), "cannot read the suite") {
		t.Fatalf("got:\n%s", render(diags))
	}
}
