package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/template"

	"github.com/skillgate/skillgate/action"
	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/spec"
)

// Workflow files `skillgate init` writes, relative to the repository.
const (
	initWorkflow       = ".github/workflows/skillgate.yml"
	initReportWorkflow = ".github/workflows/skillgate-report.yml"
)

// initPlan is what init found in the repository and writes into the workflows.
type initPlan struct {
	Suites []string // eval.yaml files, repository-relative
	Vally  []string // the suites of the repository's .vally.yaml, when it has one
	Skills []string // folders holding a SKILL.md, repository-relative
	// Skipped names the files that look like suites and are not (a workflow named eval.yml,
	// another tool's eval.yaml): the workflow's run skips them too.
	Skipped    string
	Judges     bool     // some suite has an LLM grader: the workflows need models: read
	Agents     []string // executors that need an agent CLI on the runner
	SuitesIn   []string // the suites input, when given
	Branch     string
	ActionRef  string // the action the evaluating job uses: the composite one when Agents need a CLI
	ReportRef  string // the action of the report workflow, which runs no agent
	CheckName  string
	ReportName string
	// Setups install the agent CLIs the suites need and map their keys from secrets.
	Setups []agentSetup
}

// cmdInit writes a ready workflow for the repository's suites, and the fork-safe report workflow
// that publishes pull requests from forks. It never overwrites without --force.
func (a *app) cmdInit(args []string) int {
	fs := newFlagSet("init", "init [flags]   (writes "+initWorkflow+" and "+initReportWorkflow+")", a.stderr)
	dir := fs.String("dir", ".", "the repository `DIR`")
	force := fs.Bool("force", false, "overwrite existing workflow files")
	branch := fs.String("branch", "", "the default `BRANCH` whose pushes record the baseline (default: the GitHub event's, else git's origin/HEAD, else main)")
	ref := fs.String("uses", "skillgate/skillgate@v1", "the action `REF` the workflows use (pin a release, e.g. skillgate/skillgate@v1.2.3)")
	var suites stringList
	fs.Var(&suites, "suites", "the suites input: suite files or folders to run (repeatable; default: every suite)")
	if err := fs.Parse(args); err != nil {
		return usageExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(a.stderr, "skillgate init: takes no arguments (got %q)\n", fs.Args())
		return exitUsage
	}
	branchFrom := "from --branch"
	if *branch == "" {
		*branch, branchFrom = a.defaultBranch(*dir)
	} else if !validBranch(*branch) {
		fmt.Fprintf(a.stderr, "skillgate init: --branch %q is not a branch name\n", *branch)
		return exitUsage
	}
	if !strings.Contains(*ref, "@") || strings.ContainsAny(*ref, " \t\n'\"") {
		fmt.Fprintf(a.stderr, "skillgate init: --uses %q is not OWNER/REPO@REF\n", *ref)
		return exitUsage
	}
	plan, err := planInit(*dir)
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate init: %v\n", err)
		return exitUsage
	}
	plan.Branch, plan.ActionRef, plan.ReportRef, plan.SuitesIn = *branch, *ref, *ref, suites
	for _, name := range plan.Agents {
		if s, ok := agentSetups[name]; ok {
			plan.Setups = append(plan.Setups, s)
		}
	}
	if len(plan.Agents) > 0 {
		plan.ActionRef = compositeRef(*ref)
	}
	plan.CheckName = action.CheckRunName(action.Key(filepath.Base(initWorkflow), ".", suites))
	plan.ReportName = strings.TrimSuffix(filepath.Base(initWorkflow), ".yml")
	files, err := renderInit(plan)
	if err != nil {
		fmt.Fprintf(a.stderr, "skillgate init: %v\n", err)
		return exitUsage
	}
	if !*force {
		var exist []string
		for _, name := range sortedNames(files) {
			if _, err := os.Stat(filepath.Join(*dir, filepath.FromSlash(name))); err == nil {
				exist = append(exist, name)
			}
		}
		if len(exist) > 0 {
			fmt.Fprintf(a.stderr, "skillgate init: %s already exist(s); nothing was written (rerun with --force to overwrite)\n", strings.Join(exist, ", "))
			return exitUsage
		}
	}
	for _, name := range sortedNames(files) {
		path := filepath.Join(*dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			fmt.Fprintf(a.stderr, "skillgate init: %v\n", err)
			return exitUsage
		}
		if err := os.WriteFile(path, files[name], 0o644); err != nil {
			fmt.Fprintf(a.stderr, "skillgate init: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(a.stdout, "wrote %s\n", name)
	}
	fmt.Fprintf(a.stdout, "\n%d suite(s): %s\n%d skill(s): %s\n", len(plan.Suites), orNone(plan.Suites), len(plan.Skills), orNone(plan.Skills))
	if plan.Skipped != "" {
		fmt.Fprintf(a.stdout, "Not suites, skipped (the workflow skips them too): %s.\n", plan.Skipped)
	}
	if len(plan.Suites) == 0 {
		fmt.Fprintln(a.stdout, "No suite yet: the workflow will run the suites you add (see docs/format.md).")
	}
	if plan.Vally != nil {
		fmt.Fprintf(a.stdout, "Found .vally.yaml: its specs run as skillgate suites in the workflow; `skillgate run --suite NAME` runs one of its suites (%s). Moving a `vally eval` job: docs/vally.md.\n", orNone(plan.Vally))
	}
	fmt.Fprintf(a.stdout, "Default branch: %s (%s); its pushes record the baseline.\n", plan.Branch, branchFrom)
	if len(plan.Agents) > 0 {
		fmt.Fprintf(a.stdout, "The suites use %s: the workflow uses the composite action (%s), which runs on the runner where it installs the agent CLI.\n", strings.Join(plan.Agents, ", "), plan.ActionRef)
		var secrets, vars []string
		for _, s := range plan.Setups {
			secrets = append(secrets, s.Secret)
			vars = append(vars, s.Vars...)
		}
		if len(secrets) > 0 {
			fmt.Fprintf(a.stdout, "Add the repository secret(s) %s (Settings → Secrets and variables → Actions); pull requests from forks get no secrets, so their agent runs error (docs/action.md#pull-requests-from-forks).\n", strings.Join(secrets, ", "))
		}
		if len(vars) > 0 {
			fmt.Fprintf(a.stdout, "Add the repository variable(s) %s (same page, Variables tab): the endpoint and model the agent CLI uses (docs/agents.md).\n", strings.Join(vars, ", "))
		}
	}
	fmt.Fprintf(a.stdout, "Next: commit both files to %s, then make the check %q required (branch protection or a ruleset).\n", plan.Branch, plan.CheckName)
	return exitOK
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "none"
	}
	return strings.Join(list, ", ")
}

func sortedNames(m map[string][]byte) []string {
	return slices.Sorted(maps.Keys(m))
}

// planInit finds the suites and skills of a repository.
func planInit(dir string) (*initPlan, error) {
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return nil, fmt.Errorf("--dir %s is not a folder", dir)
	}
	root, _ := filepath.Abs(dir)
	plan := &initPlan{}
	found, err := spec.Find([]string{root})
	if err != nil {
		return nil, err
	}
	files := found.Suites
	for i := range found.Skipped {
		if rel, err := filepath.Rel(root, found.Skipped[i].Path); err == nil {
			found.Skipped[i].Path = rel
		}
	}
	plan.Skipped = found.SkippedList()
	if _, err := os.Stat(filepath.Join(root, ".vally.yaml")); err == nil {
		plan.Vally = []string{}
		if p, _ := spec.LoadVallyProject(filepath.Join(root, ".vally.yaml")); p != nil {
			plan.Vally = p.SuiteNames()
		}
	}
	agents := map[string]bool{}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		plan.Suites = append(plan.Suites, filepath.ToSlash(rel))
		s, _ := spec.Load(f, spec.Options{})
		if s == nil {
			continue
		}
		var defs []*spec.Grader
		defs = append(defs, s.Graders...)
		for _, t := range s.Tasks {
			defs = append(defs, t.Graders...)
		}
		for _, g := range defs {
			if spec.IsJudge(g.Type) {
				plan.Judges = true
			}
		}
		name, _ := agent.Canonical(s.Config.Executor)
		switch name {
		case "", "mock", "replay", "command":
		default:
			agents[name] = true
		}
	}
	for a := range agents {
		plan.Agents = append(plan.Agents, a)
	}
	sort.Strings(plan.Agents)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if !d.IsDir() && d.Name() == "SKILL.md" {
			rel, _ := filepath.Rel(root, filepath.Dir(path))
			plan.Skills = append(plan.Skills, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(plan.Skills)
	return plan, err
}

// renderInit renders both workflows.
func renderInit(plan *initPlan) (map[string][]byte, error) {
	out := map[string][]byte{}
	for name, tmpl := range map[string]*template.Template{initWorkflow: evaluateWorkflow, initReportWorkflow: reportWorkflow} {
		var b bytes.Buffer
		if err := tmpl.Execute(&b, plan); err != nil {
			return nil, err
		}
		out[name] = b.Bytes()
	}
	if len(out) != 2 {
		return nil, errors.New("internal: templates missing")
	}
	return out, nil
}

var evaluateWorkflow = template.Must(template.New("evaluate").Parse(`# Written by ` + "`skillgate init`" + ` for {{len .Suites}} suite(s) and {{len .Skills}} skill(s):
{{- range .Suites}}
#   suite {{.}}
{{- end}}
{{- range .Skills}}
#   skill {{.}}
{{- end}}
# Pull requests from this repository and pushes run everything here: the agents, every grader,
# the comparison with {{.Branch}}, the sticky comment and the check run {{printf "%q" .CheckName}} (make it
# required). Pull requests from forks get a read-only token and no secrets: this workflow then
# collects their results (LLM judges deferred) and skillgate-report.yml publishes them.
# Every line is explained in docs/action.md (skillgate's repository).
name: skillgate
on:
  pull_request:
  push:
    branches: [{{.Branch}}]
permissions:
  contents: read        # checkout
  actions: read         # the baseline: {{.Branch}}'s results artifact
  pull-requests: write  # the sticky comment (read-only on forks: the report workflow comments)
  checks: write         # the check run to require (read-only on forks: the report workflow creates it)
{{- if .Judges}}
  models: read          # LLM judges on GitHub Models (none on forks: the report workflow judges)
{{- end}}
concurrency:
  group: skillgate-${{"{{"}} github.event.pull_request.number || github.ref {{"}}"}}
  cancel-in-progress: true
jobs:
  evals:
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      - uses: actions/checkout@v4
{{- if .Setups}}
      - uses: actions/setup-node@v4
        with:
          node-version: 22
{{- range .Setups}}
      - name: Install the {{.Executor}} agent CLI
        run: npm install -g {{.Package}}
{{- end}}
{{- end}}
      - name: Evaluate the skills
        uses: {{.ActionRef}}
{{- if .Setups}}
        env:
{{- range .Setups}}
          {{.Env}}: ${{"{{"}} secrets.{{.Secret}} {{"}}"}}
{{- range .Vars}}
          {{.}}: ${{"{{"}} vars.{{.}} {{"}}"}}
{{- end}}
{{- end}}
{{- end}}
        with:
          check-run: true
{{- if .SuitesIn}}
          suites: |
{{- range .SuitesIn}}
            {{.}}
{{- end}}
{{- end}}
      - name: Upload the results (the baseline of later pull requests; the bundle of a fork's)
        if: ${{"{{"}} !cancelled() {{"}}"}}
        uses: actions/upload-artifact@v4
        with:
          name: skillgate-results
          path: |
            .skillgate
            !.skillgate/cache/**
          include-hidden-files: true
          retention-days: 30
`))

var reportWorkflow = template.Must(template.New("report").Parse(`# Written by ` + "`skillgate init`" + `. Publishes pull requests from forks, which skillgate.yml
# collects without secrets or write access: when that workflow completes, this one (which runs
# from {{.Branch}}, with a write token) downloads the collected bundle, checks it, runs the LLM
# judges on the recorded runs, comments and creates the check run {{printf "%q" .CheckName}}.
# It never checks out or runs the pull request's code. Do not use pull_request_target for
# evaluations: it would run the pull request's code with this token (docs/action.md).
name: skillgate-report
on:
  workflow_run:
    workflows: [{{.ReportName}}]
    types: [completed]
permissions:
  actions: read         # the collected bundle and the baseline artifact
  contents: read        # the merge base (compare API)
  pull-requests: write  # the sticky comment
  checks: write         # the check run on the pull request's head commit
{{- if .Judges}}
  models: read          # LLM judges on GitHub Models
{{- end}}
jobs:
  report:
    if: github.event.workflow_run.event == 'pull_request'
    runs-on: ubuntu-latest
    timeout-minutes: 30
    steps:
      # No checkout: the bundle is read as data.
      - name: Publish the collected results
        uses: {{.ReportRef}}
        with:
          mode: report
`))
