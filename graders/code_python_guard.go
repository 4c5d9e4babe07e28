package graders

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/syntax"
)

// Starlark sizes the results of repetition (`[0] * n`, `"x" * n`) and of string methods only
// after deciding to build them, and its builtins have no allocation hooks. An assertion that
// repeats or calls split, rsplit, splitlines, replace or join is therefore compiled from a
// rewritten source in which these go through checked builtins: `a * b` becomes `_sg_mul(a, b)`
// and `s.split(…)` becomes `_sg_method(s, "split")(…)`. Assertions without them run unchanged.

// Approximate bytes per element: a starlark.Value slot, plus a string header for strings.
const (
	slotBytes   = 16
	stringBytes = 32
)

var guardedMethods = map[string]bool{"split": true, "rsplit": true, "splitlines": true, "replace": true, "join": true}

func init() {
	pythonPredeclared["_sg_mul"] = starlark.NewBuiltin("*", pyGuardedMul)
	pythonPredeclared["_sg_method"] = starlark.NewBuiltin("method", pyGuardedMethod)
}

type sourceEdit struct {
	off, end int    // replaced byte range (off == end: an insertion)
	text     string // replacement
	closing  bool   // an insertion that closes a call opened earlier in the source
	span     int    // length of the rewritten expression, to nest insertions at one offset
}

// guardPython returns src rewritten so that repetitions and the guarded string methods go
// through the checked builtins, or src itself when it has none.
func guardPython(src string, expr syntax.Expr) string {
	offsets := lineOffsets(src)
	off := func(p syntax.Position) int { return runeOffset(src, offsets, p) }
	var edits []sourceEdit
	syntax.Walk(expr, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.BinaryExpr:
			if n.Op != syntax.STAR {
				return true
			}
			start, end := off(syntax.Start(n.X)), off(endOf(n.Y))
			op := off(n.OpPos)
			edits = append(edits,
				sourceEdit{off: start, end: start, text: "_sg_mul(", span: end - start},
				sourceEdit{off: op, end: op + 1, text: ","},
				sourceEdit{off: end, end: end, text: ")", closing: true, span: end - start})
		case *syntax.CallExpr:
			dot, ok := n.Fn.(*syntax.DotExpr)
			if !ok || !guardedMethods[dot.Name.Name] {
				return true
			}
			start, dotOff, nameEnd := off(syntax.Start(dot.X)), off(dot.Dot), off(syntax.End(dot.Name))
			edits = append(edits,
				sourceEdit{off: start, end: start, text: "_sg_method(", span: nameEnd - start},
				sourceEdit{off: dotOff, end: nameEnd, text: fmt.Sprintf(", %q)", dot.Name.Name)})
		}
		return true
	})
	if len(edits) == 0 {
		return src
	}
	// At one offset: closings first (inner before outer), then openings (outer before inner).
	sort.SliceStable(edits, func(i, j int) bool {
		a, b := edits[i], edits[j]
		if a.off != b.off {
			return a.off < b.off
		}
		if a.closing != b.closing {
			return a.closing
		}
		if a.closing {
			return a.span < b.span
		}
		return a.span > b.span
	})
	var out strings.Builder
	last := 0
	for _, e := range edits {
		if e.off < last || e.end < e.off || e.end > len(src) {
			return src // positions this code does not understand: leave the watchdog to guard it
		}
		out.WriteString(src[last:e.off])
		if b := out.String(); e.span > 0 && !e.closing && len(b) > 0 && isIdentByte(b[len(b)-1]) {
			out.WriteByte(' ') // the expression follows a keyword directly: `x in()*0`
		}
		out.WriteString(e.text)
		last = e.end
	}
	out.WriteString(src[last:])
	return out.String()
}

// endOf is the position just past an expression. syntax.End gives that for most nodes, but
// the position of the closing bracket itself for index and slice expressions and parenthesized
// tuples, and nodes ending in one of those inherit it.
func endOf(n syntax.Expr) syntax.Position {
	past := func(p syntax.Position) syntax.Position { p.Col++; return p }
	switch n := n.(type) {
	case *syntax.IndexExpr:
		return past(n.Rbrack)
	case *syntax.SliceExpr:
		return past(n.Rbrack)
	case *syntax.TupleExpr:
		if n.Lparen.IsValid() {
			return past(n.Rparen)
		}
		if len(n.List) > 0 {
			return endOf(n.List[len(n.List)-1])
		}
	case *syntax.BinaryExpr:
		return endOf(n.Y)
	case *syntax.CondExpr:
		return endOf(n.False)
	case *syntax.LambdaExpr:
		return endOf(n.Body)
	case *syntax.UnaryExpr:
		if n.X != nil {
			return endOf(n.X)
		}
	}
	return syntax.End(n)
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// lineOffsets are the byte offsets where lines start; like starlark's scanner, "\r\n" and a
// lone "\r" end a line too.
func lineOffsets(src string) []int {
	offsets := []int{0}
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			offsets = append(offsets, i+1)
		case '\n':
			offsets = append(offsets, i+1)
		}
	}
	return offsets
}

// runeOffset is the byte offset of a starlark position (1-based line, 1-based rune column).
func runeOffset(src string, lines []int, p syntax.Position) int {
	line := int(p.Line) - 1
	if line < 0 || line >= len(lines) {
		return len(src)
	}
	o := lines[line]
	for col := int(p.Col); col > 1 && o < len(src); col-- {
		_, size := utf8.DecodeRuneInString(src[o:])
		o += size
	}
	return o
}

func threadAccount(thread *starlark.Thread) *memAccount {
	a, _ := thread.Local(memAccountKey).(*memAccount)
	if a == nil {
		a = &memAccount{}
		thread.SetLocal(memAccountKey, a)
	}
	return a
}

const memAccountKey = "skillgate.memAccount"

// pyGuardedMul is `x * y` with repetitions sized and charged first.
func pyGuardedMul(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
	x, y := args[0], args[1]
	seq, n := x, y
	if _, ok := x.(starlark.Int); ok {
		seq, n = y, x
	}
	if count, ok := n.(starlark.Int); ok {
		if times, ok := count.Int64(); ok && times > 0 {
			var err error
			switch s := seq.(type) {
			case starlark.String:
				err = threadAccount(thread).charge("a repeated string", int64(len(s)), times)
			case starlark.Bytes:
				err = threadAccount(thread).charge("a repeated bytes value", int64(len(s)), times)
			case *starlark.List:
				err = threadAccount(thread).charge("a repeated list", int64(s.Len())*slotBytes, times)
			case starlark.Tuple:
				err = threadAccount(thread).charge("a repeated tuple", int64(len(s))*slotBytes, times)
			}
			if err != nil {
				return nil, err
			}
		} else if !ok {
			// Too large for int64: starlark refuses it itself.
		}
	}
	return starlark.Binary(syntax.STAR, x, y)
}

// pyGuardedMethod is `x.name`, for a string x with the result of the method sized and charged
// before it is built.
func pyGuardedMethod(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, _ []starlark.Tuple) (starlark.Value, error) {
	x, name := args[0], string(args[1].(starlark.String))
	ha, ok := x.(starlark.HasAttrs)
	var method starlark.Value
	if ok {
		var err error
		if method, err = ha.Attr(name); err != nil {
			return nil, err
		}
	}
	if method == nil {
		return nil, fmt.Errorf("%s has no .%s field or method", x.Type(), name)
	}
	s, isString := x.(starlark.String)
	callable, isCallable := method.(starlark.Callable)
	if !isString || !isCallable {
		return method, nil
	}
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		count, unit := stringMethodSize(string(s), name, args)
		if err := threadAccount(thread).charge("the result of ."+name+"()", count, unit); err != nil {
			return nil, err
		}
		return starlark.Call(thread, callable, args, kwargs)
	}), nil
}

// stringMethodSize estimates the result of s.name(args…) as count × unit bytes (an upper bound
// for well-formed arguments; malformed ones are left to the method to reject).
func stringMethodSize(s, name string, args starlark.Tuple) (count, unit int64) {
	arg := func(i int) (string, bool) {
		if i < len(args) {
			v, ok := args[i].(starlark.String)
			return string(v), ok
		}
		return "", false
	}
	switch name {
	case "split", "rsplit":
		if sep, ok := arg(0); ok && sep != "" {
			return int64(strings.Count(s, sep)) + 1, stringBytes
		}
		return int64(fieldCount(s)) + 1, stringBytes
	case "splitlines":
		return int64(strings.Count(s, "\n")) + 1, stringBytes
	case "replace":
		old, ok1 := arg(0)
		repl, ok2 := arg(1)
		if !ok1 || !ok2 || len(repl) <= len(old) {
			return int64(len(s)), 1
		}
		k := int64(strings.Count(s, old))
		if len(args) > 2 {
			if n, ok := args[2].(starlark.Int); ok {
				if c, ok := n.Int64(); ok && c >= 0 && c < k {
					k = c
				}
			}
		}
		return 1, int64(len(s)) + mulSat(k, int64(len(repl)-len(old)))
	case "join":
		if len(args) == 0 {
			return 0, 0
		}
		seq, ok := args[0].(starlark.Indexable)
		if !ok {
			return 0, 0
		}
		n := seq.Len()
		total := mulSat(int64(max(n-1, 0)), int64(len(s)))
		for i := 0; i < n && total <= codeMemoryBudget; i++ {
			if e, ok := seq.Index(i).(starlark.String); ok {
				total += int64(len(e))
			}
		}
		return 1, total
	}
	return 0, 0
}

func fieldCount(s string) int {
	n, in := 0, false
	for _, r := range s {
		space := unicode.IsSpace(r)
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// chargeIterables charges a builtin that builds a collection from its arguments (list, tuple,
// sorted, …) for the elements it will hold, before it builds them.
func chargeIterables(thread *starlark.Thread, name string, args starlark.Tuple) error {
	for _, a := range args {
		var n int64
		switch v := a.(type) {
		case starlark.String:
			n = int64(len(v)) * stringBytes / slotBytes // iterated by character
		case starlark.Sequence:
			n = int64(v.Len())
		default:
			continue
		}
		if n < 1024 {
			continue
		}
		if err := threadAccount(thread).charge(name+"(…) of "+fmt.Sprint(n)+" elements", n, slotBytes); err != nil {
			return err
		}
	}
	return nil
}
