package spec

import "go.yaml.in/yaml/v3"

// Value is a configuration value handed to a later stage as written, with its position: a
// grader config value that may take several shapes (a tool name, or a mapping of patterns), or
// a config key another stage owns (config.judge, executor settings). Later stages look at its
// shape and position and decode it; the YAML stays inside spec.
type Value struct {
	node *yaml.Node // as written: an alias keeps its own position
	file string
}

func newValue(n *yaml.Node, file string) *Value { return &Value{node: n, file: file} }

// y is the node the value stands for (an alias resolved).
func (v *Value) y() *yaml.Node { return resolveAlias(v.node) }

// Pos is the value's file:line:col.
func (v *Value) Pos() Pos {
	if v == nil || v.node == nil {
		return Pos{}
	}
	return Pos{File: v.file, Line: v.node.Line, Col: v.node.Column}
}

// IsNull reports a missing value or an explicit null.
func (v *Value) IsNull() bool { return v == nil || isNullNode(v.y()) }

// IsScalar reports a string, number or boolean (or null).
func (v *Value) IsScalar() bool { return v != nil && v.node != nil && v.y().Kind == yaml.ScalarNode }

// IsMapping reports a mapping.
func (v *Value) IsMapping() bool { return v != nil && v.node != nil && v.y().Kind == yaml.MappingNode }

// Text is a scalar's text as written ("" for other values).
func (v *Value) Text() string {
	if !v.IsScalar() {
		return ""
	}
	return v.y().Value
}

// Key returns a mapping's value of that key, or nil.
func (v *Value) Key(name string) *Value {
	if v == nil {
		return nil
	}
	n := (&fileNode{Node: v.node, File: v.file}).Key(name)
	if n == nil {
		return nil
	}
	return newValue(n.Node, v.file)
}

// At is the position of the deepest value found along a path of mapping keys (string) and list
// indexes (int) below v.
func (v *Value) At(path ...any) Pos {
	if v == nil {
		return Pos{}
	}
	return (&fileNode{Node: v.node, File: v.file}).At(path...)
}

// Tag is a scalar's resolved YAML tag: "!!str", "!!int", "!!float", "!!bool" or "!!null".
func (v *Value) Tag() string {
	if !v.IsScalar() {
		return ""
	}
	return v.y().Tag
}

// Decode decodes the value into out with YAML's rules.
func (v *Value) Decode(out any) error {
	if v == nil || v.node == nil {
		return nil
	}
	return v.y().Decode(out)
}

// Describe names the value for a message: "a list", `the string "x"`, "the integer 3"…
func (v *Value) Describe() string {
	if v == nil || v.node == nil {
		return "null"
	}
	return describeNode(v.y())
}
