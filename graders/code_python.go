package graders

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
	"unsafe"

	starresolve "go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Python assertions run on starlark (go.starlark.net), a deterministic Python dialect. Each
// assertion compiles once into `lambda output, outcome, …: (<assertion>)`; a run calls it with
// that run's (frozen) context values.

var pythonOptions = &syntax.FileOptions{Set: true}

// pythonPredeclared are the names beyond starlark's universe (len, any, all, str, int, float,
// bool, list, dict, True, False, None, min, max, sorted, set, abs, range, enumerate, zip, …).
var pythonPredeclared = starlark.StringDict{
	"re":         reModule,
	"len":        starlark.NewBuiltin("len", pyLen),
	"sum":        starlark.NewBuiltin("sum", pySum),
	"round":      starlark.NewBuiltin("round", pyRound),
	"isinstance": starlark.NewBuiltin("isinstance", pyIsinstance),
}

func init() {
	// Python iterates strings by character; starlark does not iterate strings at all. These
	// builtins accept a string where Python would iterate it.
	for _, name := range []string{"list", "tuple", "set", "sorted", "reversed", "enumerate", "any", "all"} {
		pythonPredeclared[name] = stringIterating(starlark.Universe[name].(*starlark.Builtin), 1)
	}
	for _, name := range []string{"min", "max"} { // min("abc"), but max("a", "b") compares strings
		pythonPredeclared[name] = stringIterating(starlark.Universe[name].(*starlark.Builtin), 1)
	}
	pythonPredeclared["zip"] = stringIterating(starlark.Universe["zip"].(*starlark.Builtin), -1)
}

// stringIterating wraps a builtin so that string arguments become lists of characters: when
// called with exactly `only` positional arguments (or always, for -1).
func stringIterating(b *starlark.Builtin, only int) *starlark.Builtin {
	builds := b.Name() != "any" && b.Name() != "all" && b.Name() != "min" && b.Name() != "max"
	return starlark.NewBuiltin(b.Name(), func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if builds {
			if err := chargeIterables(thread, b.Name(), args); err != nil {
				return nil, err
			}
		}
		if only < 0 || len(args) == only {
			converted := make(starlark.Tuple, len(args))
			for i, a := range args {
				converted[i] = a
				if s, ok := a.(starlark.String); ok {
					converted[i] = stringChars(string(s))
				}
			}
			args = converted
		}
		return starlark.Call(thread, b, args, kwargs)
	})
}

func stringChars(s string) *starlark.List {
	chars := make([]starlark.Value, 0, len(s))
	for _, r := range s {
		chars = append(chars, starlark.String(string(r)))
	}
	return starlark.NewList(chars)
}

type pythonEngine struct {
	fns []*starlark.Function
}

func compilePython(assertions []string) (assertionEngine, []*assertionError) {
	fns, errs := compileEach(assertions, compilePythonAssertion)
	return &pythonEngine{fns: fns}, errs
}

func compilePythonAssertion(src string) (*starlark.Function, *assertionError) {
	src = rewriteIdentity(src)
	if e := lintPython(src); e != nil {
		return nil, e
	}
	expr, err := pythonOptions.ParseExpr("assertion", src, 0)
	if err != nil {
		return nil, pythonSyntaxError(err, 0)
	}
	if e := checkPythonAST(expr); e != nil {
		return nil, e
	}
	// The assertion sits on its own lines inside the lambda, so positions shift by one line.
	wrap := func(src string) string { return "lambda " + strings.Join(contextNames, ", ") + ": (\n" + src + "\n)" }
	mk, err := starlark.ExprFuncOptions(pythonOptions, "assertion", wrap(src), pythonPredeclared)
	if err != nil {
		return nil, pythonSyntaxError(err, 1)
	}
	if guarded := guardPython(src, expr); guarded != src {
		// Diagnostics come from the source as written; the rewritten one is what runs.
		if mk, err = starlark.ExprFuncOptions(pythonOptions, "assertion", wrap(guarded), pythonPredeclared); err != nil {
			return nil, &assertionError{msg: "internal error: the memory-checked form of the assertion does not compile: " + err.Error()}
		}
	}
	thread := &starlark.Thread{Name: "compile"}
	v, err := starlark.Call(thread, mk, nil, nil)
	if err != nil {
		return nil, &assertionError{msg: err.Error()}
	}
	fn, ok := v.(*starlark.Function)
	if !ok {
		return nil, &assertionError{msg: "internal error: the assertion did not compile to a function"}
	}
	fn.Freeze() // runs call it concurrently
	return fn, nil
}

func pythonSyntaxError(err error, lineShift int) *assertionError {
	var se syntax.Error
	if errors.As(err, &se) {
		return pythonPositioned(int(se.Pos.Line)-lineShift, int(se.Pos.Col), se.Msg)
	}
	var rl starresolve.ErrorList
	if errors.As(err, &rl) && len(rl) > 0 {
		msg := rl[0].Msg
		if name, ok := strings.CutPrefix(msg, "undefined: "); ok {
			msg = fmt.Sprintf("unknown name %s (an assertion can read %s, the re module and the builtins)",
				name, strings.Join(contextNames, ", "))
		}
		return &assertionError{line: int(rl[0].Pos.Line) - lineShift, col: int(rl[0].Pos.Col), msg: msg}
	}
	return &assertionError{msg: err.Error()}
}

func pythonPositioned(line, col int, msg string) *assertionError {
	e := &assertionError{line: line, col: col, msg: "does not parse: " + msg}
	if strings.Contains(msg, "does not associate with") {
		e.msg = "chained comparisons such as `a < b < c` are not supported"
		e.fix = "write `a < b and b < c`"
	}
	return e
}

// checkPythonAST rejects, at compile time, what would otherwise fail on every run: unknown re
// functions and invalid regular expressions given as literals to re functions.
func checkPythonAST(expr syntax.Expr) *assertionError {
	var found *assertionError
	syntax.Walk(expr, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		switch n := n.(type) {
		case *syntax.DotExpr:
			if id, ok := n.X.(*syntax.Ident); ok && id.Name == "re" {
				if !reModule.Members.Has(n.Name.Name) {
					pos := n.Name.NamePos
					found = &assertionError{line: int(pos.Line), col: int(pos.Col),
						msg: fmt.Sprintf("the re module has no %s", n.Name.Name),
						fix: "use one of: " + strings.Join(reModule.Members.Keys(), ", ")}
				}
			}
		case *syntax.CallExpr:
			dot, ok := n.Fn.(*syntax.DotExpr)
			if !ok || len(n.Args) == 0 {
				return true
			}
			if id, ok := dot.X.(*syntax.Ident); !ok || id.Name != "re" || !reTakesPattern[dot.Name.Name] {
				return true
			}
			lit, ok := n.Args[0].(*syntax.Literal)
			if !ok {
				return true
			}
			pattern, ok := lit.Value.(string)
			if !ok {
				return true
			}
			if _, err := compileRE(pattern, 0, reSearch); err != nil {
				found = &assertionError{line: int(lit.TokenPos.Line), col: int(lit.TokenPos.Col),
					msg: fmt.Sprintf("invalid regular expression %q: %s", pattern, regexErrorText(err)),
					fix: "fix the pattern (Python syntax; lookarounds and backreferences are supported)"}
			}
		}
		return true
	})
	return found
}

func (e *pythonEngine) begin(ec *evalContext) runEvaluator {
	thread := &starlark.Thread{Name: "assertion", Print: func(*starlark.Thread, string) {}}
	thread.SetMaxExecutionSteps(pythonMaxSteps)
	thread.SetLocal(outputLenKey, &outputLen{s: ec.output, n: -1})
	account := &memAccount{}
	thread.SetLocal(memAccountKey, account)
	args := starlark.Tuple{
		starlark.String(ec.output),
		frozen(starlark.NewDict(0)),
		frozen(starlarkList(ec.transcript)),
		frozen(starlarkList(ec.toolCalls)),
		frozen(starlarkList(ec.errors)),
		starlark.MakeInt64(ec.durationMS),
	}
	r := &pythonRun{e: e, thread: thread, args: args, account: account}
	r.watch.interrupt = func() { thread.Cancel("memory budget") }
	watchStart(&r.watch)
	return r
}

type pythonRun struct {
	e       *pythonEngine
	thread  *starlark.Thread
	args    starlark.Tuple
	account *memAccount
	watch   memEval
}

func (r *pythonRun) eval(i int) (bool, string) {
	return evalGuarded(&r.watch, r, i)
}

func (r *pythonRun) reset() {
}

func (r *pythonRun) evalOnce(i int) (bool, string) {
	r.thread.Steps = 0
	r.thread.Uncancel()
	r.account.reset()
	v, err := starlark.Call(r.thread, r.e.fns[i], r.args, nil)
	if err != nil {
		if r.watch.exclusive && r.watch.tripped.Load() {
			return false, memoryLimitText("", 0)
		}
		return false, pythonRuntimeError(err)
	}
	return bool(v.Truth()), ""
}

func (r *pythonRun) end() { watchStop(&r.watch) }

func pythonRuntimeError(err error) string {
	msg := err.Error()
	var mem *errMemoryLimit
	if errors.As(err, &mem) {
		return mem.Error()
	}
	var ee *starlark.EvalError
	if errors.As(err, &ee) {
		msg = ee.Msg
	}
	switch {
	case strings.Contains(msg, "cancelled: too many steps"):
		return fmt.Sprintf("the assertion exceeded its budget of %d execution steps", pythonMaxSteps)
	case strings.Contains(msg, "string value is not iterable"), strings.Contains(msg, "got string, want iterable"):
		return msg + " (strings are not iterable in skillgate's Python dialect: use s.elems())"
	}
	return msg
}

func frozen(v starlark.Value) starlark.Value {
	v.Freeze()
	return v
}

func starlarkList(items []any) *starlark.List {
	vals := make([]starlark.Value, len(items))
	for i, x := range items {
		vals[i] = starlarkValue(x)
	}
	return starlark.NewList(vals)
}

// starlarkValue converts a plain context value. Whole numbers become ints, as Python's json
// module would decode them.
func starlarkValue(v any) starlark.Value {
	switch t := v.(type) {
	case nil:
		return starlark.None
	case bool:
		return starlark.Bool(t)
	case string:
		return starlark.String(t)
	case int64:
		return starlark.MakeInt64(t)
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<53 {
			return starlark.MakeInt64(int64(t))
		}
		return starlark.Float(t)
	case []any:
		return starlarkList(t)
	case map[string]any:
		d := starlark.NewDict(len(t))
		for _, k := range sortedKeys(t) {
			_ = d.SetKey(starlark.String(k), starlarkValue(t[k]))
		}
		return d
	}
	return starlark.String(fmt.Sprint(v))
}

// --- builtins beyond starlark's universe ---

// outputLen caches len(output) for the run: assertions ask for it often and counting the
// characters of a long output costs microseconds.
type outputLen struct {
	s string
	n int
}

const outputLenKey = "skillgate.outputLen"

// pyLen counts a string's characters (code points), as Python does; starlark counts bytes.
func pyLen(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	if err := starlark.UnpackPositionalArgs("len", args, kwargs, 1, &x); err != nil {
		return nil, err
	}
	if s, ok := x.(starlark.String); ok {
		if c, _ := thread.Local(outputLenKey).(*outputLen); c != nil && len(c.s) == len(s) && unsafe.StringData(c.s) == unsafe.StringData(string(s)) {
			if c.n < 0 {
				c.n = utf8.RuneCountInString(c.s)
			}
			return starlark.MakeInt(c.n), nil
		}
		return starlark.MakeInt(utf8.RuneCountInString(string(s))), nil
	}
	n := starlark.Len(x)
	if n < 0 {
		return nil, fmt.Errorf("len: value of type %s has no len", x.Type())
	}
	return starlark.MakeInt(n), nil
}

func pySum(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var iterable starlark.Iterable
	var start starlark.Value = starlark.MakeInt(0)
	if err := starlark.UnpackArgs("sum", args, kwargs, "iterable", &iterable, "start?", &start); err != nil {
		return nil, err
	}
	it := iterable.Iterate()
	defer it.Done()
	acc := start
	var x starlark.Value
	for it.Next(&x) {
		var err error
		if acc, err = starlark.Binary(syntax.PLUS, acc, x); err != nil {
			return nil, fmt.Errorf("sum: %w", err)
		}
	}
	return acc, nil
}

// pyRound rounds half to even, as Python 3 does; with ndigits it returns a float.
func pyRound(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x starlark.Value
	var ndigits starlark.Value = starlark.None
	if err := starlark.UnpackArgs("round", args, kwargs, "number", &x, "ndigits?", &ndigits); err != nil {
		return nil, err
	}
	var f float64
	switch t := x.(type) {
	case starlark.Int:
		if ndigits == starlark.None {
			return t, nil
		}
		f = float64(t.Float())
	case starlark.Float:
		f = float64(t)
	default:
		return nil, fmt.Errorf("round: got %s, want int or float", x.Type())
	}
	if ndigits == starlark.None {
		r := math.RoundToEven(f)
		if math.IsInf(r, 0) || math.IsNaN(r) {
			return nil, fmt.Errorf("round: cannot convert %v to int", f)
		}
		return starlark.NumberToInt(starlark.Float(r))
	}
	n, err := starlark.AsInt32(ndigits)
	if err != nil {
		return nil, fmt.Errorf("round: ndigits: %w", err)
	}
	p := math.Pow(10, float64(n))
	return starlark.Float(math.RoundToEven(f*p) / p), nil
}

// pyIsinstance accepts the type builtins (str, int, float, bool, list, dict, tuple, set) or a
// tuple of them. As in Python, a bool is also an int.
func pyIsinstance(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var x, types starlark.Value
	if err := starlark.UnpackPositionalArgs("isinstance", args, kwargs, 2, &x, &types); err != nil {
		return nil, err
	}
	candidates := []starlark.Value{types}
	if t, ok := types.(starlark.Tuple); ok {
		candidates = t
	}
	for _, c := range candidates {
		b, ok := c.(*starlark.Builtin)
		typeName, known := isinstanceTypes[builtinName(b, ok)]
		if !known {
			return nil, fmt.Errorf("isinstance: %s is not a type (use str, int, float, bool, list, dict, tuple or set)", c.String())
		}
		if x.Type() == typeName || (typeName == "int" && x.Type() == "bool") {
			return starlark.True, nil
		}
	}
	return starlark.False, nil
}

var isinstanceTypes = map[string]string{
	"str": "string", "int": "int", "float": "float", "bool": "bool",
	"list": "list", "dict": "dict", "tuple": "tuple", "set": "set",
}

func builtinName(b *starlark.Builtin, ok bool) string {
	if !ok || b.Receiver() != nil {
		return ""
	}
	return b.Name()
}
