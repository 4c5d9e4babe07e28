package deps

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/skillgate/skillgate"

// The stages of the flow (README.md#development): spec loads suites, runner runs them through
// agent and graders into the results model, report compares and renders, pipeline is the one
// evaluation, action and the commands are adapters. allowed lists the stages each may import;
// anything else is an import against the flow — a stage reaching one that uses it (report
// importing pipeline, graders importing runner) or past the stage that wraps it (action
// importing runner). internal/ and schemas are helpers every stage may import; they import no
// stage but results (the model). The commands (cmd/, bench/) are the top and import anything.
var allowed = map[string][]string{
	"results":  {},
	"spec":     {},
	"agent":    {"results"},
	"graders":  {"spec", "results"},
	"report":   {"results"},
	"runner":   {"spec", "agent", "graders", "results"},
	"pipeline": {"spec", "runner", "agent", "graders", "report", "results"},
	"action":   {"pipeline", "report", "results"},
	"helper":   {"results"},
}

// stage is the stage a package of the module belongs to: its top folder (graders/judge is
// graders'), "helper" for internal/ and schemas, "top" for the commands.
func stage(path string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(path, module), "/")
	top, _, _ := strings.Cut(rel, "/")
	switch top {
	case "internal", "schemas":
		return "helper"
	case "cmd", "bench":
		return "top"
	}
	return top
}

// pkg is what `go list -json` says of a package.
type pkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
}

// list lists the module's packages (their own imports, not their tests').
func list(t *testing.T, patterns ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json"}, patterns...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestImportsFollowTheFlow(t *testing.T) {
	pkgs := list(t, module+"/...")
	stages := map[string]bool{}
	for _, p := range pkgs {
		s := stage(p.ImportPath)
		stages[s] = true
		if s == "top" {
			continue
		}
		may, known := allowed[s]
		if !known {
			t.Errorf("%s is in no stage of the flow: add its folder to allowed (and to the package map in README.md#development)", p.ImportPath)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			to := stage(imp)
			if to == s || to == "helper" && s != "helper" || slices.Contains(may, to) {
				continue
			}
			t.Errorf("%s imports %s: %s may import only %s (and internal/ helpers)", p.ImportPath, imp, s, words(may))
		}
	}
	for s := range allowed {
		if !stages[s] {
			t.Errorf("no package of stage %s: the rules name a folder that is gone", s)
		}
	}
}

// The Action is an adapter: it maps the inputs to the pipeline's settings and publishes on
// GitHub. Its own imports are pipeline, results and report (rendering only), GitHub's packages
// and helpers — never runner, spec, graders or agent.
func TestActionImports(t *testing.T) {
	p := list(t, module+"/action")[0]
	ours := map[string]bool{"pipeline": true, "results": true, "report": true, "schemas": true}
	theirs := map[string]bool{
		"github.com/google/go-github/v60/github":   true, // the REST API
		"github.com/sethvargo/go-githubactions":    true, // workflow commands
		"github.com/santhosh-tekuri/jsonschema/v5": true, // a fork's bundle checked against schemas/
		"github.com/expr-lang/expr/vm":             true, // the fail-on program pipeline compiles
	}
	for _, imp := range p.Imports {
		rel, inModule := strings.CutPrefix(imp, module+"/")
		switch {
		case inModule && strings.HasPrefix(rel, "internal/"):
		case inModule && !ours[rel]:
			t.Errorf("action imports %s: it reaches the stages through pipeline only", imp)
		case !inModule && strings.Contains(strings.Split(imp, "/")[0], ".") && !theirs[imp]:
			t.Errorf("action imports %s, which is neither GitHub's nor one it needs for them", imp)
		}
	}
	if !slices.Contains(p.Imports, module+"/pipeline") {
		t.Errorf("action does not import pipeline: what evaluates?")
	}
	checkRenderingOnly(t, p)
}

// checkRenderingOnly fails when action calls a function of report that is not a renderer: one
// returning the text it renders (a single string), or writing it to an io.Writer (a single
// error). The model's types and constants are free to use; deciding (comparisons, verdicts,
// confirmation) and writing the report files are the pipeline's.
func checkRenderingOnly(t *testing.T, action pkg) {
	t.Helper()
	rp := list(t, module+"/report")[0]
	fset := token.NewFileSet()
	renders := map[string]bool{}
	funcs := map[string]bool{}
	for _, f := range rp.GoFiles {
		file, err := parser.ParseFile(fset, filepath.Join(rp.Dir, f), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv != nil || !fd.Name.IsExported() {
				continue
			}
			funcs[fd.Name.Name] = true
			renders[fd.Name.Name] = rendering(fd.Type)
		}
	}
	used := map[string]bool{}
	for _, f := range action.GoFiles {
		file, err := parser.ParseFile(fset, filepath.Join(action.Dir, f), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		name := ""
		for _, imp := range file.Imports {
			if imp.Path.Value == `"`+module+`/report"` {
				name = "report"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		if name == "" {
			continue
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == name && funcs[sel.Sel.Name] {
					used[sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	var names []string
	for n := range used {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if !renders[n] {
			t.Errorf("action calls report.%s, which is no renderer: deciding and writing the reports are the pipeline's", n)
		}
	}
}

// rendering: the function returns one string, or writes to an io.Writer and returns one error.
func rendering(ft *ast.FuncType) bool {
	if ft.Results == nil || len(ft.Results.List) != 1 || len(ft.Results.List[0].Names) > 1 {
		return false
	}
	result, ok := ft.Results.List[0].Type.(*ast.Ident)
	if !ok {
		return false
	}
	switch result.Name {
	case "string":
		return true
	case "error":
		for _, p := range ft.Params.List {
			if sel, ok := p.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Writer" {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "io" {
					return true
				}
			}
		}
	}
	return false
}

func words(list []string) string {
	if len(list) == 0 {
		return "no stage"
	}
	return strings.Join(list, ", ")
}
