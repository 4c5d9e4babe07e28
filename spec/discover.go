package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Kind is what discovery took a candidate file for (docs/format.md#files).
type Kind string

// The kinds of candidate files. The first four are suites skillgate runs; the others are
// skipped with a note, never an error for the repository.
const (
	KindWaza         Kind = "waza suite"
	KindVally        Kind = "Vally spec"
	KindSkillCreator Kind = "skill-creator evals"
	KindTriggerSet   Kind = "skill-creator trigger set"
	// KindVallyExperiment is a Vally experiment file: applied to specs with --experiment, never
	// run as a suite of its own.
	KindVallyExperiment Kind = "Vally experiment, applied with --experiment"
	KindWorkflow        Kind = "GitHub workflow"
	// KindOther is another tool's file of a suite's name (Skillgrade's eval.yaml, an MLflow
	// harness's, a JSON file that is not skill-creator's format).
	KindOther Kind = "not a suite"
)

// Ours reports whether skillgate runs files of this kind as suites.
func (k Kind) Ours() bool {
	switch k {
	case KindWaza, KindVally, KindSkillCreator, KindTriggerSet:
		return true
	}
	return false
}

// Candidate is one file discovery looked at.
type Candidate struct {
	Path string // absolute
	Kind Kind
	// Note says why a skipped file is not a suite ("Skillgrade's eval.yaml: tasks with
	// instruction:"); empty for suites.
	Note string
}

// Found is what discovery found under the command-line paths.
type Found struct {
	// Suites are the suite files to load, absolute, sorted, without duplicates. A folder of
	// skill-creator files is one suite: its evals.json, else its first trigger set (the loader
	// reads the folder's other trigger sets with it).
	Suites []string
	// Kinds says what each suite file is.
	Kinds map[string]Kind
	// Skipped are the candidates that are not suites, sorted by path.
	Skipped []Candidate
	// Unnamed are the files a folder search passed over that look like waza suites under
	// another name (evals/waza-eval.yaml, eval.semantic.yaml): waza runs whatever path it is
	// given, so a repository may keep its suite there. They are named, not run (UnnamedLine).
	Unnamed []string
	// LooseTriggerSets are skill-creator trigger eval sets a folder search passed over because
	// they lie outside an evals/ folder and beside no evals.json (Research_trigger_eval.json at
	// a repository's root): skill-creator runs whatever set it is given. Named, not run.
	LooseTriggerSets []string
	// LooseEvals are skill-creator evals files under another name than evals.json
	// (evals/hotfix-evals.json beside evals/next-evals.json, each run by path through
	// skill-creator). Named, not run.
	LooseEvals []string
}

// UnnamedLine names the files a folder search passed over that look like suites under another
// name, and how to run them ("" when none).
func (f *Found) UnnamedLine() string {
	if f == nil {
		return ""
	}
	var lines []string
	for _, kind := range []struct {
		paths       []string
		one, many   string
		search, fix string
	}{
		{f.Unnamed, "looks like a waza suite", "look like waza suites",
			"takes only files named eval.yaml or eval.yml", "rename the file eval.yaml"},
		{f.LooseEvals, "looks like a skill-creator evals file", "look like skill-creator evals files",
			"takes only files named evals.json", "rename the file evals/evals.json in the skill's folder"},
		{f.LooseTriggerSets, "looks like a skill-creator trigger eval set", "look like skill-creator trigger eval sets",
			"takes trigger sets only in an evals/ folder or beside an evals.json", "move the file into the skill's evals/ folder"},
	} {
		if len(kind.paths) == 0 {
			continue
		}
		list, first := displayList(kind.paths)
		verb := kind.one
		if len(kind.paths) > 1 {
			verb = kind.many
		}
		lines = append(lines, fmt.Sprintf("not run: %s %s, and a folder search %s (fix: give the path, e.g. skillgate run %s, or %s)", list, verb, kind.search, first, kind.fix))
	}
	return strings.Join(lines, "; ")
}

// displayList is paths as a comma-separated list for a message, and the first of them.
func displayList(paths []string) (list, first string) {
	parts := make([]string, len(paths))
	for i, p := range paths {
		parts[i] = displayPath(p)
	}
	return strings.Join(parts, ", "), parts[0]
}

// SkippedLine is the one line that names every skipped file and why ("" when none):
// `skipped 2 files that are not suites: .github/workflows/eval.yml (a GitHub workflow), …`.
// The waza-looking files a folder search did not run follow (UnnamedLine).
func (f *Found) SkippedLine() string {
	if f == nil {
		return ""
	}
	if len(f.Skipped) == 0 {
		return f.UnnamedLine()
	}
	if line := f.UnnamedLine(); line != "" {
		return f.skippedLine() + "; " + line
	}
	return f.skippedLine()
}

func (f *Found) skippedLine() string {
	noun := fmt.Sprintf("%d files that are not suites", len(f.Skipped))
	if len(f.Skipped) == 1 {
		noun = "1 file that is not a suite"
	}
	return fmt.Sprintf("skipped %s: %s", noun, f.SkippedList())
}

// SkippedList names every skipped file and why, separated by commas.
func (f *Found) SkippedList() string {
	parts := make([]string, len(f.Skipped))
	for i, c := range f.Skipped {
		why := string(c.Kind)
		if c.Note != "" {
			why = c.Note
		}
		parts[i] = displayPath(c.Path) + " (" + why + ")"
	}
	return strings.Join(parts, ", ")
}

// Discover turns command-line PATHs into suite files: Find's suites.
func Discover(paths []string, skip ...string) ([]string, error) {
	f, err := Find(paths, skip...)
	if err != nil {
		return nil, err
	}
	return f.Suites, nil
}

// Find turns command-line PATHs into suite files and classifies every candidate on the way. A
// folder is searched recursively for eval.yaml, eval.yml and eval.vally.yaml, for Vally specs
// (*.eval.yaml) and experiments (*.experiment.yaml), for skill-creator's evals.json and for
// trigger eval sets (a JSON file whose name holds "trigger" or ends in "queries.json", in an
// evals/ folder or next to an evals.json). A file given by name is classified the same way,
// whatever its name. Each candidate's content decides what it is (Classify): a GitHub workflow,
// Skillgrade's or an MLflow harness's eval.yaml, a JSON file of another shape are skipped, with
// a note. The search goes into dot-folders too (suites often live in .github/evals or
// .agent/evals, and waza finds them there); it skips only .git, node_modules, .skillgate (the
// default output folder) and the folders in skip (absolute paths, e.g. another output folder:
// kept workspaces may hold copies of suites).
func Find(paths []string, skip ...string) (*Found, error) {
	skipped := map[string]bool{}
	for _, s := range skip {
		if abs, err := filepath.Abs(s); err == nil {
			skipped[abs] = true
		}
	}
	candidates := map[string]bool{}
	// others are the YAML files of a folder search that are not candidates but might be a waza
	// suite under another name (mightBeSuite).
	others := map[string]bool{}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, unwrapPathError(err))
		}
		if !fi.IsDir() {
			candidates[abs] = true
			continue
		}
		err = filepath.WalkDir(abs, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if path == abs {
					return err
				}
				return nil
			}
			if d.IsDir() {
				if path != abs && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == ".skillgate" || skipped[path]) {
					return filepath.SkipDir
				}
				return nil
			}
			if isCandidateName(path) {
				candidates[path] = true
			} else if mightBeSuite(path) || mightBeTriggerSet(path) || mightBeEvals(path) {
				others[path] = true
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	found := &Found{Kinds: map[string]Kind{}}
	// skill-creator files group by folder: one suite per evals/ folder.
	creatorDirs := map[string][]Candidate{}
	for _, path := range sortedKeys(candidates) {
		c := Classify(path)
		switch {
		case !c.Kind.Ours():
			found.Skipped = append(found.Skipped, c)
		case c.Kind == KindSkillCreator || c.Kind == KindTriggerSet:
			creatorDirs[filepath.Dir(path)] = append(creatorDirs[filepath.Dir(path)], c)
		default:
			found.Suites = append(found.Suites, path)
			found.Kinds[path] = c.Kind
		}
	}
	for _, group := range creatorDirs {
		primary := group[0]
		for _, c := range group {
			if c.Kind == KindSkillCreator {
				primary = c
				break
			}
		}
		found.Suites = append(found.Suites, primary.Path)
		found.Kinds[primary.Path] = primary.Kind
	}
	sort.Strings(found.Suites)
	for _, path := range sortedKeys(others) {
		switch {
		case candidates[path]:
		case mightBeEvals(path):
			if Classify(path).Kind == KindSkillCreator {
				found.LooseEvals = append(found.LooseEvals, path)
			}
		case mightBeTriggerSet(path):
			if Classify(path).Kind == KindTriggerSet {
				found.LooseTriggerSets = append(found.LooseTriggerSets, path)
			}
		case looksLikeWazaSuite(path):
			found.Unnamed = append(found.Unnamed, path)
		}
	}
	return found, nil
}

// mightBeEvals reports whether a JSON file a folder search passes over is worth reading for a
// skill-creator evals file under another name: its name ends in evals.json or eval.json
// (hotfix-evals.json, skill_eval.json) and says nothing of triggers.
func mightBeEvals(path string) bool {
	lower := strings.ToLower(filepath.Base(path))
	return lower != "evals.json" && !isTriggerSetName(lower) && (strings.HasSuffix(lower, "evals.json") || strings.HasSuffix(lower, "eval.json"))
}

// mightBeTriggerSet reports whether a JSON file a folder search passes over is worth reading
// for a trigger eval set kept outside evals/: its name says both "trigger" and "eval"
// (Research_trigger_eval.json, trigger-evals.json), which other tools' files seldom do.
func mightBeTriggerSet(path string) bool {
	lower := strings.ToLower(filepath.Base(path))
	return isTriggerSetName(lower) && strings.Contains(lower, "eval")
}

// mightBeSuite reports whether a YAML file a folder search passes over is worth reading for a
// waza suite under another name: its name holds "eval" (waza-eval.yaml, eval.semantic.yaml,
// eval.template.yaml), or it sits in an evals/ or eval/ folder (evals/holdout.yaml). Task files
// of suites in the eval/ folder are read too; they have no `tasks:` and are not taken.
func mightBeSuite(path string) bool {
	lower := strings.ToLower(filepath.Base(path))
	if !strings.HasSuffix(lower, ".yaml") && !strings.HasSuffix(lower, ".yml") {
		return false
	}
	if strings.Contains(filepath.ToSlash(path), "/.github/workflows/") {
		return false
	}
	dir := strings.ToLower(filepath.Base(filepath.Dir(path)))
	return strings.Contains(lower, "eval") || dir == "evals" || dir == "eval"
}

// looksLikeWazaSuite reports whether a file reads as a waza eval.yaml: a mapping whose `tasks:`
// is a list of glob strings (or that has `tasks_from:`), with waza's `config:`, `graders:` or
// `skill:` beside it, and no key of Vally's spec or another tool's file.
func looksLikeWazaSuite(path string) bool {
	data, err := readHead(path, classifyLimit)
	if err != nil || vallySpecLine.Match(data) {
		return false
	}
	var root yaml.Node
	if yaml.Unmarshal(data, &root) != nil || len(root.Content) == 0 || !isMapping(root.Content[0]) {
		return false
	}
	m := root.Content[0]
	tasks := get(m, "tasks")
	switch {
	case isSequence(tasks) && len(tasks.Content) > 0:
		for _, t := range tasks.Content {
			if t.Kind != yaml.ScalarNode {
				return false
			}
		}
	case tasks == nil && get(m, "tasks_from") != nil:
	default:
		return false
	}
	if !has(m, "config") && !has(m, "graders") && !has(m, "skill") {
		return false
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i].Value; slices.Contains(vallyOnlyKeys, k) && k != "metadata" {
			return false
		}
	}
	return true
}

// isCandidateName reports whether discovery looks at a file of this name inside a folder.
func isCandidateName(path string) bool {
	name := filepath.Base(path)
	lower := strings.ToLower(name)
	switch {
	case name == "eval.yaml" || name == "eval.yml" || name == "eval.vally.yaml":
		return true
	case strings.HasSuffix(name, ".eval.yaml") || strings.HasSuffix(name, ".eval.yml"):
		return true
	case strings.HasSuffix(name, ".experiment.yaml") || strings.HasSuffix(name, ".experiment.yml"):
		return true
	case lower == "evals.json":
		return true
	case isTriggerSetName(lower):
		dir := filepath.Dir(path)
		if base := strings.ToLower(filepath.Base(dir)); base == "evals" || base == "eval" {
			return true
		}
		_, err := os.Stat(filepath.Join(dir, "evals.json"))
		return err == nil
	}
	return false
}

// isTriggerSetName reports the names skill-creator users give trigger eval sets
// (trigger-evals.json, trigger_eval.json, triggers.json, eval_queries.json, train_queries.json…).
func isTriggerSetName(lower string) bool {
	if !strings.HasSuffix(lower, ".json") {
		return false
	}
	return strings.Contains(lower, "trigger") || strings.HasSuffix(lower, "queries.json")
}

// classifyLimit is how much of a candidate Classify reads: a suite larger than this is still
// a suite (the loader reports its size), and a JSON file this large is not a hand-written
// evals file.
const classifyLimit = 4 << 20

// Classify says what a candidate file is, from its path and content. A file that cannot be
// read or parsed is taken for the kind its name says (a broken suite of ours fails alone, with
// the loader's message); a file whose content is another tool's is KindWorkflow or KindOther
// with a note.
func Classify(path string) Candidate {
	c := Candidate{Path: path}
	slash := filepath.ToSlash(path)
	name := filepath.Base(path)
	lower := strings.ToLower(name)
	if strings.Contains(slash, "/.github/workflows/") {
		c.Kind, c.Note = KindWorkflow, "a GitHub workflow"
		return c
	}
	if strings.HasSuffix(name, ".experiment.yaml") || strings.HasSuffix(name, ".experiment.yml") {
		c.Kind, c.Note = KindVallyExperiment, "a Vally experiment, applied with --experiment"
		if fi, err := os.Stat(filepath.Join(filepath.Dir(path), ".vally.yaml")); err == nil && fi.Mode().IsRegular() {
			// DiscoverExperiments runs it: the note must not send the reader to --experiment.
			c.Note = "a Vally experiment beside .vally.yaml: the specs it names run under its variants"
		}
		return c
	}
	data, _ := readHead(path, classifyLimit)
	if strings.HasSuffix(lower, ".json") {
		c.Kind, c.Note = classifyJSON(lower, data)
		return c
	}
	c.Kind, c.Note = classifyYAML(path, data)
	if c.Kind == KindWaza && (strings.HasSuffix(name, ".eval.yaml") || strings.HasSuffix(name, ".eval.yml")) {
		// Vally names specs *.eval.yaml; other files of that name (stimulus lists) are not suites.
		c.Kind, c.Note = KindOther, "a *.eval.yaml without `stimuli:`, so not a Vally spec"
	}
	return c
}

// readHead reads at most limit bytes of a file.
func readHead(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// vallySpecLine finds the top-level `stimuli:` key of a Vally spec.
var vallySpecLine = regexp.MustCompile(`(?m)^stimuli[ \t]*:`)

// wazaKeys are eval.yaml's top-level keys (schemas/eval.schema.json); vallyOnlyKeys are a Vally
// spec's others.
var (
	wazaKeys      = []string{"name", "description", "version", "schemaVersion", "skill", "config", "inputs", "hooks", "graders", "metrics", "tasks", "tasks_from", "range", "baseline"}
	vallyOnlyKeys = []string{"type", "tags", "environment", "defaults", "scoring", "stimuli", "metadata"}
)

// classifyYAML tells a waza suite or Vally spec from another tool's file of the same name.
func classifyYAML(path string, data []byte) (Kind, string) {
	if vallySpecLine.Match(data) {
		return KindVally, ""
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 || !isMapping(root.Content[0]) {
		return KindWaza, "" // unreadable: the loader says why
	}
	m := root.Content[0]
	if has(m, "jobs") && has(m, "on") {
		return KindWorkflow, "a GitHub workflow"
	}
	if tasks := get(m, "tasks"); isSequence(tasks) {
		for _, t := range tasks.Content {
			if isMapping(t) && has(t, "instruction") && !has(t, "inputs") {
				return KindOther, "Skillgrade's eval.yaml: tasks with `instruction:`"
			}
		}
	}
	if has(m, "tasks") || has(m, "tasks_from") || hasTriggerTests(filepath.Dir(path)) {
		return KindWaza, ""
	}
	// Nothing to run as a waza suite: keys waza and Vally do not have say another tool's file.
	var foreign []string
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i].Value
		if !slices.Contains(wazaKeys, k) && !slices.Contains(vallyOnlyKeys, k) {
			foreign = append(foreign, k)
		}
	}
	if len(foreign) == 0 {
		return KindWaza, "" // a waza suite without tasks: the loader says so
	}
	if len(foreign) > 4 {
		foreign = append(foreign[:4], "…")
	}
	return KindOther, "another tool's file: no `tasks:`, and keys waza does not have (" + strings.Join(foreign, ", ") + ")"
}

func hasTriggerTests(dir string) bool {
	for _, name := range []string{"trigger_tests.yaml", "trigger_tests.yml"} {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && !fi.IsDir() {
			return true
		}
	}
	return false
}

// classifyJSON tells skill-creator's evals.json and trigger eval sets from other JSON files
// (docs/format.md#files): the shape decides, then the name.
func classifyJSON(lower string, data []byte) (Kind, string) {
	named := KindTriggerSet
	if lower == "evals.json" {
		named = KindSkillCreator
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&v); err != nil {
		if named == KindSkillCreator {
			return KindSkillCreator, "" // broken: the loader says why
		}
		return KindOther, "not valid JSON"
	}
	switch x := v.(type) {
	case []any:
		if isTriggerList(x) {
			return KindTriggerSet, ""
		}
		if named == KindSkillCreator && isEvalList(x) {
			return KindSkillCreator, ""
		}
	case map[string]any:
		if evals, ok := x["evals"].([]any); ok {
			// Trigger queries wrapped in `evals` ({skill_name, evals: [{query, should_trigger}]}):
			// a trigger set, also when its queries are written as `prompt`, never tasks.
			if isTriggerList(evals) && (named == KindTriggerSet || allTriggerQueries(evals)) {
				return KindTriggerSet, ""
			}
			if isEvalList(evals) {
				return KindSkillCreator, ""
			}
		}
		if q, ok := x["queries"].([]any); ok && isTriggerList(q) {
			return KindTriggerSet, ""
		}
		_, should := x["should_trigger"].([]any)
		_, shouldNot := x["should_not_trigger"].([]any)
		if should || shouldNot {
			return KindTriggerSet, ""
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		more := ""
		if len(keys) > 4 {
			keys, more = keys[:4], ", …"
		}
		what := "skill-creator's evals.json has `evals:`"
		if named == KindTriggerSet {
			what = "a trigger eval set is a list of `{query, should_trigger}`"
		}
		return KindOther, fmt.Sprintf("not skill-creator's format: %s, this file has `%s`%s", what, strings.Join(keys, "`, `"), more)
	}
	if named == KindTriggerSet {
		return KindOther, "not a trigger eval set: a list of `{query, should_trigger}` is"
	}
	return KindOther, "not skill-creator's format: `{skill_name, evals: [...]}` or a list of evals is"
}

// isEvalList reports a list of skill-creator evals: objects, one of them with a prompt (an
// empty list counts: the loader says there is nothing to run).
func isEvalList(list []any) bool {
	if len(list) == 0 {
		return true
	}
	for _, item := range list {
		if m, ok := item.(map[string]any); ok {
			if _, ok := m["prompt"]; ok {
				return true
			}
		}
	}
	return false
}

// allTriggerQueries reports a list whose every item is a trigger query: an object with
// `should_trigger`.
func allTriggerQueries(list []any) bool {
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return false
		}
		if _, s := m["should_trigger"]; !s {
			return false
		}
	}
	return len(list) > 0
}

// isTriggerList reports a list of trigger queries: objects, at least one with `query` (or
// `prompt`) and `should_trigger` (the loader warns about the others).
func isTriggerList(list []any) bool {
	found := false
	for _, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return false
		}
		_, q := m["query"]
		_, p := m["prompt"]
		_, s := m["should_trigger"]
		found = found || (q || p) && s
	}
	return found
}
