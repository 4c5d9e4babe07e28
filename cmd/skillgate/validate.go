package main

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	gha "github.com/sethvargo/go-githubactions"

	"github.com/skillgate/skillgate/internal/ghlog"
	"github.com/skillgate/skillgate/pipeline"
	"github.com/skillgate/skillgate/spec"
)

func (a *app) cmdValidate(args []string) int {
	spec.PrepareSchemas() // compiling overlaps reading the flags and the suite files
	fs := newFlagSet("validate", "validate [--strict [--allow KIND]...] [--executor NAME] [--context-dir DIR] [--experiment FILE] PATH...", a.stderr)
	contextDir := fs.String("context-dir", "", "fixtures folder instead of each suite's fixtures/")
	executor := fs.String("executor", "", "validate for the executor every suite will run with (as run --executor); without it, a suite's own executor this build lacks is a warning")
	var experiments argList
	fs.Var(&experiments, "experiment", "also validate the Vally experiment `FILE` and its specs under each variant (repeatable)")
	strict := fs.Bool("strict", false, "treat every warning of the suite as an error (unknown keys, ignored values, graders that check nothing); what this machine lacks, such as a judge token, stays a warning")
	var allow stringList
	fs.Var(&allow, "allow", "with --strict, keep the warnings of this `KIND` as warnings (repeatable): "+strings.Join(spec.Kinds, ", "))
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return usageExit(err)
	}
	if len(paths) == 0 && len(experiments) == 0 {
		paths = []string{"."}
	}
	for _, k := range allow {
		if !slices.Contains(spec.Kinds, k) {
			fmt.Fprintf(a.stderr, "skillgate validate: --allow %q: the kinds are %s\n", k, strings.Join(spec.Kinds, ", "))
			return exitUsage
		}
	}
	if _, ok := pipeline.CanonicalExecutor(*executor); *executor != "" && !ok {
		fmt.Fprintf(a.stderr, "skillgate validate: --executor %q: the executors are %s\n", *executor, strings.Join(pipeline.ExecutorNames(), ", "))
		return exitUsage
	}
	if len(allow) > 0 && !*strict {
		fmt.Fprintln(a.stderr, "skillgate validate: --allow goes with --strict")
		return exitUsage
	}
	// No cache folder: validating asks no judge anything.
	// The executor is chosen when the suites run: validate checks the one --executor names, or
	// warns that a suite's own is not in this build.
	settings := pipeline.Settings{ContextDir: *contextDir, Judge: &pipeline.JudgeSettings{Getenv: a.getenv}, Experiments: experiments,
		Executor: *executor, ExecutorAtRun: *executor == ""}
	plan, err := pipeline.Load(paths, settings)
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	}
	if code, done := a.nothingToRun(plan, paths); done {
		return code
	}
	suites, diags := plan.Suites, plan.Diags
	if *strict {
		diags = diags.StrictAllow(allow)
	}
	a.printDiagnostics(diags)
	if diags.HasErrors() {
		if line := plan.BrokenLine(); line != "" && len(suites) > 0 {
			fmt.Fprintf(a.stderr, "%s; the other %d suite(s) are valid\n", line, len(suites))
		}
		fmt.Fprintf(a.stderr, "%d error(s), %d warning(s)\n", len(diags.Errors()), len(diags)-len(diags.Errors()))
		return exitUsage
	}
	tasks := 0
	for _, s := range suites {
		tasks += len(s.Spec().Tasks)
	}
	fmt.Fprintf(a.stdout, "%d suite(s), %d task(s): valid", len(suites), tasks)
	if n := len(diags); n > 0 {
		fmt.Fprintf(a.stdout, " (%d warning(s))", n)
	}
	// Valid is not the same as able to pass: say what the warnings doom.
	var doomed, other []string
	for _, s := range suites {
		d, o := s.Doomed()
		doomed, other = append(doomed, d...), append(other, o...)
	}
	if len(doomed) > 0 {
		fmt.Fprintf(a.stdout, ", but %d task(s) will error when run: %s", len(doomed), strings.Join(doomed, "; "))
	}
	switch {
	case len(other) > 0 && len(doomed) > 0:
		fmt.Fprintf(a.stdout, "; and %s", strings.Join(other, "; "))
	case len(other) > 0:
		fmt.Fprintf(a.stdout, ", but %s", strings.Join(other, "; "))
	}
	fmt.Fprintln(a.stdout)
	return exitOK
}

// printDiagnostics writes every problem as file:line:col; inside GitHub Actions it also emits a
// workflow command so the problem is annotated on the YAML line of the pull request.
func (a *app) printDiagnostics(diags spec.Diagnostics) {
	for _, d := range diags {
		fmt.Fprintln(a.stderr, d.Error())
		if a.inGitHubActions() {
			level := "error"
			if d.Severity == spec.SevWarning {
				level = "warning"
			}
			ghlog.Command(a.stdout, annotation(level, d).String())
		}
	}
}

// annotation is the workflow command that annotates a diagnostic at its file, line and column.
func annotation(level string, d spec.Diagnostic) *gha.Command {
	return &gha.Command{Name: level, Message: diagText(d), Properties: gha.CommandProperties{
		"file": d.Pos.DisplayFile(), "line": strconv.Itoa(max(d.Pos.Line, 1)), "col": strconv.Itoa(max(d.Pos.Col, 1)),
	}}
}

func diagText(d spec.Diagnostic) string {
	s := d.Message
	if d.Key != "" {
		s = d.Key + ": " + s
	}
	if d.Fix != "" {
		s += " (fix: " + d.Fix + ")"
	}
	return s
}
