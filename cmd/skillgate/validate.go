package main

import (
	"fmt"
	"strconv"

	gha "github.com/sethvargo/go-githubactions"

	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/internal/ghlog"
	"github.com/skillgate/skillgate/runner"
	"github.com/skillgate/skillgate/spec"
)

func (a *app) cmdValidate(args []string) int {
	spec.PrepareSchemas() // compiling overlaps reading the flags and the suite files
	fs := newFlagSet("validate", "validate [--strict] [--context-dir DIR] [--experiment FILE] PATH...", a.stderr)
	contextDir := fs.String("context-dir", "", "fixtures folder instead of each suite's fixtures/")
	var experiments argList
	fs.Var(&experiments, "experiment", "also validate the Vally experiment `FILE` and its specs under each variant (repeatable)")
	strict := fs.Bool("strict", false, "treat every warning of the suite as an error (unknown keys, ignored values, graders that check nothing); what this machine lacks, such as a judge token, stays a warning")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return exitUsage
	}
	if len(paths) == 0 && len(experiments) == 0 {
		paths = []string{"."}
	}
	// No cache folder: validating asks no judge anything.
	prepared, diags, err := runner.LoadSuitesWith(paths, runner.LoadOptions{ContextDir: *contextDir, Judge: &graders.JudgeOptions{Getenv: a.getenv}, Experiments: experiments})
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate: %v\n", err)
		return exitUsage
	}
	if *strict {
		diags = diags.Strict()
	}
	a.printDiagnostics(diags)
	if diags.HasErrors() {
		fmt.Fprintf(a.stderr, "%d error(s), %d warning(s)\n", len(diags.Errors()), len(diags)-len(diags.Errors()))
		return exitUsage
	}
	tasks := 0
	for _, p := range prepared {
		tasks += len(p.Suite.Tasks)
	}
	fmt.Fprintf(a.stdout, "%d suite(s), %d task(s): valid", len(prepared), tasks)
	if n := len(diags); n > 0 {
		fmt.Fprintf(a.stdout, " (%d warning(s))", n)
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
