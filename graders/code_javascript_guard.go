package graders

import (
	"strconv"

	"github.com/dop251/goja"
)

// goja's native methods run to completion before Interrupt is looked at, so the ones that build
// a result proportional to a number the assertion chooses (`new Array(n).fill(0)`,
// `"x".repeat(n)`, `padStart(n)`, `Array.from({length: n})`, `join`, `concat`) are wrapped: the
// result is sized and charged first, and an assertion over its budget is interrupted (which
// try/catch cannot intercept). Each element of an array costs a goja.Value slot.

func guardJavaScript(j *jsVM) {
	vm := j.vm
	refuse := func(err error) goja.Value {
		vm.Interrupt(err)
		return goja.Undefined()
	}
	length := func(v goja.Value) int64 {
		o, ok := v.(*goja.Object)
		if !ok {
			return 0
		}
		return o.Get("length").ToInteger()
	}
	strLen := func(v goja.Value) int64 {
		if s, ok := v.(goja.String); ok {
			return int64(s.Length())
		}
		return 0
	}
	wrap := func(ctor, name string, size func(call goja.FunctionCall) (what string, count, unit int64)) {
		obj := vm.Get(ctor).ToObject(vm)
		target := obj
		if name[0] == '.' {
			target = obj.Get("prototype").ToObject(vm)
			name = name[1:]
		}
		orig, ok := goja.AssertFunction(target.Get(name))
		if !ok {
			return
		}
		f := vm.ToValue(func(call goja.FunctionCall) goja.Value {
			what, count, unit := size(call)
			if err := j.account.charge(what, count, unit); err != nil {
				return refuse(err)
			}
			v, err := orig(call.This, call.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		})
		_ = target.DefineDataProperty(name, f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	arg := func(call goja.FunctionCall, i int) goja.Value { return call.Argument(i) }

	wrap("Array", ".fill", func(call goja.FunctionCall) (string, int64, int64) {
		return "Array.prototype.fill", length(call.This), slotBytes
	})
	wrap("Array", ".join", func(call goja.FunctionCall) (string, int64, int64) {
		n := length(call.This)
		sep := int64(1)
		if a := arg(call, 0); !goja.IsUndefined(a) {
			sep = int64(len(a.String()))
		}
		total := mulSat(max(n-1, 0), sep) + mulSat(n, 1)
		if o, ok := call.This.(*goja.Object); ok {
			for i := int64(0); i < n && total <= codeMemoryBudget; i++ {
				total += strLen(o.Get(strconv.FormatInt(i, 10)))
			}
		}
		return "Array.prototype.join", 1, total
	})
	wrap("Array", ".concat", func(call goja.FunctionCall) (string, int64, int64) {
		n := length(call.This)
		for _, a := range call.Arguments {
			n += max(length(a), 1)
		}
		return "Array.prototype.concat", n, slotBytes
	})
	wrap("Array", "from", func(call goja.FunctionCall) (string, int64, int64) {
		return "Array.from", length(arg(call, 0)), slotBytes
	})
	wrap("String", ".repeat", func(call goja.FunctionCall) (string, int64, int64) {
		return "String.prototype.repeat", int64(len(call.This.String())), arg(call, 0).ToInteger()
	})
	for _, pad := range []string{".padStart", ".padEnd"} {
		wrap("String", pad, func(call goja.FunctionCall) (string, int64, int64) {
			return "String.prototype" + pad, arg(call, 0).ToInteger(), 1
		})
	}
}
