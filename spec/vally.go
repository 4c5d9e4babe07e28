package spec

import (
	"cmp"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/internal/safepath"
)

// Vally specs (docs/vally.md): a suite file with top-level `stimuli:`. Each stimulus becomes a
// task and `runs` become trials, so the runner, results, reports and gate work unchanged. The
// format's facts come from public specs and Vally's documentation (docs/vally.md cites them);
// what this loader does not implement is a warning naming the key, never a refusal.

// IsVally reports whether a parsed suite document is a Vally spec.
func isVally(root *yaml.Node) bool { return isMapping(root) && has(root, "stimuli") }

// Scoring is a Vally spec's `scoring`: the trial passes when the weighted grader score reaches
// Threshold (weights keyed by grader type); without a threshold every grader must pass.
type Scoring struct {
	Threshold *float64
	Weights   map[string]float64
	Pos       Pos
}

var vallyTopKeys = []string{"name", "description", "version", "type", "tags", "environment", "agent_environment", "grading_environment",
	"defaults", "config", "scoring", "stimuli", "metadata"}
var vallyDefaultsKeys = []string{"runs", "timeout", "executor", "model", "judge_model", "judge_provider", "judge_reasoning_effort"}
var vallyStimulusKeys = []string{"name", "description", "prompt", "turns", "tags", "environment", "agent_environment", "grading_environment",
	"graders", "rubric", "constraints", "config", "runs", "attachments", "simulation", "golden_patch", "golden_command"}
var vallyEnvKeys = []string{"files", "commands", "skills", "mcpServers", "git", "commandTimeout", "env"}
var vallyConstraintKeys = []string{"max_turns", "max_tokens", "expect_tools", "reject_tools", "expect_skills", "reject_skills"}

// vallyGraderKeys are the config keys of Vally's built-in graders, as its grader reference
// documents them (docs/vally.md#graders); any other key is warned about, with a did-you-mean.
// A type not listed here (a plugin's) takes any key.
var vallyGraderKeys = func() map[string][]string {
	m := map[string][]string{}
	set := func(keys []string, types ...string) {
		for _, t := range types {
			m[t] = keys
		}
	}
	set([]string{"substring", "case_sensitive", "negate"}, "output-contains", "output-not-contains")
	set([]string{"pattern", "negate"}, "output-matches", "output-not-matches", "transcript-matches")
	set([]string{"substring", "negate"}, "transcript-contains")
	set([]string{"path", "negate"}, "file-exists", "file-not-exists")
	set([]string{"path", "value", "negate"}, "file-contains", "file-not-contains")
	set([]string{"path", "pattern", "negate"}, "file-matches", "file-not-matches")
	set([]string{"value"}, "diff-contains", "diff-not-contains")
	set([]string{}, "diff-empty", "completed", "exit-success")
	set([]string{"required", "disallowed"}, "skill-invocation")
	set([]string{"required", "disallowed", "sequence"}, "tool-calls")
	set([]string{"min", "max"}, "tool-call-count", "turn-count", "token-budget", "wall-time", "error-count")
	set([]string{"command", "args", "expected_exit_code", "stdout_contains", "stderr_contains", "stdout_matches", "stdout_not_matches",
		"sub_path", "timeout", "env"}, "run-command")
	set([]string{"program", "args", "shell", "sub_path", "timeout", "env"}, "program")
	set([]string{"prompt", "model", "scoring", "threshold", "evidence", "reasoning_effort"}, "prompt")
	set([]string{"prompt", "model", "threshold"}, "pairwise")
	return m
}()

// vallyTypeOf is the grader type skillgate runs for a Vally type: Vally's `program` speaks
// Vally's protocol (EVALUATE_WORKSPACE, EVALUATE_GRADER_INPUT), not waza's.
func vallyTypeOf(typ string) string {
	if typ == "program" {
		return "vally-program"
	}
	return typ
}

// loadVally reads a Vally spec into l.s.
func (l *loader) loadVally(ctx *fileCtx, root *yaml.Node) {
	s := l.s
	s.Format = "vally"
	l.warnUnknown(ctx, root, vallyTopKeys)
	if v := stringAt(root, "name"); v != "" {
		s.Name = v
	}
	s.Description = stringAt(root, "description")
	s.Version = stringAt(root, "version")
	suiteTags := vallyTags(get(root, "tags"))
	if skill := suiteTags["skill"]; skill != "" {
		s.Skill = skill
	}

	defaults, block := get(root, "defaults"), "defaults"
	if c := get(root, "config"); c != nil {
		if defaults != nil {
			l.add(Warnf(ctx.keyPos(root, "config"), "config", "keep `defaults:` only", "`config` is the older name of `defaults`, which is also given and is used"))
		} else {
			defaults, block = c, "config" // the older name (Vally before 0.7); keys are named as written
		}
	}
	s.Config.TimeoutSeconds = 120 // Vally's default timeout, 2m
	dctx := ctx.sub(block)
	if isMapping(defaults) {
		l.warnUnknown(dctx, defaults, vallyDefaultsKeys)
		l.vallyDefaults(dctx, defaults)
	}
	if v := l.opts.Variant; v != nil {
		l.applyOverrides(v)
	}

	if sc := get(root, "scoring"); isMapping(sc) {
		sctx := ctx.sub("scoring")
		l.warnUnknown(sctx, sc, []string{"threshold", "weights", "timeout"})
		s.Scoring = &Scoring{Weights: map[string]float64{}, Pos: ctx.pos(sc)}
		if n := get(sc, "threshold"); n != nil {
			if v, ok := floatOf(n); ok && v >= 0 && v <= 1 {
				s.Scoring.Threshold = &v
			} else {
				l.add(Warnf(sctx.pos(n), sctx.key("threshold"), "write a number from 0 to 1", "threshold %s is not a number from 0 to 1; every grader must pass", n.Value))
			}
		}
		if w := get(sc, "weights"); isMapping(w) {
			for i := 0; i+1 < len(w.Content); i += 2 {
				if v, ok := floatOf(w.Content[i+1]); ok && v >= 0 {
					s.Scoring.Weights[w.Content[i].Value] = v
				}
			}
		}
	}

	// The root environment, with an experiment variant's environment merged on top (before the
	// stimuli's own, as Vally merges it).
	env := l.vallyEnvironment(ctx.sub("environment"), get(root, "environment"), vallyEnv{})
	if v := l.opts.Variant; v != nil && v.Environment != nil {
		env = l.variantEnvironment(v, env)
	}
	env = l.vallyEnvironment(ctx.sub("agent_environment"), get(root, "agent_environment"), env)
	grading := l.vallyEnvironment(ctx.sub("grading_environment"), get(root, "grading_environment"), vallyEnv{})
	l.gradingOnly(ctx.sub("grading_environment"), get(root, "grading_environment"), grading)
	s.Config.SkillDirectories = append(s.Config.SkillDirectories, env.skills...)
	s.Config.MissingSkillDirectories = append(s.Config.MissingSkillDirectories, env.missing...)

	stimuli := get(root, "stimuli")
	if !isSequence(stimuli) || len(stimuli.Content) == 0 {
		l.add(Errorf(ctx.keyPos(root, "stimuli"), "stimuli", "list at least one `- name: …` with a `prompt:`", "the spec has no stimuli"))
		return
	}
	ids := map[string]Pos{}
	for i, item := range stimuli.Content {
		t := l.vallyStimulus(ctx.sub("stimuli", i), item, suiteTags, env, grading)
		if t == nil {
			continue
		}
		if first, dup := ids[t.ID]; dup {
			id := t.ID
			t.ID = uniqueID(ids, id)
			l.add(Warnf(t.Pos, ctx.key("stimuli", i, "name"), "give each stimulus its own name",
				"stimulus %q is named twice (first at %s); this one runs as %q", id, first, t.ID))
		}
		ids[t.ID] = t.Pos
		s.Tasks = append(s.Tasks, t)
	}
}

// vallyDefaults reads `defaults` (or the older `config`).
func (l *loader) vallyDefaults(dctx *fileCtx, defaults *yaml.Node) {
	s := l.s
	if n := get(defaults, "runs"); n != nil {
		if v, ok := intOf(n); ok && v >= 1 {
			s.Config.TrialsPerTask = v
		} else {
			l.add(Warnf(dctx.pos(n), dctx.key("runs"), "write a whole number ≥ 1", "runs %s: skillgate runs each stimulus at least once", n.Value))
		}
	}
	if n := get(defaults, "timeout"); n != nil {
		if secs, ok := l.vallyDuration(dctx, "timeout", n); ok {
			s.Config.TimeoutSeconds = secs
		}
	}
	if n := get(defaults, "executor"); n != nil {
		name, _ := stringOf(n)
		if isMapping(n) {
			name = stringAt(n, "name") // {name, config} since Vally 0.13
		}
		if name != "" {
			s.Config.Executor = name
			s.Config.Pos["executor"] = dctx.pos(n)
			s.Config.ExecutorKey = dctx.key("executor")
		}
	}
	if m := stringAt(defaults, "model"); m != "" {
		s.Config.Model = m
	}
	if m := stringAt(defaults, "judge_model"); m != "" {
		s.Config.JudgeModel = m
	}
}

// vallyEnv is an environment after merging: the root's, then a stimulus's.
type vallyEnv struct {
	skills, missing []string
	files           []*InputFile
	commands        []*SetupCommand
	commandTimeout  int // seconds; 0: the run's limit
	env             map[string]string
}

func (e vallyEnv) clone() vallyEnv {
	out := vallyEnv{
		skills:         append([]string(nil), e.skills...),
		missing:        append([]string(nil), e.missing...),
		files:          append([]*InputFile(nil), e.files...),
		commands:       append([]*SetupCommand(nil), e.commands...),
		commandTimeout: e.commandTimeout,
		env:            map[string]string{},
	}
	for k, v := range e.env {
		out.env[k] = v
	}
	return out
}

// vallyEnvironment merges an environment (inline, or the name of one of .vally.yaml's
// environments) into base. Lists append (skills, files, commands), as Vally merges a stimulus's
// environment into the root's.
func (l *loader) vallyEnvironment(ctx *fileCtx, n *yaml.Node, base vallyEnv) vallyEnv {
	env := base.clone()
	if name, isName := stringOf(n); isName && isScalar(n) {
		named, nctx, ok := l.namedEnvironment(ctx, n, name)
		if !ok {
			return env
		}
		return l.mergeEnvironment(nctx, named, env)
	}
	return l.mergeEnvironment(ctx, n, env)
}

func (l *loader) mergeEnvironment(ctx *fileCtx, n *yaml.Node, env vallyEnv) vallyEnv {
	if !isMapping(n) {
		return env
	}
	l.warnUnknown(ctx, n, vallyEnvKeys)
	if sk := get(n, "skills"); isSequence(sk) {
		for i, item := range sk.Content {
			if written, ok := stringOf(item); ok && written != "" {
				l.addSkill(ctx.sub("skills", i), item, ctx.dir, written, &env)
			}
		}
	}
	if fs := get(n, "files"); isSequence(fs) {
		for i, item := range fs.Content {
			env.files = append(env.files, l.vallyFiles(ctx.sub("files", i), item)...)
		}
	}
	if t := get(n, "commandTimeout"); t != nil {
		if secs, ok := l.vallyDuration(ctx, "commandTimeout", t); ok {
			env.commandTimeout = secs
		}
	}
	if cs := get(n, "commands"); isSequence(cs) {
		for _, item := range cs.Content {
			if c, ok := stringOf(item); ok && strings.TrimSpace(c) != "" {
				env.commands = append(env.commands, &SetupCommand{Command: c, TimeoutSeconds: env.commandTimeout, Pos: ctx.pos(item)})
			}
		}
	}
	if e := get(n, "env"); isMapping(e) {
		for i := 0; i+1 < len(e.Content); i += 2 {
			if v, ok := stringOf(e.Content[i+1]); ok {
				env.env[e.Content[i].Value] = v
			}
		}
	}
	for _, key := range []string{"mcpServers", "git"} {
		if k, _ := mapPair(n, key); k != nil {
			l.add(Warnf(ctx.pos(k), ctx.key(key), unsupportedEnvironmentFix[key], "environment.%s is not supported yet; the agent runs without it", key))
		}
	}
	return env
}

// unsupportedEnvironmentFix is what a spec can do instead of an environment key skillgate does
// not apply.
var unsupportedEnvironmentFix = map[string]string{
	"mcpServers": "configure the MCP server in the agent CLI's own settings on the runner, or grade the stimulus without it",
	"git":        "clone the repository in `environment.commands` (`git clone --depth 1 URL .`)",
}

// addSkill adds one environment.skills entry, resolved against dir (the folder of the file that
// names it): a skill folder, a folder of skill folders, or a SKILL.md file (its folder).
func (l *loader) addSkill(ctx *fileCtx, at *yaml.Node, dir, written string, env *vallyEnv) {
	resolved := written
	if strings.EqualFold(path.Base(filepath.ToSlash(written)), "SKILL.md") {
		resolved = filepath.Dir(filepath.FromSlash(written))
	}
	if d, ok := resolveSkillDirectory(dir, resolved); ok {
		env.skills = appendNewStrings(env.skills, d)
		return
	}
	env.missing = appendNewStrings(env.missing, written)
	shown, fix := filepath.Join(dir, written), "fix the path (relative to "+dir+")"
	if filepath.IsAbs(written) {
		// An absolute path is the author's machine's; it is not joined to the spec's folder.
		shown, fix = written, "write the path relative to "+dir+" (an absolute path exists only on the machine it was written on)"
	}
	l.add(Warnf(ctx.pos(at), ctx.key(), fix,
		"skill %s does not exist: mock and replay runs ignore it, and every run of a real agent errors", shown))
}

// maxFolderFiles bounds the files one environment.files folder may hold.
const maxFolderFiles = 10000

// vallyFiles reads one environment.files entry {src, dest}: src (relative to the file that
// names it) is a file or a folder, copied recursively to dest in the workspace (Vally 0.3).
// Files are read with the rules of every fixture (internal/safepath): symbolic links must stay
// inside the repository (else the spec's folder), special files are left out, and each file is
// under the size limit.
func (l *loader) vallyFiles(ctx *fileCtx, item *yaml.Node) []*InputFile {
	src, dest := stringAt(item, "src"), stringAt(item, "dest")
	if src == "" {
		return nil
	}
	dest = cmp.Or(dest, path.Base(filepath.ToSlash(src)))
	clean := path.Clean(filepath.ToSlash(dest))
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
		l.add(Errorf(ctx.pos(item), ctx.key("dest"), "write dest relative to the workspace", "dest %q leaves the workspace", dest))
		return nil
	}
	source := filepath.Join(ctx.dir, filepath.FromSlash(src))
	root := fixtureRoot(ctx.dir)
	fi, err := os.Stat(source)
	if err != nil {
		f := &InputFile{Path: clean, Source: source, Pos: ctx.pos(item),
			Missing: fmt.Sprintf("environment file %q not found (src is relative to %s, %s)", src, filepath.Base(ctx.file), ctx.pos(item))}
		l.add(Warnf(ctx.pos(item), ctx.key("src"), "fix src (relative to "+ctx.dir+")", "%s; the stimulus's runs error", f.Missing))
		return []*InputFile{f}
	}
	if rerr := resolveIn(root, source); RefusedFix(rerr) != "" {
		l.add(Errorf(ctx.pos(item), ctx.key("src"), RefusedFix(rerr), "environment file %q refused: %v", src, rerr))
		return nil
	}
	if !fi.IsDir() {
		l.files[source] = true
		return []*InputFile{{Path: clean, Source: source, Pos: ctx.pos(item)}}
	}
	var out []*InputFile
	var skipped []string
	err = filepath.WalkDir(source, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != source {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(source, p)
		if _, err := safepath.Resolve(root, p, false); err != nil {
			skipped = append(skipped, filepath.ToSlash(rel))
			return nil
		}
		if len(out) == maxFolderFiles {
			return fs.SkipAll
		}
		l.files[p] = true
		out = append(out, &InputFile{Path: path.Join(clean, filepath.ToSlash(rel)), Source: p, Pos: ctx.pos(item)})
		return nil
	})
	if err != nil {
		l.add(Warnf(ctx.pos(item), ctx.key("src"), "", "environment folder %q could not be read in full: %v", src, err))
	}
	if len(out) == maxFolderFiles {
		l.add(Warnf(ctx.pos(item), ctx.key("src"), "copy a smaller folder", "environment folder %q holds more than %d files; the first %d are copied", src, maxFolderFiles, maxFolderFiles))
	}
	if len(skipped) > 0 {
		sort.Strings(skipped)
		l.add(Warnf(ctx.pos(item), ctx.key("src"), "keep fixtures regular files inside the repository",
			"%d file(s) of environment folder %q are not copied (links leaving the repository or special files): %s", len(skipped), src, strings.Join(skipped, ", ")))
	}
	return out
}

// fixtureRoot is the folder a Vally spec's fixtures must stay inside (their symbolic links
// followed): the repository, else the nearest .vally.yaml's folder, else the spec's own folder.
func fixtureRoot(dir string) string {
	if root := RepositoryRoot(dir); root != "" {
		return root
	}
	for d := dir; ; {
		if fi, err := os.Stat(filepath.Join(d, ".vally.yaml")); err == nil && fi.Mode().IsRegular() {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// namedEnvironment finds `environments.<name>` in the nearest .vally.yaml; its paths resolve
// against that file's folder.
func (l *loader) namedEnvironment(ctx *fileCtx, at *yaml.Node, name string) (*yaml.Node, *fileCtx, bool) {
	if l.project == nil {
		l.project, _ = FindVallyProject(filepath.Dir(ctx.file))
		if l.project == nil {
			l.project = &VallyProject{}
		}
	}
	p := l.project
	if n, ok := p.environments[name]; ok {
		return n, &fileCtx{file: p.File, dir: p.Root, path: []any{"environments", name}}, true
	}
	if placeholderRE.MatchString(name) {
		return nil, nil, false // an unset placeholder: its own warning says so
	}
	fix := "define it under `environments:` in .vally.yaml"
	if p.File == "" {
		fix = "add a .vally.yaml with `environments: {" + name + ": …}` or write the environment inline"
	} else if s := suggest(name, p.environmentNames()); s != "" {
		fix = "did you mean `" + s + "`?"
	}
	where := "no .vally.yaml was found above the spec"
	if p.File != "" {
		where = "not one of the environments of " + p.File
	}
	l.add(Warnf(ctx.pos(at), ctx.key(), fix, "environment %q is %s; none is applied", name, where))
	return nil, nil, false
}

// gradingOnly warns about the parts of a grading_environment that do not apply to grading.
func (l *loader) gradingOnly(ctx *fileCtx, n *yaml.Node, env vallyEnv) {
	if n == nil {
		return
	}
	if len(env.skills)+len(env.missing) > 0 {
		l.add(Warnf(ctx.pos(n), ctx.key("skills"), "list skills in `environment` or `agent_environment`",
			"a grading environment's skills are not installed: graders run no agent"))
	}
}

// gradingSetup is a grading environment as the task's files and commands.
func gradingSetup(t *Task, env vallyEnv) {
	t.GradingFiles = env.files
	t.GradingSetup = env.commands
}

func (l *loader) vallyStimulus(ctx *fileCtx, item *yaml.Node, suiteTags map[string]string, base, grading vallyEnv) *Task {
	if !isMapping(item) {
		l.add(Warnf(ctx.pos(item), ctx.key(), "write the stimulus as a mapping with name and prompt", "a stimulus must be a mapping; it is left out"))
		return nil
	}
	l.warnUnknown(ctx, item, vallyStimulusKeys)
	name := stringAt(item, "name")
	t := &Task{File: ctx.file, Dir: ctx.dir, Pos: ctx.pos(item), TimeoutSeconds: l.s.Config.TimeoutSeconds, ContextDir: l.s.ContextDir}
	t.ID = cmp.Or(name, fmt.Sprintf("stimulus-%d", len(l.s.Tasks)+1))
	t.Name = t.ID
	t.Description = stringAt(item, "description")
	prompt := stringAt(item, "prompt")
	if turns := get(item, "turns"); isSequence(turns) && len(turns.Content) > 0 {
		for _, tn := range turns.Content {
			if v, ok := stringOf(tn); ok {
				t.Turns = append(t.Turns, v)
			}
		}
		if prompt == "" && len(t.Turns) > 0 {
			prompt = t.Turns[0]
		}
		if len(t.Turns) < 2 {
			t.Turns = nil
		}
	}
	if strings.TrimSpace(prompt) == "" {
		l.add(Errorf(ctx.pos(item), ctx.key(), "add `prompt:` (or `turns:`)", "stimulus %q has no prompt", t.ID))
		return nil
	}
	t.Prompt = prompt
	tags := map[string]string{}
	for k, v := range suiteTags {
		tags[k] = v
	}
	for k, v := range vallyTags(get(item, "tags")) {
		tags[k] = v
	}
	for _, k := range sortedKeys(tags) {
		t.Tags = append(t.Tags, k+"="+tags[k])
	}
	if c := get(item, "config"); isMapping(c) {
		cctx := ctx.sub("config")
		l.warnUnknown(cctx, c, []string{"runs", "timeout"})
		if n := get(c, "runs"); n != nil {
			if v, ok := intOf(n); ok && v >= 1 {
				t.Trials = v
			}
		}
		if n := get(c, "timeout"); n != nil {
			if secs, ok := l.vallyDuration(cctx, "timeout", n); ok {
				t.TimeoutSeconds = secs
			}
		}
	}
	if n := get(item, "runs"); n != nil {
		if v, ok := intOf(n); ok && v >= 1 {
			t.Trials = v
		}
	}
	env := l.vallyEnvironment(ctx.sub("environment"), get(item, "environment"), base)
	env = l.vallyEnvironment(ctx.sub("agent_environment"), get(item, "agent_environment"), env)
	t.Files = env.files
	if len(env.env) > 0 {
		t.Environment = env.env
	}
	t.Setup = env.commands
	if !sameStrings(env.skills, base.skills) || !sameStrings(env.missing, base.missing) {
		// This stimulus's own skills are installed for its runs only.
		t.OwnSkills = true
		t.SkillDirectories = env.skills
		t.MissingSkillDirectories = env.missing
	}
	g := l.vallyEnvironment(ctx.sub("grading_environment"), get(item, "grading_environment"), grading)
	l.gradingOnly(ctx.sub("grading_environment"), get(item, "grading_environment"), g)
	gradingSetup(t, g)
	rubric := stringsOf(get(item, "rubric"))
	if r, ok := stringOf(get(item, "rubric")); ok && r != "" && len(rubric) == 0 {
		rubric = []string{r}
	}
	t.Graders = l.vallyGraders(ctx, item, rubric, len(t.Turns))
	return t
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// vallyGraders turns a stimulus's graders and constraints into grader declarations.
func (l *loader) vallyGraders(ctx *fileCtx, item *yaml.Node, rubric []string, turns int) []*Grader {
	var out []*Grader
	names := map[string]int{}
	add := func(g *Grader, written string, cfg *yaml.Node) {
		names[g.Name]++
		if n := names[g.Name]; n > 1 {
			g.Name = fmt.Sprintf("%s-%d", g.Name, n)
		}
		if l.s.Scoring != nil {
			if w, ok := l.s.Scoring.Weights[written]; ok {
				g.Weight = w
			}
		}
		typeConfig(g, cfg)
		out = append(out, g)
	}
	if gs := get(item, "graders"); isSequence(gs) {
		for j, gi := range gs.Content {
			gctx := ctx.sub("graders", j)
			if !isMapping(gi) {
				l.add(Warnf(gctx.pos(gi), gctx.key(), "write {type, config}", "a grader must be a mapping; it is left out"))
				continue
			}
			l.warnUnknown(gctx, gi, []string{"type", "name", "config", "weight", "turn"})
			typ := stringAt(gi, "type")
			cfg := get(gi, "config")
			if !isMapping(cfg) {
				cfg = mappingNode(gi)
			}
			if known, ok := vallyGraderKeys[typ]; ok {
				l.add(unknownConfigKeys(gctx.sub("config"), cfg, typ, known)...)
			}
			if typ == "prompt" {
				cfg = l.vallyJudgeConfig(gi, cfg, rubric)
			}
			g := &Grader{Name: cmp.Or(stringAt(gi, "name"), typ, "grader"), Type: vallyTypeOf(typ), Weight: 1, Pos: gctx.pos(gi), File: ctx.file, Dir: ctx.dir}
			if w, ok := floatOf(get(gi, "weight")); ok && w > 0 {
				g.Weight = w
			}
			if tn := get(gi, "turn"); tn != nil {
				l.graderTurn(gctx, tn, g, turns)
			}
			add(g, typ, cfg)
		}
	}
	if c := get(item, "constraints"); isMapping(c) {
		cctx := ctx.sub("constraints")
		l.warnUnknown(cctx, c, vallyConstraintKeys)
		// Constraints are graders too: tool and skill expectations, turn and token limits.
		cfg := mappingNode(c)
		for _, k := range vallyConstraintKeys {
			if kn, v := mapPair(c, k); v != nil {
				cfg.Content = append(cfg.Content, kn, v)
			}
		}
		if len(cfg.Content) > 0 {
			add(&Grader{Name: "constraints", Type: "vally-constraints", Weight: 1, Pos: ctx.keyPos(item, "constraints"), File: ctx.file, Dir: ctx.dir,
				Implicit: "constraints"}, "constraints", cfg)
		}
	}
	return out
}

// graderTurn reads a grader's `turn` (0-based): it grades that turn of a multi-turn stimulus.
func (l *loader) graderTurn(ctx *fileCtx, n *yaml.Node, g *Grader, turns int) {
	v, ok := intOf(n)
	switch {
	case !ok || v < 0:
		l.add(Warnf(ctx.pos(n), ctx.key("turn"), "write the turn's index, from 0", "turn %s is not a turn index; the grader grades the whole conversation", n.Value))
	case turns == 0 && v == 0:
		// A single-prompt stimulus has one turn, 0.
	case v >= max(turns, 1):
		l.add(Warnf(ctx.pos(n), ctx.key("turn"), fmt.Sprintf("write a turn from 0 to %d", max(turns, 1)-1),
			"turn %d does not exist: the stimulus has %d turn(s); the grader grades the whole conversation", v, max(turns, 1)))
	default:
		g.Turn = &v
	}
}

// unknownConfigKeys warns about config keys Vally's reference does not list for the type, as
// the schema warns about a waza grader's: the same message, a did-you-mean or the allowed keys.
func unknownConfigKeys(ctx *fileCtx, cfg *yaml.Node, typ string, known []string) (diags Diagnostics) {
	if !isMapping(cfg) {
		return nil
	}
	for i := 0; i+1 < len(cfg.Content); i += 2 {
		k := cfg.Content[i]
		if contains(known, k.Value) {
			continue
		}
		fix := "remove it: a " + typ + " grader takes no config"
		if len(known) > 0 {
			sorted := append([]string(nil), known...)
			sort.Strings(sorted)
			fix = typ + " graders take: " + backquoteList(sorted)
		}
		if s := suggest(k.Value, known); s != "" {
			fix = "did you mean `" + s + "`?"
		}
		diags = append(diags, Warnf(ctx.pos(k), ctx.key(k.Value), fix, "unknown key `%s` is ignored", k.Value))
	}
	return diags
}

// vallyJudgeConfig turns a Vally `prompt` judge into skillgate's prompt grader config: the
// instructions (a default when none are given), the stimulus rubric as a list of criteria, the
// threshold (Vally's default 0.5) and the model. `scoring` is kept as written in the results.
func (l *loader) vallyJudgeConfig(at, cfg *yaml.Node, rubric []string) *yaml.Node {
	out := mappingNode(cfg)
	str := func(k, v string) { setPair(out, scalarNode(at, "!!str", k), scalarNode(at, "!!str", v)) }
	str("prompt", cmp.Or(stringAt(cfg, "prompt"), "Judge whether the agent's answer accomplishes what the user asked, correctly and completely."))
	if len(rubric) > 0 {
		str("rubric", "Criteria:\n- "+strings.Join(rubric, "\n- "))
	}
	threshold := "0.5"
	if n := get(cfg, "threshold"); n != nil {
		if v, ok := floatOf(n); ok && v >= 0 && v <= 1 {
			threshold = n.Value
		}
	}
	setPair(out, scalarNode(at, "!!str", "threshold"), scalarNode(at, "!!float", threshold))
	if m := stringAt(cfg, "model"); m != "" {
		str("model", m)
	}
	return out
}

// vallyDuration reads a Vally duration ("5m", "300s", "30000ms", "1h"; a bare number is seconds).
func (l *loader) vallyDuration(ctx *fileCtx, key string, n *yaml.Node) (int, bool) {
	v, _ := stringOf(n)
	if secs, ok := intOf(n); ok && secs >= 1 {
		return secs, true
	}
	d, err := time.ParseDuration(strings.TrimSpace(v))
	if err != nil || d < time.Second {
		l.add(Warnf(ctx.pos(n), ctx.key(key), "write a duration with its unit, e.g. 5m, 300s or 30000ms", "%s %q is not a duration; the default is used", key, v))
		return 0, false
	}
	return int((d + time.Second - 1) / time.Second), true
}

// vallyTags reads a tags mapping (values: strings or lists, joined with commas).
func vallyTags(n *yaml.Node) map[string]string {
	out := map[string]string{}
	if !isMapping(n) {
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if isSequence(v) {
			out[k] = strings.Join(stringsOf(v), ",")
		} else if s, ok := stringOf(v); ok {
			out[k] = s
		}
	}
	return out
}

// warnUnknown warns about keys of m outside known, with a did-you-mean.
func (l *loader) warnUnknown(ctx *fileCtx, m *yaml.Node, known []string) {
	if !isMapping(m) {
		return
	}
	sorted := append([]string(nil), known...)
	sort.Strings(sorted)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if contains(known, k.Value) {
			continue
		}
		fix := "known keys: " + strings.Join(sorted, ", ")
		if s := suggest(k.Value, known); s != "" {
			fix = "did you mean `" + s + "`?"
		}
		l.add(Warnf(ctx.pos(k), ctx.key(k.Value), fix, "unknown key `%s` is ignored", k.Value).OfKind(KindUnknownKey))
	}
}

func appendNewStrings(list []string, more ...string) []string {
	for _, s := range more {
		if !contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}
