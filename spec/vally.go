package spec

import (
	"cmp"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
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

var vallyTopKeys = []string{"name", "description", "version", "type", "tags", "environment", "defaults", "config", "scoring", "stimuli", "metadata"}
var vallyDefaultsKeys = []string{"runs", "timeout", "executor", "model", "judge_model", "judge_provider", "judge_reasoning_effort"}
var vallyStimulusKeys = []string{"name", "description", "prompt", "turns", "tags", "environment", "graders", "rubric", "constraints", "config", "runs",
	"attachments", "simulation", "golden_patch", "golden_command"}
var vallyEnvKeys = []string{"files", "commands", "skills", "mcpServers", "git", "commandTimeout"}
var vallyConstraintKeys = []string{"max_turns", "max_tokens", "expect_tools", "reject_tools", "expect_skills", "reject_skills"}

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

	defaults := get(root, "defaults")
	if c := get(root, "config"); c != nil {
		if defaults != nil {
			l.add(Warnf(ctx.keyPos(root, "config"), "config", "keep `defaults:` only", "`config` is the older name of `defaults`, which is also given and is used"))
		} else {
			defaults = c // the older name (Vally before 0.7)
		}
	}
	dctx := ctx.sub("defaults")
	if isMapping(defaults) {
		l.warnUnknown(dctx, defaults, vallyDefaultsKeys)
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
			}
		}
		s.Config.Model = stringAt(defaults, "model")
		s.Config.JudgeModel = stringAt(defaults, "judge_model")
	} else {
		s.Config.TimeoutSeconds = 120 // Vally's default timeout, 2m
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

	env := l.vallyEnvironment(ctx.sub("environment"), get(root, "environment"), vallyEnv{})
	s.Config.SkillDirectories = append(s.Config.SkillDirectories, env.skills...)
	s.Config.MissingSkillDirectories = append(s.Config.MissingSkillDirectories, env.missing...)

	stimuli := get(root, "stimuli")
	if !isSequence(stimuli) || len(stimuli.Content) == 0 {
		l.add(Errorf(ctx.keyPos(root, "stimuli"), "stimuli", "list at least one `- name: …` with a `prompt:`", "the spec has no stimuli"))
		return
	}
	ids := map[string]Pos{}
	for i, item := range stimuli.Content {
		t := l.vallyStimulus(ctx.sub("stimuli", i), item, suiteTags, env)
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

// vallyEnv is an environment after merging: the root's, then a stimulus's.
type vallyEnv struct {
	skills, missing []string
	files           []*InputFile
	commands        []string
}

func (l *loader) vallyEnvironment(ctx *fileCtx, n *yaml.Node, base vallyEnv) vallyEnv {
	env := vallyEnv{
		skills:   append([]string(nil), base.skills...),
		missing:  append([]string(nil), base.missing...),
		files:    append([]*InputFile(nil), base.files...),
		commands: append([]string(nil), base.commands...),
	}
	if _, isName := stringOf(n); isName && isScalar(n) {
		l.add(Warnf(ctx.pos(n), ctx.key(), "write the environment inline", "named environments (of .vally.yaml) are not supported; none is applied"))
		return env
	}
	if !isMapping(n) {
		return env
	}
	l.warnUnknown(ctx, n, vallyEnvKeys)
	if sk := get(n, "skills"); isSequence(sk) {
		// Skill paths are relative to the spec file, as Vally resolves them.
		for i, item := range sk.Content {
			written, ok := stringOf(item)
			if !ok || written == "" {
				continue
			}
			if d, ok := resolveSkillDirectory(ctx.dir, written); ok {
				env.skills = append(env.skills, d)
				continue
			}
			env.missing = append(env.missing, written)
			l.add(Warnf(ctx.pos(item), ctx.key("skills", i), "fix the path (relative to "+ctx.dir+")",
				"skill %s does not exist: mock and replay runs ignore it, and every run of a real agent errors", filepath.Join(ctx.dir, written)))
		}
	}
	if fs := get(n, "files"); isSequence(fs) {
		for i, item := range fs.Content {
			src, dest := stringAt(item, "src"), stringAt(item, "dest")
			if src == "" {
				continue
			}
			dest = cmp.Or(dest, path.Base(filepath.ToSlash(src)))
			clean := path.Clean(filepath.ToSlash(dest))
			if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
				l.add(Errorf(ctx.pos(item), ctx.key("files", i, "dest"), "write dest relative to the workspace", "dest %q leaves the workspace", dest))
				continue
			}
			f := &InputFile{Path: clean, Source: filepath.Join(ctx.dir, filepath.FromSlash(src)), Pos: ctx.pos(item)}
			if fi, err := os.Stat(f.Source); err != nil {
				f.Missing = fmt.Sprintf("environment file %q not found next to the spec", src)
				l.add(Warnf(ctx.pos(item), ctx.key("files", i, "src"), "fix src (relative to "+ctx.dir+")", "%s; the stimulus's runs error", f.Missing))
			} else if fi.IsDir() {
				f.Missing = fmt.Sprintf("environment file %q is a folder, which skillgate does not copy yet", src)
				l.add(Warnf(ctx.pos(item), ctx.key("files", i, "src"), "list the folder's files one by one", "%s; the stimulus's runs error", f.Missing))
			} else {
				l.files[f.Source] = true
			}
			env.files = append(env.files, f)
		}
	}
	if cs := get(n, "commands"); isSequence(cs) {
		for _, item := range cs.Content {
			if c, ok := stringOf(item); ok && c != "" {
				env.commands = append(env.commands, c)
			}
		}
	}
	for _, key := range []string{"mcpServers", "git"} {
		if k, _ := mapPair(n, key); k != nil {
			l.add(Warnf(ctx.pos(k), ctx.key(key), "", "environment.%s is not supported yet; the agent runs without it", key))
		}
	}
	return env
}

func (l *loader) vallyStimulus(ctx *fileCtx, item *yaml.Node, suiteTags map[string]string, base vallyEnv) *Task {
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
		if prompt == "" {
			prompt, _ = stringOf(turns.Content[0])
		}
		if len(turns.Content) > 1 {
			l.add(Warnf(ctx.keyPos(item, "turns"), ctx.key("turns"), "", "only the first of %d turns is sent: multi-turn stimuli are not supported yet", len(turns.Content)))
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
	t.Files = env.files
	if len(env.skills) > len(base.skills) || len(env.missing) > len(base.missing) {
		l.add(Warnf(ctx.keyPos(item, "environment"), ctx.key("environment", "skills"), "list the skills in the spec's root environment",
			"per-stimulus skills are installed for every stimulus of the spec"))
		l.s.Config.SkillDirectories = appendNewStrings(l.s.Config.SkillDirectories, env.skills...)
		l.s.Config.MissingSkillDirectories = appendNewStrings(l.s.Config.MissingSkillDirectories, env.missing...)
	}
	if len(env.commands) > 0 {
		l.add(Warnf(ctx.keyPos(item, "environment"), ctx.key("environment", "commands"), "",
			"environment.commands are not run yet: the agent starts without their set-up"))
	}
	rubric := stringsOf(get(item, "rubric"))
	if r, ok := stringOf(get(item, "rubric")); ok && r != "" && len(rubric) == 0 {
		rubric = []string{r}
	}
	t.Graders = l.vallyGraders(ctx, item, rubric)
	return t
}

// vallyGraders turns a stimulus's graders and constraints into grader declarations.
func (l *loader) vallyGraders(ctx *fileCtx, item *yaml.Node, rubric []string) []*Grader {
	var out []*Grader
	names := map[string]int{}
	add := func(g *Grader, cfg *yaml.Node) {
		names[g.Name]++
		if n := names[g.Name]; n > 1 {
			g.Name = fmt.Sprintf("%s-%d", g.Name, n)
		}
		if l.s.Scoring != nil {
			if w, ok := l.s.Scoring.Weights[g.Type]; ok {
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
			// `turn` picks the turn a multi-turn stimulus is graded at; only one turn runs.
			l.warnUnknown(gctx, gi, []string{"type", "name", "config", "weight", "turn"})
			typ := stringAt(gi, "type")
			cfg := get(gi, "config")
			if !isMapping(cfg) {
				cfg = mappingNode(gi)
			}
			switch typ {
			case "prompt":
				cfg = l.vallyJudgeConfig(gctx.sub("config"), gi, cfg, rubric)
			case "program":
				cfg = l.vallyProgramConfig(gctx.sub("config"), gi, cfg)
			}
			g := &Grader{Name: cmp.Or(stringAt(gi, "name"), typ, "grader"), Type: typ, Weight: 1, Pos: gctx.pos(gi), File: ctx.file, Dir: ctx.dir}
			if w, ok := floatOf(get(gi, "weight")); ok && w > 0 {
				g.Weight = w
			}
			add(g, cfg)
		}
	}
	if c := get(item, "constraints"); isMapping(c) {
		cctx := ctx.sub("constraints")
		l.warnUnknown(cctx, c, vallyConstraintKeys)
		// Constraints are graders too: tool and skill expectations, turn and token limits.
		cfg := mappingNode(c)
		for _, k := range []string{"max_turns", "max_tokens", "expect_tools", "reject_tools", "expect_skills", "reject_skills"} {
			if kn, v := mapPair(c, k); v != nil {
				cfg.Content = append(cfg.Content, kn, v)
			}
		}
		if len(cfg.Content) > 0 {
			add(&Grader{Name: "constraints", Type: "vally-constraints", Weight: 1, Pos: ctx.keyPos(item, "constraints"), File: ctx.file, Dir: ctx.dir,
				Implicit: "constraints"}, cfg)
		}
	}
	return out
}

// vallyJudgeConfig turns a Vally `prompt` judge into skillgate's prompt grader config: the
// instructions (a default when none are given), the stimulus rubric as a list of criteria, the
// threshold (Vally's default 0.5) and the model. `scoring` is kept as written in the results.
func (l *loader) vallyJudgeConfig(ctx *fileCtx, at, cfg *yaml.Node, rubric []string) *yaml.Node {
	l.warnUnknown(ctx, cfg, []string{"prompt", "model", "scoring", "threshold", "evidence", "reasoning_effort"})
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

// vallyProgramConfig turns a Vally `program` grader into skillgate's (`program` → `command`);
// skillgate's program reads the output on stdin and passes on exit 0 (docs/vally.md).
func (l *loader) vallyProgramConfig(ctx *fileCtx, at, cfg *yaml.Node) *yaml.Node {
	l.warnUnknown(ctx, cfg, []string{"program", "args", "timeout", "shell", "sub_path", "env"})
	out := mappingNode(cfg)
	if p := stringAt(cfg, "program"); p != "" {
		setPair(out, scalarNode(at, "!!str", "command"), scalarNode(at, "!!str", p))
	}
	if a := get(cfg, "args"); isSequence(a) {
		setPair(out, scalarNode(at, "!!str", "args"), a)
	}
	if t := get(cfg, "timeout"); t != nil {
		if secs, ok := l.vallyDuration(ctx, "timeout", t); ok {
			setPair(out, scalarNode(at, "!!str", "timeout"), scalarNode(at, "!!int", strconv.Itoa(secs)))
		}
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
