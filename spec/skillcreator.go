package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Anthropic's skill-creator format (docs/format.md#skill-creator-evals): `evals/evals.json` holds
// the test cases of one skill, and trigger eval sets (`evals/trigger-evals.json` and a dozen other
// names) the queries that should and should not make the agent use it. A folder of them is one
// suite: each eval a task, each query a trigger prompt. The facts come from public files
// (../shared/docs/notes/skill-creator.md); what this loader does not read is a warning naming the
// key, never a refusal.

// FormatSkillCreator is Suite.Format of a skill-creator suite.
const FormatSkillCreator = "skill-creator"

// JudgedChecksType is the grader type of the checks skill-creator leaves to a judge: every such
// check of a task, graded in one judge call per run (docs/graders.md#judged_checks--checks-written-as-sentences).
const JudgedChecksType = "judged_checks"

// Defaults of skill-creator's trigger eval sets.
const (
	DefaultRunsPerQuery         = 3
	DefaultTriggerRateThreshold = 0.5
)

var (
	creatorTopKeys  = []string{"skill_name", "evals", "$schema"}
	creatorEvalKeys = []string{"id", "name", "prompt", "expected_output", "files", "assertions", "expectations", "skill", "target_skill"}
	// evalSkillKeys name the skill one eval tests, in an evals.json that keeps the evals of
	// several skills (a plugin's or a collection's root evals/).
	evalSkillKeys = []string{"skill", "target_skill"}
	// deterministicChecks maps a check's `type` (or a one-word `check`) to what it is: the
	// vocabularies are each author's own, so only these plain meanings run as built-in graders.
	deterministicChecks = map[string]string{
		"contains": "contains", "output_contains": "contains", "includes": "contains", "must_contain": "contains",
		"not_contains": "not_contains", "does_not_contain": "not_contains", "output_not_contains": "not_contains", "excludes": "not_contains", "must_not_contain": "not_contains",
		"regex": "regex", "matches": "regex", "output_matches": "regex", "regex_match": "regex", "pattern": "regex",
		"not_regex": "not_regex", "not_matches": "not_regex", "regex_not_match": "not_regex",
		"file_exists": "file_exists", "file_not_exists": "file_not_exists",
	}
	// operandKeys hold a deterministic check's literal or pattern; `text`, `description` and
	// `name` are prose for people and never taken for one.
	operandKeys = []string{"value", "expected", "pattern", "regex", "substring", "path", "file"}
)

// loadSkillCreator reads an evals.json (or a trigger eval set) into l.s, with the other trigger
// sets of its folder.
func (l *loader) loadSkillCreator(abs string, data []byte) {
	s := l.s
	s.Format = FormatSkillCreator
	s.Config.TrialsPerTask = 1
	// skill-creator's trigger runs stop at the agent's first tool call: the skill decision.
	s.Config.TriggerEarlyStop = &EarlyStop{SkillCall: "*", ToolCallCount: 1}
	s.ContextDir = s.Dir
	ctx := &fileCtx{file: abs, dir: s.Dir}
	root, diags := parseJSON(abs, data)
	l.add(diags...)
	if root == nil {
		return
	}
	s.Pos = ctx.pos(root)
	kind, note := classifyJSON(strings.ToLower(filepath.Base(abs)), data)
	isEvals := kind == KindSkillCreator
	if !isEvals && kind != KindTriggerSet {
		fix := "give evals.json the shape {\"skill_name\": …, \"evals\": [{\"id\": 1, \"prompt\": …}]}"
		if !strings.EqualFold(filepath.Base(abs), "evals.json") {
			fix = "give the trigger eval set the shape [{\"query\": …, \"should_trigger\": true}]"
		}
		l.add(Errorf(ctx.pos(root), "", fix, "%s", note))
		return
	}
	skill := ""
	if isEvals {
		skill = stringAt(root, "skill_name")
	} else {
		skill = firstNonEmpty(stringAt(root, "skill_name"), stringAt(root, "skill"))
	}
	// The trigger sets of the folder join the suite (a trigger set given by name reads its
	// siblings too, so either file gives the same suite). ReadDir sorts by name.
	var sets []string
	if !isEvals {
		sets = append(sets, abs)
	}
	if entries, err := os.ReadDir(s.Dir); err == nil {
		for _, e := range entries {
			p := filepath.Join(s.Dir, e.Name())
			if e.IsDir() || p == abs || (!isTriggerSetName(strings.ToLower(e.Name())) && !strings.EqualFold(e.Name(), "evals.json")) {
				continue
			}
			if Classify(p).Kind == KindTriggerSet {
				sets = append(sets, p)
			}
		}
	}
	if skill == "" {
		for _, f := range sets {
			if b, err := readSuiteFile("", f); err == nil {
				if r, _ := parseJSON(f, b); isMapping(r) {
					skill = firstNonEmpty(stringAt(r, "skill_name"), stringAt(r, "skill"))
				}
			}
			if skill != "" {
				break
			}
		}
	}
	perEval := false
	if isEvals {
		perEval = l.everyEvalNamesItsSkill(root)
	}
	l.relateSkill(ctx, root, skill, perEval)

	if isEvals {
		evals := root
		if isMapping(root) {
			for i := 0; i+1 < len(root.Content); i += 2 {
				if k := root.Content[i]; !slices.Contains(creatorTopKeys, k.Value) {
					l.add(Warnf(ctx.pos(k), ctx.key(k.Value), "remove it, or keep it knowing skillgate does not read it",
						"%q is not a key of skill-creator's evals.json (skill_name, evals); it is ignored", k.Value).OfKind(KindUnknownKey))
				}
			}
			evals = get(root, "evals")
		}
		l.loadEvals(ctx.sub(), evals, isMapping(root))
	}
	for _, f := range sets {
		l.loadTriggerSet(f, f == abs, data)
	}
	if len(s.Tasks) == 0 && s.TriggerTests == nil {
		if l.leftOut > 0 {
			l.add(Errorf(ctx.pos(root), "evals", "correct the entries the warnings name", "every eval and trigger query of the file was left out (%d, each named in a warning): nothing to run", l.leftOut))
		} else {
			l.add(Errorf(ctx.pos(root), "evals", "add evals with a `prompt`", "the file has no eval with a prompt and no trigger query: nothing to run"))
		}
	}
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// relateSkill finds the skill an evals folder tests (docs/format.md#skill-creator-evals): the
// folder above evals/ when it holds a SKILL.md; else the SKILL.md whose folder or frontmatter
// name is skill_name, nearest first; else the only SKILL.md of the repository. It sets the
// suite's name, skill and skill folder.
// perEval: every eval names a skill of the repository, so no skill of the suite is needed.
func (l *loader) relateSkill(ctx *fileCtx, root *yaml.Node, want string, perEval bool) {
	s := l.s
	parent := filepath.Dir(s.Dir)
	found := ""
	if isFile(filepath.Join(parent, "SKILL.md")) {
		found = parent
	} else {
		searchRoot := l.searchRoot(s.Dir)
		all := findSkillFiles(searchRoot)
		var named []string
		for _, f := range all {
			dir := filepath.Dir(f)
			if want != "" && (filepath.Base(dir) == want || want == skillName(f)) {
				named = append(named, dir)
			}
		}
		switch {
		case len(named) > 0:
			sort.SliceStable(named, func(i, j int) bool { return distance(s.Dir, named[i]) < distance(s.Dir, named[j]) })
			found = named[0]
			if len(named) > 1 {
				l.add(Warnf(ctx.pos(get(root, "skill_name")), "skill_name", "keep one skill of that name, or put evals/ inside the skill's folder",
					"%d skills are named %q (%s); the nearest, %s, is tested", len(named), want, strings.Join(relAll(searchRoot, named), ", "), rel(searchRoot, named[0])))
			}
		case len(all) == 1:
			found = filepath.Dir(all[0])
		}
	}
	if found != "" {
		s.Config.SkillDirectories = []string{found}
		s.Skill = firstNonEmpty(skillName(filepath.Join(found, "SKILL.md")), filepath.Base(found))
	} else if perEval {
		s.Skill = want
	} else {
		s.Skill = want
		what := "no SKILL.md"
		if want != "" {
			what = fmt.Sprintf("no SKILL.md named %q", want)
		}
		l.add(Warnf(ctx.pos(root), "skill_name", "put evals/ inside the skill's folder, or set skill_name to the skill's folder or frontmatter name",
			"%s found above evals/ or in the repository: runs of a real agent have no skill to install", what))
		s.Config.MissingSkill = firstNonEmpty(want, "(unnamed)")
	}
	// Without a skill, the suite is named for the skill's folder: the one above evals/, or the
	// file's own when it does not lie in an evals/ folder (a trigger set at a repository's
	// root is not named for the folder that holds the repository).
	named := parent
	if b := strings.ToLower(filepath.Base(s.Dir)); b != "evals" && b != "eval" {
		named = s.Dir
	}
	s.Name = firstNonEmpty(want, s.Skill, filepath.Base(named))
}

// everyEvalNamesItsSkill reports whether every eval with a prompt names (under `skill` or
// `target_skill`) a skill found in the repository.
func (l *loader) everyEvalNamesItsSkill(root *yaml.Node) bool {
	evals := root
	if isMapping(root) {
		evals = get(root, "evals")
	}
	if !isSequence(evals) {
		return false
	}
	n := 0
	for _, m := range evals.Content {
		if p, _ := stringOf(get(m, "prompt")); !isMapping(m) || strings.TrimSpace(p) == "" {
			continue
		}
		if name, _ := evalSkillName(m); name == "" || l.skillNamed(name) == "" {
			return false
		}
		n++
	}
	return n > 0
}

// evalSkillName is the skill an eval names, and its key.
func evalSkillName(m *yaml.Node) (string, string) {
	for _, k := range evalSkillKeys {
		if v := strings.TrimSpace(stringAt(m, k)); v != "" {
			return v, k
		}
	}
	return "", ""
}

// skillNamed is the folder of the SKILL.md whose folder or frontmatter name is name, the
// nearest to the evals folder; "" when there is none.
func (l *loader) skillNamed(name string) string {
	if l.skillFiles == nil {
		l.skillFiles = append(findSkillFiles(l.searchRoot(l.s.Dir)), "") // never nil again
	}
	best := ""
	for _, f := range l.skillFiles {
		if f == "" {
			continue
		}
		dir := filepath.Dir(f)
		if (filepath.Base(dir) == name || skillName(f) == name) && (best == "" || distance(l.s.Dir, dir) < distance(l.s.Dir, best)) {
			best = dir
		}
	}
	return best
}

// searchRoot is where relateSkill looks for SKILL.md files: the folder the search started from
// (Options.SearchRoot) when it holds the suite, else the repository root, else the folder above
// the suite's.
func (l *loader) searchRoot(dir string) string {
	if r := l.opts.SearchRoot; r != "" && within(dir, r) {
		return r
	}
	if r := RepositoryRoot(dir); r != "" {
		return r
	}
	return filepath.Dir(dir)
}

func within(p, dir string) bool {
	r, err := filepath.Rel(dir, p)
	return err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator))
}

// maxSkillSearch bounds the files relateSkill looks at.
const maxSkillSearch = 50000

// findSkillFiles lists the SKILL.md files below root (not in .git, node_modules or .skillgate).
func findSkillFiles(root string) []string {
	var out []string
	seen := 0
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > maxSkillSearch {
			return filepath.SkipAll
		}
		if d.IsDir() && p != root && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == ".skillgate") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "SKILL.md" {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// distance counts the folders between two paths through their common ancestor.
func distance(a, b string) int {
	pa := strings.Split(filepath.ToSlash(a), "/")
	pb := strings.Split(filepath.ToSlash(b), "/")
	i := 0
	for i < len(pa) && i < len(pb) && pa[i] == pb[i] {
		i++
	}
	return len(pa) - i + len(pb) - i
}

func rel(root, p string) string {
	if r, err := filepath.Rel(root, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

func relAll(root string, ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = rel(root, p)
	}
	return out
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// loadEvals turns each eval into a task.
func (l *loader) loadEvals(ctx *fileCtx, evals *yaml.Node, wrapped bool) {
	if wrapped {
		ctx = ctx.sub("evals")
	}
	if !isSequence(evals) {
		return
	}
	ids := map[string]Pos{}
	unknown := map[string]*unknownKey{}
	var order []string
	for i, item := range evals.Content {
		ectx := ctx.sub(i)
		if !isMapping(item) {
			l.add(Warnf(ectx.pos(item), ectx.key(), "write each eval as an object with `prompt`", "an eval that is not an object is left out"))
			l.leftOut++
			continue
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			k := item.Content[j].Value
			if slices.Contains(creatorEvalKeys, k) {
				continue
			}
			if u := unknown[k]; u != nil {
				u.more++
			} else {
				unknown[k] = &unknownKey{pos: ectx.pos(item.Content[j]), key: ectx.key(k)}
				order = append(order, k)
			}
		}
		t := l.creatorTask(ectx, item, i)
		if t == nil {
			continue
		}
		if first, dup := ids[t.ID]; dup {
			id := t.ID
			t.ID = uniqueID(ids, id)
			l.add(Warnf(t.Pos, ectx.key("id"), "give each eval its own id", "eval id %q is used twice (first at %s); this one runs as %q", id, first, t.ID))
		}
		ids[t.ID] = t.Pos
		l.s.Tasks = append(l.s.Tasks, t)
	}
	for _, k := range order {
		u := unknown[k]
		also := ""
		if u.more > 0 {
			also = fmt.Sprintf(" (in %d more evals too)", u.more)
		}
		l.add(Warnf(u.pos, u.key, "remove it, or keep it knowing skillgate does not read it",
			"%q is not a key of skill-creator's evals; it is ignored%s", k, also).OfKind(KindUnknownKey))
	}
}

type unknownKey struct {
	pos  Pos
	key  string
	more int
}

// creatorTask reads one eval; nil when it has no prompt.
func (l *loader) creatorTask(ctx *fileCtx, m *yaml.Node, i int) *Task {
	prompt, _ := stringOf(get(m, "prompt"))
	if strings.TrimSpace(prompt) == "" {
		l.add(Warnf(ctx.keyPos(m, "prompt"), ctx.key("prompt"), "write the prompt the agent gets", "the eval has no prompt; it is left out"))
		l.leftOut++
		return nil
	}
	t := &Task{
		ID:          fmt.Sprintf("eval-%d", i+1),
		Prompt:      prompt,
		Description: stringAt(m, "expected_output"),
		ContextDir:  l.s.Dir,
		File:        l.s.File,
		Dir:         l.s.Dir,
		Pos:         ctx.pos(m),
	}
	if id := get(m, "id"); id != nil {
		if v, ok := idText(id); ok {
			t.ID = v
		}
	}
	t.Name = firstNonEmpty(stringAt(m, "name"), t.ID)
	if name, key := evalSkillName(m); name != "" {
		// This eval tests a skill of its own: that skill is installed for its runs.
		if dir := l.skillNamed(name); dir == "" {
			installs := "the suite's skill"
			if len(l.s.Config.SkillDirectories) == 0 {
				installs = "no skill"
			}
			l.add(Warnf(ctx.keyPos(m, key), ctx.key(key), fmt.Sprintf("set %s to the skill's folder or frontmatter name", key),
				"no SKILL.md named %q in the repository: this eval's runs of a real agent install %s", name, installs))
		} else if !slices.Equal(l.s.Config.SkillDirectories, []string{dir}) {
			t.OwnSkills = true
			t.SkillDirectories = []string{dir}
		}
	}
	if files := get(m, "files"); files != nil {
		l.creatorFiles(ctx.sub("files"), files, t)
	}
	l.creatorChecks(ctx, m, t)
	return t
}

// idText is an eval id as text: integers as written, strings trimmed.
func idText(n *yaml.Node) (string, bool) {
	if !isScalar(n) {
		return "", false
	}
	if f, ok := floatOf(n); ok && n.ShortTag() != "!!str" && f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10), true
	}
	v := strings.TrimSpace(n.Value)
	return v, v != ""
}

// creatorFiles reads an eval's input files: each path names a file in the skill folder or, as
// authors write them, next to evals.json, in the folder above evals/ (a plugin's root) or at the
// repository's root (where the agent that runs the evals starts); it is copied into the
// workspace at that path.
func (l *loader) creatorFiles(ctx *fileCtx, files *yaml.Node, t *Task) {
	bases := append(slices.Concat(t.SkillDirectories, l.s.Config.SkillDirectories), l.s.Dir, filepath.Dir(l.s.Dir), l.searchRoot(l.s.Dir))
	if r := RepositoryRoot(l.s.Dir); r != "" {
		bases = append(bases, r)
	}
	seen := map[string]bool{}
	bases = slices.DeleteFunc(bases, func(b string) bool { dup := seen[b]; seen[b] = true; return dup })
	items := []*yaml.Node{files}
	if isSequence(files) {
		items = files.Content
	}
	var names []string
	for i, item := range items {
		written, ok := stringOf(item)
		if !ok || strings.TrimSpace(written) == "" {
			continue
		}
		key := ctx.key()
		if isSequence(files) {
			key = ctx.key(i)
		}
		slash := filepath.ToSlash(written)
		clean := path.Clean(slash)
		dest := clean
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			dest = path.Base(clean)
		}
		f := &InputFile{Path: dest, Pos: ctx.pos(item)}
		var candidates []string
		if filepath.IsAbs(written) {
			candidates = []string{written}
		} else {
			for _, dir := range bases {
				candidates = append(candidates, filepath.Join(dir, filepath.FromSlash(slash)))
			}
		}
		for _, c := range candidates {
			if isFile(c) {
				f.Source = c
				break
			}
		}
		if f.Source == "" {
			f.Missing = fmt.Sprintf("input file %q is not in the skill folder, the evals folder, the folder above it or the repository root", written)
			l.add(Warnf(f.Pos, key, "add the file, or fix the path (relative to the skill folder)", "%s; the eval's runs error", f.Missing).OfKind(KindMissingFile))
		} else {
			l.files[f.Source] = true
		}
		t.Files = append(t.Files, f)
		names = append(names, dest)
	}
	if len(names) > 0 {
		// skill-creator tells the agent where its input files are; here they are in the workspace.
		t.Prompt += "\n\nInput files: " + strings.Join(names, ", ")
	}
}

// creatorChecks turns an eval's assertions or expectations into graders: a check that is
// plainly deterministic (an object whose `type` says contains, regex, file_exists… and that gives
// the literal or pattern) runs as the built-in grader; every other check goes to one judged_checks
// grader, which asks a judge about all of them in one call per run.
func (l *loader) creatorChecks(ctx *fileCtx, m *yaml.Node, t *Task) {
	var lists []*yaml.Node
	var keys []string
	for _, key := range []string{"assertions", "expectations"} {
		if n := get(m, key); n != nil {
			lists = append(lists, n)
			keys = append(keys, key)
		}
	}
	if len(lists) == 2 {
		l.add(Warnf(ctx.keyPos(m, "expectations"), ctx.key("expectations"), "keep one list",
			"the eval gives both assertions and expectations; both are checked"))
	}
	var judged []*yaml.Node
	n := 0
	for li, list := range lists {
		lctx := ctx.sub(keys[li])
		items := []*yaml.Node{list}
		if isSequence(list) {
			items = list.Content
		}
		for i, item := range items {
			ictx := lctx
			if isSequence(list) {
				ictx = lctx.sub(i)
			}
			text, id, kind, operand, opKey := checkParts(item)
			if text == "" && operand == "" {
				l.add(Warnf(ictx.pos(item), ictx.key(), "write the check as a sentence, or as {\"text\": …}", "a check with no text is left out"))
				continue
			}
			n++
			name := firstNonEmpty(id, fmt.Sprintf("check-%d", n))
			if g := l.deterministicCheck(ictx, item, t, name, text, kind, operand, opKey); g != nil {
				t.Graders = append(t.Graders, g)
				continue
			}
			c := mappingNode(item)
			c.Content = append(c.Content, scalarNode(item, "!!str", "name"), scalarNode(item, "!!str", name),
				scalarNode(item, "!!str", "text"), scalarNode(item, "!!str", describeCheck(text, kind, operand)))
			judged = append(judged, c)
		}
	}
	if len(judged) == 0 {
		return
	}
	at := lists[0]
	cfg := mappingNode(at)
	cfg.Content = append(cfg.Content, scalarNode(at, "!!str", "checks"), sequenceNode(at, judged...))
	g := &Grader{Name: "checks", Type: JudgedChecksType, Weight: float64(len(judged)), Pos: ctx.keyPos(m, keys[0]),
		File: ctx.file, Dir: ctx.dir, Implicit: ctx.key(keys[0])}
	typeConfig(g, cfg)
	t.Graders = append(t.Graders, g)
}

// checkParts reads a check item: a string is its text; an object gives text (text, description,
// name, check), an id (id, name), a kind (type, kind, or a one-word check) and an operand.
func checkParts(item *yaml.Node) (text, id, kind, operand, opKey string) {
	if s, ok := stringOf(item); ok && isScalar(item) {
		return strings.TrimSpace(s), "", "", "", ""
	}
	if !isMapping(item) {
		return "", "", "", "", ""
	}
	text = firstNonEmpty(stringAt(item, "text"), stringAt(item, "description"), stringAt(item, "assertion"), stringAt(item, "expectation"))
	id = firstNonEmpty(stringAt(item, "id"), stringAt(item, "name"))
	if v, ok := idText(get(item, "id")); ok {
		id = v
	}
	kind = strings.ToLower(firstNonEmpty(stringAt(item, "type"), stringAt(item, "kind")))
	check := strings.TrimSpace(stringAt(item, "check"))
	if kind == "" && check != "" && !strings.ContainsAny(check, " \t\n|") {
		kind = strings.ToLower(check)
	} else if check != "" {
		text = firstNonEmpty(text, check)
	}
	if text == "" {
		text = stringAt(item, "name")
	}
	for _, k := range operandKeys {
		if v, ok := stringOf(get(item, k)); ok && v != "" && isScalar(get(item, k)) {
			operand, opKey = v, k
			break
		}
	}
	return text, id, kind, operand, opKey
}

// describeCheck is the text a judge gets for a check that is not plainly deterministic.
func describeCheck(text, kind, operand string) string {
	switch {
	case text == "":
		text = operand
	case operand != "" && !strings.Contains(text, operand):
		text += " (" + operand + ")"
	}
	if kind != "" {
		text += " [" + kind + "]"
	}
	return text
}

// deterministicCheck builds the built-in grader of a check whose kind is in deterministicChecks
// and that gives its literal or pattern; nil for every other check.
func (l *loader) deterministicCheck(ctx *fileCtx, item *yaml.Node, t *Task, name, text, kind, operand, opKey string) *Grader {
	meaning := deterministicChecks[kind]
	if meaning == "" || operand == "" {
		return nil
	}
	opNode := get(item, opKey)
	file := ""
	if opKey != "path" && opKey != "file" {
		file = firstNonEmpty(stringAt(item, "path"), stringAt(item, "file"))
	}
	cfg := mappingNode(item)
	typ := "text"
	list := func(key string, v *yaml.Node) {
		cfg.Content = append(cfg.Content, scalarNode(v, "!!str", key), sequenceNode(v, v))
	}
	switch {
	case meaning == "file_exists" || meaning == "file_not_exists":
		typ = "file"
		key := map[string]string{"file_exists": "must_exist", "file_not_exists": "must_not_exist"}[meaning]
		list(key, scalarNode(opNode, "!!str", operand))
	case file != "":
		// A literal or pattern in a file the run produced.
		typ = "file"
		pattern := operand
		if meaning == "contains" || meaning == "not_contains" {
			pattern = quoteRegexp(operand)
		}
		key := "must_match"
		if meaning == "not_contains" || meaning == "not_regex" {
			key = "must_not_match"
		}
		entry := mappingNode(item)
		entry.Content = append(entry.Content, scalarNode(item, "!!str", "path"), scalarNode(item, "!!str", file),
			scalarNode(item, "!!str", key), sequenceNode(opNode, scalarNode(opNode, "!!str", pattern)))
		cfg.Content = append(cfg.Content, scalarNode(item, "!!str", "content_patterns"), sequenceNode(item, entry))
	default:
		key := map[string]string{"contains": "contains_cs", "not_contains": "not_contains_cs", "regex": "regex_match", "not_regex": "regex_not_match"}[meaning]
		list(key, scalarNode(opNode, "!!str", operand))
	}
	g := &Grader{Name: name, Type: typ, Weight: 1, Pos: ctx.pos(item), File: ctx.file, Dir: ctx.dir, Implicit: ctx.key()}
	typeConfig(g, cfg)
	return g
}

// quoteRegexp escapes a literal for a regular expression (RE2 and ECMAScript agree on these).
func quoteRegexp(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// loadTriggerSet reads one trigger eval set into the suite's trigger tests
// (docs/format.md#trigger-eval-sets): a list of {query, should_trigger}, an object wrapping
// `queries` or `evals` (with runs_per_query and trigger_rate_threshold), or an object with should_trigger
// and should_not_trigger lists (of strings or objects).
func (l *loader) loadTriggerSet(file string, primary bool, primaryData []byte) {
	data := primaryData
	if !primary {
		var err error
		if data, err = readSuiteFile("", file); err != nil {
			l.add(Warnf(Pos{File: file}, "", RefusedFix(err), "cannot read the trigger eval set: %v; its queries do not run", unwrapPathError(err)))
			return
		}
	}
	root, diags := parseJSON(file, data)
	if !primary {
		l.add(diags...)
	}
	if root == nil {
		return
	}
	l.files[file] = true
	ctx := &fileCtx{file: file, dir: filepath.Dir(file)}
	tt := l.s.TriggerTests
	if tt == nil {
		tt = &TriggerTests{File: file, Skill: l.s.Skill, Pos: ctx.pos(root), Runs: DefaultRunsPerQuery, RateThreshold: DefaultTriggerRateThreshold}
		l.triggerSkill = tt.Skill
	}
	tt.Files = append(tt.Files, file)
	taken := map[string]Pos{}
	for _, p := range append(slices.Clone(tt.ShouldTrigger), tt.ShouldNot...) {
		taken[p.ID] = p.Pos
	}
	add := func(pctx *fileCtx, item *yaml.Node, should bool) {
		p := &TriggerPrompt{Confidence: "high", ShouldTrigger: should, Pos: pctx.pos(item)}
		if s, ok := stringOf(item); ok && isScalar(item) {
			p.Prompt = s
		} else if isMapping(item) {
			p.Prompt = firstNonEmpty(stringAt(item, "query"), stringAt(item, "prompt"))
			p.Reason = firstNonEmpty(stringAt(item, "why"), stringAt(item, "note"), stringAt(item, "rationale"), stringAt(item, "reason"), stringAt(item, "expect"))
			if v, ok := idText(get(item, "id")); ok {
				p.ID = v
			}
		}
		if strings.TrimSpace(p.Prompt) == "" {
			l.add(Warnf(pctx.pos(item), pctx.key(), "write the query", "a query that is blank is left out"))
			l.leftOut++
			return
		}
		list := &tt.ShouldTrigger
		prefix := "should"
		if !should {
			list, prefix = &tt.ShouldNot, "should-not"
		}
		if p.ID == "" {
			p.ID = fmt.Sprintf("%s-%d", prefix, len(*list)+1)
		}
		if first, dup := taken[p.ID]; dup {
			id := p.ID
			p.ID = uniqueID(taken, id)
			l.add(Warnf(p.Pos, pctx.key("id"), "give each query its own id", "query id %q is used twice (first at %s); this one runs as %q", id, first, p.ID))
		}
		taken[p.ID] = p.Pos
		*list = append(*list, p)
	}
	queries := root
	qctx := ctx.sub()
	if isMapping(root) {
		if n := get(root, "runs_per_query"); n != nil {
			if v, ok := intOf(n); ok && v >= 1 {
				tt.Runs = v
			} else {
				l.add(Warnf(ctx.pos(n), "runs_per_query", "write a whole number ≥ 1", "runs_per_query %s is not a whole number ≥ 1; each query runs %d times", n.Value, tt.Runs))
			}
		}
		if n := get(root, "trigger_rate_threshold"); n != nil {
			if v, ok := floatOf(n); ok && v > 0 && v <= 1 {
				tt.RateThreshold = v
			} else {
				l.add(Warnf(ctx.pos(n), "trigger_rate_threshold", "write a rate above 0 and at most 1, e.g. 0.5",
					"trigger_rate_threshold %s is not a rate above 0 and at most 1; %.2g is used", n.Value, tt.RateThreshold))
			}
		}
		queries = get(root, "queries")
		qctx = ctx.sub("queries")
		if queries == nil && isSequence(get(root, "evals")) {
			queries = get(root, "evals")
			qctx = ctx.sub("evals")
		}
		for _, list := range []struct {
			key    string
			should bool
		}{{"should_trigger", true}, {"should_not_trigger", false}} {
			if items := get(root, list.key); isSequence(items) {
				for i, item := range items.Content {
					add(ctx.sub(list.key, i), item, list.should)
				}
			}
		}
	}
	if isSequence(queries) {
		for i, item := range queries.Content {
			n := get(item, "should_trigger")
			should, ok := boolOf(n)
			if name, named := stringOf(n); !ok && named && n.ShortTag() == "!!str" && strings.TrimSpace(name) != "" {
				// A routing set names the skill each query should reach: it should trigger this
				// suite's skill when it names it, and not when it names another.
				if l.s.Skill == "" && len(l.s.Config.SkillDirectories) == 0 {
					l.add(Warnf(qctx.pos(n), qctx.key(i, "should_trigger"), "write true or false, or keep the set beside the skill it names",
						"should_trigger names a skill (%q), not true or false, and this suite tests no skill; the query is left out", name))
					l.leftOut++
					continue
				}
				should, ok = l.isSuiteSkill(strings.TrimSpace(name)), true
			}
			if !ok {
				l.add(Warnf(qctx.pos(item), qctx.key(i, "should_trigger"), "add \"should_trigger\": true or false", "the query says neither; it is left out"))
				l.leftOut++
				continue
			}
			add(qctx.sub(i), item, should)
		}
	}
	if len(tt.ShouldTrigger)+len(tt.ShouldNot) > 0 {
		l.s.TriggerTests = tt
	}
}

// isSuiteSkill reports whether name is the suite's skill: its frontmatter name, its folder's
// name or the file's skill_name.
func (l *loader) isSuiteSkill(name string) bool {
	names := []string{l.s.Skill, l.s.Name}
	for _, d := range l.s.Config.SkillDirectories {
		names = append(names, filepath.Base(d))
	}
	return slices.ContainsFunc(names, func(n string) bool { return n != "" && strings.EqualFold(n, name) })
}

// parseJSON parses a JSON file into a positioned YAML tree (JSON is YAML). Keys given twice are
// a warning, and the last is used, as JSON readers do; a file YAML cannot read but JSON can
// (rare escapes, very long keys) is read without positions.
func parseJSON(file string, data []byte) (root *yaml.Node, diags Diagnostics) {
	defer func() {
		if r := recover(); r != nil {
			root = nil
			diags = append(diags, Errorf(Pos{File: file}, "", "", "cannot parse this file as JSON (%v)", r))
		}
	}()
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	err := dec.Decode(&doc)
	// JSON has no aliases: a tree with one (YAML syntax in a .json file) is read as JSON below,
	// which refuses it, so no alias is ever followed (a cycle would never end).
	if err == nil && len(doc.Content) > 0 && !hasAlias(doc.Content[0], 0) {
		root = doc.Content[0]
		dedupe(file, root, &diags, 0)
		return root, diags
	}
	var v any
	jdec := json.NewDecoder(bytes.NewReader(data))
	jdec.UseNumber()
	if jerr := jdec.Decode(&v); jerr != nil {
		p := Pos{File: file, Line: 1, Col: 1}
		var se *json.SyntaxError
		if errors.As(jerr, &se) {
			p = offsetPos(file, data, se.Offset)
		}
		if errors.Is(jerr, io.EOF) {
			return nil, Diagnostics{Errorf(p, "", "write the evals into it", "the file is empty")}
		}
		return nil, Diagnostics{Errorf(p, "", "fix the JSON syntax (commas, quotes, brackets)", "invalid JSON: %v", jerr)}
	}
	var n yaml.Node
	if err := n.Encode(v); err != nil {
		return nil, Diagnostics{Errorf(Pos{File: file}, "", "", "cannot read this JSON: %v", err)}
	}
	return &n, nil
}

// hasAlias reports an alias or anchor anywhere in a tree (never following one), or a tree too
// deep to be hand-written JSON.
func hasAlias(n *yaml.Node, depth int) bool {
	if n == nil {
		return false
	}
	if n.Kind == yaml.AliasNode || n.Anchor != "" || depth > 200 {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c, depth+1) {
			return true
		}
	}
	return false
}

// dedupe removes the earlier of two equal keys in every mapping, with a warning.
func dedupe(file string, n *yaml.Node, diags *Diagnostics, depth int) {
	if n == nil || depth > 200 {
		return
	}
	if n.Kind == yaml.MappingNode {
		last := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			last[n.Content[i].Value] = i
		}
		var kept []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if j := last[k.Value]; j != i {
				later := n.Content[j]
				*diags = append(*diags, Warnf(Pos{File: file, Line: k.Line, Col: k.Column}, k.Value, "keep one of them (merge the two values)",
					"key %q is given twice (again at line %d); the later value is used, as JSON readers do", k.Value, later.Line))
				continue
			}
			kept = append(kept, k, n.Content[i+1])
		}
		n.Content = kept
	}
	for _, c := range n.Content {
		dedupe(file, c, diags, depth+1)
	}
}

// offsetPos turns a byte offset into a line and column.
func offsetPos(file string, data []byte, off int64) Pos {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return Pos{File: file, Line: line, Col: col}
}
