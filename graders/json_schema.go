package graders

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

func init() {
	Register(&Type{
		Name:    "json_schema",
		Summary: "Parses the agent's final output as JSON and validates it against a JSON Schema.",
		Config:  newConfig[jsonSchemaConfig],
		Compile: compileJSONSchema,
		Files:   jsonSchemaFiles,
	})
}

type jsonSchemaConfig struct {
	Schema     *spec.Value `yaml:"schema"`
	SchemaFile string      `yaml:"schema_file"`
	// Description documents the check; it is kept in the results' details.
	Description string `yaml:"description"`
	// ExtractJSON takes the first JSON object or array found in the output (a fenced block, else
	// the first `{…}`/`[…]` that parses) when the whole output is not JSON.
	ExtractJSON bool `yaml:"extract_json"`
	// SkipIfNoMatch skips the grader (it counts in no score) when the output holds no JSON.
	SkipIfNoMatch bool `yaml:"skip_if_no_match"`
}

type jsonSchemaGrader struct {
	def    *spec.Grader
	schema *jsonschema.Schema
	cfg    jsonSchemaConfig
}

func compileJSONSchema(def *spec.Grader, env *Env) (Grader, spec.Diagnostics) {
	cfg := configOf[jsonSchemaConfig](def)
	hasInline := !cfg.Schema.IsNull()
	switch {
	case hasInline && cfg.SchemaFile != "":
		return nil, spec.Diagnostics{spec.Errorf(def.ConfigAt("schema_file"), "config.schema_file", "keep one of the two keys",
			"grader %q: both schema and schema_file are set", def.Name)}
	case !hasInline && cfg.SchemaFile == "":
		return nothingToCheck(def, "schema", "schema_file")
	}

	var doc []byte
	var location string // absolute file URL: relative $refs resolve against it
	var pos spec.Pos
	var key string
	if hasInline {
		pos, key = def.ConfigAt("schema"), "config.schema"
		var v any
		if err := cfg.Schema.Decode(&v); err != nil {
			return nil, spec.Diagnostics{spec.Errorf(pos, key, "", "grader %q: schema: %v", def.Name, err)}
		}
		b, err := json.Marshal(jsonCompatible(v))
		if err != nil {
			return nil, spec.Diagnostics{spec.Errorf(pos, key, "", "grader %q: schema cannot be written as JSON: %v", def.Name, err)}
		}
		doc = b
		location = fileURL(filepath.Join(absDir(def.Dir), "inline-schema.json"))
	} else {
		pos, key = def.ConfigAt("schema_file"), "config.schema_file"
		path := cfg.SchemaFile
		if !filepath.IsAbs(path) {
			path = filepath.Join(absDir(def.Dir), filepath.FromSlash(path))
		}
		b, err := readDeclared(def, env, path)
		if err != nil {
			fix := cmp.Or(spec.RefusedFix(err), "schema_file is relative to the file that declares the grader ("+displayDir(def.Dir)+")")
			if errors.Is(err, os.ErrNotExist) {
				return nil, spec.Diagnostics{spec.Errorf(pos, key, fix, "grader %q: schema file %s not found", def.Name, cfg.SchemaFile)}
			}
			return nil, spec.Diagnostics{spec.Errorf(pos, key, fix, "grader %q: cannot read schema file %s: %v", def.Name, cfg.SchemaFile, err)}
		}
		if ext := strings.ToLower(filepath.Ext(path)); ext == ".yaml" || ext == ".yml" {
			var v any
			if err := yaml.Unmarshal(b, &v); err != nil {
				return nil, spec.Diagnostics{spec.Errorf(pos, key, "fix the YAML in the schema file", "grader %q: schema file %s is not valid YAML: %v", def.Name, cfg.SchemaFile, err)}
			}
			if b, err = json.Marshal(jsonCompatible(v)); err != nil {
				return nil, spec.Diagnostics{spec.Errorf(pos, key, "", "grader %q: schema file %s cannot be written as JSON: %v", def.Name, cfg.SchemaFile, err)}
			}
		} else if !json.Valid(b) {
			var v any
			err := json.Unmarshal(b, &v)
			return nil, spec.Diagnostics{spec.Errorf(pos, key, "fix the JSON in the schema file", "grader %q: schema file %s is not valid JSON: %v", def.Name, cfg.SchemaFile, err)}
		}
		doc = b
		location = fileURL(path)
	}

	schema, err := compileSchemaDoc(location, doc)
	if err != nil {
		// Schemas written for other validators often give subschemas `$id`s that collide once
		// resolved (e.g. "/#component/a" and "/#component/b" share a canonical URI). Without the
		// nested `$id`s the schema usually means the same; say so, and grade with it.
		if stripped, ok := withoutNestedIDs(doc); ok {
			if s2, err2 := compileSchemaDoc(location, stripped); err2 == nil {
				return &jsonSchemaGrader{def: def, schema: s2, cfg: cfg}, spec.Diagnostics{spec.Warnf(pos, key, "give each subschema a distinct $id, or remove the nested $id keys",
					"grader %q: the schema does not compile as written (%s); it is used without its nested $id keys", def.Name, idProblem(err))}
			}
		}
		return nil, spec.Diagnostics{spec.Errorf(pos, key, "fix the schema (draft 2020-12 unless $schema names another draft)",
			"grader %q: not a valid JSON Schema: %s", def.Name, schemaErrorText(err))}
	}
	return &jsonSchemaGrader{def: def, schema: schema, cfg: cfg}, nil
}

// jsonSchemaFiles is the schema file a json_schema grader reads, and the documents its schema
// refers to: $ref and $dynamicRef values that do not start with #, and a $schema that is not a
// draft the validator knows. A schema that cannot be read or decoded names itself as written.
func jsonSchemaFiles(def *spec.Grader) []string {
	cfg := configOf[jsonSchemaConfig](def)
	var out []string
	var doc any
	if cfg.SchemaFile != "" {
		p := filepath.FromSlash(cfg.SchemaFile)
		if !filepath.IsAbs(p) {
			p = filepath.Join(absDir(def.Dir), p)
		}
		out = append(out, p)
		data, err := readDeclared(def, nil, p)
		if err != nil {
			return append(out, cfg.SchemaFile)
		}
		if json.Unmarshal(data, &doc) != nil && yaml.Unmarshal(data, &doc) != nil {
			return append(out, cfg.SchemaFile)
		}
	} else if err := cfg.Schema.Decode(&doc); err != nil {
		return []string{"schema"}
	}
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 100 {
			out = append(out, "(a schema nested deeper than 100 levels)")
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for k, val := range x {
				if s, isStr := val.(string); isStr && (k == "$ref" || k == "$dynamicRef") && !strings.HasPrefix(s, "#") {
					out = append(out, s)
				}
				if s, isStr := val.(string); isStr && k == "$schema" && !knownDraft(s) {
					out = append(out, s)
				}
				walk(val, depth+1)
			}
		case []any:
			for _, val := range x {
				walk(val, depth+1)
			}
		}
	}
	refs := len(out)
	walk(doc, 0)
	sort.Strings(out[refs:])
	return out
}

func knownDraft(s string) bool {
	s = strings.TrimSuffix(strings.TrimSuffix(s, "#"), "/")
	for _, d := range []string{"https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema",
		"http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-06/schema", "http://json-schema.org/draft-04/schema"} {
		if s == d {
			return true
		}
	}
	return false
}

// idProblem names what went wrong with the nested $ids, in words that do not depend on which
// colliding pair the compiler met first.
func idProblem(err error) string {
	if strings.Contains(err.Error(), "canonical-uri") {
		return "subschemas share a canonical URI"
	}
	return schemaErrorText(err)
}

func compileSchemaDoc(location string, doc []byte) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	if err := c.AddResource(location, bytes.NewReader(doc)); err != nil {
		return nil, err
	}
	return c.Compile(location)
}

// withoutNestedIDs returns the schema document with every `$id` below the root removed; ok is
// false when it has none.
func withoutNestedIDs(doc []byte) ([]byte, bool) {
	var v any
	if json.Unmarshal(doc, &v) != nil {
		return nil, false
	}
	removed := false
	// names is true for mappings whose keys name properties or definitions: a property called
	// "$id" there is not a keyword.
	var walk func(x any, root, names bool)
	walk = func(x any, root, names bool) {
		switch t := x.(type) {
		case map[string]any:
			if _, has := t["$id"]; has && !root && !names {
				delete(t, "$id")
				removed = true
			}
			for k, e := range t {
				walk(e, false, !names && (k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions" || k == "dependentSchemas"))
			}
		case []any:
			for _, e := range t {
				walk(e, false, false)
			}
		}
	}
	walk(v, true, false)
	if !removed {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

func schemaErrorText(err error) string {
	var se *jsonschema.SchemaError
	if errors.As(err, &se) {
		var ve *jsonschema.ValidationError
		if errors.As(se.Err, &ve) {
			return strings.Join(validationLeaves(ve), "; ")
		}
		if se.Err != nil {
			return strings.TrimPrefix(se.Err.Error(), "jsonschema: ")
		}
	}
	return err.Error()
}

// fencedJSON matches an output that is exactly one fenced code block (```json … ```).
var fencedJSON = regexp.MustCompile("(?s)\\A```(?:json|JSON)?[ \\t]*\\r?\\n(.*?)\\r?\\n?```\\z")

func (g *jsonSchemaGrader) Grade(_ context.Context, in *Input) (*results.GraderResult, error) {
	text := strings.TrimSpace(runOf(in).FinalOutput)
	if m := fencedJSON.FindStringSubmatch(text); m != nil && !strings.Contains(m[1], "```") {
		text = m[1]
	}
	v, err := decodeJSONValue(text)
	if err != nil && g.cfg.ExtractJSON {
		if found, ok := extractJSON(text); ok {
			v, err = found, nil
		}
	}
	if err != nil {
		if g.cfg.SkipIfNoMatch {
			return skipped(g.def, "Skipped: the output holds no JSON (skip_if_no_match)"), nil
		}
		return result(g.def, 0, false, "Output is not valid JSON: "+err.Error(), g.details(map[string]any{"error": err.Error()})), nil
	}
	if err := g.schema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, fmt.Errorf("validating output against the schema: %w", err)
		}
		leaves := validationLeaves(ve)
		return result(g.def, 0, false, "Schema validation failed: "+strings.Join(leaves, "; "), g.details(map[string]any{"failures": leaves})), nil
	}
	return result(g.def, 1, true, "Output matches JSON schema", g.details(nil)), nil
}

func (g *jsonSchemaGrader) details(d map[string]any) map[string]any {
	if g.cfg.Description == "" {
		return d
	}
	if d == nil {
		d = map[string]any{}
	}
	d["description"] = g.cfg.Description
	return d
}

// decodeJSONValue decodes text as exactly one JSON value (numbers kept exact).
func decodeJSONValue(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, tokErr := dec.Token(); tokErr == nil {
			err = fmt.Errorf("unexpected data after the JSON value (offset %d)", dec.InputOffset())
		}
	}
	return v, err
}

// anyFence matches a fenced code block anywhere in the output.
var anyFence = regexp.MustCompile("(?s)```(?:json|JSON)?[ \\t]*\\r?\\n(.*?)```")

// extractJSONTries bounds the starting points extractJSON tries, so a long output full of braces
// costs linear time.
const extractJSONTries = 64

// extractJSON finds the first JSON object or array in prose: a fenced block that parses, else
// the first `{` or `[` (of the first extractJSONTries) from which one JSON value decodes.
func extractJSON(text string) (any, bool) {
	tries := 0
	for _, m := range anyFence.FindAllStringSubmatch(text, -1) {
		if v, err := decodeJSONValue(strings.TrimSpace(m[1])); err == nil {
			return v, true
		}
	}
	for i := 0; i < len(text); i++ {
		if text[i] != '{' && text[i] != '[' {
			continue
		}
		if tries++; tries > extractJSONTries {
			break
		}
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil {
			return v, true
		}
	}
	return nil, false
}

// validationLeaves flattens a validation error tree into its leaf messages, each prefixed with
// the JSON pointer of the offending value.
func validationLeaves(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(*jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := e.InstanceLocation
			if loc == "" {
				loc = "/"
			}
			out = append(out, loc+": "+e.Message)
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// jsonCompatible turns YAML-decoded values (which may hold map[any]any) into JSON-encodable ones.
func jsonCompatible(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			t[k] = jsonCompatible(x)
		}
		return t
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, x := range t {
			m[fmt.Sprint(k)] = jsonCompatible(x)
		}
		return m
	case []any:
		for i, x := range t {
			t[i] = jsonCompatible(x)
		}
		return t
	}
	return v
}

func absDir(dir string) string {
	if dir == "" {
		dir = "."
	}
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

func displayDir(dir string) string {
	if dir == "" {
		return "the working directory"
	}
	return dir
}

func fileURL(path string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	if !strings.HasPrefix(u.Path, "/") {
		u.Path = "/" + u.Path
	}
	return u.String()
}
