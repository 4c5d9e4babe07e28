//go:build linux

package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Suite files are read (Linux: the cases use /proc/self/environ and FIFOs) with symbolic links followed and must stay inside their folder: a link
// that leaves it, a special file or an oversized file is a validation error at file:line:col.
func TestLinksOutOfTheSuiteAreRefused(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	must(t, os.WriteFile(secret, []byte("GITHUB_TOKEN=ghs_x\n"), 0o644))
	cases := []struct {
		name  string
		files map[string]string // path → content; "->target" makes a symbolic link, "|fifo" a FIFO
		file  string            // where the error is
		line  int
		col   int
		key   string
		msg   string
	}{
		{"fixture link to /proc/self/environ",
			map[string]string{"eval.yaml": "name: s\ntasks:\n  - id: t\n    inputs:\n      prompt: \"{{fixture:env}}\"\n", "fixtures/env": "->/proc/self/environ"},
			"eval.yaml", 5, 15, "tasks[0].inputs.prompt", `fixture "env" refused: ` + "%s/fixtures/env leads through a symbolic link to /proc/"},
		{"fixture link out of the context dir",
			map[string]string{"eval.yaml": "name: s\ntasks:\n  - id: t\n    inputs:\n      prompt: \"{{fixture:a/secret.txt}}\"\n", "fixtures/a": "->" + outside},
			"eval.yaml", 5, 15, "tasks[0].inputs.prompt", "outside %s/fixtures (fix: suite files must stay inside their folder"},
		{"fixture FIFO",
			map[string]string{"eval.yaml": "name: s\ntasks:\n  - id: t\n    inputs:\n      prompt: \"{{fixture:pipe}}\"\n", "fixtures/pipe": "|fifo"},
			"eval.yaml", 5, 15, "tasks[0].inputs.prompt", "is not a regular file (a FIFO)"},
		{"input file link",
			map[string]string{"eval.yaml": "name: s\ntasks:\n  - id: t\n    inputs:\n      prompt: p\n      files:\n        - path: s.txt\n", "fixtures/s.txt": "->" + secret},
			"eval.yaml", 7, 17, "tasks[0].inputs.files[0].path", `input file "s.txt" refused`},
		{"task file link",
			map[string]string{"eval.yaml": "name: s\ntasks:\n  - tasks/*.yaml\n", "tasks/t.yaml": "->" + filepath.Join(outside, "t.yaml")},
			"eval.yaml", 3, 5, "tasks[0]", "task file refused: "},
		{"task file link, no glob",
			map[string]string{"eval.yaml": "name: s\ntasks:\n  - tasks/t.yaml\n", "tasks/t.yaml": "->" + filepath.Join(outside, "t.yaml")},
			"eval.yaml", 3, 5, "tasks[0]", "outside %s (fix: suite files must stay inside their folder"},
	}
	must(t, os.WriteFile(filepath.Join(outside, "t.yaml"), []byte("id: t\ninputs:\n  prompt: hi\n"), 0o644))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for p, content := range c.files {
				full := filepath.Join(dir, filepath.FromSlash(p))
				must(t, os.MkdirAll(filepath.Dir(full), 0o755))
				switch {
				case strings.HasPrefix(content, "->"):
					must(t, os.Symlink(strings.TrimPrefix(content, "->"), full))
				case content == "|fifo":
					must(t, syscall.Mkfifo(full, 0o644))
				default:
					must(t, os.WriteFile(full, []byte(content), 0o644))
				}
			}
			_, diags := Load(filepath.Join(dir, "eval.yaml"), Options{})
			prefix := fmt.Sprintf("%s:%d:%d: error: %s: ", filepath.Join(dir, c.file), c.line, c.col, c.key)
			want := c.msg
			if strings.Contains(want, "%s") {
				want = fmt.Sprintf(want, dir)
			}
			for _, d := range diags {
				if msg := d.Error(); strings.HasPrefix(msg, prefix) && strings.Contains(msg, want) {
					if strings.Contains(msg, "ghs_x") {
						t.Errorf("the diagnostic shows the file's content: %s", msg)
					}
					return
				}
			}
			t.Errorf("no diagnostic %q…%q in:\n%v", prefix, want, diags)
		})
	}
}

func TestSuiteFileSizeLimit(t *testing.T) {
	old := MaxFileSize
	MaxFileSize = 1 << 10
	defer func() { MaxFileSize = old }()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "eval.yaml"), []byte("name: s\ntasks:\n  - tasks/*.yaml\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "tasks"), 0o755))
	big := "id: t\ninputs:\n  prompt: \"" + strings.Repeat("x", 2000) + "\"\n"
	must(t, os.WriteFile(filepath.Join(dir, "tasks", "t.yaml"), []byte(big), 0o644))
	_, diags := Load(filepath.Join(dir, "eval.yaml"), Options{})
	want := "tasks/t.yaml:1:1: error: cannot read task file: " + filepath.Join(dir, "tasks", "t.yaml") + " is over the size limit of 1 KiB (fix: keep suite files under the limit (set SKILLGATE_MAX_FILE_MIB to raise it))"
	for _, d := range diags {
		if strings.HasSuffix(d.Error(), want) {
			return
		}
	}
	t.Errorf("no diagnostic …%s in:\n%v", want, diags)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
