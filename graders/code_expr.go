package graders

import (
	"errors"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
)

// expr assertions use expr-lang (https://expr-lang.org): a typed, side-effect-free expression
// language (`output contains "x"`, `len(tool_calls) <= 3`, `output matches "(?i)done"`,
// `all(tool_calls, .success)`). Names are checked at compile time.

type exprEngine struct {
	programs []*vm.Program
}

// exprVMs pools expr virtual machines (their stacks are reused between evaluations).
var exprVMs = sync.Pool{New: func() any { return &vm.VM{} }}

// exprSampleEnv declares the context variables' types for the compiler.
func exprSampleEnv() map[string]any {
	return map[string]any{
		"output":      "",
		"outcome":     map[string]any{},
		"transcript":  []any{},
		"tool_calls":  []any{},
		"errors":      []any{},
		"duration_ms": 0,
	}
}

func compileExpr(assertions []string) (assertionEngine, []*assertionError) {
	programs, errs := compileEach(assertions, func(src string) (*vm.Program, *assertionError) {
		prg, err := compileExprAssertion(src)
		if err != nil {
			return nil, exprCompileError(err)
		}
		return prg, nil
	})
	return &exprEngine{programs: programs}, errs
}

// compileExprAssertion compiles one expression; expr's compiler may panic on odd input, which
// becomes an error here.
func compileExprAssertion(src string) (prg *vm.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			prg, err = nil, errors.New("the expression cannot be compiled")
		}
	}()
	return expr.Compile(src, expr.Env(exprSampleEnv()))
}

func exprCompileError(err error) *assertionError {
	var fe *file.Error
	if errors.As(err, &fe) {
		msg := fe.Message
		if name, ok := strings.CutPrefix(msg, "unknown name "); ok {
			msg = "unknown name " + name + " (an assertion can read " + strings.Join(contextNames, ", ") + ")"
		}
		return &assertionError{line: fe.Line, col: fe.Column + 1, msg: "does not compile: " + msg}
	}
	return &assertionError{msg: "does not compile: " + err.Error()}
}

func (e *exprEngine) begin(ec *evalContext) runEvaluator {
	env := map[string]any{
		"output":      ec.output,
		"outcome":     map[string]any{},
		"transcript":  orEmptyAny(ec.transcript),
		"tool_calls":  orEmptyAny(ec.toolCalls),
		"errors":      orEmptyAny(ec.errors),
		"duration_ms": int(ec.durationMS),
	}
	return &exprRun{e: e, env: env, vm: exprVMs.Get().(*vm.VM)}
}

type exprRun struct {
	e   *exprEngine
	env map[string]any
	vm  *vm.VM
}

func (r *exprRun) eval(i int) (ok bool, errText string) {
	defer func() {
		if p := recover(); p != nil {
			ok, errText = false, "the expression failed"
		}
	}()
	r.vm.MemoryBudget = exprMemoryBudget
	v, err := r.vm.Run(r.e.programs[i], r.env)
	if err != nil {
		var fe *file.Error
		if errors.As(err, &fe) {
			if fe.Message == "memory budget exceeded" {
				return false, "the assertion exceeded its evaluation budget (expr memory budget)"
			}
			return false, fe.Message
		}
		return false, err.Error()
	}
	return truthy(v), ""
}

func (r *exprRun) end() { exprVMs.Put(r.vm) }

func orEmptyAny(s []any) []any {
	if s == nil {
		return []any{}
	}
	return s
}

// truthy is Python's truth test on plain values: false, nil, 0, "" and empty collections are false.
func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != ""
	case int:
		return t != 0
	case int64:
		return t != 0
	case float64:
		return t != 0
	case []any:
		return len(t) > 0
	case map[string]any:
		return len(t) > 0
	}
	return true
}
