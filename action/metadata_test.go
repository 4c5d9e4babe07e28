package action

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"

	"github.com/skillgate/skillgate/pipeline"
)

// metadataHeader holds the keys of an action's metadata that every kind of action has; the
// container and the composite action's types add their own runs.
type metadataHeader struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs  yaml.Node `yaml:"inputs"`
	Outputs yaml.Node `yaml:"outputs"`
}

// actionMetadata is action.yml with exactly the keys GitHub's action schema allows for a
// container action (KnownFields rejects anything else).
type actionMetadata struct {
	metadataHeader `yaml:",inline"`
	Runs           struct {
		Using          string            `yaml:"using"`
		Image          string            `yaml:"image"`
		Args           []string          `yaml:"args"`
		Env            map[string]string `yaml:"env"`
		Entrypoint     string            `yaml:"entrypoint"`
		PreEntrypoint  string            `yaml:"pre-entrypoint"`
		PostEntrypoint string            `yaml:"post-entrypoint"`
		PreIf          string            `yaml:"pre-if"`
		PostIf         string            `yaml:"post-if"`
	} `yaml:"runs"`
}

type inputMeta struct {
	Description        string  `yaml:"description"`
	Required           bool    `yaml:"required"`
	Default            *string `yaml:"default"`
	DeprecationMessage string  `yaml:"deprecationMessage"`
}

func readActionYAML(t *testing.T) actionMetadata {
	var meta actionMetadata
	decodeMetadata(t, "../action.yml", &meta)
	return meta
}

// decodeMetadata reads the action metadata file at path into meta, refusing unknown keys.
func decodeMetadata(t *testing.T, path string, meta any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(meta); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestActionYAMLMatchesInputs keeps action.yml, the Go tables and their defaults in step.
func TestActionYAMLMatchesInputs(t *testing.T) {
	meta := readActionYAML(t)
	if meta.Name == "" || meta.Description == "" {
		t.Errorf("name and description are required")
	}
	if meta.Runs.Using != "docker" || meta.Runs.Image != "Dockerfile" || !reflect.DeepEqual(meta.Runs.Args, []string{"action"}) {
		t.Errorf("runs = %+v, want a docker action built from Dockerfile running `skillgate action`", meta.Runs)
	}
	idPattern := regexp.MustCompile(`^[_a-zA-Z][a-zA-Z0-9_-]*$`)
	var names []string
	for i := 0; i+1 < len(meta.Inputs.Content); i += 2 {
		name := meta.Inputs.Content[i].Value
		names = append(names, name)
		var in inputMeta
		dec := meta.Inputs.Content[i+1]
		if err := dec.Decode(&in); err != nil {
			t.Fatalf("input %s: %v", name, err)
		}
		if !idPattern.MatchString(name) {
			t.Errorf("input id %q is not valid", name)
		}
		if i/2 >= len(Inputs) {
			t.Errorf("input %s is not in the Go table", name)
			continue
		}
		want := Inputs[i/2]
		if name != want.Name || in.Description != want.Description || in.Default == nil || *in.Default != want.Default {
			t.Errorf("input %d: action.yml has %s (default %v) %q,\n Go table has %s (default %q) %q", i/2, name, deref(in.Default), in.Description, want.Name, want.Default, want.Description)
		}
		if in.Required {
			t.Errorf("input %s is required: GitHub does not enforce it; validate in Go instead", name)
		}
	}
	if len(names) != len(Inputs) {
		t.Errorf("action.yml has %d inputs, the Go table %d", len(names), len(Inputs))
	}
	var outs []string
	for i := 0; i+1 < len(meta.Outputs.Content); i += 2 {
		name := meta.Outputs.Content[i].Value
		var o struct {
			Description string `yaml:"description"`
		}
		meta.Outputs.Content[i+1].Decode(&o)
		outs = append(outs, name)
		if i/2 < len(Outputs) && (Outputs[i/2].Name != name || Outputs[i/2].Description != o.Description) {
			t.Errorf("output %d: action.yml %s %q, Go table %s %q", i/2, name, o.Description, Outputs[i/2].Name, Outputs[i/2].Description)
		}
	}
	if len(outs) != len(Outputs) {
		t.Errorf("action.yml has %d outputs, the Go table %d", len(outs), len(Outputs))
	}
}

func deref(p *string) string {
	if p == nil {
		return "<none>"
	}
	return *p
}

// The default of every input parses, so a workflow that sets nothing is valid.
func TestDefaultsAreValid(t *testing.T) {
	cfg, err := ParseInputs(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Baseline != BaselineAuto || !cfg.ChangedOnly || !cfg.Annotations || cfg.CheckRun || cfg.MinEffect != 0.02 || cfg.ResultsDir != ".skillgate" {
		t.Errorf("defaults: %+v", cfg)
	}
}

// dockerInstruction is one Dockerfile instruction with its continuation lines joined.
type dockerInstruction struct {
	cmd, args string
}

func parseDockerfile(t *testing.T, path string) [][]dockerInstruction {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stages [][]dockerInstruction
	var cur strings.Builder
	sc := bufio.NewScanner(f)
	flush := func() {
		line := strings.TrimSpace(cur.String())
		cur.Reset()
		if line == "" {
			return
		}
		cmd, args, _ := strings.Cut(line, " ")
		in := dockerInstruction{strings.ToUpper(cmd), strings.TrimSpace(args)}
		if in.cmd == "FROM" {
			stages = append(stages, nil)
		}
		if len(stages) == 0 {
			if in.cmd != "ARG" {
				t.Fatalf("%s before the first FROM", in.cmd)
			}
			return
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
	}
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if strings.HasSuffix(line, `\`) {
			cur.WriteString(strings.TrimSuffix(line, `\`) + " ")
			continue
		}
		cur.WriteString(line)
		flush()
	}
	flush()
	return stages
}

// TestDockerfile checks the image without a Docker daemon: a Go build stage producing a static
// binary, and a distroless final stage running it as root from an absolute exec-form entrypoint.
func TestDockerfile(t *testing.T) {
	stages := parseDockerfile(t, "../Dockerfile")
	if len(stages) != 2 {
		t.Fatalf("%d stages, want build + final", len(stages))
	}
	build, final := stages[0], stages[1]
	if from := build[0].args; !regexp.MustCompile(`^golang:1\.\d+(\.\d+)?(-\w+)? AS build$`).MatchString(from) {
		t.Errorf("build stage FROM %q", from)
	}
	var buildCmd string
	for _, in := range build {
		if in.cmd == "RUN" && strings.Contains(in.args, "go build") {
			buildCmd = in.args
		}
	}
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-o /out/skillgate", "./cmd/skillgate", "-X main.version="} {
		if !strings.Contains(buildCmd, want) {
			t.Errorf("the build lacks %q: %s", want, buildCmd)
		}
	}
	if from := final[0].args; !strings.HasPrefix(from, "gcr.io/distroless/static-debian12") || strings.Contains(from, "nonroot") {
		t.Errorf("final stage FROM %q, want distroless static (root)", from)
	}
	var entrypoint, cmd, copied string
	for _, in := range final {
		switch in.cmd {
		case "USER":
			t.Errorf("USER %s: the action must run as root to write the root-owned workspace", in.args)
		case "WORKDIR":
			t.Errorf("WORKDIR: the runner overrides it with the workspace")
		case "RUN":
			t.Errorf("RUN in the final stage: distroless has no shell at build time")
		case "ENTRYPOINT":
			entrypoint = in.args
		case "CMD":
			cmd = in.args
		case "COPY":
			if strings.HasPrefix(in.args, "--from=build ") {
				copied = strings.Fields(in.args)[2]
			}
		}
	}
	if entrypoint != `["`+copied+`"]` || !strings.HasPrefix(copied, "/") {
		t.Errorf("ENTRYPOINT %s, copied binary %s: want the exec form of the copied absolute path", entrypoint, copied)
	}
	if cmd != `["action"]` {
		t.Errorf("CMD %s", cmd)
	}
	ignore, err := os.ReadFile("../.dockerignore")
	if err != nil {
		t.Fatal(err)
	}
	for _, must := range []string{"go.mod", "go.sum", "cmd", "schemas"} {
		if strings.Contains("\n"+string(ignore), "\n"+must+"\n") {
			t.Errorf(".dockerignore excludes %s, which the build needs", must)
		}
	}
}

func workflowFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"../.github/workflows/*.yml", "../docs/workflows/*.yml"} {
		m, _ := filepath.Glob(pattern)
		files = append(files, m...)
	}
	if len(files) < 4 {
		t.Fatalf("workflows: %v", files)
	}
	return files
}

// TestWorkflowsPassActionlint lints the project's workflows and the examples the docs show,
// including the inputs given to this action (uses: ./).
func TestWorkflowsPassActionlint(t *testing.T) {
	var out bytes.Buffer
	l, err := actionlint.NewLinter(&out, &actionlint.LinterOptions{Shellcheck: "-", Pyflakes: "-"})
	if err != nil {
		t.Fatal(err)
	}
	errs, err := l.LintFiles(workflowFiles(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Errorf("%s:%d:%d: %s [%s]", e.Filepath, e.Line, e.Column, e.Message, e.Kind)
	}
}

var matrixValue = regexp.MustCompile(`\$\{\{\s*matrix\.[a-z_]+\s*\}\}`)

// TestDocumentedFailOnCompiles: every fail-on in the example workflows is a valid expression.
func TestDocumentedFailOnCompiles(t *testing.T) {
	seen := 0
	for _, path := range workflowFiles(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					Uses string            `yaml:"uses"`
					With map[string]string `yaml:"with"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, job := range wf.Jobs {
			for _, st := range job.Steps {
				if st.Uses != "./" && st.Uses != "./composite" && !strings.HasPrefix(st.Uses, "skillgate/skillgate@") {
					continue
				}
				// A matrix value stands for a number: `shard: ${{ matrix.shard }}/4`.
				get := func(name string) string { return matrixValue.ReplaceAllString(st.With[name], "1") }
				if _, err := ParseInputs(get); err != nil {
					t.Errorf("%s: %v", path, err)
				}
				if st.With[InFailOn] != "" {
					seen++
				}
			}
		}
	}
	if seen == 0 {
		t.Errorf("no example sets fail-on")
	}
}

// TestDocsDescribeEverything: docs/action.md names every input, output and fail-on variable.
func TestDocsDescribeEverything(t *testing.T) {
	data, err := os.ReadFile("../docs/action.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, in := range Inputs {
		if !strings.Contains(doc, "`"+in.Name+"`") {
			t.Errorf("docs/action.md does not describe input %s", in.Name)
		}
	}
	for _, o := range Outputs {
		if !strings.Contains(doc, "`"+o.Name+"`") {
			t.Errorf("docs/action.md does not describe output %s", o.Name)
		}
	}
	for _, typ := range []reflect.Type{reflect.TypeOf(pipeline.Vars{}), reflect.TypeOf(pipeline.SuiteVar{}), reflect.TypeOf(pipeline.MetricVar{})} {
		for _, f := range reflect.VisibleFields(typ) {
			if f.Anonymous {
				continue // its fields are visible too
			}
			if name := f.Tag.Get("expr"); !strings.Contains(doc, "`"+name+"`") {
				t.Errorf("docs/action.md does not describe the fail-on variable %s.%s", typ.Name(), name)
			}
		}
	}
	for _, perm := range []string{"pull-requests: write", "checks: write", "actions: read", "models: read", "security-events: write", "contents: read"} {
		if !strings.Contains(doc, perm) {
			t.Errorf("docs/action.md does not mention %s", perm)
		}
	}
}

// TestDocsFailOnExamplesCompile: the fail-on lines docs/action.md shows are valid expressions.
func TestDocsFailOnExamplesCompile(t *testing.T) {
	data, err := os.ReadFile("../docs/action.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(line, "fail-on: ") {
			continue
		}
		value, _, _ := strings.Cut(strings.TrimPrefix(line, "fail-on: "), "  #")
		var expr string
		if err := yaml.Unmarshal([]byte(value), &expr); err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if _, err := pipeline.CompileFailOn(expr); err != nil {
			t.Errorf("%s: %v", expr, err)
		}
		n++
	}
	if n < 3 {
		t.Errorf("found %d fail-on examples", n)
	}
}
