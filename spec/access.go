package spec

import (
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Tolerant readers over normalized nodes. The schema has already reported wrong types, so a
// value of the wrong shape simply reads as absent here instead of being reported twice.

func get(m *yaml.Node, key string) *yaml.Node {
	_, v := mapPair(m, key)
	return v
}

func has(m *yaml.Node, key string) bool { return get(m, key) != nil }

func isMapping(n *yaml.Node) bool  { return n != nil && n.Kind == yaml.MappingNode }
func isSequence(n *yaml.Node) bool { return n != nil && n.Kind == yaml.SequenceNode }
func isScalar(n *yaml.Node) bool   { return n != nil && n.Kind == yaml.ScalarNode }

// stringOf reads a string scalar (numbers and booleans give their text; null gives false).
func stringOf(n *yaml.Node) (string, bool) {
	if !isScalar(n) || n.ShortTag() == "!!null" {
		return "", false
	}
	return n.Value, true
}

func stringAt(m *yaml.Node, key string) string {
	s, _ := stringOf(get(m, key))
	return s
}

func intOf(n *yaml.Node) (int, bool) {
	if !isScalar(n) {
		return 0, false
	}
	if i, ok := scalarValue(n).(int64); ok && i >= -1<<31 && i <= 1<<31-1 {
		return int(i), true
	}
	return 0, false
}

func floatOf(n *yaml.Node) (float64, bool) {
	if !isScalar(n) {
		return 0, false
	}
	switch v := scalarValue(n).(type) {
	case int64:
		return float64(v), true
	case float64:
		return v, true
	}
	return 0, false
}

func boolOf(n *yaml.Node) (bool, bool) {
	if !isScalar(n) {
		return false, false
	}
	b, ok := scalarValue(n).(bool)
	return b, ok
}

// stringsOf reads a list of strings, or a single string as a one-element list.
func stringsOf(n *yaml.Node) []string {
	if s, ok := stringOf(n); ok && n.ShortTag() == "!!str" {
		return []string{s}
	}
	if !isSequence(n) {
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for _, e := range n.Content {
		if s, ok := stringOf(e); ok {
			out = append(out, s)
		}
	}
	return out
}

func (l *fileCtx) pos(n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: l.file}
	}
	return Pos{File: l.file, Line: n.Line, Col: n.Column}
}

// keyPos is the position of a mapping key, falling back to the mapping.
func (l *fileCtx) keyPos(m *yaml.Node, key string) Pos {
	k, _ := mapPair(m, key)
	if k == nil {
		return l.pos(m)
	}
	return l.pos(k)
}

// fileCtx is the file a node came from, with the key path of the node being decoded, so
// semantic diagnostics name the same keys the schema diagnostics do.
type fileCtx struct {
	file string
	dir  string
	path []any
}

func (l *fileCtx) key(parts ...any) string {
	all := make([]any, 0, len(l.path)+len(parts))
	all = append(all, l.path...)
	all = append(all, parts...)
	return KeyPath(all...)
}

func (l *fileCtx) sub(parts ...any) *fileCtx {
	p := make([]any, 0, len(l.path)+len(parts))
	p = append(p, l.path...)
	p = append(p, parts...)
	return &fileCtx{file: l.file, dir: l.dir, path: p}
}

// mappingNode builds a synthesized mapping positioned at `at`.
func mappingNode(at *yaml.Node) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if at != nil {
		n.Line, n.Column = at.Line, at.Column
	}
	return n
}

func scalarNode(at *yaml.Node, tag, value string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: value}
	if at != nil {
		n.Line, n.Column = at.Line, at.Column
	}
	return n
}

func sequenceNode(at *yaml.Node, items ...*yaml.Node) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: items}
	if at != nil {
		n.Line, n.Column = at.Line, at.Column
	}
	return n
}

// setPair sets key in a synthesized mapping, replacing an existing member.
func setPair(m *yaml.Node, k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == k.Value {
			m.Content[i+1] = v
			return
		}
	}
	m.Content = append(m.Content, k, v)
}

// Suggest returns the candidate closest to word when it is close enough to be a likely typo
// (the "did you mean" of every diagnostic), or "".
func Suggest(word string, candidates []string) string { return suggest(word, candidates) }

func suggest(word string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		d := editDistance(strings.ToLower(word), strings.ToLower(c))
		if d < bestD || (d == bestD && c < best) {
			best, bestD = c, d
		}
	}
	limit := len(word) / 3
	if limit < 2 {
		limit = 2
	}
	if bestD <= limit && bestD < len(word) {
		return best
	}
	return ""
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func backquoteList(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}
