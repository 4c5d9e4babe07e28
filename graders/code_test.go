package graders

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillgate/skillgate/results"
)

// assertionRun is the run every assertion case below is evaluated against.
func assertionRun() *results.AgentRun {
	ok := true
	return runWith("Success: deployed to https://app.example.com\nAnalyzed 3 files. No problems found.",
		withDuration(1234),
		withCall("bash", map[string]any{"command": "ls -la"}),
		withCall("view", map[string]any{"path": "README.md"}),
		withEvents(
			results.Event{Type: "message", Role: "assistant", Content: "I will fix the error in main.go"},
			results.Event{Type: "tool_call", ID: "c1", Name: "bash", Arguments: map[string]any{"command": "ls -la"}, Result: "README.md", Success: &ok},
			results.Event{Type: "skill_invocation", Name: "code-explainer", Path: ".github/skills/code-explainer"},
			results.Event{Type: "message", Role: "assistant", Content: "Done."},
		),
	)
}

type assertionCase struct {
	src  string
	want bool // truthy
	err  bool // raises at run time (counts as a failure with the error text)
}

// The seeds' assertions (000, 001, 002) first, then the Python features of docs/graders.md#python.
var pythonCases = []assertionCase{
	{src: "len(output) > 10", want: true},
	{src: "'success' in output.lower()", want: true},
	{src: "len(output) > 0", want: true},
	{src: "len(errors) == 0", want: false}, // the assistant message mentions "error": waza counts it
	{src: "len(errors) == 1", want: true},
	{src: "'azure' in output.lower() or 'deploy' in output.lower()", want: true},
	{src: "len(output) > 100", want: false},
	{src: "'function' in output.lower()", want: false},
	{src: "len(transcript) > 0", want: true},
	{src: "len(transcript) == 4", want: true},
	{src: "output.startswith('Success')", want: true},
	{src: "re.search(r'deployed to https?://.+', output)", want: true},
	{src: "re.search('(?i)PROBLEMS', output) != None", want: true},
	{src: "re.search('problems', output, re.IGNORECASE).group(0) == 'problems'", want: true},
	{src: "re.match('Success', output)", want: true},
	{src: "re.match('deployed', output)", want: false},
	{src: "re.fullmatch(r'\\d+', '123')", want: true},
	{src: "re.findall(r'\\d+', output) == ['3']", want: true},
	{src: "re.findall(r'(\\w+) files', output) == ['3']", want: true},
	{src: "re.sub(r'\\d', '#', 'a1b22') == 'a#b##'", want: true},
	{src: "re.sub(r'(\\w+)@(\\w+)', r'\\2 at \\1', 'me@host') == 'host at me'", want: true},
	{src: "re.split(r',\\s*', 'a, b,c') == ['a', 'b', 'c']", want: true},
	{src: "re.search(r'(?P<n>\\d+) files', output).group('n') == '3'", want: true},
	{src: "re.compile(r'files\\.').search(output).span() == (56, 62)", want: true},
	{src: "re.escape('a.b') == 'a\\\\.b'", want: true},
	{src: "output[:7] == 'Success'", want: true},
	{src: "output[-6:] == 'found.'", want: true},
	{src: "output.split('\\n')[1].strip().endswith('found.')", want: true},
	{src: "all([len(w) > 0 for w in output.split()])", want: true},
	{src: "any([kw in output for kw in ['azure', 'deploy']])", want: true},
	{src: "len([t for t in transcript if t['type'] == 'tool_call']) == 1", want: true},
	{src: "{t['name']: t['success'] for t in tool_calls}['bash']", want: true},
	{src: "tool_calls[0]['name'] == 'bash'", want: true},
	{src: "tool_calls[0]['arguments']['command'] == 'ls -la'", want: true},
	{src: "tool_calls[1]['arguments'].get('path') == 'README.md'", want: true},
	{src: "tool_calls[0]['result'] == None", want: true},
	{src: "transcript[1]['result'] == 'README.md'", want: true},
	{src: "transcript[2]['name'] == 'code-explainer'", want: true},
	{src: "'bash' in [c['name'] for c in tool_calls]", want: true},
	{src: "duration_ms < 60000", want: true},
	{src: "duration_ms == 1234", want: true},
	{src: "outcome == {}", want: true},
	{src: "output.count('s') >= 2", want: true},
	{src: "'zzz' not in output", want: true},
	{src: "str(duration_ms) == '1234'", want: true},
	{src: "int('3') + 1 == 4", want: true},
	{src: "float('1.5') > 1", want: true},
	{src: "bool(output) and True", want: true},
	{src: "list('ab') == ['a', 'b']", want: true},
	{src: "dict(a=1)['a'] == 1", want: true},
	{src: "None == None", want: true},
	{src: "False", want: false},
	{src: "'' ", want: false},
	{src: "[]", want: false},
	{src: "1 if 'Success' in output else 0", want: true},
	{src: "sorted(['b', 'a']) == ['a', 'b']", want: true},
	{src: "max([1, 5, 2]) == 5 and min([3, 2]) == 2", want: true},
	{src: "sum([1, 2, 3]) == 6", want: true},
	{src: "abs(-2) == 2", want: true},
	{src: "round(2.5) == 2 and round(3.5) == 4", want: true},
	{src: "round(2.675, 1) == 2.7", want: true},
	{src: "isinstance(output, str) and isinstance(duration_ms, int)", want: true},
	{src: "isinstance(True, int) and not isinstance(1, (str, list))", want: true},
	{src: "len(set([1, 1, 2])) == 2", want: true},
	{src: "'%d files' % 3 in output", want: true},
	{src: "'{} files'.format(3) in output", want: true},
	{src: "len('héllo') == 5", want: true},
	{src: "7 / 2 == 3.5 and 7 // 2 == 3", want: true},
	{src: "(lambda x: x * 2)(3) == 6", want: true},
	{src: "re.search(r'(\\w+)@(\\w+)?', 'me@').groups() == ('me', None)", want: true},
	{src: "re.search(r'(?P<user>\\w+)@', 'me@x').groupdict() == {'user': 'me'}", want: true},
	{src: "re.search(r'b+', 'abbc').start() == 1 and re.search(r'b+', 'abbc').end() == 3", want: true},
	{src: "re.search(r'(a)(b)', 'ab').group(1, 2) == ('a', 'b')", want: true},
	{src: "[m.group(0) for m in re.finditer(r'\\d', 'a1b2')] == ['1', '2']", want: true},
	{src: "re.findall(r'(\\d)(\\w)', '1a 2b') == [('1', 'a'), ('2', 'b')]", want: true},
	{src: "re.sub(r'\\d', lambda m: str(int(m.group(0)) * 2), 'a1b4') == 'a2b8'", want: true},
	{src: "re.sub('a', 'b', 'aaa', count=2) == 'bba'", want: true},
	{src: "re.split(r'(,)', 'a,b') == ['a', ',', 'b']", want: true},
	{src: "re.compile('X', re.I).match('xy') != None", want: true},
	{src: "re.search(r'end\\Z', 'the end') != None", want: true},
	{src: "re.search('.+', 'a\\nb', re.DOTALL).group(0) == 'a\\nb'", want: true},
	{src: "re.findall('^b', 'a\\nb', re.M) == ['b']", want: true},
	// `is` / `is not` work as in CPython for None, True and False (rewritten to == / !=).
	{src: "output is not None", want: true},
	{src: "re.search('zzz', output) is None", want: true},
	{src: "('is' in output) is False", want: true},
	// Python's lookarounds and backreferences, which RE2 refuses, run on the backtracking engine.
	{src: "re.search(r'foo(?=bar)', 'foobar').group(0) == 'foo'", want: true},
	{src: "re.search(r'(?<!un)tested', 'untested') == None", want: true},
	{src: "re.search(r'(\\w)\\1', 'hello').group(0) == 'll'", want: true},
	{src: `re.search(r'(?P<q>[:;])x(?P=q)', 'a ;x; b').group('q') == ';'`, want: true},
	{src: "re.findall(r'\\d(?=px)', '1px 2em 3px') == ['1', '3']", want: true},
	{src: "re.sub(r'(\\w)\\1', r'<\\1>', 'aabcc') == '<a>b<c>'", want: true},
	{src: "re.split(r'(?<=,)', 'a,b') == ['a,', 'b']", want: true},
	{src: "re.compile(r'x(?!y)', re.I).search('XY xz').start() == 3", want: true},
	// CPython's meaning on non-ASCII text (each row checked with CPython 3.11): \w, \d, \s and \b
	// are Unicode's, with or without a lookaround; positions count characters; re.A is ASCII.
	{src: "re.findall(r'\\w+', 'naïve café') == ['naïve', 'café']", want: true},
	{src: "re.findall(r'(?=\\w)\\w+', 'naïve café') == ['naïve', 'café']", want: true},
	{src: "re.findall(r'\\d', '٣ and 3') == ['٣', '3']", want: true},
	{src: "re.findall(r'\\w+', 'naïve café', re.A) == ['na', 've', 'caf']", want: true},
	{src: "re.search(r'café', 'un café').span() == (3, 7)", want: true},
	{src: "re.search(r'\\bcafé\\b', 'le café!') != None and re.search(r'\\bé', 'xé') == None", want: true},
	{src: "re.search('STRASSE', 'straße', re.I) == None and re.search('ß', 'ẞ', re.I) != None", want: true},
	{src: "re.split(r'\\s+', 'a\u3000b\u00a0c') == ['a', 'b', 'c']", want: true},
	{src: "re.escape('a.b-c d') == 'a\\\\.b\\\\-c\\\\ d'", want: true},
	{src: "re.sub(r'x*', '-', 'abxd') == '-a-b--d-'", want: true},
	{src: "re.search(r'(?x) a  b # c', 'ab') != None", want: true},
	{src: "list('ab') == ['a', 'b']", want: true},
	{src: "sorted('ba') == ['a', 'b']", want: true},
	{src: "len(set('aab')) == 2", want: true},
	{src: "tuple('é') == ('é',)", want: true},
	{src: "min('bca') == 'a' and max('a', 'b') == 'b'", want: true},
	{src: "any('x') and all('')", want: true},
	{src: "list(zip('ab', [1, 2])) == [('a', 1), ('b', 2)]", want: true},
	{src: "[i for i, c in enumerate('ab')] == [0, 1]", want: true},
	{src: "1/0", err: true},
	{src: "output.nosuchmethod()", err: true},
	{src: "tool_calls[10]", err: true},
	{src: "int('x')", err: true},
}

var javascriptCases = []assertionCase{
	{src: "output.length > 50", want: true},
	{src: "output.includes('hello')", want: false},
	{src: "output.includes('Success')", want: true},
	{src: "tool_calls.length === 2", want: true},
	{src: "errors.length === 0", want: false},
	{src: "errors.length === 1", want: true},
	{src: "transcript.length > 0", want: true},
	{src: "/deployed to https?:\\/\\/.+/.test(output)", want: true},
	{src: "output.toLowerCase().includes('problems')", want: true},
	{src: "tool_calls.some(c => c.name === 'bash' && c.arguments.command.startsWith('ls'))", want: true},
	{src: "tool_calls.every(t => t.success)", want: true},
	{src: "Array.isArray(tool_calls) && Array.isArray(transcript)", want: true},
	{src: "JSON.stringify(tool_calls[1].arguments) === '{\"path\":\"README.md\"}'", want: true},
	{src: "tool_calls[0].result === null", want: true},
	{src: "duration_ms < 60000 && typeof duration_ms === 'number'", want: true},
	{src: "Object.keys(outcome).length === 0", want: true},
	{src: "output.split('\\n').length === 2", want: true},
	{src: "Math.max(1, 2) === 2 && parseInt('42') === 42", want: true},
	{src: "True && !False", want: true},
	{src: "`${tool_calls.length} calls` === '2 calls'", want: true},
	{src: "const n = 3; output.includes(n + ' files')", want: true},
	{src: "''", want: false},
	{src: "0", want: false},
	{src: "null", want: false},
	{src: "undefinedName.x", err: true},
	{src: "null.x", err: true},
	{src: "(function () { throw new Error('boom'); })()", err: true},
}

var exprCases = []assertionCase{
	{src: "len(output) > 10", want: true},
	{src: "output contains 'Success'", want: true},
	{src: "lower(output) contains 'problems'", want: true},
	{src: "output matches 'deployed to https?://.+'", want: true},
	{src: "output startsWith 'Success'", want: true},
	{src: "len(tool_calls) == 2", want: true},
	{src: "tool_calls[0].name == 'bash'", want: true},
	{src: "tool_calls[0].arguments.command == 'ls -la'", want: true},
	{src: "all(tool_calls, .success)", want: true},
	{src: "any(tool_calls, .name == 'view')", want: true},
	{src: "len(errors) == 1", want: true},
	{src: "len(transcript) == 4", want: true},
	{src: "duration_ms < 60000", want: true},
	{src: "len(outcome) == 0", want: true},
	{src: "'x' in ['x', 'y']", want: true},
	{src: "output contains 'nope'", want: false},
	{src: "''", want: false},
	{src: "0", want: false},
	{src: "nil", want: false},
	{src: "tool_calls[5].name == 'x'", err: true},
}

func evaluate(t *testing.T, lang string, cases []assertionCase) []*results.GraderResult {
	t.Helper()
	var out []*results.GraderResult
	run := assertionRun()
	for _, c := range cases {
		src, _ := json.Marshal(c.src)
		def := defFromYAML(t, "type: code\nname: c\nconfig:\n  language: "+lang+"\n  assertions: ["+string(src)+"]\n")
		g := mustCompile(t, def)
		r := grade(t, g, &Input{Run: run})
		out = append(out, r)
		failures, _ := r.Details["failures"].([]string)
		switch {
		case c.err:
			if r.Passed || len(failures) != 1 || !strings.HasPrefix(failures[0], "Failed: "+c.src+": ") {
				t.Errorf("%s %q: want a run-time error, got %q", lang, c.src, r.Feedback)
			}
		case c.want:
			if !r.Passed || r.Score != 1 || r.Feedback != "All assertions passed" {
				t.Errorf("%s %q: want truthy, got %q", lang, c.src, r.Feedback)
			}
		default:
			if r.Passed || r.Score != 0 || r.Feedback != "Failed: "+c.src {
				t.Errorf("%s %q: want falsy, got %q", lang, c.src, r.Feedback)
			}
		}
	}
	return out
}

func TestPythonAssertions(t *testing.T)     { evaluate(t, "python", pythonCases) }
func TestJavaScriptAssertions(t *testing.T) { evaluate(t, "javascript", javascriptCases) }
func TestExprAssertions(t *testing.T)       { evaluate(t, "expr", exprCases) }

// TestPythonAgreesWithCPython evaluates every Python case with the real interpreter (when
// installed) over the same context, and expects the same verdict.
func TestPythonAgreesWithCPython(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not installed")
	}
	script := `
import json, re, sys
data = json.load(sys.stdin)
env = dict(data["context"]); env["re"] = re
out = []
for a in data["assertions"]:
    try:
        out.append("true" if eval(a, env) else "false")
    except Exception as e:
        out.append("error")
print(json.dumps(out))
`
	crossCheck(t, py, []string{"-c", script}, pythonCases, "python")
}

// TestJavaScriptAgreesWithNode does the same with node's vm module, as waza's wrapper runs them.
func TestJavaScriptAgreesWithNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	script := `
const vm = require('vm');
let input = '';
process.stdin.on('data', d => input += d);
process.stdin.on('end', () => {
  const data = JSON.parse(input);
  const out = data.assertions.map(a => {
    const ctx = vm.createContext(Object.assign({True: true, False: false}, data.context));
    try { return vm.runInContext(a, ctx, {timeout: 5000}) ? 'true' : 'false'; } catch (e) { return 'error'; }
  });
  console.log(JSON.stringify(out));
});
`
	crossCheck(t, node, []string{"-e", script}, javascriptCases, "javascript")
}

func crossCheck(t *testing.T, bin string, args []string, cases []assertionCase, lang string) {
	t.Helper()
	ec := newEvalContext(assertionRun(), contextNeeds{transcript: true, toolCalls: true, errors: true})
	ctx := map[string]any{
		"output": ec.output, "outcome": map[string]any{}, "transcript": ec.transcript,
		"tool_calls": ec.toolCalls, "errors": ec.errors, "duration_ms": ec.durationMS,
	}
	srcs := make([]string, len(cases))
	for i, c := range cases {
		srcs[i] = c.src
	}
	in, _ := json.Marshal(map[string]any{"context": ctx, "assertions": srcs})
	cmd := exec.Command(bin, args...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, stderr.String())
	}
	var verdicts []string
	if err := json.Unmarshal(out, &verdicts); err != nil {
		t.Fatalf("bad output %q: %v", out, err)
	}
	for i, c := range cases {
		want := "false"
		switch {
		case c.err:
			want = "error"
		case c.want:
			want = "true"
		}
		if verdicts[i] != want {
			t.Errorf("%s %q: the reference interpreter says %s, skillgate's case says %s", lang, c.src, verdicts[i], want)
		}
	}
}

func TestCodeScoreAndFeedback(t *testing.T) {
	def := defFromYAML(t, `
type: code
name: mixed
weight: 2
config:
  assertions:
    - "len(output) > 0"
    - "'nope' in output"
    - "1/0"
    - "True"
`)
	r := grade(t, mustCompile(t, def), &Input{Run: runWith("hello")})
	assertResult(t, r, 0.5, false, "Failed: 'nope' in output; Failed: 1/0: floating-point division by zero")
	if r.Name != "mixed" || r.Type != "code" || r.Weight != 2 {
		t.Errorf("identity: %+v", r)
	}
	if r.Details["total_assertions"] != 4 || r.Details["passed_assertions"] != 2 {
		t.Errorf("details: %v", r.Details)
	}
	if f := r.Details["failures"].([]string); len(f) != 2 {
		t.Errorf("failures: %v", f)
	}
	r = grade(t, mustCompile(t, defFromYAML(t, "type: code\nname: ok\nassertions: [\"True\"]\n")), &Input{Run: runWith("")})
	assertResult(t, r, 1, true, "All assertions passed")
	if r.Details["failures"] != nil && len(r.Details["failures"].([]string)) != 0 {
		t.Errorf("failures should be empty: %v", r.Details["failures"])
	}
}

func TestCodeEmptyContext(t *testing.T) {
	// A run with nothing at all: output "", empty lists, duration 0.
	for _, c := range []struct{ lang, src string }{
		{"python", "output == '' and transcript == [] and tool_calls == [] and errors == [] and duration_ms == 0"},
		{"javascript", "output === '' && transcript.length === 0 && tool_calls.length === 0 && errors.length === 0 && duration_ms === 0"},
		{"expr", "output == '' && len(transcript) == 0 && len(tool_calls) == 0 && len(errors) == 0 && duration_ms == 0"},
	} {
		src, _ := json.Marshal(c.src)
		def := defFromYAML(t, "type: code\nname: c\nconfig:\n  language: "+c.lang+"\n  assertions: ["+string(src)+"]\n")
		r := grade(t, mustCompile(t, def), &Input{})
		assertResult(t, r, 1, true, "All assertions passed")
	}
}

// Context values are frozen: an assertion cannot change what the next one sees.
func TestPythonContextIsFrozen(t *testing.T) {
	def := defFromYAML(t, "type: code\nname: c\nconfig:\n  assertions: [\"tool_calls.append(1)\", \"len(tool_calls) == 1\"]\n")
	r := grade(t, mustCompile(t, def), &Input{Run: runWith("", withTools("bash"))})
	if r.Score != 0.5 || !strings.Contains(r.Feedback, "Failed: tool_calls.append(1): ") || !strings.Contains(r.Feedback, "frozen") {
		t.Errorf("got %.2f %q", r.Score, r.Feedback)
	}
}

func TestRunawayAssertionsFail(t *testing.T) {
	oldSteps, oldBudget := pythonMaxSteps, javascriptTimeBudget
	pythonMaxSteps = 100_000
	setJavaScriptBudget(50 * time.Millisecond)
	defer func() { pythonMaxSteps = oldSteps; setJavaScriptBudget(oldBudget) }()

	cases := []struct{ lang, src, msg string }{
		{"python", "len([x for x in range(100000000)]) > 0", "exceeded its budget of 100000 execution steps"},
		{"javascript", "(() => { while (true) {} })()", "did not finish within 50ms"},
		// A backtracking regular expression runs in native code, out of Interrupt's reach.
		{"javascript", "/^(a|aa)+(?=c)/.test('a'.repeat(80))", "did not finish within 50ms"},
		// Python patterns that need the backtracking engine run under its match timeout.
		{"python", "re.search(r'^(a|aa)+(?=c)', 'a' * 80) == None", "took too long to match"},
		{"expr", "all(1..1000, {all(1..1000, {all(1..1000, {true})})})", "exceeded its evaluation budget"},
	}
	// Each message names the budget that stopped the assertion; none of them ends on its own.
	for _, c := range cases {
		assertFailsAlone(t, c.lang, c.src, c.msg)
	}
}

func TestCodeCompileErrors(t *testing.T) {
	for _, c := range []struct{ name, yaml, pos, msg, fix string }{
		{"unknown language", "type: code\nname: c\nconfig:\n  language: ruby\n  assertions: [\"1\"]\n", "4:13", `unknown language "ruby"`, "python, javascript, expr"},
		{"assertions not a list", "type: code\nname: c\nconfig:\n  assertions: \"len(output) > 0\"\n", "4:15", "config.assertions must be a list of strings", ""},
	} {
		text := diagText(compileDiags(t, defFromYAML(t, c.yaml)))
		if !strings.HasPrefix(text, testFile+":"+c.pos+": error: ") || !strings.Contains(text, c.msg) || !strings.Contains(text, c.fix) {
			t.Errorf("%s: want %s %q %q, got %s", c.name, c.pos, c.msg, c.fix, text)
		}
	}
}

// An assertion that does not compile is a warning naming what to write instead, and it counts
// as failed in every run — as waza counts an assertion that raises — while the grader's other
// assertions are evaluated.
func TestAssertionsThatDoNotCompile(t *testing.T) {
	cases := []struct {
		name, yaml string
		pos        string // file:line:col
		msg, fix   string
	}{
		{"generator", "type: code\nname: c\nconfig:\n  assertions:\n    - any(kw in output for kw in ['azure', 'deploy'])\n", "5:24",
			"generator expressions are not supported", "any([kw in output for kw in ['azure', 'deploy']])"},
		{"generator quoted", "type: code\nname: c\nconfig:\n  assertions:\n    - \"all(x > 0 for x in [1])\"\n", "5:18",
			"(column 11 of the assertion): generator expressions", "all([x > 0 for x in [1]])"},
		{"import", "type: code\nname: c\nconfig:\n  assertions: [\"__import__('os') or import os\"]\n", "4:37", "import is not supported", "re module"},
		{"f-string", "type: code\nname: c\nconfig:\n  assertions:\n    - f'{output}' != ''\n", "5:7", "f-strings are not supported", "format"},
		{"power", "type: code\nname: c\nconfig:\n  assertions:\n    - 2 ** 3 == 8\n", "5:9", "** operator", "x * x"},
		{"chained", "type: code\nname: c\nconfig:\n  assertions:\n    - 0 < len(output) < 10\n", "5:24", "chained comparisons", "a < b and b < c"},
		{"unknown name", "type: code\nname: c\nconfig:\n  assertions:\n    - specific_condition\n", "5:7", "unknown name specific_condition", ""},
		{"syntax", "type: code\nname: c\nconfig:\n  assertions:\n    - \"True\"\n    - len(output >\n", "6:19", "(column 13 of the assertion): does not parse", ""},
		{"bad re literal", "type: code\nname: c\nconfig:\n  assertions:\n    - re.search('(?=x', output)\n", "5:17", "invalid regular expression", "Python syntax"},
		{"unknown re function", "type: code\nname: c\nconfig:\n  assertions:\n    - re.searchh('x', output)\n", "5:10", "the re module has no searchh", "search"},
		{"empty assertion", "type: code\nname: c\nconfig:\n  assertions: [\"  \"]\n", "4:16", "the assertion is empty", ""},
		{"js syntax", "type: code\nname: c\nconfig:\n  language: javascript\n  assertions:\n    - output.includes('a'\n", "6:26", "does not parse", ""},
		{"expr unknown name", "type: code\nname: c\nconfig:\n  language: expr\n  assertions:\n    - len(outputs) > 0\n", "6:11", "unknown name outputs", ""},
		{"expr syntax", "type: code\nname: c\nconfig:\n  language: expr\n  assertions:\n    - output contains\n", "6:21", "does not compile", ""},
		{"expr bad regex", "type: code\nname: c\nconfig:\n  language: expr\n  assertions:\n    - output matches '(?=x)'\n", "", "does not compile", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g, ds := CompileOne(defFromYAML(t, c.yaml), &Env{})
			text := diagText(ds)
			if ds.HasErrors() || g == nil {
				t.Fatalf("want a grader and a warning, got %s", text)
			}
			if c.pos != "" && !strings.HasPrefix(text, testFile+":"+c.pos+": warning: ") {
				t.Errorf("want position %s, got %s", c.pos, text)
			}
			if !strings.Contains(text, c.msg) || !strings.Contains(text, c.fix) || !strings.Contains(text, "it counts as failed in every run") {
				t.Errorf("want %q and fix %q in %s", c.msg, c.fix, text)
			}
			r := grade(t, g, &Input{Run: runWith("some output")})
			if r.Passed || !strings.Contains(r.Feedback, "Failed: ") {
				t.Errorf("the assertion must fail: %+v", r)
			}
		})
	}
}

func TestPythonStringIterationHint(t *testing.T) {
	def := defFromYAML(t, "type: code\nname: c\nconfig:\n  assertions: [\"[c for c in output]\"]\n")
	r := grade(t, mustCompile(t, def), &Input{Run: runWith("ab")})
	if !strings.Contains(r.Feedback, "use s.elems()") {
		t.Errorf("got %q", r.Feedback)
	}
}

func TestLintDoesNotFlagValidPython(t *testing.T) {
	for _, src := range []string{
		"'is' in output",           // keywords inside strings
		"\"for x in y\" != output", // ditto
		"[x for x in [1]] == [1]",  // list comprehension
		"{k: v for k, v in {}.items()} == {}",
		"dict(**{'a': 1})['a'] == 1", // ** in a call is unpacking, not power
		"output  # a comment with is and import",
		"'''triple 'quoted' is''' != ''",
		"r'\\d+ for' != ''",
	} {
		if e := lintPython(src); e != nil {
			t.Errorf("%q flagged: %s", src, e.msg)
		}
	}
}

// The seeds' code graders (000/001/002) compile and grade as their docs say.
func TestSeedCodeGraders(t *testing.T) {
	defs := defsFromFile(t, filepath.Join("testdata", "seeds", "code.yaml"))
	run := runWith("The function deploys the app: success. hello from "+strings.Repeat("x", 100), withEvents(results.Event{Type: "message", Content: "ok"}))
	want := map[string]float64{"basic_check": 1, "my_grader": 1, "output_quality": 1, "js_checks": 1, "has_output": 1, "length_check": 1, "basic_length": 1}
	for _, def := range defs {
		w, ok := want[def.Name]
		if !ok {
			continue
		}
		r := grade(t, mustCompile(t, def), &Input{Run: run})
		if r.Score != w {
			t.Errorf("%s: score %.2f (%s)", def.Name, r.Score, r.Feedback)
		}
	}
	// The seeds' own counter-examples: the generator expression (000/001 ❌) and the task-level
	// placeholder "specific_condition" are warnings, and fail in every run (as in waza).
	for _, def := range defs {
		if def.Name == "generator_example" || def.Name == "task_specific_check" {
			_, ds := CompileOne(def, &Env{})
			if ds.HasErrors() || !strings.Contains(diagText(ds), "generator expressions") && !strings.Contains(diagText(ds), "unknown name specific_condition") {
				t.Errorf("%s: %s", def.Name, diagText(ds))
			}
		}
	}
}

// eventValue must produce what the results JSON holds for every field of results.Event: set
// each field (found by reflection, so a new field fails here) and compare with a JSON round trip.
func TestEventValueMatchesJSON(t *testing.T) {
	var e results.Event
	v := reflect.ValueOf(&e).Elem()
	ok := true
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Interface {
			f.Set(reflect.ValueOf(map[string]any{"out": "x"}))
			continue
		}
		switch f.Interface().(type) {
		case string:
			f.SetString("v" + strconv.Itoa(i))
		case int64:
			f.SetInt(int64(i + 1))
		case *bool:
			f.Set(reflect.ValueOf(&ok))
		case map[string]any:
			f.Set(reflect.ValueOf(map[string]any{"command": "ls", "n": float64(2), "list": []any{"a", true, nil}}))
		case json.RawMessage:
			f.Set(reflect.ValueOf(json.RawMessage(`{"k":[1,2]}`)))
		default:
			t.Fatalf("field %s: type %s not covered", v.Type().Field(i).Name, f.Type())
		}
	}
	b, _ := json.Marshal(e)
	var want any
	_ = json.Unmarshal(b, &want)
	gotJSON, _ := json.Marshal(eventValue(e))
	var got any
	_ = json.Unmarshal(gotJSON, &got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("eventValue:\n got %v\nwant %v", got, want)
	}
	// An empty event is just its type.
	if got := eventValue(results.Event{Type: "message"}); !reflect.DeepEqual(got, map[string]any{"type": "message"}) {
		t.Errorf("empty event: %v", got)
	}
}

func TestPythonLenCountsCharacters(t *testing.T) {
	def := defFromYAML(t, "type: code\nname: c\nconfig:\n  assertions: [\"len(output) == 11 and len(output + '') == 11 and len(output[:2]) == 2\"]\n")
	assertResult(t, grade(t, mustCompile(t, def), &Input{Run: runWith("héllo wörld")}), 1, true, "All assertions passed")
}

// Graders are compiled once and called concurrently, one call per run.
func TestCodeGraderConcurrentRuns(t *testing.T) {
	for lang, assertions := range benchAssertions {
		g := mustCompile(t, codeDef(t, lang, assertions))
		done := make(chan error)
		for w := 0; w < 4; w++ {
			go func() {
				for i := 0; i < 20; i++ {
					r, err := g.Grade(t.Context(), &Input{Run: benchRun()})
					if err == nil && !r.Passed {
						err = errors.New(r.Feedback)
					}
					if err != nil {
						done <- err
						return
					}
				}
				done <- nil
			}()
		}
		for w := 0; w < 4; w++ {
			if err := <-done; err != nil {
				t.Errorf("%s: %v", lang, err)
			}
		}
	}
}

// Lexical declarations must not outlive their run: runtimes are pooled and reused.
func TestJavaScriptDeclarationsDoNotLeak(t *testing.T) {
	def := defFromYAML(t, "type: code\nname: c\nconfig:\n  language: javascript\n  assertions:\n    - \"const n = output.length; n > 0\"\n    - \"let n = 1; class K {}; n === 1\"\n")
	g := mustCompile(t, def)
	for i := 0; i < 5; i++ {
		assertResult(t, grade(t, g, &Input{Run: runWith("abc")}), 1, true, "All assertions passed")
	}
}
