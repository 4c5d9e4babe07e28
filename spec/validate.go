package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"gopkg.in/yaml.v3"

	"github.com/skillgate/skillgate/schemas"
)

// compiledSchema is one embedded schema, compiled once per process, plus its raw JSON so error
// messages can list allowed keys and values.
type compiledSchema struct {
	schema *jsonschema.Schema
	raw    any
}

var compiledSchemas = sync.OnceValues(func() (map[string]*compiledSchema, error) {
	out := map[string]*compiledSchema{}
	for _, name := range []string{schemas.EvalFile, schemas.TaskFile, schemas.TriggerTestsFile} {
		data := schemas.Bytes(name)
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource(schemas.BaseURL+name, bytes.NewReader(data)); err != nil {
			return nil, err
		}
		s, err := c.Compile(schemas.BaseURL + name)
		if err != nil {
			return nil, err
		}
		var raw any
		if err := json.Unmarshal(data, &raw); err != nil {
			return nil, err
		}
		out[name] = &compiledSchema{schema: s, raw: raw}
	}
	return out, nil
})

// validateSchema checks a parsed document against an embedded schema and turns every leaf error
// into a diagnostic at the offending node.
func validateSchema(doc *document, schemaName string) (diags Diagnostics) {
	if doc == nil || doc.Root == nil {
		return nil
	}
	all, err := compiledSchemas()
	if err != nil {
		return Diagnostics{Errorf(Pos{File: doc.File}, "", "", "internal error: schema %s: %v", schemaName, err)}
	}
	cs := all[schemaName]
	defer func() {
		if r := recover(); r != nil {
			diags = append(diags, Errorf(Pos{File: doc.File}, "", "", "cannot validate this file (%v)", r))
		}
	}()
	err = cs.schema.Validate(doc.Value)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return Diagnostics{Errorf(Pos{File: doc.File}, "", "", "cannot validate this file: %v", err)}
	}
	var leaves []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, e)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	rw := &rewriter{doc: doc, raw: cs.raw}
	seen := map[string]bool{}
	for _, leaf := range leaves {
		for _, d := range rw.rewrite(leaf) {
			id := d.Pos.String() + "\x00" + d.Key + "\x00" + d.Message
			if !seen[id] {
				seen[id] = true
				diags = append(diags, d)
			}
		}
	}
	return diags
}

type rewriter struct {
	doc *document
	raw any
}

// schemaAt resolves the fragment of an absolute keyword location in the raw schema.
func (rw *rewriter) schemaAt(ptr string) any {
	cur := rw.raw
	if ptr == "" {
		return cur
	}
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

// valueAt resolves an instance location in the converted document.
func (rw *rewriter) valueAt(ptr string) any {
	cur := rw.doc.Value
	if ptr == "" {
		return cur
	}
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			cur = c[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}

func splitLocation(abs string) (parent, keyword string) {
	frag := abs
	if i := strings.IndexByte(abs, '#'); i >= 0 {
		frag = abs[i+1:]
	}
	j := strings.LastIndexByte(frag, '/')
	if j < 0 {
		return "", frag
	}
	return frag[:j], frag[j+1:]
}

func strs(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		out = append(out, fmt.Sprint(e))
	}
	return out
}

func (rw *rewriter) pos(n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: rw.doc.File, Line: 1, Col: 1}
	}
	return Pos{File: rw.doc.File, Line: n.Line, Col: n.Column}
}

func (rw *rewriter) rewrite(e *jsonschema.ValidationError) Diagnostics {
	parentLoc, kw := splitLocation(e.AbsoluteKeywordLocation)
	parent, _ := rw.schemaAt(parentLoc).(map[string]any)
	_, node, path := nodeAt(rw.doc.Root, e.InstanceLocation)
	key := KeyPath(path...)
	at := rw.pos(node)
	value := rw.valueAt(e.InstanceLocation)

	// A `false` subschema: a key this kind of grader does not take.
	if b, isBool := rw.schemaAt(parentLoc + "/" + kw).(bool); isBool && !b && strings.HasSuffix(parentLoc, "/properties") {
		k, _, _ := nodeAt(rw.doc.Root, e.InstanceLocation)
		if k != nil {
			at = rw.pos(k)
		}
		graderType := ""
		if obj, ok := rw.valueAt(parentPointer(e.InstanceLocation)).(map[string]any); ok {
			graderType, _ = obj["type"].(string)
		}
		fix := "remove it; model, rubric, threshold and reference belong to prompt, llm and llm_comparison graders"
		if kw == "assertions" {
			fix = "remove it, or make this a `type: code` grader; top-level assertions belong to code graders"
		}
		return Diagnostics{Errorf(at, key, fix, "a %s grader does not take the key `%s`", graderType, kw)}
	}

	switch kw {
	case "additionalProperties":
		obj, _ := value.(map[string]any)
		allowedMap, _ := parent["properties"].(map[string]any)
		allowed := sortedKeys(allowedMap)
		strict := parent[schemas.StrictKey] == "error"
		var out Diagnostics
		for _, name := range orderedKeys(node) {
			if _, ok := obj[name]; !ok {
				continue
			}
			if _, ok := allowedMap[name]; ok {
				continue
			}
			k, _ := mapPair(node, name)
			p := at
			if k != nil {
				p = rw.pos(k)
			}
			fix := "allowed keys: " + backquoteList(allowed)
			if s := suggest(name, allowed); s != "" {
				fix = "did you mean `" + s + "`?"
			}
			full := KeyPath(append(append([]any{}, path...), name)...)
			if strict {
				out = append(out, Errorf(p, full, fix, "unknown key `%s`", name))
			} else {
				out = append(out, Warnf(p, full, fix, "unknown key `%s` is ignored", name))
			}
		}
		return out
	case "required":
		obj, _ := value.(map[string]any)
		var out Diagnostics
		props, _ := parent["properties"].(map[string]any)
		for _, name := range strs(parent["required"]) {
			if _, ok := obj[name]; ok {
				continue
			}
			fix := "add `" + name + ":`"
			if p, ok := props[name].(map[string]any); ok {
				if vals := strs(p["enum"]); len(vals) > 0 {
					fix = "add `" + name + ":` with one of: " + strings.Join(vals, ", ")
				}
			}
			out = append(out, Errorf(at, key, fix, "missing required key `%s`", name))
		}
		return out
	case "type":
		want := typeNames(parent["type"])
		fix := ""
		switch {
		case strings.Contains(want, "a string"):
			fix = "put the value in quotes"
		case strings.Contains(want, "a list"):
			fix = "write a list: one `- item` per line, or [a, b]"
		case strings.Contains(want, "a mapping"):
			fix = "write `key: value` lines indented under it"
		case strings.Contains(want, "an integer"):
			fix = "write a whole number"
		case strings.Contains(want, "true or false"):
			fix = "write true or false"
		case strings.Contains(want, "a number"):
			fix = "write a number"
		}
		return Diagnostics{Errorf(at, key, fix, "expected %s, got %s", want, describeValue(value))}
	case "enum":
		allowed := strs(parent["enum"])
		got := fmt.Sprint(value)
		fix := "use one of: " + strings.Join(allowed, ", ")
		if s := suggest(got, allowed); s != "" {
			fix = "did you mean `" + s + "`? allowed: " + strings.Join(allowed, ", ")
		}
		what := "value"
		if len(path) > 0 {
			if last, ok := path[len(path)-1].(string); ok && last == "type" && strings.Contains(parentLoc, "graderItem") {
				what = "grader type"
			}
		}
		return Diagnostics{Errorf(at, key, fix, "unknown %s `%s`", what, got)}
	case "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum":
		op := map[string]string{"minimum": "≥", "exclusiveMinimum": ">", "maximum": "≤", "exclusiveMaximum": "<"}[kw]
		bound := fmt.Sprint(parent[kw])
		return Diagnostics{Errorf(at, key, "use a value "+op+" "+bound, "must be %s %s, got %v", op, bound, value)}
	case "minLength":
		return Diagnostics{Errorf(at, key, "give a value", "must not be empty")}
	case "minItems", "maxItems":
		minN, _ := parent["minItems"].(float64)
		maxN, hasMax := parent["maxItems"].(float64)
		n := 0
		if l, ok := value.([]any); ok {
			n = len(l)
		}
		if hasMax && minN == maxN {
			return Diagnostics{Errorf(at, key, fmt.Sprintf("give exactly %d items", int(minN)), "needs exactly %d items, got %d", int(minN), n)}
		}
		if kw == "minItems" {
			return Diagnostics{Errorf(at, key, fmt.Sprintf("give at least %d items", int(minN)), "needs at least %d items, got %d", int(minN), n)}
		}
		return Diagnostics{Errorf(at, key, fmt.Sprintf("give at most %d items", int(maxN)), "takes at most %d items, got %d", int(maxN), n)}
	}
	return Diagnostics{Errorf(at, key, "", "%s", e.Message)}
}

func parentPointer(ptr string) string {
	if i := strings.LastIndexByte(ptr, '/'); i >= 0 {
		return ptr[:i]
	}
	return ""
}

func orderedKeys(m *yaml.Node) []string {
	if !isMapping(m) {
		return nil
	}
	out := make([]string, 0, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		out = append(out, m.Content[i].Value)
	}
	return out
}

func typeNames(t any) string {
	names := map[string]string{
		"string": "a string", "array": "a list", "object": "a mapping", "integer": "an integer",
		"number": "a number", "boolean": "true or false", "null": "nothing",
	}
	var list []string
	switch v := t.(type) {
	case string:
		list = []string{v}
	case []any:
		list = strs(v)
	}
	var out []string
	for _, n := range list {
		out = append(out, names[n])
	}
	return strings.Join(out, " or ")
}
