package spec

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"
)

// VallyProject is a repository's .vally.yaml (docs/vally.md): where specs live and the named
// suites that select stimuli by tag or by spec file.
type VallyProject struct {
	File   string
	Root   string   // the folder of .vally.yaml
	Evals  []string // paths.evals, absolute
	Suites map[string]*VallySuite
	// environments are the named environments (`environments.<name>`), as written.
	environments map[string]*yaml.Node
}

// environmentNames lists the named environments.
func (p *VallyProject) environmentNames() []string {
	return slices.Sorted(maps.Keys(p.environments))
}

// VallySuite is one `suites.<name>`: stimuli whose tags match Filter (AND across keys, OR within
// a key's values) in the spec files matching Evals (globs relative to Root; none: every spec).
type VallySuite struct {
	Name        string
	Description string
	Filter      map[string][]string
	Evals       []string
	Pos         Pos
}

// FindVallyProject looks for .vally.yaml in dir and the folders above it, up to the repository
// root; nil when there is none.
func FindVallyProject(dir string) (*VallyProject, Diagnostics) {
	root := RepositoryRoot(dir)
	for {
		p := filepath.Join(dir, ".vally.yaml")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return LoadVallyProject(p)
		}
		parent := filepath.Dir(dir)
		if parent == dir || dir == root {
			return nil, nil
		}
		dir = parent
	}
}

// LoadVallyProject reads a .vally.yaml.
func LoadVallyProject(file string) (*VallyProject, Diagnostics) {
	abs, _ := filepath.Abs(file)
	p := &VallyProject{File: abs, Root: filepath.Dir(abs), Suites: map[string]*VallySuite{}}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, Diagnostics{Errorf(Pos{File: abs}, "", "", "cannot read %s: %v", filepath.Base(abs), unwrapPathError(err))}
	}
	doc, diags := parseYAML(abs, data)
	if diags.HasErrors() || !isMapping(doc.Root) {
		return nil, diags
	}
	l := &loader{files: map[string]bool{}, s: &Suite{}}
	ctx := &fileCtx{file: abs, dir: p.Root}
	l.warnUnknown(ctx, doc.Root, []string{"paths", "suites", "environments", "metadata", "plugins", "backends", "providers"})
	if paths := get(doc.Root, "paths"); isMapping(paths) {
		l.warnUnknown(ctx.sub("paths"), paths, []string{"skills", "evals", "results", "evalFilenames"})
		for _, e := range stringOrList(get(paths, "evals")) {
			p.Evals = append(p.Evals, filepath.Join(p.Root, filepath.FromSlash(e)))
		}
	}
	if envs := get(doc.Root, "environments"); isMapping(envs) {
		p.environments = map[string]*yaml.Node{}
		for i := 0; i+1 < len(envs.Content); i += 2 {
			p.environments[envs.Content[i].Value] = envs.Content[i+1]
		}
	}
	if suites := get(doc.Root, "suites"); isMapping(suites) {
		for i := 0; i+1 < len(suites.Content); i += 2 {
			k, v := suites.Content[i], suites.Content[i+1]
			sctx := ctx.sub("suites", k.Value)
			l.warnUnknown(sctx, v, []string{"description", "filter", "evals"})
			vs := &VallySuite{Name: k.Value, Description: stringAt(v, "description"), Filter: map[string][]string{}, Pos: ctx.pos(k)}
			if f := get(v, "filter"); isMapping(f) {
				for j := 0; j+1 < len(f.Content); j += 2 {
					key, value := f.Content[j], f.Content[j+1]
					vs.Filter[key.Value] = stringOrList(value)
					if !filterValue(value) {
						reading := fmt.Sprintf("only stimuli that have a tag named %q match", key.Value)
						if vals := vs.Filter[key.Value]; len(vals) > 0 {
							reading = fmt.Sprintf("only its values %q count", vals)
						}
						l.add(Warnf(sctx.pos(key), sctx.key("filter", key.Value), filterFix(key.Value, value),
							"a suite filter maps a tag name to a value or a list of values; %q is given a %s, so %s",
							key.Value, nodeKind(value), reading))
					}
				}
			}
			vs.Evals = stringOrList(get(v, "evals"))
			p.Suites[k.Value] = vs
		}
	}
	return p, append(diags, l.diags...)
}

func stringOrList(n *yaml.Node) []string {
	if s, ok := stringOf(n); ok && isScalar(n) {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	return stringsOf(n)
}

// SuiteNames lists the project's suites, sorted.
func (p *VallyProject) SuiteNames() []string {
	return slices.Sorted(maps.Keys(p.Suites))
}

// Selects reports whether the suite takes the spec file (absolute) at all.
func (vs *VallySuite) Selects(root, file string) bool {
	if len(vs.Evals) == 0 {
		return true
	}
	rel, err := filepath.Rel(root, file)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, g := range vs.Evals {
		if ok, _ := doublestar.Match(strings.TrimPrefix(filepath.ToSlash(g), "./"), rel); ok {
			return true
		}
	}
	return false
}

// Matches reports whether a task's tags ("key=value", values comma-joined) satisfy the filter:
// every key present with one of its values.
func (vs *VallySuite) Matches(tags []string) bool {
	have := map[string][]string{}
	for _, t := range tags {
		k, v, _ := strings.Cut(t, "=")
		have[k] = append(have[k], strings.Split(v, ",")...)
	}
	for key, values := range vs.Filter {
		ok := len(values) == 0 && len(have[key]) > 0
		for _, want := range values {
			for _, got := range have[key] {
				ok = ok || got == want
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// filterValue reports whether n is what Vally's suite filter takes for a tag: a scalar, a list of
// scalars, or nothing.
func filterValue(n *yaml.Node) bool {
	if n == nil || isScalar(n) {
		return true
	}
	if !isSequence(n) {
		return false
	}
	for _, e := range n.Content {
		if !isScalar(e) {
			return false
		}
	}
	return true
}

// filterFix suggests the flat filter a nested one meant: `filter: {tags: {tier: [smoke]}}` is
// written `filter: {tier: [smoke]}`.
func filterFix(key string, n *yaml.Node) string {
	if isMapping(n) && len(n.Content) >= 2 {
		inner := n.Content[0].Value
		return fmt.Sprintf("write the tag under filter itself (`filter: {%s: …}`), not under %q", inner, key)
	}
	return "write one tag value, or a list of them"
}

func nodeKind(n *yaml.Node) string {
	switch {
	case isMapping(n):
		return "mapping"
	case isSequence(n):
		return "list that holds more than values"
	}
	return "value of another kind"
}
