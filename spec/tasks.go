package spec

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/internal/glob"
	"github.com/skillgate/skillgate/schemas"
)

// taskJob is one task to load: a task file, or an inline task of eval.yaml.
type taskJob struct {
	file   string     // absolute task file; "" for an inline task
	inline *yaml.Node // the inline task mapping
	ctx    *fileCtx   // inline: eval.yaml with the key path tasks[i]
}

// taskResult is what loading one task produced. Loading runs concurrently; results are merged
// in job order so diagnostics and task order never depend on scheduling.
type taskResult struct {
	task  *Task
	idAt  Pos
	idKey string
	diags Diagnostics
	files []string
}

// loadTasks loads `tasks:` entries in order, then `tasks_from:` rows (both may be given; the CSV
// tasks come after), and checks that task ids are unique.
func (l *loader) loadTasks(ctx *fileCtx, root *yaml.Node) {
	var jobs []taskJob
	seenFiles := map[string]bool{}
	// A broad glob (`*.yaml`, `**/*.yaml`) must not take the suite's own files for tasks.
	seenFiles[l.s.File] = true
	for _, name := range []string{"trigger_tests.yaml", "trigger_tests.yml"} {
		seenFiles[filepath.Join(l.s.Dir, name)] = true
	}
	addFile := func(f string) {
		if !seenFiles[f] {
			seenFiles[f] = true
			jobs = append(jobs, taskJob{file: f})
		}
	}
	tasks := get(root, "tasks")
	if isSequence(tasks) {
		for i, item := range tasks.Content {
			switch {
			case isScalar(item):
				for _, f := range l.expandTaskGlob(ctx.sub("tasks", i), item) {
					addFile(f)
				}
			case isMapping(item) && has(item, "task_files"):
				globs := get(item, "task_files")
				patterns := []*yaml.Node{globs}
				if isSequence(globs) {
					patterns = globs.Content
				}
				for j, p := range patterns {
					sub := ctx.sub("tasks", i, "task_files")
					if isSequence(globs) {
						sub = ctx.sub("tasks", i, "task_files", j)
					}
					for _, f := range l.expandTaskGlob(sub, p) {
						addFile(f)
					}
				}
			case isMapping(item):
				jobs = append(jobs, taskJob{inline: item, ctx: ctx.sub("tasks", i)})
			}
		}
	}
	var csv []taskResult
	if from := get(root, "tasks_from"); from != nil {
		csv = l.loadCSV(ctx, root)
	} else if r := get(root, "range"); r != nil && !isZeroRange(r) {
		l.add(Warnf(ctx.keyPos(root, "range"), "range", "add `tasks_from:` or remove `range:`", "range selects rows of tasks_from, which is not given; it is ignored"))
	}
	var results []taskResult
	if l.opts.Owns != nil {
		results = l.loadOwned(jobs, csv)
	}
	if results == nil {
		results = parallelMap(len(jobs), func(i int) taskResult {
			j := jobs[i]
			if j.inline != nil {
				var r taskResult
				l.decodeTask(j.ctx, j.inline, "", &r)
				return r
			}
			return l.loadTaskFile(j.file)
		})
	}
	results = append(results, csv...)
	if tasks == nil && !has(root, "tasks_from") && l.s.TriggerTests == nil {
		l.add(Errorf(ctx.pos(root), "tasks", "add `tasks:` (globs of task files or inline tasks) or `tasks_from:` (a CSV file)",
			"the suite has no tasks"))
	}
	// A pattern that matches nothing is an error only when no pattern matched anything: waza
	// runs the files the other patterns found.
	for _, d := range l.globDiags {
		if len(jobs) > 0 {
			d.Severity = SevWarning
			d.Message += "; the other task patterns are used"
		}
		l.add(d)
	}
	ids := map[string]Pos{}
	for _, r := range results {
		l.add(r.diags...)
		for _, f := range r.files {
			l.files[f] = true
		}
		if r.task == nil {
			continue
		}
		if first, dup := ids[r.task.ID]; dup {
			// waza runs both tasks; results are keyed by id, so the second gets a suffix.
			id := r.task.ID
			r.task.ID = uniqueID(ids, id)
			if r.task.Name == id {
				r.task.Name = r.task.ID
			}
			if !r.task.Unvalidated { // another job's task: that job says so
				l.add(Warnf(r.idAt, r.idKey, "give each task its own id", "duplicate task id %q (also used at %s); this task runs as %q", id, first, r.task.ID))
			}
		}
		ids[r.task.ID] = r.idAt
		l.s.Tasks = append(l.s.Tasks, r.task)
	}
}

// isZeroRange reports `range: [0, 0]`, waza's zero value: no range (every row).
func isZeroRange(n *yaml.Node) bool {
	if !isSequence(n) || len(n.Content) != 2 {
		return false
	}
	a, ok1 := intOf(n.Content[0])
	b, ok2 := intOf(n.Content[1])
	return ok1 && ok2 && a == 0 && b == 0
}

// expandTaskGlob expands one task pattern relative to eval.yaml's folder.
func (l *loader) expandTaskGlob(ctx *fileCtx, n *yaml.Node) []string {
	pattern, ok := stringOf(n)
	if !ok || pattern == "" {
		return nil
	}
	if !glob.HasMeta(pattern) {
		p := pattern
		if !filepath.IsAbs(p) {
			p = filepath.Join(ctx.dir, filepath.FromSlash(p))
		}
		if l.outsideRoot(ctx, n, ctx.key(), "task file", p) {
			return nil
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			l.globDiags = append(l.globDiags, Errorf(ctx.pos(n), ctx.key(), "check the path; it is relative to "+ctx.dir, "task file %s not found", pattern))
			return nil
		case !filepath.IsAbs(pattern) && l.refusedTask(ctx, n, p):
			return nil
		case fi.IsDir():
			l.globDiags = append(l.globDiags, Errorf(ctx.pos(n), ctx.key(), "use a glob such as "+path.Join(pattern, "*.yaml"), "%s is a folder, not a task file", pattern))
			return nil
		}
		return []string{filepath.Clean(p)}
	}
	if base, _ := doublestar.SplitPattern(filepath.ToSlash(pattern)); l.opts.Root != "" {
		base = filepath.FromSlash(base)
		if !filepath.IsAbs(base) {
			base = filepath.Join(ctx.dir, base)
		}
		if l.outsideRoot(ctx, n, ctx.key(), "task glob", base) {
			return nil
		}
	}
	files, err := glob.Files(ctx.dir, pattern)
	if err != nil {
		l.add(Errorf(ctx.pos(n), ctx.key(), "fix the pattern (*, ?, [abc], {a,b} and ** as a whole segment are supported)", "invalid glob %q: %v", pattern, err))
		return nil
	}
	if len(files) == 0 {
		l.globDiags = append(l.globDiags, Errorf(ctx.pos(n), ctx.key(), "check the pattern; it is relative to "+ctx.dir, "no file matches %q", pattern))
	}
	kept := files[:0]
	for _, f := range files {
		if filepath.IsAbs(pattern) || !l.refusedTask(ctx, n, f) {
			kept = append(kept, f)
		}
	}
	return kept
}

func (l *loader) loadTaskFile(file string) taskResult {
	data, err := readSuiteFile(l.opts.Root, file)
	return l.decodeTaskFile(file, data, err, true)
}

// decodeTaskFile loads a task file from its content (err: why it could not be read). Without
// validate the file is not checked against the schema.
func (l *loader) decodeTaskFile(file string, data []byte, err error, validate bool) (r taskResult) {
	if err != nil {
		r.diags = append(r.diags, Errorf(Pos{File: file}, "", RefusedFix(err), "cannot read task file: %v", unwrapPathError(err)))
		return r
	}
	r.files = append(r.files, file)
	doc, ds := parseYAML(file, data)
	r.diags = append(r.diags, ds...)
	if validate {
		r.diags = append(r.diags, validateSchema(doc, schemas.TaskFile)...)
	}
	if !isMapping(doc.Root) {
		return r
	}
	l.decodeTask(&fileCtx{file: file, dir: filepath.Dir(file)}, doc.Root, fileTaskID(file), &r)
	return r
}

// fileTaskID is the id of a task file without an `id:` key: its name without the extension.
func fileTaskID(file string) string {
	return strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
}

// decodeTask reads one task mapping into r.task (nil when the task is disabled or unusable).
func (l *loader) decodeTask(ctx *fileCtx, m *yaml.Node, defaultID string, r *taskResult) {
	if enabled, ok := boolOf(get(m, "enabled")); ok && !enabled {
		return
	}
	t := &Task{File: ctx.file, Dir: ctx.dir, Pos: ctx.pos(m), TimeoutSeconds: l.s.Config.TimeoutSeconds, ContextDir: l.s.ContextDir}
	t.ID = defaultID
	r.idAt, r.idKey = ctx.pos(m), ctx.key()
	if id, idNode := taskID(m, defaultID); idNode != nil {
		t.ID, r.idAt, r.idKey = id, ctx.pos(idNode), ctx.key("id")
	}
	if t.ID == "" {
		return // the schema reported the missing id of an inline task
	}
	t.Name = t.ID
	if name, ok := stringOf(get(m, "name")); ok && name != "" {
		t.Name = name
	}
	t.Description = stringAt(m, "description")
	t.Tags = stringsOf(get(m, "tags"))
	if v, ok := intOf(get(m, "timeout_seconds")); ok && v >= 1 {
		t.TimeoutSeconds = v
	}
	var stopDiags []Diagnostic
	t.EarlyStop, stopDiags = readEarlyStop(ctx, m, l.s.Skill)
	r.diags = append(r.diags, stopDiags...)
	if cd := get(m, "context_dir"); cd != nil {
		if dir, ok := stringOf(cd); ok && dir != "" {
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(ctx.dir, filepath.FromSlash(dir))
			}
			dir = filepath.Clean(dir)
			if why := l.outside(dir); why != "" {
				// Nothing is read from it: the task keeps the suite's fixtures folder.
				r.diags = append(r.diags, Errorf(ctx.pos(cd), ctx.key("context_dir"), "name a folder inside "+l.opts.Root, "context dir %s %s", dir, why))
				dir = t.ContextDir
			} else if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				r.diags = append(r.diags, Warnf(ctx.pos(cd), ctx.key("context_dir"), "create the folder or fix the path (relative to "+ctx.dir+")",
					"context dir %s does not exist; the task's input files from it are missing", dir))
			}
			t.ContextDir = dir
		}
	}
	inputs := get(m, "inputs")
	if k, v := mapPair(inputs, "follow_up_prompts"); v != nil {
		r.diags = append(r.diags, Warnf(ctx.pos(k), ctx.key("inputs", "follow_up_prompts"), "put what the follow-ups ask into the prompt, or a task of its own",
			"follow-up prompts are not supported yet: only inputs.prompt is sent"))
	}
	if c := get(inputs, "context"); c != nil {
		t.Context = contextText(c)
		l.contextFixture(ctx.sub("inputs", "context"), c, t, r)
	}
	l.decodeInputFiles(ctx.sub("inputs", "files"), get(inputs, "files"), t, r)
	if env := get(inputs, "environment"); isMapping(env) {
		t.Environment = map[string]string{}
		for i := 0; i+1 < len(env.Content); i += 2 {
			v, _ := stringOf(env.Content[i+1])
			t.Environment[env.Content[i].Value] = v
		}
	}
	t.Graders = l.taskGraders(ctx, m, &r.diags)
	if pn := get(inputs, "prompt"); pn != nil {
		if src, ok := stringOf(pn); ok {
			prompt, err := renderPrompt(src, templateData{Vars: l.s.Inputs, TaskName: t.Name, TaskID: t.ID}, t.ContextDir,
				func(f string) { r.files = append(r.files, f) })
			if err != nil {
				// waza sends a task file's prompt as written, braces and all: a prompt that is
				// not a valid template here is sent verbatim too.
				pe := err.(*promptError)
				if pe.refused {
					r.diags = append(r.diags, Errorf(ctx.pos(pn), ctx.key("inputs", "prompt"), pe.fix, "%s", pe.msg))
				} else {
					r.diags = append(r.diags, Warnf(ctx.pos(pn), ctx.key("inputs", "prompt"), pe.fix, "%s; the prompt is sent as written", pe.msg))
					prompt = src
				}
			}
			t.Prompt = prompt
		}
	}
	r.task = t
}

// taskID is the id of a task mapping: its `id:` when that is a non-empty string (idNode is then
// the value), else defaultID.
func taskID(m *yaml.Node, defaultID string) (id string, idNode *yaml.Node) {
	if n := get(m, "id"); n != nil {
		if id, ok := stringOf(n); ok && id != "" {
			return id, n
		}
	}
	return defaultID, nil
}

// decodeInputFiles reads inputs.files: workspace paths must be relative and stay inside the
// workspace; a file without content must exist in the task's context dir.
func (l *loader) decodeInputFiles(ctx *fileCtx, files *yaml.Node, t *Task, r *taskResult) {
	if !isSequence(files) {
		return
	}
	for i, item := range files.Content {
		pn := get(item, "path")
		p, ok := stringOf(pn)
		if !ok || p == "" {
			continue
		}
		clean := path.Clean(filepath.ToSlash(p))
		switch {
		case filepath.IsAbs(p) || path.IsAbs(clean) || filepath.VolumeName(p) != "":
			r.diags = append(r.diags, Errorf(ctx.pos(pn), ctx.key(i, "path"), "write the path relative to the workspace (and to the context dir)",
				"input file path %q is absolute", p))
			continue
		case clean == ".." || strings.HasPrefix(clean, "../"):
			r.diags = append(r.diags, Errorf(ctx.pos(pn), ctx.key(i, "path"), "remove the `..`: files stay inside the workspace",
				"input file path %q escapes the workspace", p))
			continue
		case clean == ".":
			r.diags = append(r.diags, Errorf(ctx.pos(pn), ctx.key(i, "path"), "name a file", "input file path %q names no file", p))
			continue
		}
		f := &InputFile{Path: clean, Pos: ctx.pos(item)}
		if cn := get(item, "content"); cn != nil {
			f.Content, _ = stringOf(cn)
			f.HasContent = true
		} else {
			f.Source = filepath.Join(t.ContextDir, filepath.FromSlash(clean))
			fi, err := os.Stat(f.Source)
			// A missing input fails the task's runs, not the suite: its other tasks run.
			rerr := resolveIn(t.ContextDir, f.Source)
			switch {
			case err == nil && RefusedFix(rerr) != "":
				r.diags = append(r.diags, Errorf(ctx.pos(pn), ctx.key(i, "path"), RefusedFix(rerr), "input file %q refused: %v", p, rerr))
			case err != nil:
				// waza warns, leaves the file out and runs the task (docs/format.md#paths).
				r.diags = append(r.diags, Warnf(ctx.pos(pn), ctx.key(i, "path"),
					"create it there, give it inline `content:`, or set context_dir / --context-dir",
					"input file %q not found in the context dir %s; the task runs without it, as in waza", p, t.ContextDir))
				continue
			case fi.IsDir():
				r.diags = append(r.diags, Warnf(ctx.pos(pn), ctx.key(i, "path"), "list the files inside it one by one, or use inputs.context.fixture",
					"input file %q is a folder; the task runs without it, as in waza", p))
				continue
			default:
				r.files = append(r.files, f.Source)
			}
		}
		t.Files = append(t.Files, f)
	}
}

// contextFixture reads waza's inputs.context.fixture: a file or folder, relative to eval.yaml's
// folder, copied into the workspace before the run (a file at the workspace's root under its
// name, a folder's files at their paths inside it), ahead of inputs.files. What waza refuses
// (not a string, empty, absolute, `..`, missing) errors each of the task's runs, as in waza.
func (l *loader) contextFixture(ctx *fileCtx, c *yaml.Node, t *Task, r *taskResult) {
	_, fx := mapPair(c, "fixture")
	if fx == nil {
		return
	}
	refuse := func(msg, fix string) {
		t.Files = append(t.Files, &InputFile{Missing: msg, Pos: ctx.pos(fx)})
		r.diags = append(r.diags, Warnf(ctx.pos(fx), ctx.key("fixture"), fix, "%s; the task's runs error, as in waza", msg))
	}
	p, ok := stringOf(fx)
	switch {
	case !ok:
		refuse("inputs.context.fixture must be a string", "write the path of a file or folder, relative to eval.yaml")
		return
	case p == "":
		refuse("inputs.context.fixture must not be empty", "write the path of a file or folder, relative to eval.yaml")
		return
	case filepath.IsAbs(p) || path.IsAbs(filepath.ToSlash(p)) || filepath.VolumeName(p) != "" || strings.HasPrefix(p, `\`):
		refuse(fmt.Sprintf("inputs.context.fixture path %q must be relative", p), "write it relative to eval.yaml's folder")
		return
	}
	clean := path.Clean(filepath.ToSlash(p))
	if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || slices.Contains(strings.Split(filepath.ToSlash(p), "/"), "..") {
		refuse(fmt.Sprintf("inputs.context.fixture path %q must stay inside eval.yaml's folder", p), "remove the `..`")
		return
	}
	full := filepath.Join(l.s.Dir, filepath.FromSlash(clean))
	fi, err := os.Stat(full)
	if err != nil {
		refuse(fmt.Sprintf("inputs.context.fixture %q not found next to eval.yaml", p), "create it or fix the path (relative to "+l.s.Dir+")")
		return
	}
	add := func(rel, src string) {
		if err := resolveIn(l.s.Dir, src); err != nil {
			r.diags = append(r.diags, Warnf(ctx.pos(fx), ctx.key("fixture"), orFix(RefusedFix(err), "name files inside the suite folder"),
				"inputs.context.fixture file %s refused: %v; the task runs without it", rel, err))
			return
		}
		t.Files = append(t.Files, &InputFile{Path: rel, Source: src, Pos: ctx.pos(fx)})
		r.files = append(r.files, src)
	}
	if !fi.IsDir() {
		add(path.Base(clean), full)
		return
	}
	_ = filepath.WalkDir(full, func(f string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Type()&fs.ModeSymlink != 0 {
			return nil // waza skips links, and what it cannot read errors its run; here it is left out
		}
		rel, err := filepath.Rel(full, f)
		if err == nil {
			add(filepath.ToSlash(rel), f)
		}
		return nil
	})
}

// contextText renders inputs.context as text: a string as written, anything else as YAML.
func contextText(n *yaml.Node) string {
	if s, ok := stringOf(n); ok {
		return s
	}
	out, err := yaml.Marshal(n)
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(out), "\n")
}
