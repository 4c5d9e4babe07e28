package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/internal/reap"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// Prepared is a suite that loaded and compiled cleanly, ready to run.
type Prepared struct {
	Suite   *spec.Suite
	Graders *graders.Compiled
	// Judge is where the suite's judges are (its graders compiled with it); the pairwise
	// comparison with the base branch asks the same judge.
	Judge *graders.JudgeOptions
}

// LoadSuites discovers the suites under paths (eval.yaml files or folders searched
// recursively), loads and validates each, and compiles its graders. It returns every problem of
// every suite at once; suites with errors are not returned. err is for paths that cannot be
// searched at all.
func LoadSuites(paths []string, contextDir string) ([]*Prepared, spec.Diagnostics, error) {
	return LoadSuitesWith(paths, LoadOptions{ContextDir: contextDir})
}

// LoadOptions are the settings of LoadSuitesWith.
type LoadOptions struct {
	ContextDir string // --context-dir
	// Judge locates the LLM judge endpoint (flags, environment); nil: the environment only.
	Judge *graders.JudgeOptions
	// Labels turn pending human graders into scores (--labels).
	Labels *graders.Labels
	// Override replaces graders before they compile (see graders.Env.Override).
	Override func(def *spec.Grader, t *graders.Type) graders.Grader
	// Executor is the executor every suite will run with (--executor), "" for each suite's
	// config.executor: only the executor a suite actually runs with must exist in this build.
	Executor string
	// ExecutorAtRun is set by validate: the executor is chosen when the suite runs (run
	// --executor), so a suite's executor this build lacks is a warning of the machine, not an
	// error of the suite.
	ExecutorAtRun bool
	// Skip lists folders discovery does not search (the output folder).
	Skip []string
	// Experiments are Vally experiment files to run (--experiment), besides those discovery
	// finds beside a .vally.yaml under the paths (docs/vally.md#experiments).
	Experiments []string
	// Shard, when set, loads in full only the tasks this shard runs; the other shards' tasks
	// are read for their skipped records (spec.Options.Owns), their problems left to the shard
	// that runs them. The run must use the same shard and durations.
	Shard *Shard
	// ShardDurations gives a suite's task durations for the longest-first split, as
	// SuitesOptions.ShardDurations will (nil, or nil durations: by hash): suite is its name, dir
	// its eval.yaml's folder, suites the number of suite files found.
	ShardDurations func(suite, dir string, suites int) map[string]int64
	// Root confines every suite to a folder (spec.Options.Root): the report mode's bundle tree.
	Root string
}

// LoadSuitesWith is LoadSuites with judge settings and human labels for the graders. A search
// that finds no suite is an error (naming the files it skipped).
func LoadSuitesWith(paths []string, o LoadOptions) ([]*Prepared, spec.Diagnostics, error) {
	l, err := Load(paths, o)
	if err != nil {
		return nil, nil, err
	}
	if l.Loads == 0 {
		return nil, nil, l.NoSuiteError(paths)
	}
	return l.Suites, l.Diags, nil
}

// Loaded is what Load found and loaded.
type Loaded struct {
	// Suites are the suites that loaded without errors, ready to run.
	Suites []*Prepared
	// Diags are every suite's problems, sorted by position.
	Diags spec.Diagnostics
	// Found is discovery's classification: the suite files and the files skipped as not suites.
	Found *spec.Found
	// Broken are the suite files with errors, which do not run (the others do).
	Broken []string
	// Loads counts the suites loaded: the suite files found, and each configuration of a Vally
	// experiment; 0 means nothing to run.
	Loads int
}

// NoSuiteError says that paths hold no suite, naming what was skipped.
func (l *Loaded) NoSuiteError(paths []string) error {
	msg := fmt.Sprintf("no suite found in %s (eval.yaml, Vally specs, skill-creator's evals/evals.json or trigger eval sets)", strings.Join(paths, ", "))
	if line := l.Found.SkippedLine(); line != "" {
		msg += "; " + line
	}
	return errors.New(msg)
}

// BrokenLine is the one line naming the suites that have errors and do not run ("" when none).
func (l *Loaded) BrokenLine() string {
	if len(l.Broken) == 0 {
		return ""
	}
	names := make([]string, len(l.Broken))
	for i, f := range l.Broken {
		names[i] = spec.Pos{File: f}.DisplayFile()
	}
	return fmt.Sprintf("%d suite(s) have errors and do not run: %s", len(names), strings.Join(names, ", "))
}

// Load discovers the suites under paths (spec.Find: files or folders searched recursively),
// loads and validates each, and compiles its graders. Every problem of every suite is returned
// at once; a suite with errors is listed in Broken and not returned, and the others are: one
// broken suite never stops the rest (docs/format.md#what-is-an-error). err is for paths that
// cannot be searched at all.
func Load(paths []string, o LoadOptions) (*Loaded, error) {
	contextDir := o.ContextDir
	judge := o.Judge
	if judge == nil {
		judge = &graders.JudgeOptions{}
	}
	spec.PrepareSchemas() // compiling overlaps discovery and parsing
	found, err := spec.Find(paths, o.Skip...)
	if err != nil {
		return nil, err
	}
	loaded := &Loaded{Found: found}
	jobs, all := experimentJobs(found.Suites, paths, o)
	loaded.Loads = len(jobs)
	var out []*Prepared
	byName := map[string]string{}
	taken := map[string]*Prepared{}
	contested := map[string]bool{} // names that skill-creator suites share: each is qualified
	for _, job := range jobs {
		file := job.file
		s, diags := spec.Load(file, spec.Options{ContextDir: contextDir, Owns: o.owns(file, len(jobs)), Variant: job.variant, Root: o.Root, SearchRoot: searchRoot(paths, file)})
		if s != nil {
			// Graders compile even when the suite has other errors, so one validation shows every
			// problem; a grader problem the loader already reported at the same place is not
			// repeated.
			compiled, gd := compileGraders(&graders.Env{Suite: s, Judge: judge, Labels: o.Labels, Override: o.Override})
			diags = appendNew(diags, gd)
			diags = appendNew(diags, checkSuite(s, o.Executor, o.ExecutorAtRun))
			if !diags.HasErrors() {
				p := &Prepared{Suite: s, Graders: compiled, Judge: judge}
				if s.Format == spec.FormatSkillCreator && contested[results.Slug(s.Name)] {
					s.Name = qualifiedName(s, paths)
				}
				if other, dup := byName[results.Slug(s.Name)]; dup && !qualifyCreatorNames(p, taken[results.Slug(s.Name)], byName, taken, contested, paths) {
					diags = append(diags, spec.Errorf(s.Pos, "name", "give one of the suites another `name:`",
						"suite %q has the same results file name as the suite in %s", s.Name, other))
				} else {
					byName[results.Slug(s.Name)] = file
					taken[results.Slug(s.Name)] = p
					out = append(out, p)
				}
			}
		}
		if diags.HasErrors() {
			loaded.Broken = append(loaded.Broken, file)
		}
		all = append(all, diags...)
	}
	all.Sort()
	// A spec loaded under several experiment variants reports its own problems once.
	loaded.Suites, loaded.Diags = out, all.Unique()
	return loaded, nil
}

// qualifyCreatorNames settles two suites whose names give one results file when either is a
// skill-creator suite, whose name is not written by its author but taken from skill_name (the same
// evals copied into a plugin's dist/ folders, a skill's versions side by side): each such suite,
// and every later one of that name, is named "<name> (<its folder>)", the folder relative to the
// folder searched. It reports false
// when the names still collide (two waza or Vally suites named alike: the author renames one).
func qualifyCreatorNames(p, first *Prepared, byName map[string]string, taken map[string]*Prepared, contested map[string]bool, paths []string) bool {
	if first == nil || (p.Suite.Format != spec.FormatSkillCreator && first.Suite.Format != spec.FormatSkillCreator) {
		return false
	}
	slug := results.Slug(p.Suite.Name)
	contested[slug] = true
	if first.Suite.Format == spec.FormatSkillCreator {
		file := byName[slug]
		delete(byName, slug)
		delete(taken, slug)
		first.Suite.Name = qualifiedName(first.Suite, paths)
		byName[results.Slug(first.Suite.Name)] = file
		taken[results.Slug(first.Suite.Name)] = first
	}
	if p.Suite.Format == spec.FormatSkillCreator {
		p.Suite.Name = qualifiedName(p.Suite, paths)
	}
	_, dup := byName[results.Slug(p.Suite.Name)]
	return !dup
}

// qualifiedName is a skill-creator suite's name with its folder: relative to the folder searched,
// else to the repository root.
func qualifiedName(s *spec.Suite, paths []string) string {
	root := searchRoot(paths, s.File)
	if root == "" {
		root = spec.RepositoryRoot(s.Dir)
	}
	dir := filepath.Base(s.Dir)
	if r, err := filepath.Rel(root, s.Dir); root != "" && err == nil && r != "." {
		dir = filepath.ToSlash(r)
	}
	return fmt.Sprintf("%s (%s)", s.Name, dir)
}

// loadJob is one suite to load: a spec file, under an experiment variant or on its own.
type loadJob struct {
	file    string
	variant *spec.Variant
}

// experimentJobs turns the discovered suite files and the experiments (given, and found beside
// a .vally.yaml under paths) into the suites to load: a spec an experiment names loads once per
// configuration of the experiment instead of on its own.
func experimentJobs(files, paths []string, o LoadOptions) ([]loadJob, spec.Diagnostics) {
	var experiments []string
	var suites []string
	for _, f := range files {
		if spec.IsExperimentFile(f) {
			experiments = append(experiments, f) // named on the command line
		} else {
			suites = append(suites, f)
		}
	}
	experiments = append(experiments, o.Experiments...)
	experiments = append(experiments, spec.DiscoverExperiments(paths, o.Skip...)...)
	var diags spec.Diagnostics
	var jobs []loadJob
	covered := map[string]bool{}
	seen := map[string]bool{}
	for _, file := range experiments {
		abs, err := filepath.Abs(file)
		if err != nil || seen[abs] {
			continue
		}
		seen[abs] = true
		e, ds := spec.LoadExperiment(abs)
		diags = append(diags, ds...)
		if e == nil || ds.HasErrors() {
			continue
		}
		for _, run := range e.Runs() {
			covered[run.Eval] = true
			jobs = append(jobs, loadJob{file: run.Eval, variant: run.Variant})
		}
	}
	for _, f := range suites {
		if !covered[f] {
			jobs = append(jobs, loadJob{file: f})
		}
	}
	return jobs, diags
}

// owns is spec.Options.Owns for a shard: the tasks AssignTasks gives it (nil when not sharded).
func (o LoadOptions) owns(file string, suites int) func(string, []string) func(string) bool {
	if o.Shard == nil {
		return nil
	}
	return func(suite string, ids []string) func(string) bool {
		var durations map[string]int64
		if o.ShardDurations != nil {
			dir := filepath.Dir(file)
			if abs, err := filepath.Abs(file); err == nil {
				dir = filepath.Dir(abs)
			}
			durations = o.ShardDurations(suite, dir, suites)
		}
		a := AssignTasks(suite, ids, o.Shard.Count, durations)
		return func(id string) bool { return a.Owner[id] == o.Shard.Index }
	}
}

// compileGraders compiles the suite's graders. Of a task another shard runs
// (spec.Task.Unvalidated) only the LLM judges compile, as they name the judge models in the
// results' config and provenance, and their problems are left to that shard.
func compileGraders(env *graders.Env) (*graders.Compiled, spec.Diagnostics) {
	s := env.Suite
	skipped := map[string]bool{}
	for _, t := range s.Tasks {
		if t.Unvalidated {
			skipped[t.File] = true
		}
	}
	if len(skipped) == 0 {
		return graders.CompileEnv(env)
	}
	view := *s
	view.Tasks = make([]*spec.Task, len(s.Tasks))
	for i, t := range s.Tasks {
		view.Tasks[i] = t
		if !t.Unvalidated {
			continue
		}
		judges := *t
		judges.Graders = nil
		for _, g := range t.Graders {
			if typ, ok := graders.Lookup(g.Type); ok && typ.Judge {
				judges.Graders = append(judges.Graders, g)
			}
		}
		view.Tasks[i] = &judges
	}
	env.Suite = &view
	compiled, diags := graders.CompileEnv(env)
	env.Suite = s
	kept := diags[:0]
	for _, d := range diags {
		if !skipped[d.Pos.File] {
			kept = append(kept, d)
		}
	}
	return compiled, kept
}

// appendNew appends the diagnostics whose position no error in diags already has.
func appendNew(diags, more spec.Diagnostics) spec.Diagnostics {
	taken := map[spec.Pos]bool{}
	for _, d := range diags {
		if d.Severity == spec.SevError {
			taken[d.Pos] = true
		}
	}
	for _, d := range more {
		if !taken[d.Pos] {
			diags = append(diags, d)
		}
	}
	return diags
}

// checkSuite holds checks that need more than the spec package knows: the executor's name and
// settings, and metrics that cannot have data. override is --executor ("" for none): the suite's
// own executor then does not run and need not exist here. atRun (validate) makes a missing
// executor a warning: the run may still choose one with --executor.
func checkSuite(s *spec.Suite, override string, atRun bool) spec.Diagnostics {
	var diags spec.Diagnostics
	pos := s.Pos
	if p, ok := s.Config.Pos["executor"]; ok {
		pos = p
	}
	name := cmp.Or(override, s.Config.Executor)
	if _, ok := agent.Canonical(name); !ok {
		if override == "" {
			fix := "use one of: " + strings.Join(agent.Names(), ", ") + ", or run with --executor"
			if s := spec.Suggest(name, agent.Names()); s != "" {
				fix = "did you mean `" + s + "`? " + fix
			}
			what := "executor %q is not available in this build of skillgate"
			if s.Format == "vally" {
				// A name Vally does not ship either is an --executor-plugin's.
				what = "executor %q is not available in this build of skillgate (a Vally --executor-plugin? skillgate cannot load one)"
			}
			key := cmp.Or(s.Config.ExecutorKey, "config.executor")
			if atRun {
				diags = append(diags, spec.Warnf(pos, key, fix, what+"; its runs need --executor", name).OfMachine())
			} else {
				diags = append(diags, spec.Errorf(pos, key, fix, what, name))
			}
		}
		// An unknown --executor is reported once, by the command.
	} else if settings, err := executorSettings(s); err != nil {
		diags = append(diags, spec.Errorf(pos, "config", "", "%v", err))
	} else if err := agent.ValidateSettings(name, settings); err != nil {
		at := pos
		for _, key := range []string{"command", "executors"} {
			if n, ok := s.Config.Extra[key]; ok {
				at = n.Pos()
			}
		}
		diags = append(diags, spec.Errorf(at, "config", "see docs/agents.md", "%v", err))
	}
	for _, m := range s.Metrics {
		if m.Enabled && strings.HasPrefix(m.Name, "trigger_") && s.TriggerTests == nil {
			diags = append(diags, spec.Warnf(m.Pos, "metrics", "add trigger_tests.yaml next to eval.yaml",
				"metric %s needs trigger tests, and this suite has none: it will not gate", m.Name))
		}
	}
	for _, t := range s.Tasks {
		// A skill-creator eval without checks is normal (prompts come first): it is listed as
		// not graded, not passed (results.TaskResult.GradedByChecks).
		if len(t.Graders) == 0 && !t.Unvalidated && s.Format != spec.FormatSkillCreator {
			diags = append(diags, spec.Warnf(t.Pos, "graders", "add graders to the task or the suite",
				"task %q has no graders: it passes whatever the agent does", t.ID))
		}
	}
	return diags
}

// ExecutorOptions override how a suite's executor is built (CLI flags, Action inputs).
type ExecutorOptions struct {
	Name       string   // --executor; default config.executor
	Path       string   // --agent-path
	Args       []string // --agent-arg
	ReplayFrom string   // --from
	Log        io.Writer
}

// NewExecutor builds the executor a suite runs with. Settings come from eval.yaml's config block
// (every key the spec package does not interpret itself, e.g. `command`, `executors`), the
// binary path and arguments from flags, else SKILLGATE_AGENT_PATH / the config.
func NewExecutor(s *spec.Suite, o ExecutorOptions) (agent.Executor, error) {
	name := s.Config.Executor
	if o.Name != "" {
		name = o.Name
	}
	settings, err := executorSettings(s)
	if err != nil {
		return nil, err
	}
	opts := agent.Options{Path: o.Path, Args: o.Args, Settings: settings, ReplayFrom: o.ReplayFrom, Suite: s.Name, Log: o.Log}
	if opts.Path == "" {
		if p, ok := settings["agent_path"].(string); ok && p != "" {
			opts.Path = p
			if !filepath.IsAbs(p) && strings.ContainsRune(p, filepath.Separator) {
				opts.Path = filepath.Join(s.Dir, p)
			}
		}
	}
	if len(opts.Args) == 0 {
		if args, ok := settings["agent_args"].([]any); ok {
			for _, a := range args {
				opts.Args = append(opts.Args, fmt.Sprint(a))
			}
		}
	}
	if opts.ReplayFrom != "" {
		if _, err := os.Stat(opts.ReplayFrom); err != nil {
			return nil, fmt.Errorf("--from: %w", err)
		}
	}
	exec, err := agent.New(name, opts)
	if err != nil {
		return nil, err
	}
	if p, ok := exec.(agent.Preflighter); ok {
		if err := p.Preflight(); err != nil {
			return nil, err
		}
	}
	return exec, nil
}

// executorSettings decodes the config keys executors read: every key the spec package keeps in
// Config.Extra, with config.executors.<name> also lifted to <name>, where each agent looks.
func executorSettings(s *spec.Suite) (map[string]any, error) {
	settings := map[string]any{}
	for key, node := range s.Config.Extra {
		var v any
		if err := node.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s: config.%s: %w", node.Pos(), key, err)
		}
		settings[key] = v
	}
	if per, ok := settings["executors"].(map[string]any); ok {
		for name, v := range per {
			if _, clash := settings[name]; !clash {
				settings[name] = v
			}
		}
	}
	return settings, nil
}

// searchRoot is the command-line folder a suite file was found in (the deepest, when several
// hold it), "" when it was named as a file.
func searchRoot(paths []string, file string) string {
	best := ""
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			continue
		}
		if r, err := filepath.Rel(abs, file); err == nil && !strings.HasPrefix(r, "..") && len(abs) > len(best) {
			best = abs
		}
	}
	return best
}

// AgentAsk is the suite's agent CLI as a judge (graders.Ask, `--judge agent`): each question runs
// the agent once, without the skill, in an empty scratch folder, and its final answer is the
// reply. why says why there is none (the executor is the mock or replay, or cannot be built).
func AgentAsk(s *spec.Suite, o ExecutorOptions) (ask graders.Ask, why string) {
	ex, err := NewExecutor(s, o)
	if err != nil {
		return nil, err.Error()
	}
	switch ex.Name() {
	case "mock", "replay":
		return nil, "the " + ex.Name() + " executor is no agent CLI to judge with"
	}
	timeout := time.Duration(s.Config.TimeoutSeconds) * time.Second
	return func(ctx context.Context, system, user string) (string, error) {
		dir, err := os.MkdirTemp("", reap.WorkspacePrefix()+"judge-*")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(dir)
		runCtx, cancel := context.WithTimeout(ctx, timeout+deadlineGrace(timeout))
		defer cancel()
		run, err := ex.Run(runCtx, &agent.Request{Prompt: system + "\n\n" + user, Workspace: dir, Model: s.Config.Model,
			Timeout: timeout, Suite: s.Name, TaskID: "pairwise-judge", Trial: 1})
		if err != nil {
			return "", fmt.Errorf("the agent as judge: %w", err)
		}
		return run.FinalOutput, nil
	}, ""
}
