//go:build unix

package graders

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/spec"
)

// Files a grader names are read with links followed and must stay inside their folder.
func TestDeclaredFileLinksAreRefused(t *testing.T) {
	outside := t.TempDir()
	for name, body := range map[string]string{"schema.json": `{"type": "object"}`, "grade.sh": "#!/bin/sh\necho '{}'\n", "rubric.md": "Score 5", "snap.txt": "x"} {
		if err := os.WriteFile(filepath.Join(outside, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	suite := t.TempDir()
	for _, name := range []string{"schema.json", "grade.sh", "rubric.md"} {
		if err := os.Symlink(filepath.Join(outside, name), filepath.Join(suite, name)); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(suite, "fixtures"), 0o755)
	if err := os.Symlink(filepath.Join(outside, "snap.txt"), filepath.Join(suite, "fixtures", "snap.txt")); err != nil {
		t.Fatal(err)
	}
	env := &Env{Suite: &spec.Suite{Dir: suite, ContextDir: filepath.Join(suite, "fixtures")}}
	file := filepath.Join(suite, "eval.yaml")
	cases := []struct{ src, pos, msg string }{
		{"type: json_schema\nname: j\nconfig:\n  schema_file: schema.json\n", "4:16", `grader "j": cannot read schema file schema.json: ` + filepath.Join(suite, "schema.json") + " leads through a symbolic link to " + filepath.Join(outside, "schema.json")},
		{"type: script\nname: s\nconfig:\n  script: grade.sh\n", "4:11", `grader "s": script refused: `},
		{"type: llm\nname: l\nconfig:\n  rubric: rubric.md\n  endpoint: http://127.0.0.1:1/v1\n  model: m\n", "4:11", `grader "l": rubric file refused: `},
		{"type: diff\nname: d\nconfig:\n  expected_files:\n    - path: out.txt\n      snapshot: snap.txt\n", "6:17", `grader "d": snapshot file refused: `},
	}
	for _, c := range cases {
		def, err := parseDef(c.src, file)
		if err != nil {
			t.Fatal(err)
		}
		_, diags := CompileOne(def, env)
		found := false
		for _, d := range diags {
			msg := d.Error()
			if strings.HasPrefix(msg, file+":"+c.pos+": error: ") && strings.Contains(msg, c.msg) && strings.Contains(msg, "must stay inside their folder") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no error at %s with %q in %v", strings.SplitN(c.src, "\n", 2)[0], c.pos, c.msg, diags)
		}
	}
}
