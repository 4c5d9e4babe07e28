package graders

import (
	"reflect"

	"github.com/dop251/goja/ast"
)

// guardObjectSpreads rewrites a parsed assertion so that what every object spread ({...x})
// and object rest (const {...r} = x, ({...r} = x)) copies passes through the spread guard
// first. goja copies their properties in one native loop, no iterator involved: a string or a
// typed array of millions of elements would become millions of properties before the
// assertion could be interrupted.
func guardObjectSpreads(prg *ast.Program) {
	wrap := func(e ast.Expression) ast.Expression {
		if e == nil {
			return nil
		}
		return &ast.CallExpression{
			Callee:           &ast.Identifier{Name: spreadGuardName, Idx: e.Idx0()},
			LeftParenthesis:  e.Idx0(),
			ArgumentList:     []ast.Expression{e},
			RightParenthesis: e.Idx1(),
		}
	}
	hasRest := func(e any) bool {
		p, ok := e.(*ast.ObjectPattern)
		return ok && p.Rest != nil
	}
	astPkg := reflect.TypeFor[ast.Program]().PkgPath()
	seen := map[any]bool{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Interface:
			if !v.IsNil() {
				walk(v.Elem())
			}
		case reflect.Pointer:
			if v.IsNil() || v.Elem().Kind() != reflect.Struct || v.Type().Elem().PkgPath() != astPkg || seen[v.Interface()] {
				return
			}
			seen[v.Interface()] = true
			switch n := v.Interface().(type) {
			case *ast.ObjectLiteral:
				for _, p := range n.Value {
					if s, ok := p.(*ast.SpreadElement); ok {
						s.Expression = wrap(s.Expression)
					}
				}
			case *ast.Binding:
				if hasRest(n.Target) {
					n.Initializer = wrap(n.Initializer)
				}
			case *ast.AssignExpression:
				if hasRest(n.Left) {
					n.Right = wrap(n.Right)
				}
			}
			walk(v.Elem())
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice:
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(prg))
}
