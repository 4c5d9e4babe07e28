package graders

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

// JavaScript assertions run on goja (ECMAScript 5.1 plus most of ES6+: arrow functions, let and
// const, template literals, String/Array methods, Math, JSON, RegExp). Programs compile once and
// run on pooled runtimes; each run sets the context variables as globals, as waza's node wrapper
// puts them in the vm context.

type javascriptEngine struct {
	programs []*goja.Program
}

// jsRuntimes pools goja runtimes: creating one costs far more than an assertion.
func init() { setJavaScriptBudget(javascriptTimeBudget) }

// setJavaScriptBudget sets the time bound of JavaScript assertions, including goja's
// backtracking regular expressions (regexp2), which Interrupt cannot stop. It applies to
// assertions compiled afterwards.
func setJavaScriptBudget(d time.Duration) {
	javascriptTimeBudget = d
	regexp2.DefaultMatchTimeout = d
}

var jsRuntimes = sync.Pool{New: func() any {
	vm := goja.New()
	_ = vm.Set("True", true)
	_ = vm.Set("False", false)
	j := &jsVM{vm: vm, account: &memAccount{}}
	guardJavaScript(j)
	return j
}}

// jsVM is a pooled runtime with the memory account of the assertion it evaluates.
type jsVM struct {
	vm      *goja.Runtime
	account *memAccount
}

func compileJavaScript(assertions []string) (assertionEngine, []*assertionError) {
	programs, errs := compileEach(assertions, func(src string) (*goja.Program, *assertionError) {
		if _, err := parser.ParseFile(nil, "assertion", src, 0); err != nil {
			return nil, javascriptSyntaxError(err)
		}
		// Run inside a block, so `const`/`let` declarations stay local to the assertion: pooled
		// runtimes would otherwise keep them, and the next run would fail to declare them again.
		// A block's completion value is its last statement's, like the script's.
		ast, err := parser.ParseFile(nil, "assertion", "{\n"+src+"\n}", 0)
		if err != nil {
			return nil, javascriptSyntaxError(err)
		}
		guardObjectSpreads(ast)
		prg, err := goja.CompileAST(ast, false)
		if err != nil {
			return nil, &assertionError{msg: "does not compile: " + err.Error()}
		}
		return prg, nil
	})
	return &javascriptEngine{programs: programs}, errs
}

func javascriptSyntaxError(err error) *assertionError {
	var list parser.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		return &assertionError{line: list[0].Position.Line, col: list[0].Position.Column, msg: "does not parse: " + list[0].Message}
	}
	var one *parser.Error
	if errors.As(err, &one) {
		return &assertionError{line: one.Position.Line, col: one.Position.Column, msg: "does not parse: " + one.Message}
	}
	return &assertionError{msg: "does not parse: " + err.Error()}
}

func (e *javascriptEngine) begin(ec *evalContext) runEvaluator {
	r := &javascriptRun{e: e, ec: ec}
	r.setUp()
	r.watch.interrupt = func() { r.vm.Interrupt(errJSMemory) }
	watchStart(&r.watch)
	return r
}

// setUp takes a runtime from the pool and sets the run's context variables.
func (r *javascriptRun) setUp() {
	r.j = jsRuntimes.Get().(*jsVM)
	r.vm = r.j.vm
	vm, ec := r.vm, r.ec
	set := func(name string, v goja.Value) { _ = vm.Set(name, v) }
	set("output", vm.ToValue(ec.output))
	set("outcome", vm.NewObject())
	set("transcript", jsArray(vm, ec.transcript))
	set("tool_calls", jsArray(vm, ec.toolCalls))
	set("errors", jsArray(vm, ec.errors))
	set("duration_ms", vm.ToValue(ec.durationMS))
}

// reset replaces an interrupted runtime, whose stack may still hold what the interrupted
// assertion built, before the assertion is evaluated again.
func (r *javascriptRun) reset() {
	// The watchdog interrupts r.vm holding watch.mu; it may be doing so right now.
	watch.mu.Lock()
	defer watch.mu.Unlock()
	if r.poisoned {
		r.poisoned = false
		r.setUp()
	}
	r.vm.ClearInterrupt()
}

type javascriptRun struct {
	e        *javascriptEngine
	ec       *evalContext
	j        *jsVM
	vm       *goja.Runtime
	poisoned bool // interrupted: do not return the runtime to the pool
	watch    memEval
}

func (r *javascriptRun) eval(i int) (bool, string) {
	// An interrupted runtime's stack may still hold what its assertion built: the next
	// assertion gets a new one, or the watchdog would charge that memory to it.
	if r.poisoned {
		r.reset()
	}
	return evalGuarded(&r.watch, r, i)
}

func (r *javascriptRun) evalOnce(i int) (bool, string) {
	r.j.account.reset()
	var mu sync.Mutex
	done := false
	timer := time.AfterFunc(javascriptTimeBudget, func() {
		mu.Lock()
		defer mu.Unlock()
		if !done {
			r.vm.Interrupt(errJSTimeout)
		}
	})
	start := time.Now()
	v, crash, err := r.runProgram(i)
	elapsed := time.Since(start)
	mu.Lock()
	done = true
	mu.Unlock()
	timer.Stop()
	if crash != nil {
		// A refused allocation, or a failure inside goja itself: the assertion fails, the
		// runtime (left mid-call) is not reused, and the grader and the run go on.
		r.vm.ClearInterrupt()
		r.poisoned = true
		if refusal, ok := crash.(*jsRefusal); ok {
			return false, refusal.err.Error()
		}
		return false, fmt.Sprintf("the JavaScript engine failed: %v", crash)
	}
	if err != nil {
		var interrupted *goja.InterruptedError
		if errors.As(err, &interrupted) {
			r.vm.ClearInterrupt()
			r.poisoned = true
			var mem *errMemoryLimit
			switch v := interrupted.Value(); {
			case v == errJSMemory:
				return false, memoryLimitText("", 0)
			case errors.As(asError(v), &mem):
				return false, mem.Error()
			}
			return false, fmt.Sprintf("the assertion did not finish within %s", javascriptTimeBudget)
		}
		var ex *goja.Exception
		if errors.As(err, &ex) {
			return false, ex.Value().String()
		}
		return false, err.Error()
	}
	if elapsed >= javascriptTimeBudget {
		// Interrupt cannot stop native code: a backtracking regular expression (regexp2, which
		// goja uses for lookarounds and backreferences) gives up after the same budget and then
		// reports "no match". Report the time limit instead of that verdict.
		return false, fmt.Sprintf("the assertion did not finish within %s", javascriptTimeBudget)
	}
	return v.ToBoolean(), ""
}

// runProgram runs assertion i; crash is what panicked out of goja instead of an error (a refused
// allocation, or a bug in the engine).
func (r *javascriptRun) runProgram(i int) (v goja.Value, crash any, err error) {
	defer func() {
		if p := recover(); p != nil {
			crash = p
		}
	}()
	v, err = r.vm.RunProgram(r.e.programs[i])
	return v, nil, err
}

var (
	errJSTimeout = errors.New("assertion time budget exceeded")
	errJSMemory  = errors.New("assertion memory budget exceeded")
)

func asError(v any) error {
	err, _ := v.(error)
	return err
}

func (r *javascriptRun) end() {
	watchStop(&r.watch)
	r.vm.ClearInterrupt() // a watchdog interrupt that came after the last assertion
	if !r.poisoned {
		jsRuntimes.Put(r.j)
	}
}

func jsArray(vm *goja.Runtime, items []any) goja.Value {
	vals := make([]any, len(items))
	for i, x := range items {
		vals[i] = jsValue(vm, x)
	}
	return vm.NewArray(vals...)
}

// jsValue builds native JavaScript values (not Go wrappers), so Array.isArray, spread and
// JSON.stringify behave as in node.
func jsValue(vm *goja.Runtime, v any) goja.Value {
	switch t := v.(type) {
	case nil:
		return goja.Null()
	case []any:
		return jsArray(vm, t)
	case map[string]any:
		obj := vm.NewObject()
		for _, k := range sortedKeys(t) {
			_ = obj.Set(k, jsValue(vm, t[k]))
		}
		return obj
	}
	return vm.ToValue(v)
}
