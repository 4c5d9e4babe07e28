package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// document is one parsed suite file. Root is the content of its (first) YAML document after
// normalization: aliases replaced by their targets and `<<` merge keys expanded, so every later
// step reads a plain tree whose nodes still carry their own line and column.
type document struct {
	File  string
	Root  *yaml.Node // nil when the file could not be used
	Value any        // Root as a JSON-like value, for schema validation
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parseYAML parses data, checks duplicate keys, expands aliases and merges, and converts the
// tree for validation. It reports problems instead of stopping at the first one where it can.
func parseYAML(file string, data []byte) (doc *document, diags Diagnostics) {
	doc = &document{File: file}
	defer func() {
		// yaml.v3 is robust, but a loader must never panic on input.
		if r := recover(); r != nil {
			doc.Root, doc.Value = nil, nil
			diags = append(diags, Errorf(Pos{File: file}, "", "", "cannot parse this file as YAML (%v)", r))
		}
	}()
	var docs []*yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			diags = append(diags, yamlSyntaxError(file, data, err))
			return doc, diags
		}
		docs = append(docs, &n)
	}
	if len(docs) == 0 || len(docs[0].Content) == 0 {
		diags = append(diags, Errorf(Pos{File: file, Line: 1, Col: 1}, "", "write the suite's keys into it", "the file is empty"))
		return doc, diags
	}
	if len(docs) > 1 {
		second := docs[1]
		p := Pos{File: file, Line: second.Line, Col: second.Column}
		if len(second.Content) > 0 {
			p = Pos{File: file, Line: second.Content[0].Line, Col: second.Content[0].Column}
		}
		// waza reads the first document and ignores the rest; so does skillgate, with a warning.
		diags = append(diags, Warnf(p, "", "keep one document per file (remove the `---` separator)",
			"the file holds %d YAML documents; only the first is read", len(docs)))
	}
	norm := &normalizer{file: file, memo: map[*yaml.Node]*yaml.Node{}, active: map[*yaml.Node]bool{}}
	count, plain := scanTree(docs[0])
	var root *yaml.Node
	if plain {
		// Most files use no alias or merge key: check duplicate keys without copying the tree.
		root = docs[0].Content[0]
		norm.checkDuplicates(root)
	} else {
		root = norm.node(docs[0].Content[0])
	}
	diags = append(diags, norm.diags...)
	conv := &converter{budget: 10*count + 10000}
	value, ok := conv.value(root)
	if !ok {
		diags = append(diags, Errorf(Pos{File: file, Line: 1, Col: 1}, "", "use fewer nested aliases",
			"the document expands to too many values through aliases"))
		return doc, diags
	}
	doc.Root, doc.Value = root, value
	return doc, diags
}

var unknownAnchorRE = regexp.MustCompile(`unknown anchor '([^']*)' referenced`)

// yamlSyntaxError positions a yaml.v3 error. yaml.v3 prints 1-based lines for scanner errors but
// the 0-based line of the enclosing construct for parser errors ("did not find expected …"), and
// omits the line when it is the first one.
func yamlSyntaxError(file string, data []byte, err error) Diagnostic {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	p := Pos{File: file, Line: 1, Col: 1}
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		p.Line, _ = strconv.Atoi(m[1])
		msg = m[2]
		if strings.HasPrefix(msg, "did not find expected") {
			p.Line++
		}
	} else if m := unknownAnchorRE.FindStringSubmatch(msg); m != nil {
		if i := bytes.Index(data, []byte("*"+m[1])); i >= 0 {
			before := data[:i]
			p.Line = bytes.Count(before, []byte("\n")) + 1
			p.Col = i - bytes.LastIndexByte(before, '\n')
		}
		return Errorf(p, "", "define the anchor (&"+m[1]+") before using it", "invalid YAML: alias *%s names no anchor", m[1])
	}
	return Errorf(p, "", "fix the YAML syntax (indentation, quotes, a `:` after each key)", "invalid YAML: %s", msg)
}

// scanTree counts a tree's nodes and reports whether it is plain: no aliases, no merge keys and
// only scalar keys, so it needs no normalization.
func scanTree(n *yaml.Node) (count int, plain bool) {
	plain = true
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		count++
		switch n.Kind {
		case yaml.AliasNode:
			plain = false
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if k := n.Content[i]; k.Kind != yaml.ScalarNode || isMergeKey(k) {
					plain = false
				}
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(n)
	return count, plain
}

// checkDuplicates reports keys written twice in a mapping of a plain tree.
func (n *normalizer) checkDuplicates(y *yaml.Node) {
	if y.Kind == yaml.MappingNode && len(y.Content) > 32 {
		seen := make(map[string]*yaml.Node, len(y.Content)/2)
		for i := 0; i+1 < len(y.Content); i += 2 {
			k := y.Content[i]
			if first, dup := seen[k.Value]; dup {
				n.diags = append(n.diags, Errorf(n.pos(k), k.Value, "remove one of them",
					"duplicate key %q (first defined at %s)", k.Value, n.pos(first)))
				continue
			}
			seen[k.Value] = k
		}
	} else if y.Kind == yaml.MappingNode {
		// Small mappings: comparing pairs is cheaper than a map.
		for i := 2; i+1 < len(y.Content); i += 2 {
			k := y.Content[i]
			for j := 0; j < i; j += 2 {
				if first := y.Content[j]; first.Value == k.Value {
					n.diags = append(n.diags, Errorf(n.pos(k), k.Value, "remove one of them",
						"duplicate key %q (first defined at %s)", k.Value, n.pos(first)))
					break
				}
			}
		}
	}
	for _, c := range y.Content {
		n.checkDuplicates(c)
	}
}

// normalizer rewrites a YAML tree without aliases or merge keys. Shared anchors stay shared
// (memo), so the work is linear in the source; cycles are reported.
type normalizer struct {
	file   string
	memo   map[*yaml.Node]*yaml.Node
	active map[*yaml.Node]bool
	diags  Diagnostics
}

func (n *normalizer) pos(y *yaml.Node) Pos { return Pos{File: n.file, Line: y.Line, Col: y.Column} }

func nullNode(at *yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "", Line: at.Line, Column: at.Column}
}

func (n *normalizer) node(y *yaml.Node) *yaml.Node {
	if y == nil {
		return nil
	}
	if y.Kind == yaml.AliasNode {
		if y.Alias == nil {
			return nullNode(y)
		}
		if n.active[y.Alias] {
			n.diags = append(n.diags, Errorf(n.pos(y), "", "point the alias at an anchor outside the value it is in",
				"alias *%s refers to a value that contains it", y.Value))
			return nullNode(y)
		}
		return n.node(y.Alias)
	}
	if done, ok := n.memo[y]; ok {
		return done
	}
	switch y.Kind {
	case yaml.SequenceNode:
		n.active[y] = true
		out := *y
		out.Content = make([]*yaml.Node, len(y.Content))
		for i, c := range y.Content {
			out.Content[i] = n.node(c)
		}
		delete(n.active, y)
		n.memo[y] = &out
		return &out
	case yaml.MappingNode:
		n.active[y] = true
		out := n.mapping(y)
		delete(n.active, y)
		n.memo[y] = out
		return out
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return nullNode(y)
		}
		return n.node(y.Content[0])
	}
	return y
}

func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && k.ShortTag() == "!!merge"
}

func (n *normalizer) mapping(y *yaml.Node) *yaml.Node {
	out := *y
	out.Content = make([]*yaml.Node, 0, len(y.Content))
	explicit := map[string]*yaml.Node{}
	type pair struct{ k, v *yaml.Node }
	var pairs []pair
	for i := 0; i+1 < len(y.Content); i += 2 {
		k, v := y.Content[i], y.Content[i+1]
		if k.Kind == yaml.AliasNode {
			k = n.node(k)
		}
		if isMergeKey(k) {
			pairs = append(pairs, pair{k, v})
			continue
		}
		if k.Kind != yaml.ScalarNode {
			n.diags = append(n.diags, Errorf(n.pos(k), "", "use a plain word as the key", "a mapping key must be a string, not a list or mapping"))
			continue
		}
		if first, dup := explicit[k.Value]; dup {
			n.diags = append(n.diags, Errorf(n.pos(k), k.Value, "remove one of them",
				"duplicate key %q (first defined at %s)", k.Value, n.pos(first)))
			continue
		}
		explicit[k.Value] = k
		pairs = append(pairs, pair{k, v})
	}
	seen := map[string]bool{}
	for _, p := range pairs {
		if !isMergeKey(p.k) {
			out.Content = append(out.Content, p.k, n.node(p.v))
			seen[p.k.Value] = true
			continue
		}
		src := n.node(p.v)
		var sources []*yaml.Node
		switch src.Kind {
		case yaml.MappingNode:
			sources = []*yaml.Node{src}
		case yaml.SequenceNode:
			sources = src.Content
		}
		if len(sources) == 0 && !(src.Kind == yaml.SequenceNode) {
			n.diags = append(n.diags, Errorf(n.pos(p.k), "<<", "merge an alias of a mapping (`<<: *defaults`)", "the merge key `<<` needs a mapping or a list of mappings"))
			continue
		}
		for _, s := range sources {
			if s.Kind != yaml.MappingNode {
				n.diags = append(n.diags, Errorf(n.pos(s), "<<", "merge only mappings", "the merge key `<<` needs a mapping or a list of mappings"))
				continue
			}
			for j := 0; j+1 < len(s.Content); j += 2 {
				k := s.Content[j]
				if _, over := explicit[k.Value]; over || seen[k.Value] {
					continue
				}
				seen[k.Value] = true
				out.Content = append(out.Content, k, s.Content[j+1])
			}
		}
	}
	return &out
}

// converter turns a normalized tree into JSON-like values (map[string]any, []any, string, int64,
// float64, bool, nil), with a budget against alias bombs.
type converter struct{ budget int }

func (c *converter) value(y *yaml.Node) (any, bool) {
	c.budget--
	if c.budget < 0 {
		return nil, false
	}
	switch y.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(y.Content)/2)
		for i := 0; i+1 < len(y.Content); i += 2 {
			v, ok := c.value(y.Content[i+1])
			if !ok {
				return nil, false
			}
			m[y.Content[i].Value] = v
		}
		return m, true
	case yaml.SequenceNode:
		l := make([]any, len(y.Content))
		for i, e := range y.Content {
			v, ok := c.value(e)
			if !ok {
				return nil, false
			}
			l[i] = v
		}
		return l, true
	case yaml.ScalarNode:
		return scalarValue(y), true
	}
	return nil, true
}

// scalarValue resolves a scalar by its tag: null, bool, int, float; timestamps, binary and custom
// tags stay strings. Non-finite floats become strings (JSON has none).
func scalarValue(y *yaml.Node) any {
	switch y.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		switch y.Value {
		case "true", "True", "TRUE":
			return true
		case "false", "False", "FALSE":
			return false
		}
		var b bool
		if err := y.Decode(&b); err == nil {
			return b
		}
	case "!!int":
		plain := strings.ReplaceAll(y.Value, "_", "")
		if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return i
		}
		if f, err := strconv.ParseFloat(plain, 64); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
		var i int64
		if err := y.Decode(&i); err == nil {
			return i
		}
	case "!!float":
		var f float64
		if err := y.Decode(&f); err == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	}
	return y.Value
}

// nodeAt walks a JSON pointer (as the schema validator reports instance locations) through a
// normalized tree. It returns the key node of the last mapping step (nil for the root or a list
// element), the value node, and the key path in KeyPath form.
func nodeAt(root *yaml.Node, ptr string) (key, val *yaml.Node, path []any) {
	val = root
	if ptr == "" || root == nil {
		return nil, root, nil
	}
	for _, seg := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch val.Kind {
		case yaml.MappingNode:
			k, v := mapPair(val, seg)
			if v == nil {
				return key, val, path
			}
			key, val = k, v
			path = append(path, seg)
		case yaml.SequenceNode:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(val.Content) {
				return key, val, path
			}
			key, val = nil, val.Content[i]
			path = append(path, i)
		default:
			return key, val, path
		}
	}
	return key, val, path
}

// mapPair returns the key and value nodes of a mapping member.
func mapPair(m *yaml.Node, name string) (k, v *yaml.Node) {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == name {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// describeValue names a converted value's kind for messages.
func describeValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "nothing (an empty value)"
	case bool:
		return fmt.Sprintf("a boolean (%v)", x)
	case int64:
		return fmt.Sprintf("an integer (%d)", x)
	case float64:
		return fmt.Sprintf("a number (%v)", x)
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("a string (%q)", x)
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	}
	return fmt.Sprintf("%T", v)
}
