package spec

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// Pos returns the node's position. A nil node has an unknown position in its file.
func (n *fileNode) Pos() Pos {
	if n == nil || n.Node == nil {
		if n == nil {
			return Pos{}
		}
		return Pos{File: n.File}
	}
	return Pos{File: n.File, Line: n.Line, Col: n.Column}
}

// Key returns the value node of a mapping key, or nil when the node is not a mapping or lacks it.
func (n *fileNode) Key(name string) *fileNode {
	k, v := n.lookup(name)
	if k == nil {
		return nil
	}
	return &fileNode{Node: v, File: n.File}
}

// Index returns the i-th element of a sequence, or nil.
func (n *fileNode) Index(i int) *fileNode {
	if n == nil || n.Node == nil {
		return nil
	}
	y := resolveAlias(n.Node)
	if y.Kind != yaml.SequenceNode || i < 0 || i >= len(y.Content) {
		return nil
	}
	return &fileNode{Node: y.Content[i], File: n.File}
}

// At walks a path of mapping keys (string) and sequence indexes (int) and returns the position
// of the deepest node found on the way, so a diagnostic always lands as close as possible.
func (n *fileNode) At(path ...any) Pos {
	cur := n
	best := n.Pos()
	for _, step := range path {
		var next *fileNode
		switch s := step.(type) {
		case string:
			next = cur.Key(s)
		case int:
			next = cur.Index(s)
		}
		if next == nil {
			break
		}
		cur = next
		best = cur.Pos()
	}
	return best
}

// Keys returns the mapping's keys in order.
func (n *fileNode) Keys() []string {
	if n == nil || n.Node == nil {
		return nil
	}
	y := resolveAlias(n.Node)
	if y.Kind != yaml.MappingNode {
		return nil
	}
	keys := make([]string, 0, len(y.Content)/2)
	for i := 0; i+1 < len(y.Content); i += 2 {
		keys = append(keys, y.Content[i].Value)
	}
	return keys
}

func (n *fileNode) lookup(name string) (key, value *yaml.Node) {
	if n == nil || n.Node == nil {
		return nil, nil
	}
	y := resolveAlias(n.Node)
	if y.Kind == yaml.DocumentNode && len(y.Content) == 1 {
		y = resolveAlias(y.Content[0])
	}
	if y.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(y.Content); i += 2 {
		if y.Content[i].Value == name {
			return y.Content[i], resolveAlias(y.Content[i+1])
		}
	}
	return nil, nil
}

func resolveAlias(y *yaml.Node) *yaml.Node {
	for y != nil && y.Kind == yaml.AliasNode && y.Alias != nil {
		y = y.Alias
	}
	return y
}

// KeyPath joins key path parts: KeyPath("graders", 2, "config") = "graders[2].config".
func KeyPath(parts ...any) string {
	var s string
	for _, p := range parts {
		switch v := p.(type) {
		case int:
			s += "[" + strconv.Itoa(v) + "]"
		case string:
			if s != "" {
				s += "."
			}
			s += v
		}
	}
	return s
}
