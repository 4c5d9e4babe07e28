package spec

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/schemas"
)

// Options are the command-line settings that change how a suite loads.
type Options struct {
	// ContextDir overrides the suite's fixtures folder (--context-dir). A relative path resolves
	// against the working directory, as command-line paths do.
	ContextDir string
	// SearchRoot is the folder the search for suites started from (a command-line PATH), when it
	// holds the suite: where a skill-creator suite looks for its SKILL.md before the repository root.
	SearchRoot string
	// Owns, when set, picks the task files to load in full: it is called once, with the suite's
	// name and the id of every task in load order (made unique as Suite.Tasks has them), and
	// says which ids are loaded in full. The other task files are decoded without schema
	// validation, their diagnostics dropped (Task.Unvalidated): enough to describe a task that
	// another job runs, never to run it. A shard of a run uses it (runner.LoadOptions.Shard).
	Owns func(suite string, ids []string) func(id string) bool
	// Variant applies an experiment variant to a Vally spec as it loads (docs/vally.md#experiments).
	Variant *Variant
	// Root, when set, confines the suite to a folder: a task file, task glob, context_dir or skill
	// folder the suite names outside it is an error, reported without reading (or listing) it.
	// The Action's report mode loads a fork's bundled suite so: its eval.yaml must not make the
	// trusted job read a runner file.
	Root string
}

// Defaults of eval.yaml's config block (docs/format.md#defaults).
const (
	DefaultTrialsPerTask  = 1
	DefaultTimeoutSeconds = 300
	DefaultMaxWorkers     = 4
	DefaultMaxAttempts    = 1
	DefaultExecutor       = "mock"
)

// KnownMetrics are the metric names that gate a run (docs/format.md#metrics).
var KnownMetrics = []string{
	"trigger_accuracy", "task_completion", "aggregate_score", "weighted_score",
	"trigger_precision", "trigger_recall", "trigger_f1",
}

// Load reads eval.yaml at path with everything it references: task files, the CSV dataset,
// trigger_tests.yaml. It returns every problem found, sorted by position; the suite may be
// partial when there are errors, and callers must not run it then.
func Load(path string, opts Options) (*Suite, Diagnostics) {
	l := &loader{opts: opts, files: map[string]bool{}, globals: map[string]*Grader{}}
	s := l.load(path)
	findNamedSkill(s, opts.SearchRoot)
	s.Files = sortedKeys(l.files)
	l.diags.Sort()
	return s, l.diags
}

type loader struct {
	opts    Options
	s       *Suite
	diags   Diagnostics
	files   map[string]bool
	globals map[string]*Grader
	// triggerSkill is trigger_tests.yaml's skill, the fallback for should_trigger graders.
	triggerSkill string
	// globDiags are the task patterns that matched nothing: errors only if none matched.
	globDiags Diagnostics
	// project is the .vally.yaml above a Vally spec, read for its named environments.
	project *VallyProject
	// skillFiles are the SKILL.md files a skill-creator eval's own `skill` is looked up in.
	skillFiles []string
	// leftOut counts the skill-creator evals and trigger queries left out with a warning, so
	// that a file of nothing else says why nothing runs.
	leftOut int
}

func (l *loader) add(ds ...Diagnostic) { l.diags = append(l.diags, ds...) }

func (l *loader) load(path string) *Suite {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	s := &Suite{
		File: abs,
		Dir:  filepath.Dir(abs),
		Config: Config{
			TrialsPerTask:     DefaultTrialsPerTask,
			TaskPassThreshold: 1,
			TimeoutSeconds:    DefaultTimeoutSeconds,
			MaxWorkers:        DefaultMaxWorkers,
			MaxAttempts:       DefaultMaxAttempts,
			Executor:          DefaultExecutor,
			TriggerEarlyStop:  &EarlyStop{SkillCall: "*", ToolCallCount: DefaultTriggerToolCalls},
			Extra:             map[string]*Value{},
			Pos:               map[string]Pos{},
		},
		Inputs: map[string]string{},
		Pos:    Pos{File: abs, Line: 1, Col: 1},
	}
	s.Name = filepath.Base(s.Dir)
	s.ContextDir = filepath.Join(s.Dir, "fixtures")
	l.s = s
	if l.opts.ContextDir != "" {
		if dir, err := filepath.Abs(l.opts.ContextDir); err == nil {
			s.ContextDir = dir
		}
		if fi, err := os.Stat(s.ContextDir); err != nil || !fi.IsDir() {
			l.add(Errorf(Pos{File: abs}, "--context-dir", "pass an existing folder", "context dir %s is not a folder", s.ContextDir))
		}
	}
	data, err := readSuiteFile("", abs)
	if err != nil {
		l.add(Errorf(Pos{File: abs}, "", orFix(RefusedFix(err), "check the path"), "cannot read the suite: %v", unwrapPathError(err)))
		return s
	}
	l.files[abs] = true
	if strings.EqualFold(filepath.Ext(abs), ".json") {
		l.loadSkillCreator(abs, data)
		return s
	}
	if vallyStimuliLine.Match(data) {
		var ds Diagnostics
		data, ds = substitutePlaceholders(abs, data)
		l.add(ds...)
	}
	doc, ds := parseYAML(abs, data)
	l.add(ds...)
	root := doc.Root
	if isVally(root) {
		s.Pos = Pos{File: abs, Line: root.Line, Col: root.Column}
		l.loadVally(&fileCtx{file: abs, dir: s.Dir}, root)
		return s
	}
	// Validation waits for the schemas to compile; decoding and the task files do not, so it
	// runs beside them. Its diagnostics go where they would have been added (ties in position
	// keep insertion order).
	validated := make(chan Diagnostics, 1)
	go func() { validated <- validateSchema(doc, schemas.EvalFile) }()
	at := len(l.diags)
	defer func() { l.diags = slices.Insert(l.diags, at, <-validated...) }()
	if !isMapping(root) {
		return s
	}
	s.Pos = Pos{File: abs, Line: root.Line, Col: root.Column}
	ctx := &fileCtx{file: abs, dir: s.Dir}

	if v, ok := stringOf(get(root, "name")); ok && v != "" {
		s.Name = v
	}
	s.Description = stringAt(root, "description")
	s.Version = stringAt(root, "version")
	s.Skill = stringAt(root, "skill")
	s.Baseline, _ = boolOf(get(root, "baseline"))
	l.decodeConfig(ctx.sub("config"), get(root, "config"))
	if in := get(root, "inputs"); isMapping(in) {
		for i := 0; i+1 < len(in.Content); i += 2 {
			v, _ := stringOf(in.Content[i+1])
			s.Inputs[in.Content[i].Value] = v
		}
	}
	l.decodeHooks(ctx.sub("hooks"), get(root, "hooks"))
	l.decodeMetrics(ctx.sub("metrics"), get(root, "metrics"))
	l.loadTriggerTests() // before graders: trigger graders default to its skill
	l.decodeGlobalGraders(ctx.sub("graders"), get(root, "graders"))
	l.loadTasks(ctx, root)
	return s
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func (l *loader) decodeConfig(ctx *fileCtx, cfg *yaml.Node) {
	c := &l.s.Config
	if !isMapping(cfg) {
		return
	}
	for i := 0; i+1 < len(cfg.Content); i += 2 {
		k := cfg.Content[i]
		c.Pos[k.Value] = ctx.pos(k)
	}
	alias := func(canonical, other string) *yaml.Node {
		a, b := get(cfg, canonical), get(cfg, other)
		if a != nil && b != nil {
			l.add(Warnf(ctx.keyPos(cfg, other), ctx.key(other), "remove `"+other+"`",
				"`%s` is an alias of `%s`; give only one of them (`%s` is used)", other, canonical, canonical))
			return a
		}
		if b != nil {
			c.Pos[canonical] = ctx.keyPos(cfg, other)
			return b
		}
		return a
	}
	if v, ok := intOf(get(cfg, "trials_per_task")); ok && v >= 1 {
		c.TrialsPerTask = v
	}
	if v, ok := intOf(get(cfg, "timeout_seconds")); ok && v >= 1 {
		c.TimeoutSeconds = v
	}
	c.Parallel, _ = boolOf(get(cfg, "parallel"))
	if v, ok := intOf(alias("max_workers", "workers")); ok && v > 0 {
		c.MaxWorkers = v
	}
	c.FailFast, _ = boolOf(get(cfg, "fail_fast"))
	if v, ok := intOf(get(cfg, "max_attempts")); ok && v > 0 {
		c.MaxAttempts = v
	}
	if v, ok := floatOf(get(cfg, "task_pass_threshold")); ok && v > 0 && v <= 1 {
		c.TaskPassThreshold = v
	}
	if v, ok := stringOf(alias("executor", "engine")); ok && v != "" {
		c.Executor = v
	}
	c.Model = stringAt(cfg, "model")
	c.JudgeModel = stringAt(cfg, "judge_model")
	c.GroupBy = stringAt(cfg, "group_by")
	if c.GroupBy != "" && c.GroupBy != "model" {
		l.add(Warnf(ctx.pos(get(cfg, "group_by")), ctx.key("group_by"), "use `group_by: model` or remove it",
			"group_by %q is not supported; results are not grouped", c.GroupBy))
	}
	l.readSpendConfig(ctx, cfg, c)
	for _, name := range []string{"command", "executors", "judge", "agent_args", "agent_path", "mcp_servers"} {
		if v := get(cfg, name); v != nil {
			c.Extra[name] = newValue(v, ctx.file)
		}
	}

	if dirs := get(cfg, "skill_directories"); isSequence(dirs) {
		for i, item := range dirs.Content {
			written, ok := stringOf(item)
			if !ok || written == "" {
				continue
			}
			if l.opts.Root != "" {
				p := written
				if !filepath.IsAbs(p) {
					p = filepath.Join(ctx.dir, p)
				}
				if l.outsideRoot(ctx, item, ctx.key("skill_directories", i), "skill directory", p) {
					continue
				}
			}
			if d, ok := resolveSkillDirectory(ctx.dir, written); ok {
				if rel, _ := filepath.Rel(ctx.dir, d); filepath.Join(ctx.dir, written) != d && !filepath.IsAbs(written) {
					l.add(Warnf(ctx.pos(item), ctx.key("skill_directories", i), "write it relative to eval.yaml's folder: "+filepath.ToSlash(rel),
						"skill directory %q is not below eval.yaml's folder; found it relative to the repository root, %s", written, d))
				}
				c.SkillDirectories = append(c.SkillDirectories, d)
				continue
			}
			// waza ignores a skill folder that does not exist. skillgate does too under the mock
			// and replay executors; the runs of a real agent, which would silently run without
			// the skill, error instead (runner).
			c.MissingSkillDirectories = append(c.MissingSkillDirectories, written)
			l.add(Warnf(ctx.pos(item), ctx.key("skill_directories", i), "create the folder or fix the path (relative to "+ctx.dir+")",
				"skill directory %s does not exist: mock and replay runs ignore it, and every run of a real agent errors", filepath.Join(ctx.dir, written)))
		}
	}
	if req := get(cfg, "required_skills"); isSequence(req) {
		c.RequiredSkills = stringsOf(req)
		if len(c.RequiredSkills) > 0 {
			if !has(cfg, "skill_directories") {
				l.add(Errorf(ctx.keyPos(cfg, "required_skills"), ctx.key("required_skills"),
					"add `skill_directories:` listing the folders that hold these skills",
					"required_skills needs skill_directories to look in"))
			} else if len(c.SkillDirectories) > 0 && len(c.MissingSkillDirectories) == 0 {
				l.checkRequiredSkills(ctx, req)
			}
		}
	}
}

func (l *loader) decodeHooks(ctx *fileCtx, hooks *yaml.Node) {
	if !isMapping(hooks) {
		return
	}
	h := &l.s.Hooks
	// waza runs a hook in its own working directory; a project with a .waza.yaml runs waza
	// from that file's folder (its paths are relative to it), so hooks start there too.
	base := WazaProjectRoot(l.s.Dir)
	if base == "" {
		base = l.s.Dir
	}
	for _, kind := range []struct {
		name string
		dst  *[]*Hook
	}{{"before_run", &h.BeforeRun}, {"after_run", &h.AfterRun}, {"before_task", &h.BeforeTask}, {"after_task", &h.AfterTask}} {
		list := get(hooks, kind.name)
		if !isSequence(list) {
			continue
		}
		for _, item := range list.Content {
			if !isMapping(item) {
				continue
			}
			hk := &Hook{Command: stringAt(item, "command"), WorkingDirectory: base, ExitCodes: []int{0}, Pos: ctx.pos(item)}
			if wd, ok := stringOf(get(item, "working_directory")); ok && wd != "" {
				if !filepath.IsAbs(wd) {
					wd = filepath.Join(base, wd)
				}
				hk.WorkingDirectory = filepath.Clean(wd)
			}
			if codes := get(item, "exit_codes"); isSequence(codes) && len(codes.Content) > 0 {
				hk.ExitCodes = nil
				for _, cn := range codes.Content {
					if v, ok := intOf(cn); ok {
						hk.ExitCodes = append(hk.ExitCodes, v)
					}
				}
			}
			hk.ErrorOnFail, _ = boolOf(get(item, "error_on_fail"))
			*kind.dst = append(*kind.dst, hk)
		}
	}
}

func (l *loader) decodeMetrics(ctx *fileCtx, metrics *yaml.Node) {
	if !isSequence(metrics) {
		return
	}
	seen := map[string]Pos{}
	for i, item := range metrics.Content {
		if !isMapping(item) {
			continue
		}
		m := &Metric{Name: stringAt(item, "name"), Weight: 1, Enabled: true, Description: stringAt(item, "description"), Pos: ctx.pos(item)}
		if m.Name == "" {
			continue
		}
		if v, ok := floatOf(get(item, "threshold")); ok {
			m.Threshold = v
		}
		if v, ok := floatOf(get(item, "weight")); ok {
			m.Weight = v
		}
		if v, ok := boolOf(get(item, "enabled")); ok {
			m.Enabled = v
		}
		if !contains(KnownMetrics, m.Name) {
			fix := "known metrics: " + strings.Join(KnownMetrics, ", ")
			if s := suggest(m.Name, KnownMetrics); s != "" {
				fix = "did you mean `" + s + "`?"
			}
			l.add(Warnf(ctx.pos(get(item, "name")), ctx.key(i, "name"), fix, "unknown metric %q never gates the run", m.Name).OfKind(KindUnknownMetric))
		}
		if first, dup := seen[m.Name]; dup {
			l.add(Warnf(ctx.pos(get(item, "name")), ctx.key(i, "name"), "remove one of them", "metric %q is listed twice (first at %s)", m.Name, first))
		}
		seen[m.Name] = ctx.pos(item)
		l.s.Metrics = append(l.s.Metrics, m)
	}
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// resolveSkillDirectory finds a skill_directories entry: relative to eval.yaml's folder, else
// relative to the repository root (the nearest folder above with a .git entry), where authors of
// suites in .github/evals often meant it. ok is false when neither is a folder.
func resolveSkillDirectory(suiteDir, written string) (dir string, ok bool) {
	candidates := []string{written}
	if !filepath.IsAbs(written) {
		candidates = []string{filepath.Join(suiteDir, written)}
		if root := RepositoryRoot(suiteDir); root != "" {
			candidates = append(candidates, filepath.Join(root, written))
		}
	}
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			return filepath.Clean(c), true
		}
	}
	return "", false
}

// WazaProjectRoot is the folder of the nearest .waza.yaml (or .waza.yml) at or above dir, not
// above the repository root and at most 10 folders up as waza looks for it, or "".
func WazaProjectRoot(dir string) string {
	for range 11 {
		for _, name := range []string{".waza.yaml", ".waza.yml"} {
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
				return dir
			}
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
	return ""
}

// RepositoryRoot is the nearest folder at or above dir that holds a .git entry, or "".
func RepositoryRoot(dir string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// checkRequiredSkills looks for each required name as <dir>/SKILL.md or <dir>/<child>/SKILL.md
// whose frontmatter `name` matches.
func (l *loader) checkRequiredSkills(ctx *fileCtx, req *yaml.Node) {
	found := map[string]bool{}
	for _, dir := range l.s.Config.SkillDirectories {
		candidates := []string{filepath.Join(dir, "SKILL.md")}
		if entries, err := os.ReadDir(dir); err == nil {
			for _, e := range entries {
				if e.IsDir() {
					candidates = append(candidates, filepath.Join(dir, e.Name(), "SKILL.md"))
				}
			}
		}
		for _, c := range candidates {
			if name := skillName(c); name != "" {
				found[name] = true
			}
		}
	}
	names := sortedKeys(found)
	for i, item := range req.Content {
		want, ok := stringOf(item)
		if !ok || found[want] {
			continue
		}
		fix := "skills found: " + backquoteList(names)
		if s := suggest(want, names); s != "" {
			fix = "did you mean `" + s + "`? " + fix
		}
		l.add(Errorf(ctx.pos(item), ctx.key("required_skills", i), fix,
			"required skill %q is not in skill_directories (no SKILL.md with `name: %s`)", want, want))
	}
}

// skillName reads the `name` of a SKILL.md's YAML frontmatter ("" when absent or unreadable).
func skillName(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	text := strings.TrimPrefix(string(data), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return ""
	}
	rest := text[4:]
	end := strings.Index(rest, "\n---")
	if end < 0 {
		if !strings.HasPrefix(rest, "---") {
			return ""
		}
		end = 0
	}
	var fm struct {
		Name string `yaml:"name"`
	}
	if err := yaml.Unmarshal([]byte(rest[:end]), &fm); err != nil {
		return ""
	}
	return strings.TrimSpace(fm.Name)
}

// parallelMap runs fn for each index on up to GOMAXPROCS goroutines; results keep their index, so
// the output does not depend on scheduling.
func parallelMap[T any](n int, fn func(i int) T) []T {
	out := make([]T, n)
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			out[i] = fn(i)
		}
		return out
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = fn(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return out
}
