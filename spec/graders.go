package spec

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/schemas"
)

// valueOutcomes are the outcome types that need a `value`.
var valueOutcomes = []string{"file_exists", "file_not_exists", "output_contains", "output_not_contains", "output_matches"}

// graderEntry is one item of a graders list as written: a definition, or a reference to a
// top-level grader by name.
type graderEntry struct {
	def     *Grader
	refName string
	at      Pos
	key     string
}

func (l *loader) decodeGlobalGraders(ctx *fileCtx, list *yaml.Node) {
	if !isSequence(list) {
		return
	}
	for i, item := range list.Content {
		e, ok := l.decodeGraderItem(ctx.sub(i), item, true, &l.diags)
		if !ok || e.def == nil {
			continue
		}
		if first, dup := l.globals[e.def.Name]; dup {
			// waza keys graders by name, so the later definition wins; it takes the earlier
			// one's place.
			l.add(Warnf(e.at, e.key, "give each grader its own `name:`",
				"duplicate grader name %q (first defined at %s); this definition replaces it", e.def.Name, first.Pos))
			for i, g := range l.s.Graders {
				if g == first {
					l.s.Graders[i] = e.def
				}
			}
			l.globals[e.def.Name] = e.def
			continue
		}
		l.globals[e.def.Name] = e.def
		l.s.Graders = append(l.s.Graders, e.def)
	}
}

func (l *loader) globalNames() string {
	var names []string
	for _, g := range l.s.Graders {
		names = append(names, g.Name)
	}
	if len(names) == 0 {
		return "there are no top-level graders"
	}
	return "top-level graders: " + strings.Join(names, ", ")
}

// decodeGraderItem reads one grader declaration. Schema errors (wrong types, unknown keys) are
// already reported; here come the rules a schema cannot express. ok is false when the item
// yields nothing usable.
func (l *loader) decodeGraderItem(ctx *fileCtx, item *yaml.Node, global bool, diags *Diagnostics) (e graderEntry, ok bool) {
	e.at, e.key = ctx.pos(item), ctx.key()
	if name, isStr := stringOf(item); isStr && item.ShortTag() == "!!str" && !global {
		e.refName = name
		return e, name != ""
	}
	if !isMapping(item) {
		return e, false
	}
	typ := stringAt(item, "type")
	name := stringAt(item, "name")
	assertions := get(item, "assertions")
	if typ == "" {
		switch {
		case assertions != nil:
			typ = "code"
		case global:
			// The schema reported the missing type. As in waza, such a grader errors in each
			// run it grades (graders.CompileOne), and the rest of the suite runs.
		case name != "" && len(item.Content) == 2:
			e.refName = name
			return e, true
		default:
			fix := "add `type:` (one of: " + strings.Join(schemas.GraderTypes(), ", ") + ")"
			if name != "" {
				if _, isGlobal := l.globals[name]; isGlobal {
					fix += ", or give only `name: " + name + "` to use the top-level grader"
				}
			}
			*diags = append(*diags, Warnf(ctx.pos(item), ctx.key(), fix, "grader %q has no type; it errors in every run", name))
		}
	}
	// A type this build does not know still makes a grader: the grader registry reports it, and
	// the grader errors in the runs it grades (as in waza) instead of refusing the suite.
	if name == "" {
		name = cmp.Or(typ, "grader")
	}
	g := &Grader{Name: name, Type: typ, Weight: 1, Pos: ctx.pos(item), File: ctx.file, Dir: ctx.dir, Global: global}
	if w, isNum := floatOf(get(item, "weight")); isNum && w > 0 {
		g.Weight = w
	}
	cfg := l.foldConfig(ctx, item, typ, diags)
	if known, ok := vallyGraderKeys[typ]; ok && !slices.Contains(schemas.GraderTypes(), typ) {
		// A Vally grader type in a waza suite: its keys are checked as in a Vally spec (the
		// schema checks waza's own types).
		*diags = append(*diags, unknownConfigKeys(ctx.sub("config"), cfg, typ, known)...)
	}
	typeConfig(g, cfg)
	e.def = g
	return e, true
}

// foldConfig returns the grader's config mapping with the shortcut keys folded in, never nil.
// The declared nodes are never modified (an anchor may be shared); a copy is made when needed.
func (l *loader) foldConfig(ctx *fileCtx, item *yaml.Node, typ string, diags *Diagnostics) *yaml.Node {
	cfg := get(item, "config")
	if !isMapping(cfg) {
		at := item
		if k, _ := mapPair(item, "config"); k != nil {
			at = k
		}
		cfg = mappingNode(at)
	}
	copied := false
	edit := func() {
		if !copied {
			c := *cfg
			c.Content = append([]*yaml.Node(nil), cfg.Content...)
			cfg, copied = &c, true
		}
	}
	if k, v := mapPair(item, "assertions"); v != nil && typ == "code" {
		if has(cfg, "assertions") {
			*diags = append(*diags, Warnf(ctx.pos(k), ctx.key("assertions"), "remove one of them",
				"assertions are given at the top level and under config; the top-level list is used"))
		}
		edit()
		setPair(cfg, k, v)
	}
	// Judges take these at the grader's top level (docs/format.md, "Graders").
	if IsJudge(typ) {
		for _, name := range []string{"model", "rubric", "threshold", "reference"} {
			k, v := mapPair(item, name)
			if v == nil {
				continue
			}
			if has(cfg, name) {
				*diags = append(*diags, Warnf(ctx.pos(k), ctx.key(name), "remove one of them",
					"`%s` is given at the top level and under config; config.%s is used", name, name))
				continue
			}
			edit()
			setPair(cfg, k, v)
		}
	}
	// The skill name is for skillgate's invocation check; waza's heuristic (skill_path, mode)
	// reads the SKILL.md it names instead.
	if typ == "trigger" && !has(cfg, "skill") && !has(cfg, "skill_path") && !has(cfg, "mode") && !has(cfg, "threshold") {
		skill := l.skillUnderTest()
		if skill == "" {
			// The trigger grader reports it, and errors in each run it grades.
		} else {
			edit()
			setPair(cfg, scalarNode(cfg, "!!str", "skill"), scalarNode(cfg, "!!str", skill))
		}
	}
	return cfg
}

// skillUnderTest is eval.yaml's skill, else trigger_tests.yaml's.
func (l *loader) skillUnderTest() string {
	if l.s.Skill != "" {
		return l.s.Skill
	}
	return l.triggerSkill
}

// taskGraders builds a task's effective grader list (docs/format.md#graders): the top-level graders (or
// exactly those expected.graders lists, in its order), then the task's own graders (one named
// like a top-level grader replaces it in place), then the implicit graders of expected.*.
func (l *loader) taskGraders(ctx *fileCtx, m *yaml.Node, diags *Diagnostics) []*Grader {
	var list []*Grader
	taskScope := map[string]Pos{} // definitions made by this task, by name
	resolve := func(e graderEntry) *Grader {
		g := l.globals[e.refName]
		if g == nil {
			fix := l.globalNames()
			if s := suggest(e.refName, sortedKeys(l.globals)); s != "" {
				fix = "did you mean `" + s + "`? " + fix
			}
			*diags = append(*diags, Errorf(e.at, e.key, fix, "no top-level grader is named %q", e.refName))
		}
		return g
	}
	indexOf := func(name string) int {
		for i, g := range list {
			if g.Name == name {
				return i
			}
		}
		return -1
	}
	expected := get(m, "expected")
	if eg := get(expected, "graders"); isSequence(eg) {
		seen := map[string]Pos{}
		for j, item := range eg.Content {
			e, ok := l.decodeGraderItem(ctx.sub("expected", "graders", j), item, false, diags)
			if !ok {
				continue
			}
			name := e.refName
			if e.def != nil {
				name = e.def.Name
			}
			if first, dup := seen[name]; dup {
				*diags = append(*diags, Errorf(e.at, e.key, "list each grader once", "grader %q is listed twice (first at %s)", name, first))
				continue
			}
			seen[name] = e.at
			if e.def == nil {
				if g := resolve(e); g != nil {
					list = append(list, g)
				}
				continue
			}
			taskScope[name] = e.at
			list = append(list, e.def)
		}
	} else {
		list = append(list, l.s.Graders...)
	}
	if tg := get(m, "graders"); isSequence(tg) {
		seen := map[string]Pos{}
		for j, item := range tg.Content {
			e, ok := l.decodeGraderItem(ctx.sub("graders", j), item, false, diags)
			if !ok {
				continue
			}
			name := e.refName
			if e.def != nil {
				name = e.def.Name
			}
			if first, dup := seen[name]; dup && e.def == nil {
				*diags = append(*diags, Warnf(e.at, e.key, "list each grader once", "grader %q is listed twice (first at %s); it runs once", name, first))
				continue
			}
			if first, dup := taskScope[name]; dup {
				// As in waza, a later definition of a name replaces the earlier one.
				*diags = append(*diags, Warnf(e.at, e.key, "give each grader its own `name:`", "duplicate grader name %q (first defined at %s); this definition replaces it", name, first))
			}
			seen[name] = e.at
			if e.def == nil {
				if g := resolve(e); g != nil && indexOf(g.Name) < 0 {
					list = append(list, g)
				}
				continue
			}
			taskScope[name] = e.at
			if i := indexOf(name); i >= 0 {
				list[i] = e.def // replaces the top-level grader of that name, in place
			} else {
				list = append(list, e.def)
			}
		}
	}
	for _, g := range l.implicitGraders(ctx.sub("expected"), expected, diags) {
		if i := indexOf(g.Name); i >= 0 {
			*diags = append(*diags, Warnf(g.Pos, ctx.key("expected"), "rename the grader at "+list[i].Pos.String(),
				"%s creates the grader %q, and another grader of this task has that name; the task's own grader is used", g.Implicit, g.Name))
			continue
		}
		list = append(list, g)
	}
	return list
}

// implicitGraders turns expected.* into graders (docs/format.md#graders-made-from-expected).
func (l *loader) implicitGraders(ctx *fileCtx, exp *yaml.Node, diags *Diagnostics) []*Grader {
	if !isMapping(exp) {
		return nil
	}
	var out []*Grader
	newGrader := func(name, typ, implicit string, at *yaml.Node, cfg *yaml.Node) *Grader {
		g := &Grader{Name: name, Type: typ, Weight: 1, Pos: ctx.pos(at), File: ctx.file, Dir: ctx.dir, Implicit: implicit}
		typeConfig(g, cfg)
		return g
	}
	// list items appended under a synthesized key of a synthesized config
	type listAcc struct {
		key   *yaml.Node
		items []*yaml.Node
	}
	addTo := func(accs map[string]*listAcc, order *[]string, name string, keyAt *yaml.Node, items ...*yaml.Node) {
		a := accs[name]
		if a == nil {
			a = &listAcc{key: scalarNode(keyAt, "!!str", name)}
			accs[name] = a
			*order = append(*order, name)
		}
		a.items = append(a.items, items...)
	}
	build := func(at *yaml.Node, accs map[string]*listAcc, order []string) *yaml.Node {
		cfg := mappingNode(at)
		for _, name := range order {
			a := accs[name]
			cfg.Content = append(cfg.Content, a.key, sequenceNode(a.key, a.items...))
		}
		return cfg
	}
	listItems := func(n *yaml.Node) []*yaml.Node {
		if isSequence(n) {
			return n.Content
		}
		if isScalar(n) && n.ShortTag() == "!!str" {
			return []*yaml.Node{n}
		}
		return nil
	}

	// waza (v0.12, the reference) grades no text check written under expected: not
	// output_contains, output_not_contains or output_contains_any, nor an output_* outcome.
	// Neither does skillgate; each is a warning with the grader that checks it
	// (docs/format.md#graders-made-from-expected).
	textCheck := map[string]string{"output_contains": "contains", "output_not_contains": "not_contains", "output_contains_any": "contains_any", "output_matches": "regex_match"}
	notGraded := func(at *yaml.Node, key []any, what, target string, items []*yaml.Node) {
		newerWaza := "" // waza after v0.12 grades the three lists, not the outcomes
		if strings.HasPrefix(what, "expected.") {
			newerWaza = " (waza releases since March 2026 grade it as `_" + strings.TrimPrefix(what, "expected.") + "`)"
		}
		var vals []string
		for _, it := range items {
			if s, ok := stringOf(it); ok {
				vals = append(vals, fmt.Sprintf("%q", s))
			}
		}
		*diags = append(*diags, Warnf(ctx.pos(at), ctx.key(key...), fmt.Sprintf("to check it, add a grader: {type: text, config: {%s: [%s]}}", target, strings.Join(vals, ", ")),
			"%s is not graded, as in waza v0.12, skillgate's reference%s", what, newerWaza))
	}
	fileAcc := map[string]*listAcc{}
	var fileOrder []string
	var fileAt *yaml.Node
	for _, key := range []string{"output_contains", "output_not_contains", "output_contains_any"} {
		k, v := mapPair(exp, key)
		if items := listItems(v); len(items) > 0 {
			notGraded(k, []any{key}, "expected."+key, textCheck[key], items)
		}
	}
	outcomesKey, outcomes := mapPair(exp, "outcomes")
	var completedAt *yaml.Node
	if isSequence(outcomes) {
		for i, o := range outcomes.Content {
			typ := stringAt(o, "type")
			if typ == "task_completed" {
				// waza's scaffold writes this outcome into every task: the run must finish
				// without an agent error or timeout.
				if completedAt == nil {
					completedAt = o
				}
				continue
			}
			v := get(o, "value")
			if _, ok := stringOf(v); !ok {
				if isMapping(o) && typ != "" && contains(valueOutcomes, typ) {
					*diags = append(*diags, Warnf(ctx.pos(o), ctx.key("outcomes", i), "add `value:` (the file path, substring or pattern)",
						"outcome %s has no value; it is ignored", typ))
				}
				continue
			}
			if k, c := mapPair(o, "condition"); c != nil {
				*diags = append(*diags, Warnf(ctx.pos(k), ctx.key("outcomes", i, "condition"), "remove it",
					"outcome conditions are not evaluated; the outcome is checked unconditionally"))
			}
			switch typ {
			case "output_contains", "output_not_contains", "output_matches":
				notGraded(o, []any{"outcomes", i}, "outcome "+typ, textCheck[typ], []*yaml.Node{v})
			case "file_exists", "file_not_exists":
				target := map[string]string{"file_exists": "must_exist", "file_not_exists": "must_not_exist"}[typ]
				addTo(fileAcc, &fileOrder, target, o, v)
				if fileAt == nil {
					fileAt = outcomesKey
				}
			}
		}
	}
	if fileAt != nil {
		out = append(out, newGrader("expected_outcomes", "file", "expected.outcomes", fileAt, build(fileAt, fileAcc, fileOrder)))
	}
	if completedAt != nil {
		out = append(out, newGrader("expected_completion", "task_completed", "expected.outcomes", completedAt, mappingNode(completedAt)))
	}

	// expected_behavior and expected_turns.
	if bk, b := mapPair(exp, "behavior"); isMapping(b) {
		cfg := mappingNode(bk)
		for _, name := range []string{"max_tool_calls", "max_tokens", "max_duration_ms", "required_tools", "forbidden_tools"} {
			if k, v := mapPair(b, name); v != nil {
				cfg.Content = append(cfg.Content, k, v)
			}
		}
		if k, v := mapPair(b, "max_response_time_ms"); v != nil {
			if has(b, "max_duration_ms") {
				*diags = append(*diags, Warnf(ctx.pos(k), ctx.key("behavior", "max_response_time_ms"), "remove it",
					"max_response_time_ms is an older name of max_duration_ms, which is also given and is used"))
			} else {
				cfg.Content = append(cfg.Content, scalarNode(k, "!!str", "max_duration_ms"), v)
			}
		}
		if len(cfg.Content) > 0 {
			out = append(out, newGrader("expected_behavior", "behavior", "expected.behavior", bk, cfg))
		}
		if k, v := mapPair(b, "max_iterations"); v != nil {
			tc := mappingNode(k)
			tc.Content = append(tc.Content, scalarNode(k, "!!str", "max_turns"), v)
			out = append(out, newGrader("expected_turns", "tool_constraint", "expected.behavior.max_iterations", k, tc))
		}
	}

	// expected_tool_calls.
	if tk, t := mapPair(exp, "tool_calls"); isMapping(t) {
		cfg := mappingNode(tk)
		for _, name := range []string{"required", "forbidden", "max_calls"} {
			if k, v := mapPair(t, name); v != nil {
				cfg.Content = append(cfg.Content, k, v)
			}
		}
		if len(cfg.Content) > 0 {
			out = append(out, newGrader("expected_tool_calls", "tool_calls", "expected.tool_calls", tk, cfg))
		}
	}

	// expected_trigger.
	if sk, sv := mapPair(exp, "should_trigger"); sv != nil {
		if _, isBool := boolOf(sv); isBool {
			skill := l.skillUnderTest()
			if skill == "" {
				// waza never grades expected.should_trigger; without a skill name skillgate cannot.
				*diags = append(*diags, Warnf(ctx.pos(sk), ctx.key("should_trigger"), "add `skill:` to eval.yaml",
					"should_trigger needs the name of the skill under test, and the suite names none; it is not graded"))
			} else {
				cfg := mappingNode(sk)
				cfg.Content = append(cfg.Content,
					scalarNode(sk, "!!str", "skill"), scalarNode(sk, "!!str", skill),
					scalarNode(sk, "!!str", "should_trigger"), sv)
				out = append(out, newGrader("expected_trigger", "trigger", "expected.should_trigger", sk, cfg))
			}
		}
	}
	return out
}
