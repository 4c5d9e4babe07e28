package graders

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// decodeConfig decodes a grader's config mapping into out (a pointer to a struct with yaml tags).
// It walks the YAML one key and one list item at a time instead of calling yaml's Decode on the
// whole mapping, so a value of the wrong type is reported at its own file:line:col.
func decodeConfig(def *spec.Grader, out any) spec.Diagnostics {
	cfg := def.Config
	if cfg == nil || cfg.Node == nil {
		return nil
	}
	node := resolve(cfg.Node)
	if node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
		node = resolve(node.Content[0])
	}
	d := &decoder{def: def, file: cfg.File}
	if isNull(node) {
		return nil
	}
	if node.Kind != yaml.MappingNode {
		d.typeError(node, []any{"config"}, "a mapping of settings")
		return d.diags
	}
	d.decodeStruct(node, reflect.ValueOf(out).Elem(), []any{"config"})
	return d.diags
}

type decoder struct {
	def   *spec.Grader
	file  string
	diags spec.Diagnostics
}

var nodeType = reflect.TypeOf((*spec.Node)(nil))

func (d *decoder) decodeStruct(node *yaml.Node, v reflect.Value, path []any) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		val := mappingValue(node, name)
		if val == nil {
			continue
		}
		d.decodeValue(val, v.Field(i), appendPath(path, name))
	}
}

func (d *decoder) decodeValue(node *yaml.Node, v reflect.Value, path []any) {
	node = resolve(node)
	if v.Type() == nodeType {
		v.Set(reflect.ValueOf(&spec.Node{Node: node, File: d.file}))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if isNull(node) {
			return
		}
		p := reflect.New(v.Type().Elem())
		d.decodeValue(node, p.Elem(), path)
		v.Set(p)
		return
	case reflect.Slice:
		if isNull(node) {
			return
		}
		if node.Kind != yaml.SequenceNode {
			d.typeError(node, path, describeType(v.Type()))
			return
		}
		s := reflect.MakeSlice(v.Type(), len(node.Content), len(node.Content))
		for i, item := range node.Content {
			d.decodeValue(item, s.Index(i), appendPath(path, i))
		}
		v.Set(s)
		return
	case reflect.Struct:
		if node.Kind != yaml.MappingNode {
			d.typeError(node, path, describeType(v.Type()))
			return
		}
		d.decodeStruct(node, v, path)
		return
	}
	if v.Kind() != reflect.Interface && (node.Kind != yaml.ScalarNode || isNull(node)) {
		if isNull(node) {
			return
		}
		d.typeError(node, path, describeType(v.Type()))
		return
	}
	if err := node.Decode(v.Addr().Interface()); err != nil {
		d.typeError(node, path, describeType(v.Type()))
	}
}

func (d *decoder) typeError(node *yaml.Node, path []any, want string) {
	key := spec.KeyPath(path...)
	d.diags = append(d.diags, spec.Errorf(d.pos(node), key, "write "+key+" as "+want,
		"grader %q: %s must be %s, not %s", d.def.Name, key, want, describeNode(node)))
}

func (d *decoder) pos(node *yaml.Node) spec.Pos {
	return spec.Pos{File: d.file, Line: node.Line, Col: node.Column}
}

func appendPath(path []any, step any) []any {
	out := make([]any, len(path), len(path)+1)
	copy(out, path)
	return append(out, step)
}

func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
}

func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64, reflect.Int32:
		return "an integer"
	case reflect.Float64, reflect.Float32:
		return "a number"
	case reflect.Slice:
		return "a list of " + strings.TrimPrefix(strings.TrimPrefix(describeType(t.Elem()), "a "), "an ") + "s"
	case reflect.Struct:
		return "a mapping"
	case reflect.Map:
		return "a mapping"
	case reflect.Pointer:
		if t == nodeType {
			return "a value"
		}
		return describeType(t.Elem())
	}
	return "a value"
}

func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	switch n.Tag {
	case "!!str":
		return fmt.Sprintf("the string %q", n.Value)
	case "!!int":
		return "the integer " + n.Value
	case "!!float":
		return "the number " + n.Value
	case "!!bool":
		return n.Value
	case "!!null":
		return "null"
	}
	return fmt.Sprintf("%q", n.Value)
}

// configPos is where a diagnostic about the config as a whole points: the config mapping, else
// the grader itself.
func configPos(def *spec.Grader) spec.Pos {
	if def.Config != nil && def.Config.Node != nil && def.Config.Line > 0 {
		return def.Config.Pos()
	}
	return def.Pos
}

// at is the position of a config path, falling back to the grader when the config has none.
func at(def *spec.Grader, path ...any) spec.Pos {
	p := def.Config.At(path...)
	if p.Line == 0 {
		return def.Pos
	}
	return p
}

// noChecks is the error for a grader that cannot run without one of keys (a script or program
// grader with nothing to run).
func noChecks(def *spec.Grader, keys ...string) spec.Diagnostic {
	return spec.Errorf(configPos(def), "config", "set at least one of: "+strings.Join(keys, ", "),
		"grader %q (%s): no checks configured", def.Name, def.Type)
}

// checksNothing is the grader for a text or code grader whose config checks nothing: waza passes
// it in every run (docs/graders.md, "Graders that check nothing"), and so does skillgate, with a
// warning.
func checksNothing(def *spec.Grader, keys ...string) (Grader, spec.Diagnostics) {
	g := GraderFunc(func(context.Context, *Input) (*results.GraderResult, error) {
		return result(def, 1, true, "No checks configured", nil), nil
	})
	return g, spec.Diagnostics{spec.Warnf(configPos(def), "config", "set at least one of: "+strings.Join(keys, ", "),
		"grader %q (%s): no checks configured; it passes every run", def.Name, def.Type)}
}

// nothingToCheck is the grader for the other types when their config checks nothing: waza cannot
// create such a grader, so each run it grades errors; skillgate does the same, with a warning
// instead of refusing the suite.
func nothingToCheck(def *spec.Grader, keys ...string) (Grader, spec.Diagnostics) {
	msg := fmt.Sprintf("grader %q (%s): no checks configured", def.Name, def.Type)
	return Failing(msg), spec.Diagnostics{spec.Warnf(configPos(def), "config", "set at least one of: "+strings.Join(keys, ", "),
		"%s; it errors in every run, as in waza", msg)}
}

// compilePattern compiles one RE2 pattern from the config; path locates it for the diagnostic.
func compilePattern(def *spec.Grader, prefix, pattern string, path ...any) (*regexp.Regexp, *spec.Diagnostic) {
	re, err := compileRegexp(prefix + pattern)
	if err != nil {
		key := spec.KeyPath(append([]any{"config"}, path...)...)
		d := spec.Errorf(at(def, path...), key, "write an RE2 regular expression (https://github.com/google/re2/wiki/Syntax); lookarounds and backreferences are not supported",
			"grader %q: invalid regular expression %q: %s", def.Name, pattern, regexErrorText(err))
		return nil, &d
	}
	return re, nil
}

func regexErrorText(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// compilePatterns compiles a list of patterns found at config path `path` (item i at path[i]).
func compilePatterns(def *spec.Grader, patterns []string, path ...any) ([]*pattern, spec.Diagnostics) {
	var diags spec.Diagnostics
	out := make([]*pattern, len(patterns))
	for i, p := range patterns {
		re, d := compilePattern(def, "", p, appendPath(path, i)...)
		if d != nil {
			diags = append(diags, *d)
			continue
		}
		out[i] = cachedPattern(re)
	}
	return out, diags
}

// workspacePath checks that a configured path names something inside the run's workspace and
// returns it cleaned, with forward slashes (the form os.Root accepts on every platform).
func workspacePath(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("the path is empty")
	}
	if filepath.IsAbs(p) || strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || filepath.VolumeName(p) != "" {
		return "", fmt.Errorf("%q is absolute; paths are relative to the run's workspace", p)
	}
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%q leaves the run's workspace", p)
	}
	return clean, nil
}

// checkWorkspacePath returns the cleaned path or a diagnostic at the config path.
func checkWorkspacePath(def *spec.Grader, p string, path ...any) (string, *spec.Diagnostic) {
	clean, err := workspacePath(p)
	if err != nil {
		key := spec.KeyPath(append([]any{"config"}, path...)...)
		d := spec.Errorf(at(def, path...), key, "use a path relative to the workspace, without `..`",
			"grader %q: %v", def.Name, err)
		return "", &d
	}
	return clean, nil
}

// reflectValue is the addressable struct behind a pointer, for decoder.decodeStruct.
func reflectValue(p any) reflect.Value { return reflect.ValueOf(p).Elem() }
