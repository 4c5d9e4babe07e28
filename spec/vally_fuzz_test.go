package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

// FuzzSubstitutePlaceholders: substitution never panics, keeps the number of lines (positions of
// later lines do not move), and leaves text without a placeholder untouched.
func FuzzSubstitutePlaceholders(f *testing.F) {
	for _, seed := range []string{
		"model: ${A}\n", "runs: ${B=3}\n", "args: [x, ${C:-a b}, '${D}']\n", "prompt: |\n  ${A}\nk: \"${E-v}\"\n",
		"- ${F:=\"q\"} # c\n", "a: ${\n", "${A}: ${B}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, diags := substitutePlaceholders("eval.yaml", data)
		if strings.Count(string(out), "\n") != strings.Count(string(data), "\n") {
			t.Fatalf("lines changed: %q → %q", data, out)
		}
		if !strings.Contains(string(data), "${") && string(out) != string(data) {
			t.Fatalf("text without placeholders changed: %q → %q", data, out)
		}
		for _, d := range diags {
			if d.Pos.Line < 1 {
				t.Fatalf("unpositioned diagnostic %q", d.Error())
			}
		}
	})
}

// FuzzLoadExperiment: an experiment file of any content loads or is refused with positioned
// diagnostics, and the configurations it gives name only regular files.
func FuzzLoadExperiment(f *testing.F) {
	for _, seed := range []string{
		"name: x\nevals: [e/*/eval.yaml]\nbaseline: b\nvariants:\n  b: {environment: {skills: []}}\n  s: {environment: {skills: [k/${eval.parent}]}}\n",
		"evals: ['!(a|b)/eval.yaml', '**/eval.yaml']\noverrides: {runs: 2}\nmatrix: {m: [1]}\n",
		"evals: e/x/eval.yaml\nvariants: {a: {overrides: {model: m}, environment: {mcpServers: {s: null}}}}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		testtree.WriteSame(t, dir, []byte("stimuli: [{name: a, prompt: p}]\n"), "e/x/eval.yaml", "a/eval.yaml")
		testtree.WriteSame(t, dir, data, "x.experiment.yaml")
		e, diags := LoadExperiment(filepath.Join(dir, "x.experiment.yaml"))
		for _, d := range diags {
			if d.Pos.File == "" || d.Message == "" {
				t.Fatalf("unpositioned diagnostic %q", d.Error())
			}
		}
		if e == nil {
			return
		}
		for _, r := range e.Runs() {
			if fi, err := os.Stat(r.Eval); err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("configuration of %s: %v", r.Eval, err)
			}
			if strings.HasPrefix(r.Eval, dir) {
				Load(r.Eval, Options{Variant: r.Variant})
			}
		}
	})
}
