package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRewriteTemplate(t *testing.T) {
	cases := map[string]string{
		"plain":                     "plain",
		"{{name}}":                  `{{var "name"}}`,
		"{{ file-name }}":           `{{var "file-name"}}`,
		"{{- name -}}":              `{{- var "name" -}}`,
		"{{fixture:src/a.py}}":      `{{fixture "src/a.py"}}`,
		"{{ fixture: a b.txt }}":    `{{fixture "a b.txt"}}`,
		"{{.Vars.x}} {{.TaskName}}": "{{.Vars.x}} {{.TaskName}}",
		"{{if .Vars.x}}y{{end}}":    "{{if .Vars.x}}y{{end}}",
		"{{/* note */}}":            "{{/* note */}}",
		"open {{ never closed":      "open {{ never closed",
	}
	for in, want := range cases {
		if got := rewriteTemplate(in); got != want {
			t.Errorf("rewrite(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRenderPrompt(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("A"), 0o644); err != nil {
		t.Fatal(err)
	}
	data := templateData{Vars: map[string]string{"lang": "go", "my-var": "dash"}, TaskName: "Task", TaskID: "t1"}
	cases := []struct {
		src, want, err string
	}{
		{"no templates {x}  ", "no templates {x}  ", ""},
		{"{{lang}} {{.Vars.lang}} {{my-var}} {{.TaskName}}/{{.TaskID}}", "go go dash Task/t1", ""},
		{"[{{fixture:a.txt}}]", "[A]", ""},
		{"{{if eq .Vars.lang \"go\"}}yes{{end}}", "yes", ""},
		{"{{missing}}", "", `template variable "missing" is not defined`},
		{"{{.Vars.missing}}", "", `template variable "missing" is not defined`},
		{"{{fixture:b.txt}}", "", `fixture "b.txt" not found`},
		{"{{fixture:../a.txt}}", "", "must be relative and stay inside"},
		{"{{.Nope}}", "", "the prompt template failed"},
		{"{{end}}", "", "not a valid template"},
	}
	for _, c := range cases {
		var read []string
		got, err := renderPrompt(c.src, data, dir, func(f string) { read = append(read, f) })
		if c.err == "" {
			if err != nil || got != c.want {
				t.Errorf("render(%q) = %q, %v; want %q", c.src, got, err, c.want)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("render(%q) error = %v, want %q", c.src, err, c.err)
		}
	}
	var read []string
	if _, err := renderPrompt("{{fixture:a.txt}}", data, dir, func(f string) { read = append(read, f) }); err != nil || len(read) != 1 || read[0] != filepath.Join(dir, "a.txt") {
		t.Errorf("fixture reads = %v %v", read, err)
	}
}
