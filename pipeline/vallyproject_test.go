package pipeline

import (
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
)

// A plain load (validate, or run without --suite) reports what the .vally.yaml above its Vally
// specs gets wrong, once per file however many specs it governs; --suite reports it through
// the selection, also once. The project file is of the shape real ones have
// (kristenwomack/template-compliance-skill's suites with a string `evals` and a list filter),
// with the slips the keys allow.
func TestVallyProjectWarnings(t *testing.T) {
	project := `paths:
  eval: evals/
  evalFilenames: [eval.yaml]
suites:
  ci-gate:
    evals: evals/a/eval.yaml
    filter:
      priority: [p0, p1]
    evalz: [x]
`
	spec := "stimuli:\n  - name: a\n    prompt: p\n    tags: {priority: p0}\n    graders: [{type: completed}]\n"
	waza := "name: w\nconfig:\n  executor: mock\ntasks:\n  - tasks/*.yaml\n"
	cases := []struct {
		name     string
		files    map[string]string
		settings Settings
		want     int // each of the two warnings, this many times
	}{
		{"validate", map[string]string{".vally.yaml": project, "evals/a/eval.yaml": spec, "evals/b/eval.yaml": spec}, Settings{}, 1},
		{"--suite", map[string]string{".vally.yaml": project, "evals/a/eval.yaml": spec}, Settings{VallySuite: "ci-gate"}, 1},
		{"no Vally spec", map[string]string{".vally.yaml": project, "w/eval.yaml": waza, "w/tasks/a.yaml": "id: a\ninputs:\n  prompt: p\n"}, Settings{}, 0},
		{"clean file", map[string]string{".vally.yaml": "paths:\n  evals: evals/\n", "evals/a/eval.yaml": spec}, Settings{}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			testtree.Write(t, dir, c.files)
			plan, err := Load([]string{dir}, c.settings)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			for _, d := range plan.Diags {
				text.WriteString(d.Error() + "\n")
			}
			for _, w := range []string{
				".vally.yaml:2:3: warning: paths.eval: unknown key `eval` is ignored (fix: did you mean `evals`?)",
				".vally.yaml:9:5: warning: suites.ci-gate.evalz: unknown key `evalz` is ignored (fix: did you mean `evals`?)",
			} {
				if n := strings.Count(text.String(), w); n != c.want {
					t.Errorf("%q %d times, want %d:\n%s", w, n, c.want, text.String())
				}
			}
		})
	}
}
