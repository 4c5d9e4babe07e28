package graders

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/spec"
)

// Labels are human verdicts on runs, read from a labels file (YAML or JSON):
//
//	explain-fib:            # task id
//	  1: {pass: true, note: "clear and correct"}        # trial → label
//	  2: {score: 0.4, note: "misses the edge case"}
//	  3:
//	    pass: false
//	    graders:                                        # per-grader labels, when a run has several human graders
//	      security_review: {pass: true}
//
// A label gives `pass` (or `passed`), `score` (0–1), or both, and an optional `note`. A label
// with neither is "not labeled yet" and is skipped, so a half-filled skeleton can be used.
type Labels struct {
	File string
	runs map[labelKey]*Label
	// tasks are the task ids of the file with their positions, for the unknown-id warning.
	tasks map[string]spec.Pos
	// Unlabeled counts entries without a verdict yet.
	Unlabeled int
}

type labelKey struct {
	task   string
	trial  int
	grader string // "" for the run's label
}

// Label is one human verdict.
type Label struct {
	Passed bool
	Score  float64
	Note   string
	Pos    spec.Pos
}

// For returns the label of one grader of one run: the grader's own, else the run's; nil when
// the run is not labeled.
func (l *Labels) For(task string, trial int, grader string) *Label {
	if l == nil {
		return nil
	}
	if lb := l.runs[labelKey{task, trial, grader}]; lb != nil {
		return lb
	}
	return l.runs[labelKey{task, trial, ""}]
}

// Len is the number of labels.
func (l *Labels) Len() int {
	if l == nil {
		return 0
	}
	return len(l.runs)
}

// LoadLabels reads a labels file. Errors name file:line:col.
func LoadLabels(path string) (*Labels, spec.Diagnostics) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, spec.Diagnostics{spec.Errorf(spec.Pos{File: path}, "--labels", "give the path of a labels file (YAML or JSON)", "cannot read the labels file: %v", err)}
	}
	return ParseLabels(path, data)
}

// ParseLabels parses the content of a labels file.
func ParseLabels(file string, data []byte) (*Labels, spec.Diagnostics) {
	l := &Labels{File: file, runs: map[labelKey]*Label{}, tasks: map[string]spec.Pos{}}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, spec.Diagnostics{spec.Errorf(spec.Pos{File: file, Line: yamlErrorLine(err)}, "", "fix the YAML (or JSON) syntax", "labels file: %v", err)}
	}
	if len(doc.Content) == 0 {
		return l, nil
	}
	root := resolveAlias(doc.Content[0])
	pos := func(n *yaml.Node) spec.Pos { return spec.Pos{File: file, Line: n.Line, Col: n.Column} }
	var diags spec.Diagnostics
	if isNullNode(root) {
		return l, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, spec.Diagnostics{spec.Errorf(pos(root), "", "map each task id to its trials: `task-id: {1: {pass: true}}`",
			"labels file must be a mapping of task ids, not %s", spec.DescribeYAML(root))}
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		tk, tv := root.Content[i], resolveAlias(root.Content[i+1])
		task := tk.Value
		if _, dup := l.tasks[task]; dup {
			diags = append(diags, spec.Errorf(pos(tk), task, "list each task once", "task %q appears twice in the labels file", task))
			continue
		}
		l.tasks[task] = pos(tk)
		if isNullNode(tv) {
			continue
		}
		if tv.Kind != yaml.MappingNode {
			diags = append(diags, spec.Errorf(pos(tv), task, "map trial numbers to labels: `1: {pass: true}`",
				"task %q: labels must be a mapping of trial numbers, not %s", task, spec.DescribeYAML(tv)))
			continue
		}
		for j := 0; j+1 < len(tv.Content); j += 2 {
			nk, nv := tv.Content[j], resolveAlias(tv.Content[j+1])
			trial, err := strconv.Atoi(strings.TrimSpace(nk.Value))
			if err != nil || trial < 1 || nk.Kind != yaml.ScalarNode {
				diags = append(diags, spec.Errorf(pos(nk), task, "use the trial number (1, 2, …) as the key",
					"task %q: %q is not a trial number", task, nk.Value))
				continue
			}
			key := spec.KeyPath(task, trial)
			lb, ok, ds := parseLabel(file, nv, key)
			diags = append(diags, ds...)
			if ds.HasErrors() {
				continue
			}
			if ok {
				l.runs[labelKey{task, trial, ""}] = lb
			} else {
				l.Unlabeled++
			}
			if g := mappingValue(nv, "graders"); g != nil {
				g = resolveAlias(g)
				if g.Kind != yaml.MappingNode {
					diags = append(diags, spec.Errorf(pos(g), key+".graders", "map grader names to labels", "graders must be a mapping, not %s", spec.DescribeYAML(g)))
					continue
				}
				for k := 0; k+1 < len(g.Content); k += 2 {
					gk, gv := g.Content[k], resolveAlias(g.Content[k+1])
					glb, ok, ds := parseLabel(file, gv, key+".graders."+gk.Value)
					diags = append(diags, ds...)
					if ds.HasErrors() {
						continue
					}
					if ok {
						l.runs[labelKey{task, trial, gk.Value}] = glb
					} else {
						l.Unlabeled++
					}
				}
			}
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return l, diags
}

// parseLabel reads {pass|passed, score, note, graders}; ok is false for an entry without a verdict.
func parseLabel(file string, n *yaml.Node, key string) (*Label, bool, spec.Diagnostics) {
	pos := func(n *yaml.Node) spec.Pos { return spec.Pos{File: file, Line: n.Line, Col: n.Column} }
	if isNullNode(n) {
		return nil, false, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, false, spec.Diagnostics{spec.Errorf(pos(n), key, "write a label as {pass: true|false, score: 0–1, note: …}",
			"label must be a mapping, not %s", spec.DescribeYAML(n))}
	}
	var diags spec.Diagnostics
	lb := &Label{Pos: pos(n)}
	hasPass, hasScore := false, false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolveAlias(n.Content[i+1])
		switch k.Value {
		case "pass", "passed":
			if isNullNode(v) {
				continue
			}
			b, err := strconv.ParseBool(v.Value)
			if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || err != nil {
				diags = append(diags, spec.Errorf(pos(v), key+"."+k.Value, "write true or false", "%s must be true or false, not %s", k.Value, spec.DescribeYAML(v)))
				continue
			}
			lb.Passed, hasPass = b, true
		case "score":
			if isNullNode(v) {
				continue
			}
			f, err := strconv.ParseFloat(v.Value, 64)
			if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") || err != nil || math.IsNaN(f) || f < 0 || f > 1 {
				diags = append(diags, spec.Errorf(pos(v), key+".score", "write a number from 0 to 1", "score must be a number from 0 to 1, not %s", spec.DescribeYAML(v)))
				continue
			}
			lb.Score, hasScore = f, true
		case "note":
			if v.Kind != yaml.ScalarNode {
				diags = append(diags, spec.Errorf(pos(v), key+".note", "write the note as text", "note must be text, not %s", spec.DescribeYAML(v)))
				continue
			}
			if !isNullNode(v) {
				lb.Note = v.Value
			}
		case "graders":
			// read by the caller
		default:
			diags = append(diags, spec.Errorf(pos(k), key+"."+k.Value, "use pass, score, note or graders", "unknown label key %q", k.Value))
		}
	}
	if diags.HasErrors() || (!hasPass && !hasScore) {
		return nil, false, diags
	}
	switch {
	case hasPass && !hasScore:
		lb.Score = 0
		if lb.Passed {
			lb.Score = 1
		}
	case hasScore && !hasPass:
		lb.Passed = lb.Score >= 0.5
	}
	return lb, true, diags
}

// CheckTasks warns about task ids of the labels file that none of the suites has: a typo there
// would silently leave runs pending.
func (l *Labels) CheckTasks(suites []*spec.Suite) spec.Diagnostics {
	if l == nil {
		return nil
	}
	known := map[string]bool{}
	var ids []string
	for _, s := range suites {
		for _, t := range s.Tasks {
			known[t.ID] = true
			ids = append(ids, t.ID)
		}
	}
	var unknown []string
	for id := range l.tasks {
		if !known[id] {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	first := l.tasks[unknown[0]]
	for _, id := range unknown[1:] {
		if p := l.tasks[id]; p.Line < first.Line {
			first = p
		}
	}
	fix := "use the task ids of the suite"
	if s := spec.Suggest(unknown[0], ids); s != "" {
		fix = fmt.Sprintf("did you mean %q? %s", s, fix)
	}
	return spec.Diagnostics{spec.Warnf(first, "", fix, "labels for unknown task ids are ignored: %s", strings.Join(unknown, ", "))}
}

func yamlErrorLine(err error) int {
	var line int
	if _, e := fmt.Sscanf(err.Error(), "yaml: line %d:", &line); e == nil {
		return line
	}
	return 0
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNullNode(n *yaml.Node) bool {
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
