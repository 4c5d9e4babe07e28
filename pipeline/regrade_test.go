package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/graders"
	"github.com/skillgate/skillgate/spec"
)

// The report mode's grader policy: what runs, what is recorded, what is refused.
func TestReportGraderPolicy(t *testing.T) {
	tree := t.TempDir()
	os.MkdirAll(filepath.Join(tree, "evals/s"), 0o755)
	os.WriteFile(filepath.Join(tree, "evals/s/rubric.md"), []byte("Be kind."), 0o644)
	os.WriteFile(filepath.Join(tree, "evals/s/schema.json"), []byte(`{"type":"object","$defs":{"a":{"type":"string"}},"properties":{"x":{"$ref":"#/$defs/a"}}}`), 0o644)
	os.WriteFile(filepath.Join(tree, "evals/s/remote.json"), []byte(`{"$ref":"file:///etc/passwd"}`), 0o644)
	def := func(typ, cfg string) *spec.Grader {
		src := "type: " + typ + "\nname: g\nconfig:\n  " + strings.ReplaceAll(cfg, "\n", "\n  ") + "\n"
		d, err := spec.ParseGrader(filepath.Join(tree, "evals/s/eval.yaml"), []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	cases := []struct {
		typ, cfg string
		outside  bool // reads something outside the tree
	}{
		{"llm", "rubric: rubric.md", false},
		{"llm", "rubric: ../../../../../../etc/passwd.md", true},
		{"llm", "rubric: /etc/hostname", true},
		{"llm", "rubric: |\n  Be kind.\n  Be brief.", false},
		{"json_schema", "schema_file: schema.json", false},
		{"json_schema", "schema_file: remote.json", true},
		{"json_schema", "schema_file: ../../../outside.json", true},
		{"json_schema", "schema:\n  $ref: 'http://evil.example/s.json'", true},
		{"json_schema", "schema:\n  $schema: https://json-schema.org/draft/2020-12/schema\n  type: object", false},
	}
	for _, c := range cases {
		d := def(c.typ, c.cfg)
		typ, _ := graders.Lookup(c.typ)
		if got := outsideTree(d, typ, tree) != ""; got != c.outside {
			t.Errorf("%s: outside = %v, want %v (%v)", c.cfg, got, c.outside, typ.Files(d))
		}
	}
}
