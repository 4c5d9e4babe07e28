package spec

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"
)

// Vally experiment files (docs/vally.md#experiments): `*.experiment.yaml` runs Vally specs
// (`evals`) under named variants whose `overrides` (model, runs…) and `environment` (skills…)
// merge on top of each spec's defaults and root environment. Each variant is one configuration
// of the run; a skill-free baseline against variants that only add skills is the existing
// uplift mode, which reports the skill's uplift per stimulus.

// Experiment is a loaded experiment file.
type Experiment struct {
	File, Dir string
	Name      string
	Evals     []string // the spec files `evals` matched, absolute, sorted
	Baseline  string
	Vary      []string
	Variants  []*Variant // in file order
	Pos       Pos
}

// Variant is one experiment variant, as spec.Load applies it (Options.Variant).
type Variant struct {
	Experiment string // the experiment's name
	Name       string
	File, Dir  string // the experiment file, and its folder, where the variant's paths resolve
	// Environment is the variant's `environment`: its keys replace the spec's root
	// environment's (skills: [] removes every skill). nil: unchanged.
	Environment *yaml.Node
	// Overrides are the experiment's `overrides`, then the variant's: model, judge_model, runs,
	// timeout, executor, as in `defaults`.
	Overrides []*yaml.Node
	Pos       Pos

	// Suffix is added to the suite's name (" [skilled]"), so each configuration has its own
	// results; Uplift runs the suite in uplift mode (the variant's skills against none).
	Suffix string
	Uplift bool

	ownOverrides bool // the variant has overrides of its own
}

// ExperimentRun is one configuration to run: a spec under a variant.
type ExperimentRun struct {
	Eval    string
	Variant *Variant
}

var experimentKeys = []string{"name", "description", "evals", "vary", "baseline", "variants", "matrix", "overrides", "defaults"}

// IsExperimentFile reports whether a file is named like a Vally experiment.
func IsExperimentFile(p string) bool {
	base := strings.ToLower(filepath.Base(p))
	return strings.HasSuffix(base, ".experiment.yaml") || strings.HasSuffix(base, ".experiment.yml")
}

// LoadExperiment reads an experiment file and finds the specs its `evals` name.
func LoadExperiment(file string) (*Experiment, Diagnostics) {
	abs, err := filepath.Abs(file)
	if err != nil {
		abs = file
	}
	e := &Experiment{File: abs, Dir: filepath.Dir(abs), Pos: Pos{File: abs, Line: 1, Col: 1}}
	data, err := readSuiteFile("", abs)
	if err != nil {
		return nil, Diagnostics{Errorf(Pos{File: abs}, "", orFix(RefusedFix(err), "check the path"), "cannot read the experiment: %v", unwrapPathError(err))}
	}
	data, diags := substitutePlaceholders(abs, data)
	doc, ds := parseYAML(abs, data)
	diags = append(diags, ds...)
	if diags.HasErrors() || !isMapping(doc.Root) {
		if !diags.HasErrors() {
			diags = append(diags, Errorf(e.Pos, "", "write the experiment's keys (name, evals, variants)", "the experiment is not a mapping"))
		}
		return nil, diags
	}
	root := doc.Root
	l := &loader{files: map[string]bool{}, s: &Suite{}}
	ctx := &fileCtx{file: abs, dir: e.Dir}
	l.warnUnknown(ctx, root, experimentKeys)
	e.Name = stringAt(root, "name")
	if e.Name == "" {
		e.Name = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(abs), ".yaml"), ".yml")
	}
	e.Baseline = stringAt(root, "baseline")
	e.Vary = stringOrList(get(root, "vary"))
	evalsNode := get(root, "evals")
	patterns := stringOrList(evalsNode)
	if len(patterns) == 0 {
		l.add(Errorf(ctx.keyPos(root, "evals"), "evals", "list the spec files to run, relative to the experiment", "the experiment names no eval"))
	}
	seen := map[string]bool{}
	var unmatched []int
	for i, p := range patterns {
		matches := expandEvalGlob(e.Dir, p)
		if len(matches) == 0 {
			unmatched = append(unmatched, i)
		}
		for _, m := range matches {
			if !seen[m] {
				seen[m] = true
				e.Evals = append(e.Evals, m)
			}
		}
	}
	sort.Strings(e.Evals)
	if len(patterns) > 0 && len(e.Evals) == 0 {
		l.add(Errorf(ctx.keyPos(root, "evals"), "evals", "fix the patterns (relative to "+e.Dir+")", "the experiment's evals match no file"))
	} else if isSequence(evalsNode) && len(patterns) == len(evalsNode.Content) {
		// The others run; each entry that names no file is reported where it is written, as a
		// spec that silently drops out of the comparison looks like one that was never listed.
		for _, i := range unmatched {
			l.add(Warnf(ctx.pos(evalsNode.Content[i]), ctx.key("evals", i), "fix the path (relative to "+e.Dir+") or remove the entry",
				"%s matches no file; the experiment runs without it", patterns[i]))
		}
	}
	var shared []*yaml.Node
	for _, key := range []string{"overrides", "defaults"} {
		if n := get(root, key); isMapping(n) {
			if key == "defaults" {
				l.add(Warnf(ctx.keyPos(root, key), key, "write `overrides:`", "an experiment's `defaults` is read as `overrides` (Vally's handling is not documented)"))
			}
			l.warnUnknown(ctx.sub(key), n, vallyDefaultsKeys)
			shared = append(shared, n)
		}
	}
	if k, _ := mapPair(root, "matrix"); k != nil {
		l.add(Warnf(ctx.pos(k), "matrix", "write the cells as `variants:`", "matrix experiments are not supported yet; the matrix is ignored"))
	}
	if vs := get(root, "variants"); isMapping(vs) {
		for i := 0; i+1 < len(vs.Content); i += 2 {
			k, v := vs.Content[i], vs.Content[i+1]
			vctx := ctx.sub("variants", k.Value)
			variant := &Variant{Experiment: e.Name, Name: k.Value, File: abs, Dir: e.Dir, Pos: ctx.pos(k), Overrides: slices.Clone(shared)}
			if isMapping(v) {
				l.warnUnknown(vctx, v, []string{"overrides", "environment", "description"})
				if ov := get(v, "overrides"); isMapping(ov) {
					l.warnUnknown(vctx.sub("overrides"), ov, vallyDefaultsKeys)
					variant.Overrides = append(variant.Overrides, ov)
					variant.ownOverrides = true
				}
				if env := get(v, "environment"); isMapping(env) {
					variant.Environment = env
				}
			}
			e.Variants = append(e.Variants, variant)
		}
	}
	if len(e.Variants) == 0 {
		e.Variants = []*Variant{{Experiment: e.Name, Name: "main", File: abs, Dir: e.Dir, Pos: e.Pos, Overrides: shared}}
	}
	if e.Baseline != "" && e.variant(e.Baseline) == nil {
		names := make([]string, 0, len(e.Variants))
		for _, v := range e.Variants {
			names = append(names, v.Name)
		}
		l.add(Warnf(ctx.keyPos(root, "baseline"), "baseline", "name one of the variants: "+strings.Join(names, ", "), "baseline %q is not a variant", e.Baseline))
	}
	return e, append(diags, l.diags...)
}

func (e *Experiment) variant(name string) *Variant {
	for _, v := range e.Variants {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// Runs are the configurations the experiment runs, spec by spec. A variant that only sets
// environment.skills, against a baseline that only removes them (`skills: []`), runs in uplift
// mode: its stimuli run with its skills and without any, and the skill's uplift is reported per
// stimulus; the baseline's runs are that without-skill pass. Every other variant is a
// configuration of its own, named after it.
func (e *Experiment) Runs() []ExperimentRun {
	base := e.variant(e.Baseline)
	var uplift, plain []*Variant
	for _, v := range e.Variants {
		switch {
		case v == base:
		case base != nil && onlySkills(base, true) && onlySkills(v, false):
			uplift = append(uplift, v)
		default:
			plain = append(plain, v)
		}
	}
	if base != nil && (len(plain) > 0 || len(uplift) == 0) {
		plain = append([]*Variant{base}, plain...)
	}
	var configs []*Variant
	for _, v := range uplift {
		c := *v
		c.Uplift = true
		if len(uplift) > 1 || len(plain) > 0 {
			c.Suffix = " [" + v.Name + "]"
		}
		configs = append(configs, &c)
	}
	for _, v := range plain {
		c := *v
		if len(e.Variants) > 1 {
			c.Suffix = " [" + v.Name + "]"
		}
		configs = append(configs, &c)
	}
	var runs []ExperimentRun
	for _, eval := range e.Evals {
		for _, c := range configs {
			runs = append(runs, ExperimentRun{Eval: eval, Variant: c})
		}
	}
	return runs
}

// onlySkills reports whether a variant changes nothing but environment.skills; empty asks
// that it removes them all (`skills: []`), else that it names some.
func onlySkills(v *Variant, empty bool) bool {
	if v.ownOverrides {
		return false
	}
	env := v.Environment
	if !isMapping(env) || len(env.Content) != 2 || env.Content[0].Value != "skills" || !isSequence(env.Content[1]) {
		return false
	}
	return (len(env.Content[1].Content) == 0) == empty
}

// DiscoverExperiments finds the experiment files under paths: a file named *.experiment.yaml
// given as a PATH, and in a folder, those beside a .vally.yaml (Vally's project root). The
// result is absolute and sorted.
func DiscoverExperiments(paths []string, skip ...string) []string {
	skipped := map[string]bool{}
	for _, s := range skip {
		if abs, err := filepath.Abs(s); err == nil {
			skipped[abs] = true
		}
	}
	seen := map[string]bool{}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		fi, err := os.Stat(abs)
		if err != nil {
			continue
		}
		if !fi.IsDir() {
			if IsExperimentFile(abs) {
				seen[abs] = true
			}
			continue
		}
		filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != abs && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == ".skillgate" || skipped[p]) {
					return filepath.SkipDir
				}
				return nil
			}
			if IsExperimentFile(p) {
				if fi, err := os.Stat(filepath.Join(filepath.Dir(p), ".vally.yaml")); err == nil && fi.Mode().IsRegular() {
					seen[p] = true
				}
			}
			return nil
		})
	}
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// expandEvalGlob lists the files matching an experiment's `evals` pattern, relative to dir:
// globs with `**` and `{a,b}`, and the extglob `!(pattern|…)` (any name but those) real
// experiment files use.
func expandEvalGlob(dir, pattern string) []string {
	pattern = strings.TrimPrefix(filepath.ToSlash(pattern), "./")
	if path.IsAbs(pattern) {
		rel, err := filepath.Rel(dir, filepath.FromSlash(pattern))
		if err != nil {
			return nil
		}
		pattern = filepath.ToSlash(rel)
	}
	var out []string
	segs := strings.Split(pattern, "/")
	var walk func(base string, segs []string)
	walk = func(base string, segs []string) {
		if len(segs) == 0 {
			if fi, err := os.Stat(base); err == nil && fi.Mode().IsRegular() {
				out = append(out, base)
			}
			return
		}
		seg := segs[0]
		switch {
		case seg == "..":
			walk(filepath.Dir(base), segs[1:])
			return
		case seg == "" || seg == ".":
			walk(base, segs[1:])
			return
		case seg == "**":
			walk(base, segs[1:])
		}
		entries, err := os.ReadDir(base)
		if err != nil {
			return
		}
		for _, en := range entries {
			name := en.Name()
			if name == ".git" || name == "node_modules" {
				continue
			}
			child := filepath.Join(base, name)
			if seg == "**" {
				if en.IsDir() {
					walk(child, segs)
				}
				continue
			}
			if segmentMatch(seg, name) {
				walk(child, segs[1:])
			}
		}
	}
	walk(dir, segs)
	return out
}

var extglobNot = regexp.MustCompile(`!\(([^()]*)\)`)

// segmentMatch matches one path segment: a glob, with at most one `!(a|b)` standing for any
// text matching none of its alternatives.
func segmentMatch(seg, name string) bool {
	loc := extglobNot.FindStringSubmatchIndex(seg)
	if loc == nil {
		ok, _ := doublestar.Match(seg, name)
		return ok
	}
	prefix, suffix := seg[:loc[0]], seg[loc[1]:]
	alts := strings.Split(seg[loc[2]:loc[3]], "|")
	for i := 0; i <= len(name); i++ {
		if ok, _ := doublestar.Match(prefix, name[:i]); !ok {
			continue
		}
		for j := i; j <= len(name); j++ {
			if ok, _ := doublestar.Match(suffix, name[j:]); !ok {
				continue
			}
			middle, excluded := name[i:j], false
			for _, a := range alts {
				if ok, _ := doublestar.Match(a, middle); ok {
					excluded = true
					break
				}
			}
			if !excluded {
				return true
			}
		}
	}
	return false
}

// applyOverrides applies an experiment's overrides to the suite being loaded.
func (l *loader) applyOverrides(v *Variant) {
	for _, ov := range v.Overrides {
		l.vallyDefaults(&fileCtx{file: v.File, dir: v.Dir, path: []any{"overrides"}}, ov)
	}
	if v.Suffix != "" {
		l.s.Name += v.Suffix
	}
	if v.Uplift {
		l.s.Baseline = true
	}
}

// variantEnvironment applies a variant's environment to the spec's root environment: each key
// it sets replaces the root's (skills: [] leaves no skill). Skill paths resolve against the
// experiment's folder, after ${eval.parent} and ${eval.grandparent} (the spec's folder and the
// one above it) are replaced.
func (l *loader) variantEnvironment(v *Variant, env vallyEnv) vallyEnv {
	ctx := &fileCtx{file: v.File, dir: v.Dir, path: []any{"variants", v.Name, "environment"}}
	n := v.Environment
	out := env.clone()
	if _, sk := mapPair(n, "skills"); sk != nil {
		out.skills, out.missing = nil, nil
	}
	if _, fs := mapPair(n, "files"); fs != nil {
		out.files = nil
	}
	if _, cs := mapPair(n, "commands"); cs != nil {
		out.commands = nil
	}
	expanded := mappingNode(n)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		switch {
		case k.Value == "skills" && isSequence(val):
			items := make([]*yaml.Node, 0, len(val.Content))
			for j, item := range val.Content {
				s, ok := stringOf(item)
				if !ok {
					continue
				}
				items = append(items, scalarNode(item, "!!str", l.expandEvalVars(ctx.sub("skills", j), item, s)))
			}
			expanded.Content = append(expanded.Content, k, sequenceNode(val, items...))
		case k.Value == "mcpServers" && (isNullNode(val) || isMapping(val) && allNull(val)):
			// Removing MCP servers (`mcpServers: null`, or each by name): skillgate starts none anyway.
		default:
			expanded.Content = append(expanded.Content, k, val)
		}
	}
	return l.mergeEnvironment(ctx, expanded, out)
}

func allNull(m *yaml.Node) bool {
	for i := 1; i < len(m.Content); i += 2 {
		if !isNullNode(m.Content[i]) {
			return false
		}
	}
	return true
}

var evalVar = regexp.MustCompile(`\$\{eval\.([A-Za-z_]+)\}`)

// expandEvalVars replaces ${eval.parent} and ${eval.grandparent} in a variant's path with the
// names of the spec's folder and the one above it; another ${eval.…} is left as written, with
// a warning.
func (l *loader) expandEvalVars(ctx *fileCtx, at *yaml.Node, s string) string {
	dir := l.s.Dir
	return evalVar.ReplaceAllStringFunc(s, func(m string) string {
		switch evalVar.FindStringSubmatch(m)[1] {
		case "parent":
			return filepath.Base(dir)
		case "grandparent":
			return filepath.Base(filepath.Dir(dir))
		}
		l.add(Warnf(ctx.pos(at), ctx.key(), "use ${eval.parent} or ${eval.grandparent}", "%s is not a variable skillgate knows; it is left as written", m))
		return m
	})
}

func (e *Experiment) String() string { return fmt.Sprintf("experiment %s (%s)", e.Name, e.File) }
