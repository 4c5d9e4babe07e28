package graders

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
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
		Compile: compileJSONSchema,
	})
}

type jsonSchemaConfig struct {
	Schema     *spec.Node `yaml:"schema"`
	SchemaFile string     `yaml:"schema_file"`
}

type jsonSchemaGrader struct {
	def    *spec.Grader
	schema *jsonschema.Schema
}

func compileJSONSchema(def *spec.Grader, env *Env) (Grader, spec.Diagnostics) {
	var cfg jsonSchemaConfig
	if diags := decodeConfig(def, &cfg); diags.HasErrors() {
		return nil, diags
	}
	hasInline := cfg.Schema != nil && !isNull(cfg.Schema.Node)
	switch {
	case hasInline && cfg.SchemaFile != "":
		return nil, spec.Diagnostics{spec.Errorf(at(def, "schema_file"), "config.schema_file", "keep one of the two keys",
			"grader %q: both schema and schema_file are set", def.Name)}
	case !hasInline && cfg.SchemaFile == "":
		return nil, spec.Diagnostics{noChecks(def, "schema", "schema_file")}
	}

	var doc []byte
	var location string // absolute file URL: relative $refs resolve against it
	var pos spec.Pos
	var key string
	if hasInline {
		pos, key = at(def, "schema"), "config.schema"
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
		pos, key = at(def, "schema_file"), "config.schema_file"
		path := cfg.SchemaFile
		if !filepath.IsAbs(path) {
			path = filepath.Join(absDir(def.Dir), filepath.FromSlash(path))
		}
		b, err := readDeclared(def, env, path)
		if err != nil {
			fix := orFix(refusedFix(err), "schema_file is relative to the file that declares the grader ("+displayDir(def.Dir)+")")
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

	c := jsonschema.NewCompiler()
	if err := c.AddResource(location, bytes.NewReader(doc)); err != nil {
		return nil, spec.Diagnostics{spec.Errorf(pos, key, "", "grader %q: schema is not valid JSON: %v", def.Name, err)}
	}
	schema, err := c.Compile(location)
	if err != nil {
		return nil, spec.Diagnostics{spec.Errorf(pos, key, "fix the schema (draft 2020-12 unless $schema names another draft)",
			"grader %q: not a valid JSON Schema: %s", def.Name, schemaErrorText(err))}
	}
	return &jsonSchemaGrader{def: def, schema: schema}, nil
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
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, tokErr := dec.Token(); tokErr == nil {
			err = fmt.Errorf("unexpected data after the JSON value (offset %d)", dec.InputOffset())
		}
	}
	if err != nil {
		return result(g.def, 0, false, "Output is not valid JSON: "+err.Error(), map[string]any{"error": err.Error()}), nil
	}
	if err := g.schema.Validate(v); err != nil {
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			return nil, fmt.Errorf("validating output against the schema: %w", err)
		}
		leaves := validationLeaves(ve)
		return result(g.def, 0, false, "Schema validation failed: "+strings.Join(leaves, "; "), map[string]any{"failures": leaves}), nil
	}
	return result(g.def, 1, true, "Output matches JSON schema", nil), nil
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
