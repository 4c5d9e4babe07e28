package graders

import (
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"go.starlark.net/syntax"
)

func codeGraderOf(t *testing.T, lang string, assertions ...string) Grader {
	t.Helper()
	src, _ := json.Marshal(assertions)
	return mustCompile(t, defFromYAML(t, "type: code\nname: c\nconfig:\n  language: "+lang+"\n  assertions: "+string(src)+"\n"))
}

// assertFailsAlone grades src, then an assertion that holds: src must fail alone (score 0.5)
// with feedback holding each of want, and the language's evaluator must then grade normally.
func assertFailsAlone(t *testing.T, lang, src string, want ...string) {
	t.Helper()
	r := grade(t, codeGraderOf(t, lang, src, "1 == 1"), &Input{Run: runWith("x")})
	for _, w := range want {
		if r.Score != 0.5 || !strings.Contains(r.Feedback, w) {
			t.Errorf("%s: got %.2f %q, want a failure mentioning %q", lang, r.Score, r.Feedback, w)
		}
	}
	assertResult(t, grade(t, codeGraderOf(t, lang, "1 == 1"), &Input{Run: runWith("x")}), 1, true, "All assertions passed")
}

// The examples of issue 15: each would end the process with "fatal error: out of memory" or run
// for many seconds. Each fails its own assertion with a memory message; the next one passes.
func TestAssertionMemoryBudget(t *testing.T) {
	cases := []struct{ lang, src, msg string }{
		{"python", "len([0] * 1000000000) > 0", "would allocate 14.9 GiB for a repeated list, over its memory budget of 256 MiB"},
		{"python", "len(1000000000 * [0]) > 0", "for a repeated list"},
		{"python", "len(list(range(1000000000))) > 0", "for list(…) of 1000000000 elements"},
		{"python", `len("x" * 1000000000) > 0`, "would allocate 953 MiB for a repeated string"},
		{"python", `len(sorted(range(100000000))) > 0`, "for sorted(…) of 100000000 elements"},
		{"python", `len(("x" * 100000).replace("x", "y" * 100000)) > 0`, "for the result of .replace()"},
		{"python", `len(("a," * 10000000).split(",")) > 0`, "for the result of .split()"},
		{"python", `len("".join(["x" * 100000000] * 10)) > 0`, "for the result of .join()"},
		{"python", `len(re.findall("", "x" * 10000000)) > 0`, "re.findall's list of more than 2097152 matches"},
		{"python", `len(re.split("", "x" * 10000000)) > 0`, "re.split's list of more than"},
		{"python", `len(re.sub("", "y" * 1000, "x" * 1000000)) > 0`, "re.sub's result"},
		{"javascript", "new Array(400000000).fill(0).length > 0", "for Array.prototype.fill"},
		{"javascript", "'x'.repeat(1000000000).length > 0", "for String.prototype.repeat"},
		{"javascript", "'x'.padStart(1000000000).length > 0", "for String.prototype.padStart"},
		{"javascript", "Array.from({length: 400000000}).length > 0", "for Array.from"},
		{"javascript", "new Array(10).fill('x'.repeat(1000).repeat(30000)).join('').length > 0", "for Array.prototype.join"},
		// try/catch cannot swallow the refusal.
		{"javascript", "(() => { try { return 'x'.repeat(1e9).length > 0 } catch (e) { return true } })()", "for String.prototype.repeat"},
	}
	for _, c := range cases {
		t.Run(c.lang+"/"+c.src, func(t *testing.T) {
			assertFailsAlone(t, c.lang, c.src, c.msg, codeMemoryEnv)
		})
	}
}

// onlyTheWatchdogStops sets a small memory budget (it keeps the tests light) and lifts the time
// and step limits for the rest of the test: the runaway assertions below cannot end any other way
// than through the watchdog, so how fast the machine runs them changes how long the test takes,
// never its outcome. (With the 5 s time limit, a loaded machine timed the string doubling out
// before the watchdog stopped it.)
func onlyTheWatchdogStops(t *testing.T) {
	budget, limit, steps := codeMemoryBudget, javascriptTimeBudget, pythonMaxSteps
	t.Cleanup(func() { codeMemoryBudget, pythonMaxSteps = budget, steps; setJavaScriptBudget(limit) })
	codeMemoryBudget = 32 << 20
	setJavaScriptBudget(24 * time.Hour)
	pythonMaxSteps = math.MaxUint64
}

// Growth in many small steps is stopped by the watchdog.
func TestMemoryWatchdog(t *testing.T) {
	onlyTheWatchdogStops(t)
	cases := []struct{ lang, src string }{
		{"javascript", "(() => { let s = 'x'; while (true) { s = s + s } })()"},
		{"javascript", "(() => { let a = []; while (true) { a.push([a.length, a.length]) } })()"},
		// Starlark has no unbounded loop: a range no machine finishes, so that the assertion
		// cannot end on its own between two samples of the heap.
		{"python", "len([[i] + [i] for i in range(1 << 62)]) > 0"},
	}
	for _, c := range cases {
		t.Run(c.lang+"/"+c.src, func(t *testing.T) {
			r := grade(t, codeGraderOf(t, c.lang, c.src, "1 == 1"), &Input{Run: runWith("x")})
			if r.Score != 0.5 || !strings.Contains(r.Feedback, "went over its memory budget of 32 MiB") {
				t.Errorf("got %.2f %q", r.Score, r.Feedback)
			}
		})
	}
}

// The checked forms compute what the plain operators and methods compute.
func TestGuardedPythonSemantics(t *testing.T) {
	assertions := []string{
		"[1, 2] * 2 == [1, 2, 1, 2]",
		"2 * 'ab' == 'abab'",
		"3 * 4 == 12 and 1.5 * 2 == 3.0",
		"(1,) * 3 == (1, 1, 1)",
		"'a,b'.split(',') == ['a', 'b'] and 'a b'.split() == ['a', 'b']",
		"'a,b,c'.rsplit(',', 1) == ['a,b', 'c']",
		"'x\\ny'.splitlines() == ['x', 'y']",
		"','.join(['a', 'b']) == 'a,b'",
		"output.replace('o', '0') == '0utput'",
		"[x * 2 for x in [1, 2]] == [2, 4]",
		"('ab' * 2).split('b') * 2 == ['a', 'a', '', 'a', 'a', '']",
		"{'k': 'v'}.get('k') * 2 == 'vv'",
		"len(output.split('u')) == 3",
	}
	r := grade(t, codeGraderOf(t, "python", assertions...), &Input{Run: runWith("output")})
	assertResult(t, r, 1, true, "All assertions passed")
}

func TestGuardPythonRewrite(t *testing.T) {
	cases := []struct{ src, want string }{
		{"len(output) > 0", "len(output) > 0"},
		{"a * b * c", "_sg_mul(_sg_mul(a , b) , c)"},
		{"a * (b * c)", "_sg_mul(a , (_sg_mul(b , c)))"},
		{"s.split(',')", `_sg_method(s, "split")(',')`},
		{"x.split(',') * 2", `_sg_mul(_sg_method(x, "split")(',') , 2)`},
		{"'é' * 2 == 'éé'", "_sg_mul('é' , 2) == 'éé'"},
		{"x[0] * 2", "_sg_mul(x[0] , 2)"},
		{"'a' in()*0", "'a' in _sg_mul((),0)"},
		{"f(*args)", "f(*args)"},
	}
	for _, c := range cases {
		expr, err := pythonOptions.ParseExpr("a", c.src, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := guardPython(c.src, expr); got != c.want {
			t.Errorf("guardPython(%q) = %q, want %q", c.src, got, c.want)
		}
	}
}

// One assertion over its budget does not fail the healthy ones evaluated at the same time: the
// watchdog interrupts them all and evaluates each interrupted one again alone.
func TestMemoryWatchdogBlamesTheCulprit(t *testing.T) {
	onlyTheWatchdogStops(t)
	healthy := codeGraderOf(t, "javascript", "(() => { let a = []; for (let i = 0; i < 2000; i++) a.push('x' + i); return a.length === 2000 })()")
	culprit := codeGraderOf(t, "javascript", "(() => { let s = 'x'; while (true) { s = s + s } })()")
	var wg sync.WaitGroup
	var mu sync.Mutex
	var bad []string
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 50; k++ {
				r := grade(t, healthy, &Input{Run: runWith("x")})
				if !r.Passed {
					mu.Lock()
					bad = append(bad, r.Feedback)
					mu.Unlock()
				}
			}
		}()
	}
	r := grade(t, culprit, &Input{Run: runWith("x")})
	wg.Wait()
	if r.Passed || !strings.Contains(r.Feedback, "went over its memory budget") {
		t.Errorf("culprit: %q", r.Feedback)
	}
	if len(bad) > 0 {
		t.Errorf("%d healthy evaluations failed, first: %q", len(bad), bad[0])
	}
}

func FuzzGuardPython(f *testing.F) {
	for _, s := range []string{"a * b", "x.split(',') * 2", "[1] * 3 == [1, 1, 1]", "'é'.join(['a']) * 2", "(a\n * b)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		expr, err := pythonOptions.ParseExpr("a", src, 0)
		if err != nil {
			return
		}
		if _, err := pythonOptions.ParseExpr("a", "(\n"+src+"\n)", 0); err != nil {
			return // compilation rejects it as written (the assertion runs inside a lambda)
		}
		guarded := guardPython(src, expr)
		if _, err := pythonOptions.ParseExpr("a", "(\n"+guarded+"\n)", 0); err != nil {
			t.Fatalf("%q rewritten to %q does not parse: %v", src, guarded, err)
		}
		stars := 0
		syntax.Walk(expr, func(n syntax.Node) bool {
			if b, ok := n.(*syntax.BinaryExpr); ok && b.Op == syntax.STAR {
				stars++
			}
			return true
		})
		if stars > 0 && guarded == src {
			t.Fatalf("%q has %d repetitions but was not rewritten", src, stars)
		}
	})
}

// The guarded built-ins compute what the plain ones compute: wrapping them (and the typed array
// constructors in proxies, and object spreads in a check) changes no result.
func TestGuardedJavaScriptSemantics(t *testing.T) {
	assertions := []string{
		"new Uint8Array([1, 2, 3]).length === 3 && new Uint8Array(4).byteLength === 4",
		"new Uint8Array(2) instanceof Uint8Array && Uint8Array.BYTES_PER_ELEMENT === 1 && Uint8Array.name === 'Uint8Array'",
		"new Uint8Array([5, 6]).constructor === Uint8Array && Object.getPrototypeOf(new Int16Array(1)) === Int16Array.prototype",
		"(() => { class B extends Uint8Array {}; const b = new B(3); return b instanceof B && b instanceof Uint8Array && b.length === 3 && b.slice(1) instanceof B })()",
		"Uint8Array.from([1, 2], x => x * 2).join() === '2,4' && Float64Array.of(1.5).join() === '1.5'",
		"new Uint8Array(new ArrayBuffer(8), 2, 4).length === 4 && new ArrayBuffer(16).slice(4).byteLength === 12",
		"new DataView(new ArrayBuffer(4)).byteLength === 4",
		"[...'héllo'].length === 5 && [...[1, 2], ...new Set([3])].join() === '1,2,3' && Math.max(...[1, 5, 2]) === 5",
		"[...new Uint8Array([7, 8])].join() === '7,8' && [...[4, 5].entries()].join('|') === '0,4|1,5' && [...'ab'.matchAll(/./g)].length === 2",
		"(() => { let n = 0; for (const c of 'abc') n++; for (const x of [1, 2]) n += x; return n === 6 })()",
		"JSON.stringify({...{a: 1}, ...'xy', b: 2}) === '{\"0\":\"x\",\"1\":\"y\",\"a\":1,\"b\":2}'",
		"(() => { const {a, ...rest} = {a: 1, b: 2, c: 3}; return a === 1 && JSON.stringify(rest) === '{\"b\":2,\"c\":3}' })()",
		"(() => { let r; ({...r} = {z: 1}); return r.z === 1 })()",
		"'a,b,,c'.split(',').length === 4 && 'abc'.split('').join('-') === 'a-b-c' && 'a1b2'.split(/\\d/).length === 3 && 'a,b,c'.split(',', 2).length === 2",
		"'aXbX'.replace('X', '[$&]') === 'a[X]bX' && 'aXbX'.replaceAll('X', '-') === 'a-b-' && 'aXbX'.replace(/X/g, m => m.toLowerCase()) === 'axbx'",
		"'abc'.match(/b/)[0] === 'b' && 'abab'.match(/a/g).length === 2 && 'ß'.toUpperCase() === 'SS' && 'é'.normalize('NFD').length === 2",
		"[3, 1, 2].sort().join() === '1,2,3' && [1, 2, 3].slice(1).join() === '2,3' && [1, [2, [3]]].flat(2).join() === '1,2,3' && [1, 2].reverse().join() === '2,1'",
		"[1, 2, 3].map(x => x * 2).filter(x => x > 2).join() === '4,6' && [1, 2].with(0, 9).join() === '9,2' && [2, 1].toSorted().join() === '1,2'",
		"Math.max.apply(null, [1, 3, 2]) === 3 && Reflect.apply(Math.min, null, [4, 2]) === 2 && Reflect.construct(Date, [0]).getTime() === 0",
		"Object.keys('ab').join() === '0,1' && Object.entries({a: 1})[0][1] === 1 && Object.assign({}, {k: 2}).k === 2",
		"JSON.stringify([1, 'a', null]) === '[1,\"a\",null]' && JSON.parse('[1,2]').length === 2 && String(Array(3)) === ',,'",
		"String.raw`a\\n${1}` === 'a\\\\n1' && 'ab'.concat('cd', 1) === 'abcd1' && 'x'.padStart(3, '-') === '--x'",
		"Array.from({length: 3}, (_, i) => i).join() === '0,1,2' && Array.of(7).length === 1 && new Array(3).fill(0).join() === '0,0,0'",
		"(() => { try { null.x } catch (e) { return e instanceof TypeError } })()",
	}
	r := grade(t, codeGraderOf(t, "javascript", assertions...), &Input{Run: runWith("output")})
	assertResult(t, r, 1, true, "All assertions passed")
	// After refusals (runtimes dropped), pooled runtimes still grade normally.
	assertFailsAlone(t, "javascript", "new Uint8Array(8e9).length > 0", "for Uint8Array")
	r = grade(t, codeGraderOf(t, "javascript", assertions...), &Input{Run: runWith("output")})
	assertResult(t, r, 1, true, "All assertions passed")
}
