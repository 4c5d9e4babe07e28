package graders

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// benchOutput is a 10 KB agent answer.
var benchOutput = func() string {
	var b strings.Builder
	for i := 0; b.Len() < 10*1024-120; i++ {
		fmt.Fprintf(&b, "Step %d: the deployment of service-%d succeeded; 3 files analyzed, no problems found; success.\n", i, i)
	}
	b.WriteString("Success: deployed to https://app.example.com. Resource group: rg-prod. Summary: done.\n")
	return b.String()
}()

func benchRun() *results.AgentRun {
	ok := true
	opts := []func(*results.AgentRun){withDuration(4200), withUsage(12000, 3000, 6), withSkills("azure-prepare", "azure-deploy")}
	var events []results.Event
	for i := 0; i < 10; i++ {
		args := map[string]any{"command": fmt.Sprintf("git commit -m 'step %d'", i)}
		opts = append(opts, withCall("bash", args))
		events = append(events,
			results.Event{Type: "message", Role: "assistant", Content: fmt.Sprintf("Running step %d", i)},
			results.Event{Type: "tool_call", Name: "bash", Arguments: args, Result: "ok", Success: &ok})
	}
	opts = append(opts, withEvents(events...))
	return runWith(benchOutput, opts...)
}

var benchAssertions = map[string][]string{
	"python": {
		"'success' in output",
		"len(output) > 100",
		"re.search(r'deployed to https?://\\S+', output) != None",
		"output.startswith('Step 0')",
		"len(errors) == 0",
		"len(tool_calls) <= 20",
		"all([c['success'] for c in tool_calls])",
		"duration_ms < 60000",
		"'Summary' in output[-200:]",
		"'no problems' in output.lower()",
	},
	"javascript": {
		"output.includes('success')",
		"output.length > 100",
		"/deployed to https?:\\/\\/\\S+/.test(output)",
		"output.startsWith('Step 0')",
		"errors.length === 0",
		"tool_calls.length <= 20",
		"tool_calls.every(c => c.success)",
		"duration_ms < 60000",
		"output.slice(-200).includes('Summary')",
		"output.toLowerCase().includes('no problems')",
	},
	"expr": {
		"output contains 'success'",
		"len(output) > 100",
		"output matches 'deployed to https?://\\\\S+'",
		"output startsWith 'Step 0'",
		"len(errors) == 0",
		"len(tool_calls) <= 20",
		"all(tool_calls, .success)",
		"duration_ms < 60000",
		"output endsWith 'done.\\n'",
		"lower(output) contains 'no problems'",
	},
}

func codeDef(b testing.TB, lang string, assertions []string) *spec.Grader {
	var y strings.Builder
	y.WriteString("type: code\nname: bench\nconfig:\n  language: " + lang + "\n  assertions:\n")
	for _, a := range assertions {
		fmt.Fprintf(&y, "    - %q\n", a)
	}
	return defFromYAML(b, y.String())
}

// BenchmarkAssertionEval measures one evaluation of a compiled assertion against a 10 KB
// output, the run's context already built (it is built once per run).
func BenchmarkAssertionEval(b *testing.B) {
	run := benchRun()
	for _, lang := range []string{"python", "javascript", "expr"} {
		for i, a := range benchAssertions[lang] {
			g := mustCompile(b, codeDef(b, lang, []string{a})).(*codeGrader)
			b.Run(fmt.Sprintf("%s/%d", lang, i), func(b *testing.B) {
				ev := g.engine.begin(newEvalContext(run, g.needs))
				defer ev.end()
				b.ReportAllocs()
				for b.Loop() {
					if ok, errText := ev.eval(0); !ok {
						b.Fatalf("%s failed: %s", a, errText)
					}
				}
			})
		}
	}
}

// BenchmarkCodeGrader measures a whole code grader with 10 assertions on one run, context
// building included; evals/s counts assertions.
func BenchmarkCodeGrader(b *testing.B) {
	run := benchRun()
	in := &Input{Run: run}
	for _, lang := range []string{"python", "javascript", "expr"} {
		g := mustCompile(b, codeDef(b, lang, benchAssertions[lang]))
		b.Run(lang, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := g.Grade(context.Background(), in)
				if err != nil || !r.Passed {
					b.Fatalf("%v %s", err, r.Feedback)
				}
			}
			b.ReportMetric(float64(b.N*len(benchAssertions[lang]))/b.Elapsed().Seconds(), "evals/s")
		})
	}
}

// BenchmarkDeterministicTask grades one run with one grader of every deterministic type.
func BenchmarkDeterministicTask(b *testing.B) {
	ws := writeFiles(b, map[string]string{
		"README.md":       "# App\n\n## Installation\n\nnpm install\n",
		"src/config.json": "{\"port\": 8080}\n",
		"src/main.py":     "def new_function():\n    return 42\n",
	})
	fixtures := seedFixtures(&testing.T{})
	suite := &spec.Suite{Skill: "azure-deploy", ContextDir: fixtures}
	defs := []string{
		"type: text\nname: text\nconfig:\n  contains: [deployed to, resource group]\n  not_contains: [permission denied]\n  regex_match: ['https?://.+']\n  regex_not_match: ['(?i)fatal error|exception']\n",
		"type: regex\nname: regex\nconfig:\n  must_match: ['deployed to .+']\n  must_not_match: ['permission denied']\n",
		"type: file\nname: file\nconfig:\n  must_exist: [README.md, src/main.py]\n  must_not_exist: [.env]\n  content_patterns:\n    - path: README.md\n      must_match: ['## Installation']\n",
		"type: diff\nname: diff\nconfig:\n  expected_files:\n    - path: src/config.json\n      snapshot: expected/config.json\n    - path: src/main.py\n      contains: ['+def new_function():', '-def old_function():']\n",
		"type: behavior\nname: behavior\nconfig:\n  max_tool_calls: 20\n  max_tokens: 20000\n  max_duration_ms: 60000\n  required_tools: [bash]\n  forbidden_tools: [sudo]\n",
		"type: action_sequence\nname: action_sequence\nconfig:\n  matching_mode: in_order_match\n  expected_actions: [bash, bash]\n",
		"type: skill_invocation\nname: skill_invocation\nconfig:\n  mode: in_order\n  required_skills: [azure-prepare, azure-deploy]\n",
		"type: tool_calls\nname: tool_calls\nconfig:\n  required: [{pattern: git commit}]\n  forbidden: [{pattern: rm -rf}]\n  max_calls: 20\n",
		"type: tool_constraint\nname: tool_constraint\nconfig:\n  expect_tools: [bash]\n  reject_tools: [{tool: bash, command_pattern: 'rm\\s+-rf'}]\n  max_turns: 10\n  max_tokens: 20000\n",
		"type: trigger\nname: trigger\nconfig:\n  should_trigger: true\n",
	}
	var gs []Grader
	for _, d := range defs {
		gs = append(gs, mustCompile(b, defFromYAML(b, d), &Env{Suite: suite}))
	}
	in := &Input{Suite: suite, Task: &spec.Task{ID: "t", ContextDir: fixtures}, Run: benchRun(), Workspace: ws}
	run := func(b *testing.B, graders []Grader) {
		b.ReportAllocs()
		for b.Loop() {
			for _, g := range graders {
				r, err := g.Grade(context.Background(), in)
				if err != nil || !r.Passed {
					b.Fatalf("%v %s: %s", err, r.Name, r.Feedback)
				}
			}
		}
	}
	b.Run("without-code", func(b *testing.B) { run(b, gs) })
	for _, lang := range []string{"python", "javascript", "expr"} {
		withCode := append(append([]Grader{}, gs...), mustCompile(b, codeDef(b, lang, benchAssertions[lang][:3])))
		b.Run("with-code-"+lang, func(b *testing.B) { run(b, withCode) })
	}
	jsonSchema := mustCompile(b, defFromYAML(b, "type: json_schema\nname: j\nconfig:\n  schema: {type: object, required: [status]}\n"))
	jin := &Input{Run: runWith(`{"status": "ok", "items": [` + strings.Repeat(`{"a": 1, "b": "xxxxxxxxxxxxxxxxxxxx"},`, 300) + `{}]}`)}
	b.Run("json_schema-10KB", func(b *testing.B) {
		for b.Loop() {
			if r, _ := jsonSchema.Grade(context.Background(), jin); !r.Passed {
				b.Fatal(r.Feedback)
			}
		}
	})
}
