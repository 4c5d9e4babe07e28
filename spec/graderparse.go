package spec

import (
	"fmt"
	"path/filepath"

	"go.yaml.in/yaml/v3"
)

// ParseGrader reads one grader declaration written outside a suite (tests, tools): a mapping of
// type, name, weight, config and, for code graders, assertions. Its config is typed as a suite's
// would be; positions name file. Nothing is defaulted but the weight (1) and the position (1:1).
func ParseGrader(file string, src []byte) (*Grader, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("no grader declaration")
	}
	return parseGraderItem(file, resolveAlias(doc.Content[0]))
}

// ParseGraders reads a YAML list of grader declarations, each as ParseGrader does.
func ParseGraders(file string, src []byte) ([]*Grader, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	seq := resolveAlias(doc.Content[0])
	if seq.Kind != yaml.SequenceNode {
		return nil, fmt.Errorf("not a list of grader declarations")
	}
	var out []*Grader
	for _, item := range seq.Content {
		g, err := parseGraderItem(file, resolveAlias(item))
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

func parseGraderItem(file string, item *yaml.Node) (*Grader, error) {
	g := &Grader{File: file, Dir: filepath.Dir(file), Weight: 1, Pos: Pos{File: file, Line: item.Line, Col: item.Column}}
	g.Type, _ = stringOf(get(item, "type"))
	g.Name, _ = stringOf(get(item, "name"))
	if n := get(item, "weight"); n != nil {
		var w float64
		if err := n.Decode(&w); err != nil {
			return nil, err
		}
		if w > 0 {
			g.Weight = w
		}
	}
	cfg := get(item, "config")
	if cfg == nil {
		cfg = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	if IsJudge(g.Type) {
		// The judges' top-level shortcut keys, folded in as the loader does.
		c := *resolveAlias(cfg)
		c.Content = append([]*yaml.Node(nil), c.Content...)
		for _, key := range []string{"model", "rubric", "threshold", "reference"} {
			if k, v := mapPair(item, key); v != nil && !has(&c, key) {
				c.Content = append(c.Content, k, v)
			}
		}
		cfg = &c
	}
	if a := get(item, "assertions"); a != nil {
		// The task-level `assertions:` shortcut, folded in as the loader does.
		c := *resolveAlias(cfg)
		c.Content = append(append([]*yaml.Node(nil), c.Content...), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "assertions"}, a)
		cfg = &c
	}
	if g.Pos.Line == 0 {
		g.Pos = Pos{File: file, Line: 1, Col: 1}
	}
	typeConfig(g, cfg)
	return g, nil
}
