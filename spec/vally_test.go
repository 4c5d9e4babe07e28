package spec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Vally spec loads into the suite model: stimuli are tasks, runs are trials, the timeout
// takes units, tags are inherited, constraints and the stimulus rubric reach the graders.
func TestLoadVallySpec(t *testing.T) {
	s, diags := Load("testdata/vally/spec.eval.yaml", Options{})
	if diags.HasErrors() {
		t.Fatalf("diags:\n%s", render(diags))
	}
	if s.Format != "vally" || s.Name != "vally-demo" || s.Skill != "greeter" || s.Config.TrialsPerTask != 3 || s.Config.TimeoutSeconds != 300 ||
		s.Config.Executor != "copilot-sdk" || s.Config.Model != "claude-sonnet-4.6" {
		t.Errorf("suite %+v config %+v", s, s.Config)
	}
	if s.Scoring == nil || *s.Scoring.Threshold != 0.75 || s.Scoring.Weights["output-matches"] != 3 {
		t.Errorf("scoring %+v", s.Scoring)
	}
	if len(s.Tasks) != 2 {
		t.Fatalf("tasks %d", len(s.Tasks))
	}
	hello := s.Tasks[0]
	if hello.ID != "Routing: say hello" || hello.Trials != 5 || hello.TimeoutSeconds != 90 || hello.Prompt != "Say hello to the team." ||
		strings.Join(hello.Tags, ",") != "skill=greeter,tier=smoke" || len(hello.Files) != 1 || hello.Files[0].Path != "input.txt" {
		t.Errorf("task %+v", hello)
	}
	var got []string
	for _, g := range hello.Graders {
		got = append(got, g.Name+":"+g.Type)
	}
	if strings.Join(got, " ") != "output-matches:output-matches prompt:prompt output-matches-2:output-matches constraints:vally-constraints" {
		t.Errorf("graders %v", got)
	}
	if hello.Graders[0].Weight != 3 || hello.Graders[1].Weight != 1 {
		t.Errorf("weights by type: %v %v", hello.Graders[0].Weight, hello.Graders[1].Weight)
	}
	if r := hello.Graders[1].configNode().Key("rubric"); r == nil || !strings.Contains(r.Value, "greets everyone") {
		t.Errorf("the stimulus rubric must reach the judge: %+v", r)
	}
	if mt := s.Tasks[1]; mt.Prompt != "First question" || len(mt.Turns) != 2 || mt.Turns[0] != "First question" {
		t.Errorf("turns: %q %q", mt.Prompt, mt.Turns)
	}
	text := render(diags)
	for _, want := range []string{
		"spec.eval.yaml:46:5: warning: stimuli[1].colour: unknown key `colour` is ignored",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("diagnostics lack %q:\n%s", want, text)
		}
	}
}

func TestVallyProblems(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"stimuli: []\n", "error: stimuli: the spec has no stimuli"},
		{"stimuli:\n  - name: x\n", `error: stimuli[0]: stimulus "x" has no prompt`},
		{"defaults: {timeout: soon}\nstimuli:\n  - {name: x, prompt: p}\n", `warning: defaults.timeout: timeout "soon" is not a duration`},
		{"stimuli:\n  - {name: x, prompt: p}\n  - {name: x, prompt: q}\n", `stimulus "x" is named twice`},
	} {
		s, diags := loadInlineDiags(t, c.src)
		_ = s
		if !strings.Contains(render(diags), c.want) {
			t.Errorf("%q: want %q in\n%s", c.src, c.want, render(diags))
		}
	}
}

func loadInlineDiags(t *testing.T, src string) (*Suite, Diagnostics) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "eval.yaml")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return Load(p, Options{})
}
