package spec

import (
	"fmt"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// GraderType is what loading a suite needs to know of a grader type. Package graders registers
// one for each type it implements (spec cannot import graders, which comes later in the flow);
// the loader decodes each declaration's config into its type's config struct.
type GraderType struct {
	Name string
	// Summary is one line of help (SARIF rules, `skillgate validate` messages).
	Summary string
	// Judge is true for LLM judges: they take model, rubric, threshold and reference at the
	// grader's top level, and human calibration compares people with them.
	Judge bool
	// Config returns a new config struct, as a pointer, for a declaration that writes the given
	// config keys (a type may read two shapes of config); its yaml tags name the keys. nil: the
	// type takes no settings.
	Config func(keys []string) any
}

var (
	graderTypes     = map[string]GraderType{}
	graderTypeOrder []string
)

// RegisterGraderType makes a grader type known to the loader. Registration happens in init; a
// later registration of a name replaces the earlier one.
func RegisterGraderType(t GraderType) {
	if _, dup := graderTypes[t.Name]; !dup {
		graderTypeOrder = append(graderTypeOrder, t.Name)
	}
	graderTypes[t.Name] = t
}

// LookupGraderType returns the registered type of that name.
func LookupGraderType(name string) (GraderType, bool) {
	t, ok := graderTypes[name]
	return t, ok
}

// IsJudge reports whether the grader type is an LLM judge.
func IsJudge(typ string) bool { return graderTypes[typ].Judge }

// JudgeTypes lists the LLM judge types in registration order.
func JudgeTypes() []string {
	var out []string
	for _, name := range graderTypeOrder {
		if graderTypes[name].Judge {
			out = append(out, name)
		}
	}
	return out
}

// joinWords joins words as a sentence does: "a, b and c" (conj "and") or "a, b or c".
func joinWords(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}

// JudgeTypeList names the LLM judge types in a sentence: "prompt, llm or llm_comparison".
func JudgeTypeList() string { return joinWords(JudgeTypes(), "or") }

// typeConfig records a declaration's config mapping (for positions) and decodes it into its
// type's config struct. Problems go to g.ConfigErrors: the grader reports them when it compiles.
func typeConfig(g *Grader, cfg *yaml.Node) {
	g.config = cfg
	g.Config, g.ConfigErrors = nil, nil
	t, ok := graderTypes[g.Type]
	if !ok || t.Config == nil {
		return
	}
	c := t.Config((&fileNode{Node: cfg}).Keys())
	g.ConfigErrors = decodeGraderConfig(g, cfg, c)
	g.Config = c
}

// ConfigPos is where a diagnostic about the config as a whole points: the config mapping, else
// the grader itself.
func (g *Grader) ConfigPos() Pos {
	if g.config != nil && g.config.Line > 0 {
		return Pos{File: g.File, Line: g.config.Line, Col: g.config.Column}
	}
	return g.Pos
}

// ConfigAt is the position of a config path (mapping keys and list indexes below `config`): the
// deepest node written along it, else the grader.
func (g *Grader) ConfigAt(path ...any) Pos {
	p := g.configNode().At(path...)
	if p.Line == 0 {
		return g.Pos
	}
	return p
}

// ConfigTextAt is the position of line:col inside the string at a config path, so an annotation
// lands on the offending character. Strings whose text differs from their source (escapes,
// folded or block styles) and multi-line positions keep the string's own position.
func (g *Grader) ConfigTextAt(line, col int, path ...any) Pos {
	item := g.configNode()
	for _, step := range path {
		switch s := step.(type) {
		case string:
			item = item.Key(s)
		case int:
			item = item.Index(s)
		}
	}
	pos := item.Pos()
	if pos.Line == 0 {
		pos = g.Pos
	}
	if item == nil || item.Node == nil || line != 1 || col < 1 {
		return pos
	}
	y := resolveAlias(item.Node)
	v := y.Value
	if strings.ContainsAny(v, "\n\r\t") {
		return pos
	}
	switch {
	case y.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return pos
	case y.Style&yaml.DoubleQuotedStyle != 0:
		if strings.ContainsAny(v, `"\`) {
			return pos
		}
		pos.Col = y.Column + col
	case y.Style&yaml.SingleQuotedStyle != 0:
		if strings.Contains(v, "'") {
			return pos
		}
		pos.Col = y.Column + col
	default:
		pos.Col = y.Column + col - 1
	}
	return pos
}

// ConfigScalars returns every scalar value (not key) written in the config, e.g. to find the
// files a suite may read.
func (g *Grader) ConfigScalars() []string {
	var out []string
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 64 {
			return
		}
		switch n.Kind {
		case yaml.ScalarNode:
			out = append(out, n.Value)
		case yaml.MappingNode:
			for i := 1; i < len(n.Content); i += 2 {
				walk(n.Content[i], depth+1)
			}
		case yaml.SequenceNode, yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		}
	}
	walk(g.config, 0)
	return out
}

func (g *Grader) configNode() *fileNode {
	if g.config == nil {
		return nil
	}
	return &fileNode{Node: g.config, File: g.File}
}

// DecodeValue decodes a mapping value found at config path `path` into out (a pointer to a
// struct with yaml tags), reporting each value of the wrong type at its own file:line:col.
func (g *Grader) DecodeValue(v *Value, out any, path ...any) Diagnostics {
	d := &configDecoder{def: g, file: v.file}
	d.decodeStruct(v.y(), reflect.ValueOf(out).Elem(), append([]any{"config"}, path...))
	return d.diags
}

// decodeGraderConfig decodes a config mapping into out. It walks the YAML one key and one list
// item at a time instead of calling yaml's Decode on the whole mapping, so a value of the wrong
// type is reported at its own file:line:col.
func decodeGraderConfig(g *Grader, cfg *yaml.Node, out any) Diagnostics {
	if cfg == nil {
		return nil
	}
	node := resolveAlias(cfg)
	if node.Kind == yaml.DocumentNode && len(node.Content) == 1 {
		node = resolveAlias(node.Content[0])
	}
	d := &configDecoder{def: g, file: g.File}
	if isNullNode(node) {
		return nil
	}
	if node.Kind != yaml.MappingNode {
		d.typeError(node, []any{"config"}, "a mapping of settings")
		return d.diags
	}
	d.decodeStruct(node, reflect.ValueOf(out).Elem(), []any{"config"})
	return d.diags
}

type configDecoder struct {
	def   *Grader
	file  string
	diags Diagnostics
}

var valueType = reflect.TypeOf((*Value)(nil))

func (d *configDecoder) decodeStruct(node *yaml.Node, v reflect.Value, path []any) {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" || name == "-" {
			continue
		}
		_, val := mapPair(node, name)
		if val == nil {
			continue
		}
		d.decodeValue(val, v.Field(i), appendPath(path, name))
	}
}

func (d *configDecoder) decodeValue(node *yaml.Node, v reflect.Value, path []any) {
	node = resolveAlias(node)
	if v.Type() == valueType {
		v.Set(reflect.ValueOf(newValue(node, d.file)))
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if isNullNode(node) {
			return
		}
		p := reflect.New(v.Type().Elem())
		d.decodeValue(node, p.Elem(), path)
		v.Set(p)
		return
	case reflect.Slice:
		if isNullNode(node) {
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
	case reflect.Map:
		if isNullNode(node) {
			return
		}
		if node.Kind != yaml.MappingNode || v.Type().Key().Kind() != reflect.String {
			d.typeError(node, path, describeType(v.Type()))
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), len(node.Content)/2)
		for i := 0; i+1 < len(node.Content); i += 2 {
			k := node.Content[i].Value
			e := reflect.New(v.Type().Elem()).Elem()
			d.decodeValue(node.Content[i+1], e, appendPath(path, k))
			m.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
		}
		v.Set(m)
		return
	}
	if v.Kind() != reflect.Interface && (node.Kind != yaml.ScalarNode || isNullNode(node)) {
		if isNullNode(node) {
			return
		}
		d.typeError(node, path, describeType(v.Type()))
		return
	}
	if err := node.Decode(v.Addr().Interface()); err != nil {
		d.typeError(node, path, describeType(v.Type()))
	}
}

func (d *configDecoder) typeError(node *yaml.Node, path []any, want string) {
	key := KeyPath(path...)
	d.diags = append(d.diags, Errorf(Pos{File: d.file, Line: node.Line, Col: node.Column}, key, "write "+key+" as "+want,
		"grader %q: %s must be %s, not %s", d.def.Name, key, want, describeNode(node)))
}

func appendPath(path []any, step any) []any {
	out := make([]any, len(path), len(path)+1)
	copy(out, path)
	return append(out, step)
}

func isNullNode(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.Tag == "!!null")
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
		if t == valueType {
			return "a value"
		}
		return describeType(t.Elem())
	}
	return "a value"
}

// DescribeYAML names a YAML value for a message: "a list", `the string "x"`, "the integer 3"…
func DescribeYAML(n *yaml.Node) string { return describeNode(n) }

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
