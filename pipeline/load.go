package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
	"github.com/skillgate/skillgate/spec"
)

// Plan is what an evaluation runs: the suites Load found ready to run, what loading said about
// them and the settings they run with — or results already written (Results) that Evaluate
// compares and publishes without running anything.
type Plan struct {
	// Suites are the suites that loaded without errors, in order.
	Suites []*Suite
	// Diags are every problem of the suites and of the labels file.
	Diags spec.Diagnostics

	settings Settings
	loaded   *runner.Loaded
	// stopped and broken are Stopped and Broken, decided as the suites load (a later selection
	// of suites changes neither).
	stopped, broken bool
	// heads are the results of a plan that runs nothing (Results).
	heads []Head
}

// Suite is one suite of a plan.
type Suite struct {
	prepared *runner.Prepared
	// split is the baseline whose durations split a shard's tasks (nil: by hash, or no shard);
	// asked says the split asked for it.
	split *Baseline
	asked bool
	// recorded, in a plan of LoadRecorded, is the collected run the suite is graded on again.
	recorded *Recorded
}

// Name is the suite's name, which names its results file (results.PathIn).
func (s *Suite) Name() string { return s.prepared.Suite.Name }

// File is the suite's file (eval.yaml, a Vally spec, evals.json), absolute.
func (s *Suite) File() string { return s.prepared.Suite.File }

// Dir is the folder of the suite's file.
func (s *Suite) Dir() string { return s.prepared.Suite.Dir }

// Split is the baseline a shard's split found for the suite (nil: none, or the run is not
// sharded); byDurations says its durations split the tasks longest first (else: by hash).
func (s *Suite) Split() (base *Baseline, byDurations bool) {
	if s.split == nil || s.split.Result == nil {
		return s.split, false
	}
	return s.split, len(runner.TaskDurations(s.split.Result)) > 0
}

// Spec is the loaded suite, for the commands that look inside it (validate, doctor).
func (s *Suite) Spec() *spec.Suite { return s.prepared.Suite }

// Doomed lists what the suite will fail at when it runs (runner.Doomed).
func (s *Suite) Doomed() (tasks, other []string) { return runner.Doomed(s.prepared) }

// LabelsError is a labels file with errors: nothing is loaded.
type LabelsError struct{ Diags spec.Diagnostics }

func (e *LabelsError) Error() string {
	return fmt.Sprintf("the labels file has %d error(s)", len(e.Diags.Errors()))
}

// SelectionError is a Vally suite (Settings.VallySuite) that cannot select anything.
type SelectionError struct{ Err error }

func (e *SelectionError) Error() string { return e.Err.Error() }
func (e *SelectionError) Unwrap() error { return e.Err }

// BaselineError is a baseline source that failed: a baseline the user named is unusable.
type BaselineError struct{ Err error }

func (e *BaselineError) Error() string { return e.Err.Error() }
func (e *BaselineError) Unwrap() error { return e.Err }

// Load discovers the suites under paths (files, or folders searched recursively), loads and
// validates each and compiles its graders with the settings' judge and labels. A broken suite
// is listed in Diags and left out; the others load. A shard loads in full only the tasks it
// runs, split longest first by the durations of the baselines Settings.Baselines finds before
// anything runs (each suite as it loads).
//
// err is a *LabelsError (nothing loaded) or a path that cannot be searched (nil plan). A
// *SelectionError or a *BaselineError comes with the plan, so the adapter can show what loading
// found before saying why nothing runs.
func Load(paths []string, s Settings) (*Plan, error) {
	plan := &Plan{settings: s}
	opts, labelDiags, err := s.loadOptions()
	if err != nil {
		return nil, err
	}
	plan.Diags = labelDiags
	split := plan.newSplit()
	// A shard loads in full only its own tasks; the split it loads with is the one it runs.
	// VallySuite picks tasks after loading, which changes the split: such a shard loads
	// everything and is split once the suite is picked.
	if s.Shard != nil && s.VallySuite == "" {
		opts.Shard = s.Shard
		opts.ShardDurations = split.ask
	}
	loaded, err := runner.Load(paths, opts)
	if err != nil {
		return nil, err
	}
	plan.loaded = loaded
	for _, p := range loaded.Suites {
		plan.Suites = append(plan.Suites, &Suite{prepared: p})
	}
	if opts.Labels != nil {
		suites := make([]*spec.Suite, len(loaded.Suites))
		for i, p := range loaded.Suites {
			suites[i] = p.Suite
		}
		use := opts.Labels.CheckTasks(suites)
		plan.Diags = append(append(plan.Diags, loaded.Diags...), use...)
		plan.stopped = use.HasErrors()
	} else {
		plan.Diags = append(plan.Diags, loaded.Diags...)
	}
	if plan.Diags.HasErrors() {
		plan.stopped = plan.stopped || len(plan.Suites) == 0
		plan.broken = !plan.stopped
	}
	if s.VallySuite == "" {
		plan.Diags = append(plan.Diags, vallyProjectWarnings(plan.Suites)...)
	}
	if s.VallySuite != "" && len(plan.Suites) > 0 {
		if err := plan.selectVallySuite(paths); err != nil {
			return plan, &SelectionError{Err: err}
		}
	}
	if err := split.finish(plan.Suites); err != nil {
		return plan, &BaselineError{Err: err}
	}
	return plan, nil
}

// loadOptions are the runner's load options of the settings. The labels file is read here:
// diags are its problems, and an error among them is a *LabelsError.
func (s *Settings) loadOptions() (runner.LoadOptions, spec.Diagnostics, error) {
	opts := runner.LoadOptions{
		ContextDir: s.ContextDir, Judge: s.Judge.options(), Executor: s.Executor, ExecutorAtRun: s.ExecutorAtRun,
		Skip: s.Skip, Experiments: s.Experiments,
	}
	if s.DeferJudges {
		opts.Override = deferJudges
	}
	if s.Labels == "" {
		return opts, nil, nil
	}
	labels, diags := graders.LoadLabels(s.Labels)
	if diags.HasErrors() {
		return opts, diags, &LabelsError{Diags: diags}
	}
	opts.Labels = labels
	if labels != nil && labels.Unlabeled > 0 {
		fmt.Fprintf(s.log(), "%s: %d entries are not labelled yet (pass: null); those grades stay pending\n", s.Labels, labels.Unlabeled)
	}
	return opts, diags, nil
}

// Results is a plan of results already written (merged shards, imported results, results
// files given to `skillgate report`): Evaluate compares and publishes them and runs nothing.
func Results(heads []Head, s Settings) *Plan {
	if heads == nil {
		heads = []Head{}
	}
	return &Plan{settings: s, heads: heads, loaded: &runner.Loaded{Found: &spec.Found{}}}
}

// WithResults is the plan's suites with results already written instead of a run (the merge of
// a matrix's shards): the suites serve the baselines that need them (a committed file, a rerun),
// confirmation and the pairwise comparison.
func (p *Plan) WithResults(heads []Head) *Plan {
	c := *p
	if heads == nil {
		heads = []Head{}
	}
	c.heads = heads
	return &c
}

// Only is the plan with only the given suites of it (the suites a change affects).
func (p *Plan) Only(suites []*Suite) *Plan {
	c := *p
	c.Suites = suites
	return &c
}

// Loads counts the suites found to load: the suite files, and each configuration of a Vally
// experiment; 0 means nothing to run.
func (p *Plan) Loads() int { return p.loaded.Loads }

// Skipped counts the files found that are not suites (another tool's eval.yaml, a workflow).
func (p *Plan) Skipped() int { return len(p.loaded.Found.Skipped) }

// SkippedLine names the files skipped as not suites in one line ("" when none).
func (p *Plan) SkippedLine() string { return p.loaded.Found.SkippedLine() }

// NoSuiteError says that paths hold no suite, naming what was skipped.
func (p *Plan) NoSuiteError(paths []string) error { return p.loaded.NoSuiteError(paths) }

// BrokenLine names the suites that have errors and do not run in one line ("" when none).
func (p *Plan) BrokenLine() string { return p.loaded.BrokenLine() }

// Stopped: the problems leave nothing meaningful to run (every suite has errors, or the labels
// name tasks no suite has).
func (p *Plan) Stopped() bool { return p.stopped }

// Broken: a suite has errors and does not run, while the others do; the run cannot pass.
func (p *Plan) Broken() bool { return p.broken }

// Selected counts the tasks and trigger prompts the settings' --task and --tags select in
// every suite.
func (p *Plan) Selected() int {
	n := 0
	for _, s := range p.Suites {
		n += runner.Selected(s.prepared.Suite, p.settings.TaskGlobs, p.settings.TagGlobs)
	}
	return n
}

// Problem is one problem of the suites as an adapter shows it.
type Problem struct {
	Warning bool
	// File is the file it is in (absolute); Line and Col count from 1, 0 when unknown.
	File      string
	Line, Col int
	// Key is the key path of the problem ("config.trials_per_task"); Fix what to write instead.
	Key, Message, Fix string
	// Text is the whole problem on one line, file:line:col first.
	Text string
}

// Problems are Diags as adapters show them.
func (p *Plan) Problems() []Problem {
	out := make([]Problem, len(p.Diags))
	for i, d := range p.Diags {
		out[i] = Problem{Warning: d.Severity == spec.SevWarning, File: d.Pos.File, Line: d.Pos.Line, Col: d.Pos.Col,
			Key: d.Key, Message: d.Message, Fix: d.Fix, Text: d.Error()}
	}
	return out
}

func (p *Plan) prepared() []*runner.Prepared {
	out := make([]*runner.Prepared, len(p.Suites))
	for i, s := range p.Suites {
		out[i] = s.prepared
	}
	return out
}

// vallyProjectWarnings are the warnings of each .vally.yaml that governs a Vally spec of the
// plan, once per file: without --suite nothing else reads its suites and paths, so a key Vally
// does not have would never be reported. Only warnings: a run without --suite does not need
// the file, and the specs that name its environments report what they cannot find.
func vallyProjectWarnings(suites []*Suite) spec.Diagnostics {
	var out spec.Diagnostics
	seen := map[string]bool{}
	for _, s := range suites {
		if s.Spec().Format != "vally" || seen[s.Dir()] {
			continue
		}
		seen[s.Dir()] = true
		project, diags := spec.FindVallyProject(s.Dir())
		if project == nil || seen[project.File] {
			continue
		}
		seen[project.File] = true
		for _, d := range diags {
			if d.Severity == spec.SevWarning {
				out = append(out, d)
			}
		}
	}
	return out
}

// selectVallySuite keeps what the named suite of .vally.yaml selects: the spec files its
// `evals` globs match, and in them the stimuli its tag filter matches (docs/vally.md).
func (p *Plan) selectVallySuite(paths []string) error {
	name := p.settings.VallySuite
	start := "."
	if len(paths) > 0 {
		start = paths[0]
	}
	dir, err := filepath.Abs(start)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		dir = filepath.Dir(dir)
	}
	project, diags := spec.FindVallyProject(dir)
	if diags.HasErrors() {
		return diags.Errors()[0]
	}
	// What .vally.yaml gets wrong (a filter that cannot match) is shown with the suites' own
	// problems, before a selection that comes out empty is reported.
	p.Diags = append(p.Diags, diags...)
	if project == nil {
		return fmt.Errorf("no .vally.yaml in %s or above it", dir)
	}
	vs, ok := project.Suites[name]
	if !ok {
		return fmt.Errorf("%s has no suite %q (suites: %s)", project.File, name, strings.Join(project.SuiteNames(), ", "))
	}
	var out []*Suite
	stimuli := 0
	for _, s := range p.Suites {
		suite := s.prepared.Suite
		if !vs.Selects(project.Root, suite.File) {
			continue
		}
		var kept []*spec.Task
		for _, t := range suite.Tasks {
			if vs.Matches(t.Tags) {
				kept = append(kept, t)
			}
		}
		if len(kept) == 0 {
			continue
		}
		suite.Tasks = kept
		suite.TriggerTests = nil
		stimuli += len(kept)
		out = append(out, s)
	}
	if stimuli == 0 {
		return fmt.Errorf("suite %q of %s selects no stimulus", name, project.File)
	}
	p.Suites = out
	return nil
}

// split is a shard's longest-first split: each suite's baseline, asked of the settings'
// baseline source before anything runs, gives its tasks' durations (runner.TaskDurations); a
// suite without one is split by hash. Every shard of a matrix asks on its own; the split's plan
// goes into the results, so the merge refuses shards that saw different baselines.
type split struct {
	plan  *Plan
	found map[string]*Baseline // by suite name
	asked map[string]bool
	err   error
}

func (p *Plan) newSplit() *split {
	return &split{plan: p, found: map[string]*Baseline{}, asked: map[string]bool{}}
}

// ask is runner.LoadOptions.ShardDurations: the durations of suite's baseline (nil: by hash).
// dir is its file's folder, suites the number of suite files found.
func (sp *split) ask(suite, dir string, suites int) map[string]int64 {
	sp.asked[suite] = true
	src := sp.plan.settings.Baselines
	if src == nil || sp.err != nil {
		return nil
	}
	found, err := src.Baselines(context.Background(), Query{Suites: []Wanted{{Name: suite, Dir: dir}}, Total: suites, BeforeRun: true})
	if err != nil {
		sp.err = err
		return nil
	}
	b := found[suite]
	if b == nil || b.Result == nil {
		return nil
	}
	sp.found[suite] = b
	return runner.TaskDurations(b.Result)
}

// finish asks for the suites the loader did not ask about (those without task files, Vally's;
// every suite of a split decided after VallySuite picked its tasks) and records each suite's
// baseline.
func (sp *split) finish(suites []*Suite) error {
	if sp.plan.settings.Shard == nil {
		return nil
	}
	for _, s := range suites {
		if !sp.asked[s.Name()] {
			sp.ask(s.Name(), s.Dir(), len(suites))
		}
		if sp.err != nil {
			return sp.err
		}
		s.asked = true
		s.split = sp.found[s.Name()]
	}
	return nil
}

// durations are each suite's task durations for the run's split, by suite name: the ones it
// was loaded with.
func (p *Plan) durations() map[string]map[string]int64 {
	if p.settings.Shard == nil {
		return nil
	}
	out := map[string]map[string]int64{}
	for _, s := range p.Suites {
		if s.split != nil && s.split.Result != nil {
			if d := runner.TaskDurations(s.split.Result); len(d) > 0 {
				out[s.Name()] = d
			}
		}
	}
	return out
}

// deferredFeedback is the pending grade's reason in a collecting run.
const deferredFeedback = "Deferred to the report workflow: LLM judges do not run on pull requests from forks (read-only token, no secrets, no models permission)"

// deferJudges is the collecting run's grader override: every LLM judge becomes a pending grade,
// which scores as neither pass nor fail, so the run's own gate and figures do not count it; the
// report workflow grades it on the recorded run.
func deferJudges(_ *spec.Grader, t *graders.Type) graders.Grader {
	if !t.Judge {
		return nil
	}
	return graders.GraderFunc(func(context.Context, *graders.Input) (*results.GraderResult, error) {
		return &results.GraderResult{Status: results.StatusPending, Feedback: deferredFeedback,
			Details: map[string]any{results.DeferredKey: "report"}}, nil
	})
}
