package graders

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/results"
)

// The fuzz targets check that no input makes a compiler or a grader panic. Each runs its seed
// corpus as a plain unit test.

func fuzzAssertions(f *testing.F, lang string, seeds []string, compile func([]string) (assertionEngine, []*assertionError)) {
	for _, s := range seeds {
		f.Add(s)
	}
	run := assertionRun()
	f.Fuzz(func(t *testing.T, src string) {
		engine, errs := compile([]string{src})
		if errs[0] != nil {
			if errs[0].msg == "" {
				t.Errorf("%s: empty error message for %q", lang, src)
			}
			return
		}
		ev := engine.begin(newEvalContext(run, neededContext([]string{src})))
		defer ev.end()
		ev.eval(0)
	})
}

func FuzzCompilePython(f *testing.F) {
	defer shrinkBudgets()()
	seeds := []string{"", "len(output) > 0", "any(x in output for x in ['a'])", "x is None", "f'{x}'", "2 ** 3",
		"re.search(r'(', output)", "[c for c in output]", "0 < 1 < 2", "'''", "(", "{'a': 1}['a']", "import os",
		"lambda: 1", "re.sub('a', lambda m: m.group(0), output)", "\"\\x\"", "#", "a := 1", "output[::-1]"}
	for _, c := range pythonCases {
		seeds = append(seeds, c.src)
	}
	fuzzAssertions(f, "python", seeds, compilePython)
}

func FuzzCompileJavaScript(f *testing.F) {
	defer shrinkBudgets()()
	seeds := []string{"", "output.length > 50", "(", "while(true){}", "`${", "/[/", "throw 1", "x => x", "new Array(5).fill(0)",
		"({...output, a: [...output]}).a.length > 0", "(() => { const {x, ...r} = {x: 1, ...tool_calls}; return r })()", "new Uint8Array(3) instanceof Uint8Array"}
	for _, c := range javascriptCases {
		seeds = append(seeds, c.src)
	}
	fuzzAssertions(f, "javascript", seeds, compileJavaScript)
}

func FuzzCompileExpr(f *testing.F) {
	defer shrinkBudgets()()
	seeds := []string{"", "len(output) > 0", "(", "output matches '('", "1..1000000", "map(1..10, # * #)", "nil.x", "let x = 1; x"}
	for _, c := range exprCases {
		seeds = append(seeds, c.src)
	}
	fuzzAssertions(f, "expr", seeds, compileExpr)
}

// FuzzGraderConfig decodes and compiles arbitrary YAML as the config of every deterministic
// grader type, and grades a run with whatever compiles.
func FuzzGraderConfig(f *testing.F) {
	defer shrinkBudgets()()
	for _, s := range []string{
		"contains: [a]", "regex_match: ['(']", "must_exist: [/x]", "content_patterns: [{path: a, must_match: ['[']}]",
		"expected_files: [{path: a, snapshot: ../b, contains: ['+x', '-']}]", "schema: {type: object}", "schema: {type: 5}",
		"max_tool_calls: ten", "matching_mode: exact_match\nexpected_actions: [a]", "mode: any_order\nrequired_skills: [a]\nallow_extra: false",
		"required: [{pattern: 'git'}]\nmax_calls: 1", "expect_tools: [bash, {tool: '(?i)x', command_pattern: '['}]\nmax_turns: 2",
		"skill: s\nshould_trigger: true", "assertions: ['len(output)']\nlanguage: javascript", "[1, 2]", "&a [*a]", "{a: {b: {c: [d]}}}",
		"must_match: [x]\nmust_not_match: [y]", "content_patterns: 5", "expected_files: [[]]", "assertions: [{}]",
	} {
		f.Add(s)
	}
	types := []string{"code", "text", "regex", "file", "diff", "json_schema", "behavior", "action_sequence",
		"skill_invocation", "tool_calls", "tool_constraint", "trigger"}
	ws := f.TempDir()
	ok := true
	run := runWith("output", bash("git commit"), withSkills("s"), withUsage(1, 2, 3),
		withEvents(results.Event{Type: "tool_call", Name: "bash", Success: &ok}))
	f.Fuzz(func(t *testing.T, cfg string) {
		indented := "  " + strings.ReplaceAll(cfg, "\n", "\n  ")
		for _, typ := range types {
			def, err := parseDef("type: "+typ+"\nname: n\nconfig:\n"+indented+"\n", testFile)
			if err != nil {
				return // not YAML: the loader rejects it before graders see it
			}
			g, diags := CompileOne(def, nil)
			for _, d := range diags {
				if d.Message == "" || d.Pos.File == "" {
					t.Errorf("%s: diagnostic without message or file: %+v", typ, d)
				}
			}
			if g == nil {
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			r, err := g.Grade(ctx, &Input{Run: run, Workspace: ws})
			cancel()
			if err != nil {
				continue
			}
			if r.Score < 0 || r.Score > 1 {
				t.Errorf("%s: score %v", typ, r.Score)
			}
			if _, err := json.Marshal(r); err != nil {
				t.Errorf("%s: result does not marshal: %v", typ, err)
			}
		}
	})
}

// FuzzLintPython checks the Python pre-parser alone on arbitrary text.
func FuzzLintPython(f *testing.F) {
	for _, s := range []string{"", "'", "f'", "r'\\", "'''a", "is", "((for", "a ** b", "é for"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if e := lintPython(src); e != nil && (e.line < 1 || e.col < 1) {
			t.Errorf("%q: position %d:%d", src, e.line, e.col)
		}
	})
}

// shrinkBudgets keeps fuzzed runaway assertions short.
func shrinkBudgets() func() {
	steps, budget, mem := pythonMaxSteps, javascriptTimeBudget, exprMemoryBudget
	pythonMaxSteps, exprMemoryBudget = 200_000, 100_000
	setJavaScriptBudget(100 * time.Millisecond)
	return func() {
		pythonMaxSteps, exprMemoryBudget = steps, mem
		setJavaScriptBudget(budget)
	}
}

// FuzzSkillVocabulary feeds SKILL.md text to the trigger heuristic's reader: no input may
// panic, and every word it keeps follows the word rules.
func FuzzSkillVocabulary(f *testing.F) {
	for _, s := range []string{
		"---\nname: code-explainer\ndescription: \"Explains. USE FOR: \\\"a b\\\", c. DO NOT USE FOR: d\"\n---\n# Body\n",
		"---\nname: x\n---", "no frontmatter", "---\n: [\n---\nbody", "USE FOR: a, (b), \u201cc\u201d", "",
	} {
		f.Add(s, "explain the code")
	}
	f.Fuzz(func(t *testing.T, skill, prompt string) {
		words, phrases := skillVocabulary(skill)
		for w := range words {
			if len(w) < 3 || triggerStopWords[w] {
				t.Fatalf("kept %q", w)
			}
		}
		g := &triggerHeuristicGrader{words: words, phrases: phrases, threshold: 0.6}
		if score, _, _ := g.score(prompt); score < 0 || score > 1 {
			t.Fatalf("score %v", score)
		}
	})
}

// FuzzPythonRewrites checks the rewrite made before starlark parses an assertion: the identity
// rewrite keeps the length (positions stay true).
func FuzzPythonRewrites(f *testing.F) {
	for _, s := range []string{"x is None", "x is not None", "'is' in s", "(?P<n>a)(?P=n)", "[(?P<x>]", `\(?P<`, "is", "is not"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if got := rewriteIdentity(src); len(got) != len(src) {
			t.Fatalf("rewriteIdentity(%q) = %q: length changed", src, got)
		}
	})
}

// FuzzExtractJSON: whatever the output, extraction returns a value that decodes, or nothing.
func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{"text {\"a\": 1} more", "```json\n[1]\n```", "{{{{", "[", "", "```\n{\"x\":}\n```"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, out string) {
		v, ok := extractJSON(out)
		if ok {
			if _, err := json.Marshal(v); err != nil {
				t.Fatalf("extracted a value that does not encode: %v", err)
			}
		}
	})
}
