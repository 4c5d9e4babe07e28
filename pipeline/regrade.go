package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/graders/judge"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/runner"
	"github.com/skillgate/skillgate/spec"
)

// Recorded is one suite of a collected run (the fork-safe flow's first phase) to grade again on
// its recorded runs: the report workflow's evaluation (docs/action.md#pull-requests-from-forks).
type Recorded struct {
	// File is its suite file in the tree the suites were unpacked into.
	File string
	// Result is the collected run's results of the suite.
	Result *results.SuiteResult
	// Commit is the commit the collected run ran (the pull request's head), recorded in the
	// provenance; Source says where the runs were recorded, in config.replay_from.
	Commit, Source string

	tree, collected string
}

// RefusedError is a collected run that cannot be graded again: its suite files have errors,
// are not the suites recorded, or reach outside the tree.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

func refused(format string, args ...any) error {
	return &RefusedError{Msg: fmt.Sprintf(format, args...)}
}

// LoadRecorded loads the suites of a collected run from tree, where nothing outside is read, to
// be graded again by Evaluate on the runs recorded in each Recorded.Result (written to collected,
// which the replay executor serves). Nothing of the run is trusted or executed: no hook runs;
// graders that run programs, read the workspace only the collecting run had, or read documents
// outside the tree give their recorded results; the LLM judges grade the recorded outputs, at
// the settings' judge endpoint only (never one the suite names, nor its api_key_env).
//
// A refusal is a *RefusedError; the plan comes with it, its Diags holding the problems found so
// far, so the adapter can show them.
func LoadRecorded(tree, collected string, suites []Recorded, s Settings) (*Plan, error) {
	plan := &Plan{settings: s, loaded: &runner.Loaded{Found: &spec.Found{}}}
	base, _, err := s.loadOptions()
	if err != nil {
		return plan, err
	}
	for _, rec := range suites {
		name := rec.Result.EvalName
		if err := results.WriteFile(results.PathIn(collected, name), rec.Result); err != nil {
			return plan, err
		}
		opts := base
		opts.Executor = "" // the replay executor serves the runs: the suite's own is checked, as collected
		opts.Override = regradeOverride(rec.Result, tree)
		opts.Judge = s.pinnedJudge()
		opts.Root = tree // nothing outside the tree is read, not even to refuse it
		shown := filepath.ToSlash(rel(tree, rec.File))
		prepared, diags, err := runner.LoadSuitesWith([]string{rec.File}, opts)
		if err != nil {
			return plan, refused("suite %s: %v", name, err)
		}
		plan.Diags = append(plan.Diags, diags...)
		plan.loaded.Loads++
		if diags.HasErrors() {
			return plan, refused("suite %s: %d error(s) in the bundled suite files, first: %s", name, len(diags.Errors()), diags.Errors()[0].Error())
		}
		if len(prepared) != 1 || prepared[0].Suite.Name != name {
			return plan, refused("%s is not the suite %s", shown, name)
		}
		if err := confined(prepared[0].Suite, tree); err != nil {
			return plan, refused("suite %s: %v", name, err)
		}
		rec.tree, rec.collected = tree, collected
		plan.Suites = append(plan.Suites, &Suite{prepared: prepared[0], recorded: &rec})
	}
	return plan, nil
}

func rel(root, path string) string {
	if r, err := filepath.Rel(root, path); err == nil {
		return r
	}
	return path
}

// pinnedJudge pins the judge endpoint and its key to the settings (the judge base URL,
// SKILLGATE_JUDGE_BASE_URL, else GitHub Models): a collected suite's config.judge could otherwise
// send the judge requests anywhere, with any environment variable it names (api_key_env) as the
// key. Only the judge's own variables are visible to the graders.
func (s *Settings) pinnedJudge() *graders.JudgeOptions {
	c := *s.Judge.options()
	getenv := c.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	c.BaseURL = orWord(c.BaseURL, orWord(getenv("SKILLGATE_JUDGE_BASE_URL"), judge.GitHubModelsURL))
	c.Getenv = func(k string) string {
		switch k {
		case "SKILLGATE_JUDGE_API_KEY", "SKILLGATE_JUDGE_MODEL", "GITHUB_TOKEN":
			return getenv(k)
		}
		return ""
	}
	return &c
}

// gradeKey finds a recorded grade.
type gradeKey struct {
	task    string
	trial   int
	noSkill bool
	grader  string
}

// regradeOverride decides, for each grader of a collected suite, whether it runs again:
// programs (script, program) and graders of the workspace only the collecting run had (file,
// diff) give their recorded results; so does a grader that reads documents outside the tree
// (Type.Files: a json_schema grader whose schema refers to anything but itself); an LLM judge
// whose rubric file lies outside the tree is an error (its content would go to the judge).
// Everything else runs, in process.
func regradeOverride(recorded *results.SuiteResult, tree string) func(*spec.Grader, *graders.Type) graders.Grader {
	grades := map[gradeKey]*results.GraderResult{}
	index := func(s *results.SuiteResult, noSkill bool) {
		for _, t := range s.Tasks {
			for i, run := range t.Runs {
				trial := run.Trial(i)
				for _, v := range run.Validations {
					grades[gradeKey{t.ID, trial, noSkill, v.Name}] = v
				}
			}
		}
	}
	index(recorded, false)
	if recorded.BaselineOutcome != nil {
		index(recorded.BaselineOutcome, true)
	}
	return func(def *spec.Grader, t *graders.Type) graders.Grader {
		switch {
		case t.Executes:
			return recordedGrader(def, grades, "it runs programs, which the report workflow never does")
		case t.ReadsWorkspace && !t.Judge:
			return recordedGrader(def, grades, "it reads the run's workspace, which only the collecting run had")
		case t.Judge:
			if file := outsideTree(def, t, tree); file != "" {
				return graders.GraderFunc(func(context.Context, *graders.Input) (*results.GraderResult, error) {
					return nil, fmt.Errorf("the file %s lies outside the suite's files in the bundle; the report workflow sends nothing else to the judge", file)
				})
			}
		case outsideTree(def, t, tree) != "":
			return recordedGrader(def, grades, "it refers to documents outside the suite's files in the bundle")
		}
		return nil
	}
}

// recordedGrader serves a grader's result from the collected run.
func recordedGrader(def *spec.Grader, grades map[gradeKey]*results.GraderResult, why string) graders.Grader {
	return graders.GraderFunc(func(_ context.Context, in *graders.Input) (*results.GraderResult, error) {
		v := grades[gradeKey{in.Task.ID, in.Trial, in.NoSkill, def.Name}]
		if v == nil {
			return nil, fmt.Errorf("the collected run has no result of grader %s for task %s trial %d (%s, so its result must come from there)", def.Name, in.Task.ID, in.Trial, why)
		}
		c := *v
		c.Details = map[string]any{}
		for k, val := range v.Details {
			c.Details[k] = val
		}
		c.Details["recorded"] = "the collecting run's result: " + why
		if c.Status == results.StatusError {
			return &c, errors.New(strings.TrimPrefix(c.Feedback, "grader could not run: "))
		}
		return &c, nil
	})
}

// outsideTree returns the first thing grading def reads (Type.Files) that is not a file in the
// tree, or "".
func outsideTree(def *spec.Grader, t *graders.Type, tree string) string {
	if t.Files == nil {
		return ""
	}
	for _, f := range t.Files(def) {
		if !filepath.IsAbs(f) || !within(tree, f) {
			return f
		}
	}
	return ""
}

// confined checks that everything a loaded suite read or will read lies in the tree: a suite
// file naming a path outside it (../../etc/…) could otherwise put a runner file into a prompt
// the judge reads.
func confined(s *spec.Suite, tree string) error {
	check := func(what, p string) error {
		if p != "" && !within(tree, p) {
			return fmt.Errorf("%s %s lies outside the suite's files in the bundle", what, p)
		}
		return nil
	}
	var errs []error
	for _, f := range s.Files {
		errs = append(errs, check("the suite file", f))
	}
	errs = append(errs, check("the fixtures folder", s.ContextDir))
	for _, d := range s.Config.SkillDirectories {
		errs = append(errs, check("the skill folder", d))
	}
	for _, t := range s.Tasks {
		errs = append(errs, check("the fixtures folder of task "+t.ID, t.ContextDir))
		for _, f := range t.Files {
			if !f.HasContent {
				errs = append(errs, check("the input file of task "+t.ID, f.Source))
			}
		}
	}
	return errors.Join(errs...)
}

// within reports whether path is root or inside it.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
