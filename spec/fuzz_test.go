package spec

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
	"github.com/skillgate/skillgate/schemas"
)

// seedFiles returns every suite file under testdata, the seed corpus of the fuzz targets.
func seedFiles(f *testing.F) [][]byte {
	var out [][]byte
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(p); !d.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".csv") {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out = append(out, data)
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	return out
}

// FuzzLoad writes the input as every file a suite may read (eval.yaml, a task file, the CSV and
// trigger_tests.yaml) and loads it: the loader must never panic, and its diagnostics must be
// positioned and sorted.
func FuzzLoad(f *testing.F) {
	for _, seed := range seedFiles(f) {
		f.Add(seed)
	}
	f.Add([]byte("tasks:\n  - tasks/*.yaml\ntasks_from: data.csv\nrange: [1, 2]\nskill: s\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		testtree.WriteSame(t, dir, data, "eval.yaml", "tasks/fuzz.yaml", "data.csv", "trigger_tests.yaml", "fixtures/a.txt")
		s, diags := Load(filepath.Join(dir, "eval.yaml"), Options{})
		if s == nil {
			t.Fatal("nil suite")
		}
		for _, d := range diags {
			if d.Pos.File == "" || d.Message == "" {
				t.Fatalf("unpositioned diagnostic %q", d.Error())
			}
		}
		if !slices.IsSortedFunc(diags, byPosition) {
			t.Fatalf("diagnostics not sorted")
		}
		if !diags.HasErrors() {
			for _, task := range s.Tasks {
				for _, g := range task.Graders {
					if g.config == nil {
						t.Fatalf("grader %s has a nil config", g.Name)
					}
				}
			}
		}
	})
}

// FuzzParseYAML covers the YAML → value conversion and the schema error rewriting on their own.
func FuzzParseYAML(f *testing.F) {
	for _, seed := range seedFiles(f) {
		f.Add(seed)
	}
	f.Add([]byte("a: &x {b: *x}\n"))
	f.Add([]byte("m: {<<: [*a]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, _ := parseYAML("fuzz.yaml", data)
		if doc.Root == nil {
			return
		}
		for _, name := range []string{schemas.EvalFile, schemas.TaskFile, schemas.TriggerTestsFile} {
			for _, d := range validateSchema(doc, name) {
				if d.Pos.File != "fuzz.yaml" {
					t.Fatalf("diagnostic outside the file: %s", d.Error())
				}
			}
		}
	})
}

// FuzzTemplate covers the `{{name}}` / `{{fixture:path}}` rewriting and prompt rendering.
func FuzzTemplate(f *testing.F) {
	for _, s := range []string{"{{lang}}", "{{ fixture:a.txt }}", "{{.Vars.lang}} {{.TaskName}}", "{{- x -}}", "{{if}}", "{{fixture:../x}}", "{{", "}}{{",
		"{{ a-b }} {{.TaskID}}", "{{missing}}", "{{.Vars.missing}}", "{{fixture:b.txt}}", "x {{/* c */}} y", "{{\"{{\"}}"} {
		f.Add(s)
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("A"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src string) {
		out := rewriteTemplate(src)
		if !strings.Contains(src, "{{") && out != src {
			t.Fatalf("a prompt without {{ must stay verbatim")
		}
		data := templateData{Vars: map[string]string{"lang": "go", "a-b": "dash"}, TaskName: "n", TaskID: "i"}
		got, err := renderPrompt(src, data, dir, func(string) {})
		if err == nil && !strings.Contains(src, "{{") && got != src {
			t.Fatalf("render changed a plain prompt")
		}
		// Where direct substitution applies, it must give what text/template gives.
		if _, simple, _ := renderSimple(src, data, dir, func(string) {}, nil); simple {
			forceTemplateEngine = true
			want, wantErr := renderPrompt(src, data, dir, func(string) {})
			forceTemplateEngine = false
			if got != want || (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Fatalf("%q: direct = %q, %v; template engine = %q, %v", src, got, err, want, wantErr)
			}
		}
	})
}
