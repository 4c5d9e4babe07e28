package graders

import (
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// goja's native methods run to completion before Interrupt is looked at, and Go cannot recover
// from an allocation the machine cannot satisfy ("fatal error: out of memory" ends the process).
// So every native operation that allocates in proportion to a number the assertion chooses, or
// to the length of what it is given, is wrapped: the result is sized and charged first, and an
// assertion over its budget is interrupted (which try/catch cannot intercept). Covered:
//
//   - building: new Array(n).fill, Array.from, Array.of, String repeat/padStart/padEnd/concat,
//     join (arrays and typed arrays), String.raw;
//   - buffers: every typed array constructor and ArrayBuffer (through a Proxy that keeps them
//     constructors, also reached through `.constructor`, species and subclasses);
//   - iteration, which spreads ([...s], f(...a)), for-of and Array.from use: the iterators of
//     strings, arrays and typed arrays; object spread and object rest ({...s}), which take no
//     iterator, go through a check the assertion is compiled with;
//   - copies of `this`: the Array.prototype methods that build a new array or move its elements
//     (slice, splice, map, filter, flat, sort, reverse, with, toSorted…) — a sparse array of
//     length 4e9 costs nothing until one of them makes it dense;
//   - strings: split, match, matchAll, replace, replaceAll (string and RegExp forms), the case
//     conversions and normalize;
//   - argument lists built from array-likes (Function.prototype.apply, Reflect.apply and
//     Reflect.construct of {length: 1e9}), the key lists of Object.keys and its kin, and
//     JSON.stringify and JSON.parse.
//
// Each element of an array costs a goja.Value slot; each string element a slot and a header.

// propBytes is what one own property created by an object spread costs (key, value, slot).
const propBytes = 64

// spreadGuardName is the global the assertion's object spreads and rests are checked through.
const spreadGuardName = "__skillgate_spread"

func guardJavaScript(j *jsVM) {
	vm := j.vm
	g := &jsGuard{vm: vm, j: j}
	arg := func(call goja.FunctionCall, i int) goja.Value { return call.Argument(i) }

	// Building.
	g.method("Array", ".fill", func(c goja.FunctionCall) (string, int64, int64) {
		return "Array.prototype.fill", g.length(c.This), slotBytes
	})
	g.method("Array", ".join", func(c goja.FunctionCall) (string, int64, int64) {
		return "Array.prototype.join", 1, g.joinSize(c.This, arg(c, 0))
	})
	g.method("Array", ".concat", func(c goja.FunctionCall) (string, int64, int64) {
		n := g.length(c.This)
		for _, a := range c.Arguments {
			n += max(g.length(a), 1)
		}
		return "Array.prototype.concat", n, slotBytes
	})
	g.method("Array", "from", func(c goja.FunctionCall) (string, int64, int64) {
		return "Array.from", g.length(arg(c, 0)), slotBytes
	})
	g.method("String", ".repeat", func(c goja.FunctionCall) (string, int64, int64) {
		return "String.prototype.repeat", g.strLen(c.This), arg(c, 0).ToInteger()
	})
	for _, pad := range []string{".padStart", ".padEnd"} {
		g.method("String", pad, func(c goja.FunctionCall) (string, int64, int64) {
			return "String.prototype" + pad, arg(c, 0).ToInteger(), 1
		})
	}
	g.method("String", ".concat", func(c goja.FunctionCall) (string, int64, int64) {
		n := g.strLen(c.This)
		for _, a := range c.Arguments {
			n += g.strLen(a)
		}
		return "String.prototype.concat", n, 1
	})
	g.method("String", "raw", func(c goja.FunctionCall) (string, int64, int64) {
		var n int64
		if o, ok := arg(c, 0).(*goja.Object); ok {
			n = g.length(o.Get("raw"))
		}
		return "String.raw", n, stringBytes
	})

	// Buffers.
	for _, name := range []string{"ArrayBuffer", "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
		"Int32Array", "Uint32Array", "Float16Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array"} {
		g.constructor(name)
	}

	// Iteration.
	g.iterators("Array", "Array", slotBytes)
	if ta, ok := vm.Get("Uint8Array").(*goja.Object); ok {
		if proto := ta.Prototype(); proto != nil { // %TypedArray%
			if tap, ok := proto.Get("prototype").(*goja.Object); ok {
				g.iteratorsOn(tap, "TypedArray", slotBytes)
				g.methodOn(tap, "join", "TypedArray.prototype.join", func(c goja.FunctionCall) (string, int64, int64) {
					return "TypedArray.prototype.join", g.length(c.This), 25 // digits and a separator
				})
				g.methodOn(tap, "toLocaleString", "TypedArray.prototype.toLocaleString", func(c goja.FunctionCall) (string, int64, int64) {
					return "TypedArray.prototype.toLocaleString", g.length(c.This), 25
				})
			}
		}
	}
	if sp, ok := vm.Get("String").(*goja.Object); ok {
		if proto, ok := sp.Get("prototype").(*goja.Object); ok {
			g.methodSym(proto, goja.SymIterator, "String.prototype[Symbol.iterator]", func(c goja.FunctionCall) (int64, int64) {
				return g.strLen(c.This), stringBytes
			})
		}
	}
	_ = vm.Set(spreadGuardName, func(c goja.FunctionCall) goja.Value {
		v := arg(c, 0)
		n := g.strLen(v)
		if o, ok := v.(*goja.Object); ok {
			n = g.length(o)
		}
		if err := j.account.charge("an object spread", n, propBytes); err != nil {
			return g.refuse(err)
		}
		return v
	})

	// Copies of `this`.
	for _, m := range []string{"slice", "splice", "map", "filter", "flat", "flatMap", "sort", "reverse", "copyWithin",
		"with", "toReversed", "toSorted", "toSpliced", "unshift", "toLocaleString"} {
		g.method("Array", "."+m, func(c goja.FunctionCall) (string, int64, int64) {
			return "Array.prototype." + m, g.length(c.This), slotBytes
		})
	}

	// Strings.
	g.method("String", ".split", func(c goja.FunctionCall) (string, int64, int64) {
		sep, ok := arg(c, 0).(goja.String)
		if !ok {
			return "", 0, 0 // a RegExp splits through its own (guarded) method
		}
		n := g.strLen(c.This) + 1
		if s := sep.String(); s != "" {
			n = int64(strings.Count(c.This.String(), s)) + 1
		}
		if lim := arg(c, 1); !goja.IsUndefined(lim) {
			n = min(n, max(lim.ToInteger(), 0))
		}
		return "String.prototype.split", n, stringBytes
	})
	for _, m := range []string{"replace", "replaceAll"} {
		g.method("String", "."+m, func(c goja.FunctionCall) (string, int64, int64) {
			pat, ok := arg(c, 0).(goja.String)
			if !ok {
				return "", 0, 0 // a RegExp replaces through its own (guarded) method
			}
			return "String.prototype." + m, 1, g.replaceSize(c.This, pat.String(), arg(c, 1), m == "replaceAll")
		})
	}
	for _, m := range []string{"toUpperCase", "toLowerCase", "toLocaleUpperCase", "toLocaleLowerCase", "normalize"} {
		g.method("String", "."+m, func(c goja.FunctionCall) (string, int64, int64) {
			return "String.prototype." + m, g.strLen(c.This), 3 // "ß" becomes "SS"; UTF-16 halves
		})
	}
	if re, ok := vm.Get("RegExp").(*goja.Object); ok {
		if proto, ok := re.Get("prototype").(*goja.Object); ok {
			g.methodSym(proto, goja.SymSplit, "RegExp.prototype[Symbol.split]", func(c goja.FunctionCall) (int64, int64) {
				return g.strLen(arg(c, 0)) + 1, slotBytes
			})
			g.methodSym(proto, goja.SymMatch, "RegExp.prototype[Symbol.match]", func(c goja.FunctionCall) (int64, int64) {
				if o, ok := c.This.(*goja.Object); ok && !o.Get("global").ToBoolean() {
					return 0, 0 // one match and its groups
				}
				return g.strLen(arg(c, 0)) + 1, slotBytes
			})
			g.methodSym(proto, goja.SymMatchAll, "RegExp.prototype[Symbol.matchAll]", func(c goja.FunctionCall) (int64, int64) {
				return g.strLen(arg(c, 0)) + 1, 4 * slotBytes // each match is an array
			})
			g.methodSym(proto, goja.SymReplace, "RegExp.prototype[Symbol.replace]", func(c goja.FunctionCall) (int64, int64) {
				return 1, g.replaceSize(arg(c, 0), "", arg(c, 1), true)
			})
		}
	}

	// Argument lists, key lists, JSON.
	g.method("Function", ".apply", func(c goja.FunctionCall) (string, int64, int64) {
		return "Function.prototype.apply", g.length(arg(c, 1)), slotBytes
	})
	g.method("Reflect", "apply", func(c goja.FunctionCall) (string, int64, int64) {
		return "Reflect.apply", g.length(arg(c, 2)), slotBytes
	})
	g.method("Reflect", "construct", func(c goja.FunctionCall) (string, int64, int64) {
		return "Reflect.construct", g.length(arg(c, 1)), slotBytes
	})
	for _, m := range []string{"keys", "values", "entries", "getOwnPropertyNames", "getOwnPropertyDescriptors", "assign"} {
		g.method("Object", m, func(c goja.FunctionCall) (string, int64, int64) {
			var n int64
			for _, a := range c.Arguments {
				n += g.indexedSize(a)
			}
			return "Object." + m, n, propBytes
		})
	}
	g.method("Reflect", "ownKeys", func(c goja.FunctionCall) (string, int64, int64) {
		return "Reflect.ownKeys", g.indexedSize(arg(c, 0)), stringBytes
	})
	g.method("JSON", "stringify", func(c goja.FunctionCall) (string, int64, int64) {
		return "JSON.stringify", 1, g.jsonSize(arg(c, 0))
	})
	g.method("JSON", "parse", func(c goja.FunctionCall) (string, int64, int64) {
		return "JSON.parse", g.strLen(arg(c, 0)), 8 // a value per two characters at most
	})
}

// jsGuard wraps a runtime's native functions so that they charge the assertion's memory
// account before they allocate.
type jsGuard struct {
	vm *goja.Runtime
	j  *jsVM
}

// refuse stops the assertion: a Go panic that is no JavaScript exception unwinds through every
// try/catch and finally of the assertion (goja re-panics it) up to evalOnce, which fails the
// assertion with err. Nothing of the native call that would have allocated runs.
func (g *jsGuard) refuse(err error) goja.Value {
	panic(&jsRefusal{err: err})
}

// jsRefusal is an allocation an assertion was refused.
type jsRefusal struct{ err error }

// method wraps the function name of the global object ctor (".name": of its prototype).
func (g *jsGuard) method(ctor, name string, size func(goja.FunctionCall) (what string, count, unit int64)) {
	obj, ok := g.vm.Get(ctor).(*goja.Object)
	if !ok {
		return
	}
	if name[0] == '.' {
		if obj, ok = obj.Get("prototype").(*goja.Object); !ok {
			return
		}
		name = name[1:]
	}
	g.methodOn(obj, name, ctor+"."+name, size)
}

func (g *jsGuard) methodOn(target *goja.Object, name, _ string, size func(goja.FunctionCall) (string, int64, int64)) {
	orig, ok := goja.AssertFunction(target.Get(name))
	if !ok {
		return
	}
	_ = target.DefineDataProperty(name, g.wrap(orig, size), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// methodSym wraps the symbol-keyed method sym of target.
func (g *jsGuard) methodSym(target *goja.Object, sym *goja.Symbol, what string, size func(goja.FunctionCall) (count, unit int64)) {
	orig, ok := goja.AssertFunction(target.GetSymbol(sym))
	if !ok {
		return
	}
	f := g.wrap(orig, func(c goja.FunctionCall) (string, int64, int64) {
		n, u := size(c)
		return what, n, u
	})
	_ = target.DefineDataPropertySymbol(sym, f, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

func (g *jsGuard) wrap(orig goja.Callable, size func(goja.FunctionCall) (string, int64, int64)) goja.Value {
	return g.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		if what, count, unit := size(call); what != "" {
			if err := g.j.account.charge(what, count, unit); err != nil {
				return g.refuse(err)
			}
		}
		v, err := orig(call.This, call.Arguments...)
		if err != nil {
			panic(err)
		}
		return v
	})
}

// iterators wraps the iterators of the prototype of the global ctor: values (which is also
// [Symbol.iterator]), keys and entries. A spread or for-of builds at most what they yield.
func (g *jsGuard) iterators(ctor, label string, unit int64) {
	if obj, ok := g.vm.Get(ctor).(*goja.Object); ok {
		if proto, ok := obj.Get("prototype").(*goja.Object); ok {
			g.iteratorsOn(proto, label, unit)
		}
	}
}

func (g *jsGuard) iteratorsOn(proto *goja.Object, label string, unit int64) {
	sameAsValues := proto.GetSymbol(goja.SymIterator) == proto.Get("values")
	for _, m := range []string{"values", "keys", "entries"} {
		u := unit
		if m == "entries" {
			u = 4 * unit // a [key, value] array each
		}
		g.methodOn(proto, m, label+".prototype."+m, func(c goja.FunctionCall) (string, int64, int64) {
			return label + ".prototype." + m, g.length(c.This), u
		})
	}
	if sameAsValues {
		_ = proto.DefineDataPropertySymbol(goja.SymIterator, proto.Get("values"), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
}

// constructor replaces the global constructor name by a Proxy whose construct trap charges the
// buffer first, and points its prototype's constructor at the proxy, so instances, species and
// subclasses reach only the guarded one.
func (g *jsGuard) constructor(name string) {
	target, ok := g.vm.Get(name).(*goja.Object)
	if !ok {
		return
	}
	build, ok := goja.AssertConstructor(target)
	if !ok {
		return
	}
	elem := int64(1) // ArrayBuffer: bytes
	if b := target.Get("BYTES_PER_ELEMENT"); b != nil {
		elem = max(b.ToInteger(), 1)
	}
	proxy := g.vm.NewProxy(target, &goja.ProxyTrapConfig{
		Construct: func(_ *goja.Object, args []goja.Value, newTarget *goja.Object) *goja.Object {
			if err := g.j.account.charge(name, g.bufferElements(args), elem); err != nil {
				g.refuse(err)
			}
			o, err := build(newTarget, args...)
			if err != nil {
				panic(err)
			}
			return o
		},
	})
	// goja's instanceof cannot see through a proxy: the constructor answers it itself, as
	// Function.prototype[Symbol.hasInstance] would (also for subclasses, through `this`).
	_ = target.DefineDataPropertySymbol(goja.SymHasInstance, g.vm.ToValue(func(c goja.FunctionCall) goja.Value {
		return g.vm.ToValue(ordinaryHasInstance(c.This, c.Argument(0)))
	}), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	pv := g.vm.ToValue(proxy)
	if proto, ok := target.Get("prototype").(*goja.Object); ok {
		_ = proto.DefineDataProperty("constructor", pv, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	_ = g.vm.GlobalObject().DefineDataProperty(name, pv, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// ordinaryHasInstance is `v instanceof ctor` for a constructor: ctor.prototype is on v's chain.
func ordinaryHasInstance(ctor, v goja.Value) bool {
	c, ok1 := ctor.(*goja.Object)
	o, ok2 := v.(*goja.Object)
	if !ok1 || !ok2 {
		return false
	}
	proto, ok := c.Get("prototype").(*goja.Object)
	if !ok {
		return false
	}
	for p := o.Prototype(); p != nil; p = p.Prototype() {
		if p == proto {
			return true
		}
	}
	return false
}

// bufferElements is how many elements a typed array or buffer constructor call allocates: its
// length argument, or the length (or size) of what it copies; none for a view of a buffer.
func (g *jsGuard) bufferElements(args []goja.Value) int64 {
	if len(args) == 0 {
		return 0
	}
	o, ok := args[0].(*goja.Object)
	if !ok {
		return max(args[0].ToInteger(), 0)
	}
	if _, isBuf := o.Export().(goja.ArrayBuffer); isBuf {
		return 0
	}
	if n := g.length(o); n > 0 {
		return n
	}
	if s := o.Get("size"); s != nil && !goja.IsUndefined(s) {
		return max(s.ToInteger(), 0)
	}
	return 0
}

// length is v's length property as an integer (0 for a primitive other than a string).
func (g *jsGuard) length(v goja.Value) int64 {
	switch x := v.(type) {
	case goja.String:
		return int64(x.Length())
	case *goja.Object:
		if l := x.Get("length"); l != nil {
			return max(l.ToInteger(), 0)
		}
	}
	return 0
}

// strLen is the length of a string primitive or String object, 0 otherwise (a method called on
// anything else converts it first, which is no larger than the object it comes from).
func (g *jsGuard) strLen(v goja.Value) int64 {
	switch x := v.(type) {
	case goja.String:
		return int64(x.Length())
	case *goja.Object:
		if x.ClassName() == "String" {
			return g.length(x)
		}
	}
	return 0
}

// indexedSize is how many index keys v gives a key list or a spread: its characters, or its
// length when it is array-like.
func (g *jsGuard) indexedSize(v goja.Value) int64 {
	if n := g.strLen(v); n > 0 {
		return n
	}
	return g.length(v)
}

// joinSize bounds this.join(sep): separators, and the elements' text up to the budget.
func (g *jsGuard) joinSize(this, sepArg goja.Value) int64 {
	n := g.length(this)
	sep := int64(1)
	if !goja.IsUndefined(sepArg) {
		sep = g.strLen(sepArg.ToString())
	}
	total := mulSat(max(n-1, 0), sep) + n
	if o, ok := this.(*goja.Object); ok {
		for i := int64(0); i < n && total <= codeMemoryBudget; i++ {
			total += g.strLen(o.Get(strconv.FormatInt(i, 10)))
		}
	}
	return total
}

// replaceSize bounds s.replace(pattern, replacement): each match (every position, for a RegExp
// or replaceAll of "") may add the replacement, whose `$&` copies the match (the string, at most).
func (g *jsGuard) replaceSize(s goja.Value, pattern string, repl goja.Value, all bool) int64 {
	n := g.strLen(s)
	r, isString := repl.(goja.String)
	if !isString {
		return n // a function's results already exist when they are joined
	}
	rs := r.String()
	matches := int64(1)
	switch {
	case pattern != "" && all:
		matches = int64(strings.Count(s.String(), pattern))
	case pattern == "" && !all:
	default:
		matches = n + 1
	}
	if pattern != "" && !all && !strings.Contains(s.String(), pattern) {
		matches = 0
	}
	perMatch := int64(len(rs))
	if strings.Contains(rs, "$") {
		perMatch += n // $&, $` and $' copy parts of the string
	}
	return n + mulSat(matches, perMatch)
}

// jsonSize bounds JSON.stringify(v): strings by their length, arrays and typed arrays by at
// least five characters an element ("null,"), walking at most a few thousand values.
func (g *jsGuard) jsonSize(v goja.Value) int64 {
	budget := 4096
	seen := map[*goja.Object]bool{}
	var size func(v goja.Value) int64
	size = func(v goja.Value) int64 {
		if budget--; budget < 0 {
			return 0
		}
		switch x := v.(type) {
		case goja.String:
			return int64(x.Length()) + 2
		case *goja.Object:
			if seen[x] {
				return 0 // a cycle: stringify throws
			}
			seen[x] = true
			if _, isFunc := goja.AssertFunction(x); isFunc {
				return 0
			}
			var n int64
			if b := x.Get("BYTES_PER_ELEMENT"); x.ClassName() == "Array" || b != nil && !goja.IsUndefined(b) {
				n = g.length(x) // an array, or a typed array (written as an object of its indexes)
			}
			total := mulSat(n, 5)
			if n > 0 {
				for i := int64(0); i < n && budget > 0 && total <= codeMemoryBudget; i++ {
					total += size(x.Get(strconv.FormatInt(i, 10)))
				}
				return total
			}
			for _, k := range x.Keys() {
				if budget <= 0 || total > codeMemoryBudget {
					break
				}
				total += int64(len(k)) + 4 + size(x.Get(k))
			}
			return total
		}
		return 8
	}
	return size(v)
}
