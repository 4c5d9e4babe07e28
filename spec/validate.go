package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/schemas"
)

// compiledSchema is one embedded suite schema, compiled once per process, plus its raw JSON so
// error messages can list allowed keys and values.
//
// The loader validates with the schema's loader form, made at build time
// (schemas/internal/build/loader.go): the published document split into one resource per $defs
// entry, shared between the files whose entries are equal, without annotations, and with
// graderItem's if/then rules apart. Validating with the rules inline made a validator evaluate
// all 21 conditions for every grader, four fifths of the loading time; instead the loader
// validates a document against the form without them (`fast`) and then each grader item against
// only the rules its type selects, compiled when a grader of that type is first seen. A test
// checks that both ways report the same problems.
//
// Start-up cost: the form is compiled with trustedDraft, which skips meta-validation (the
// embedded files are meta-validated by the schemas package's tests); preparing the form at run
// time (decoding, splitting, re-encoding) was half of the compile time. The published form is
// compiled only by the equivalence test (full).
type compiledSchema struct {
	name  string
	fast  *jsonschema.Schema // the schema without graderItem's allOf rules
	rules []graderRule
	// raw is the published document, decoded when a diagnostic first needs it.
	raw  func() any
	full func() (*jsonschema.Schema, error) // the file as published, compiled on first use
}

// graderRule is one entry of graderItem's allOf: `if type is one of types then schema`. The
// schema is compiled when a grader of one of its types is first validated: a suite uses a few
// of the 21 types.
type graderRule struct {
	types  map[string]bool
	schema func() (*jsonschema.Schema, error)
}

// compiledSchemas compiles the three suite schemas once per process, with one compiler: their
// shared definitions are compiled once.
var compiledSchemas = sync.OnceValues(compileSuiteSchemas)

func compileSuiteSchemas() (map[string]*compiledSchema, error) {
	c := jsonschema.NewCompiler()
	c.Draft = trustedDraft
	for _, r := range schemas.LoaderResources() {
		if err := c.AddResource(r.URL, strings.NewReader(r.JSON)); err != nil {
			return nil, fmt.Errorf("schema resource %s: %w", r.URL, err)
		}
	}
	names := []string{schemas.EvalFile, schemas.TaskFile, schemas.TriggerTestsFile}
	out := make(map[string]*compiledSchema, len(names))
	for _, name := range names {
		cs, err := compileSchema(c, name)
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		out[name] = cs
	}
	return out, nil
}

// PrepareSchemas compiles the suite schemas in the background, so that the work overlaps with
// reading and parsing suite files; validation waits for it.
func PrepareSchemas() { go compiledSchemas() }

// compiling serializes the compiler's lazy work (grader rules compile on first use while files
// validate concurrently).
var compiling sync.Mutex

func compileSchema(c *jsonschema.Compiler, name string) (*compiledSchema, error) {
	form, ok := schemas.Loader(name)
	if !ok {
		return nil, fmt.Errorf("no loader form")
	}
	data := schemas.Bytes(name)
	cs := &compiledSchema{name: name}
	cs.raw = sync.OnceValue(func() any {
		var raw any
		json.Unmarshal(data, &raw) // the embedded file is valid JSON (the schemas package's tests)
		return raw
	})
	url := schemas.BaseURL + name
	cs.full = sync.OnceValues(func() (*jsonschema.Schema, error) {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		if err := c.AddResource(url, bytes.NewReader(data)); err != nil {
			return nil, err
		}
		return c.Compile(url)
	})
	var err error
	compiling.Lock()
	cs.fast, err = c.Compile(form.Root)
	compiling.Unlock()
	if err != nil {
		return nil, err
	}
	for _, r := range form.Rules {
		rule := graderRule{types: map[string]bool{}}
		for _, t := range r.Types {
			rule.types[t] = true
		}
		rule.schema = sync.OnceValues(func() (*jsonschema.Schema, error) {
			compiling.Lock() // the compiler is not safe for concurrent use; files validate concurrently
			defer compiling.Unlock()
			return c.Compile(r.URL)
		})
		cs.rules = append(cs.rules, rule)
	}
	return cs, nil
}

// publishedLocation maps a keyword location in the loader's compiled form back to the same
// place in the published schema ("#/$defs/<key>/…"), the document error messages read from.
func publishedLocation(abs string) string {
	i := strings.Index(abs, schemas.LoaderDefsSegment)
	if i < 0 {
		return abs
	}
	key, frag, _ := strings.Cut(abs[i+len(schemas.LoaderDefsSegment):], "#")
	if n, ok := strings.CutPrefix(key, schemas.LoaderRuleKey+"-"); ok {
		return "#/$defs/graderItem/allOf/" + n + "/then" + frag
	}
	return "#/$defs/" + key + frag
}

// graderItemPointers returns the JSON pointers of the grader declarations (mappings) in a
// document, following the schema's structure: which keys hold graders in which file.
func graderItemPointers(schemaName string, v any) []string {
	var out []string
	items := func(prefix string, list any) {
		l, _ := list.([]any)
		for i, e := range l {
			if _, ok := e.(map[string]any); ok {
				out = append(out, prefix+"/"+strconv.Itoa(i))
			}
		}
	}
	task := func(prefix string, t map[string]any) {
		items(prefix+"/graders", t["graders"])
		if exp, ok := t["expected"].(map[string]any); ok {
			items(prefix+"/expected/graders", exp["graders"])
		}
	}
	root, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	switch schemaName {
	case schemas.EvalFile:
		items("/graders", root["graders"])
		tasks, _ := root["tasks"].([]any)
		for i, e := range tasks {
			if t, ok := e.(map[string]any); ok {
				if _, files := t["task_files"]; !files {
					task("/tasks/"+strconv.Itoa(i), t)
				}
			}
		}
	case schemas.TaskFile:
		task("", root)
	}
	return out
}

// schemaLeaves validates v and returns the leaf errors. full selects the published schema (for
// tests); the loader uses the two-step validation.
func (cs *compiledSchema) leaves(schemaName string, v any, full bool) []*jsonschema.ValidationError {
	var out []*jsonschema.ValidationError
	var walk func(e *jsonschema.ValidationError, prefix string)
	walk = func(e *jsonschema.ValidationError, prefix string) {
		if len(e.Causes) == 0 {
			e.InstanceLocation = prefix + e.InstanceLocation
			out = append(out, e)
			return
		}
		for _, c := range e.Causes {
			walk(c, prefix)
		}
	}
	collect := func(err error, prefix string) {
		if ve, ok := err.(*jsonschema.ValidationError); ok {
			walk(ve, prefix)
		} else if err != nil {
			out = append(out, &jsonschema.ValidationError{InstanceLocation: prefix, Message: err.Error()})
		}
	}
	if full {
		schema, err := cs.full()
		if err != nil {
			collect(err, "")
			return out
		}
		collect(schema.Validate(v), "")
		return out
	}
	collect(cs.fast.Validate(v), "")
	for _, ptr := range graderItemPointers(schemaName, v) {
		item := valueAtPointer(v, ptr).(map[string]any)
		typ, _ := item["type"].(string)
		for _, r := range cs.rules {
			if r.types[typ] {
				schema, err := r.schema()
				if err != nil {
					collect(err, ptr)
					continue
				}
				collect(schema.Validate(item), ptr)
			}
		}
	}
	return out
}

// validateWithFullSchema makes the loader validate with the published schema in one step; the
// equivalence test sets it.
var validateWithFullSchema = false

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
	leaves := cs.leaves(schemaName, doc.Value, validateWithFullSchema)
	if len(leaves) == 0 {
		return nil
	}
	rw := &rewriter{doc: doc, raw: cs.raw(), graders: graderItemPointers(schemaName, doc.Value)}
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

// typeFixes tells how to write a value of the kind a type error wants (typeNames' words), the
// first that the wanted kinds mention.
var typeFixes = []struct{ want, fix string }{
	{"a string", "put the value in quotes"},
	{"a list", "write a list: one `- item` per line, or [a, b]"},
	{"a mapping", "write `key: value` lines indented under it"},
	{"an integer", "write a whole number"},
	{"true or false", "write true or false"},
	{"a number", "write a number"},
}

type rewriter struct {
	doc     *document
	raw     any
	graders []string // JSON pointers of the grader declarations in the document
}

// inGrader reports whether an instance location lies inside a grader declaration.
func (rw *rewriter) inGrader(loc string) bool {
	for _, p := range rw.graders {
		if loc == p || strings.HasPrefix(loc, p+"/") {
			return true
		}
	}
	return false
}

// severity applies the acceptance policy (docs/format.md#what-is-an-error): a schema
// violation is an error only where the run would be meaningless — inside a grader declaration (a
// grader whose config cannot be evaluated) or when fatal says so; everywhere else the value is
// ignored with a warning, as waza ignores it.
func (rw *rewriter) severity(loc string, fatal bool) Severity {
	if fatal || rw.inGrader(loc) {
		return SevError
	}
	return SevWarning
}

// diag builds a diagnostic of the given severity.
func diag(sev Severity, pos Pos, key, fix, format string, args ...any) Diagnostic {
	d := Errorf(pos, key, fix, format, args...)
	d.Severity = sev
	return d
}

// schemaAt resolves the fragment of an absolute keyword location in the raw schema.
func (rw *rewriter) schemaAt(ptr string) any { return valueAtPointer(rw.raw, ptr) }

// valueAt resolves an instance location in the converted document.
func (rw *rewriter) valueAt(ptr string) any { return valueAtPointer(rw.doc.Value, ptr) }

// valueAtPointer resolves a JSON pointer in a decoded JSON value; nil when it leads nowhere.
func valueAtPointer(cur any, ptr string) any {
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
	// The variant keeps graderItem's rules elsewhere; name them where the published schema has them.
	parentLoc, kw := splitLocation(publishedLocation(e.AbsoluteKeywordLocation))
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
		fix := "remove it; model, rubric, threshold and reference belong to " + joinWords(JudgeTypes(), "and") + " graders"
		if kw == "assertions" {
			fix = "remove it, or make this a `type: code` grader; top-level assertions belong to code graders"
		}
		return Diagnostics{Warnf(at, key, fix, "a %s grader does not take the key `%s`; it is ignored", graderType, kw)}
	}

	switch kw {
	case "additionalProperties":
		obj, _ := value.(map[string]any)
		allowedMap, _ := parent["properties"].(map[string]any)
		allowed := sortedKeys(allowedMap)
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
			} else if owners := rw.configOwners(name); strings.HasPrefix(parentLoc, "/$defs/config_") && len(owners) > 0 {
				fix = "`" + name + "` is a key of " + strings.Join(owners, ", ") + " graders; " + strings.TrimPrefix(parentLoc, "/$defs/config_") +
					" graders take: " + backquoteList(allowed)
			}
			full := KeyPath(append(append([]any{}, path...), name)...)
			out = append(out, Warnf(p, full, fix, "unknown key `%s` is ignored", name).OfKind(KindUnknownKey))
		}
		return out
	case "required":
		obj, _ := value.(map[string]any)
		var out Diagnostics
		props, _ := parent["properties"].(map[string]any)
		if ref, ok := parent["$ref"].(string); ok && props == nil {
			target, _ := rw.schemaAt(strings.TrimPrefix(ref, "#")).(map[string]any)
			props, _ = target["properties"].(map[string]any)
		}
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
			// A task without a prompt or an inline task without an id cannot run. (A grader
			// without its type errors in each run it grades, as in waza.)
			fatal := name == "prompt" || name == "id"
			if name == "type" {
				out = append(out, Warnf(at, key, fix, "missing required key `%s`; this grader errors in every run", name))
				continue
			}
			out = append(out, diag(rw.severity(e.InstanceLocation, fatal), at, key, fix, "missing required key `%s`", name))
		}
		return out
	case "type":
		want := typeNames(parent["type"])
		fix := ""
		for _, f := range typeFixes {
			if strings.Contains(want, f.want) {
				fix = f.fix
				break
			}
		}
		sev := rw.severity(e.InstanceLocation, false)
		msg := "expected %s, got %s"
		if sev == SevWarning {
			msg += "; it is ignored"
		}
		return Diagnostics{diag(sev, at, key, fix, msg, want, describeValue(value))}
	case "enum":
		allowed := strs(parent["enum"])
		got := fmt.Sprint(value)
		fix := "use one of: " + strings.Join(allowed, ", ")
		if s := suggest(got, allowed); s != "" {
			fix = "did you mean `" + s + "`? allowed: " + strings.Join(allowed, ", ")
		}
		if len(path) > 0 {
			if last, ok := path[len(path)-1].(string); ok && last == "type" && strings.Contains(parentLoc, "graderItem") {
				// The grader registry reports unknown grader types, with the types this build
				// implements (the grader then errors in each run, as in waza).
				return nil
			}
		}
		sev := rw.severity(e.InstanceLocation, false)
		msg := "unknown value `%s`"
		if sev == SevWarning {
			msg += "; it is ignored"
		}
		return Diagnostics{diag(sev, at, key, fix, msg, got)}
	case "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum":
		op := map[string]string{"minimum": "≥", "exclusiveMinimum": ">", "maximum": "≤", "exclusiveMaximum": "<"}[kw]
		bound := fmt.Sprint(parent[kw])
		return Diagnostics{diag(rw.severity(e.InstanceLocation, false), at, key, "use a value "+op+" "+bound, "must be %s %s, got %v", op, bound, value).OfKind(KindRange)}
	case "minLength":
		return Diagnostics{diag(rw.severity(e.InstanceLocation, false), at, key, "give a value", "must not be empty")}
	case "minItems", "maxItems":
		minN, _ := parent["minItems"].(float64)
		maxN, hasMax := parent["maxItems"].(float64)
		n := 0
		if l, ok := value.([]any); ok {
			n = len(l)
		}
		sev := rw.severity(e.InstanceLocation, false)
		if hasMax && minN == maxN {
			return Diagnostics{diag(sev, at, key, fmt.Sprintf("give exactly %d items", int(minN)), "needs exactly %d items, got %d", int(minN), n)}
		}
		if kw == "minItems" {
			return Diagnostics{diag(sev, at, key, fmt.Sprintf("give at least %d items", int(minN)), "needs at least %d items, got %d", int(minN), n)}
		}
		return Diagnostics{diag(sev, at, key, fmt.Sprintf("give at most %d items", int(maxN)), "takes at most %d items, got %d", int(maxN), n)}
	}
	return Diagnostics{diag(rw.severity(e.InstanceLocation, false), at, key, "", "%s", e.Message)}
}

// configOwners lists the grader types whose config has the key.
func (rw *rewriter) configOwners(key string) []string {
	root, _ := rw.raw.(map[string]any)
	defs, _ := root["$defs"].(map[string]any)
	var out []string
	for _, name := range sortedKeys(defs) {
		if typ, ok := strings.CutPrefix(name, "config_"); ok {
			def, _ := defs[name].(map[string]any)
			props, _ := def["properties"].(map[string]any)
			if _, has := props[key]; has {
				out = append(out, typ)
			}
		}
	}
	return out
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
