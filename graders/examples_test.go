package graders

import (
	"path/filepath"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// The example graders of examples/graders, each on a run it passes and one it fails.
func TestExampleGraders(t *testing.T) {
	t.Parallel() // each case waits on an interpreter
	file := mustAbs(t, filepath.Join("..", "examples", "graders", "eval.yaml"))
	failedCall := func(r *results.AgentRun) {
		r.SessionDigest.ToolCalls = append(r.SessionDigest.ToolCalls, results.ToolCall{Name: "bash", Success: false})
	}
	long := "word "
	for i := 0; i < 6; i++ {
		long += long
	}
	tests := []struct {
		name, src string
		ts        bool
		needs     []string
		output    string
		category  string
		files     map[string]string
		opts      []func(*results.AgentRun)
		score     float64
		passed    bool
		feedback  string
	}{
		{"python passes", "type: script\nname: g\nconfig:\n  script: graders/mentions_hint.py\n", false, []string{"python3"}, "A closure keeps its scope", "explain", nil, nil, 1, true, "Output mentions 'closure'"},
		{"python fails", "type: script\nname: g\nconfig:\n  script: graders/mentions_hint.py\n", false, []string{"python3"}, "A function", "explain", nil, nil, 0, false, "Output does not mention 'closure'"},
		{"typescript passes", "type: script\nname: g\nconfig:\n  script: graders/criteria.ts\n", true, nil, "closure", "explain", nil, nil, 1, true, "mentions the hint; no tool errors; efficient (0 tool calls)"},
		{"typescript fails", "type: script\nname: g\nconfig:\n  script: graders/criteria.ts\n", true, nil, "nothing", "greeting", nil, []func(*results.AgentRun){failedCall}, 0, false, "failed every criterion"},
		{"shell passes", "type: script\nname: g\nconfig:\n  script: graders/clean_workspace.sh\n", false, []string{"sh", "find"}, "x", "", map[string]string{"src/a.py": "x"}, nil, 1, true, "No scratch files left behind"},
		{"shell fails", "type: script\nname: g\nconfig:\n  script: graders/clean_workspace.sh\n", false, []string{"sh", "find"}, "x", "", map[string]string{"src/a.py.orig": "x", "b.tmp": ""}, nil, 0, false, "2 scratch file(s) left behind"},
		{"program passes", "type: program\nname: g\nconfig:\n  command: sh\n  args: [graders/short_enough.sh, \"60\"]\n", false, []string{"sh", "wc"}, "three short words", "", nil, nil, 1, true, "3 words (at most 60)"},
		{"program fails", "type: program\nname: g\nconfig:\n  command: sh\n  args: [graders/short_enough.sh, \"60\"]\n", false, []string{"sh", "wc"}, long, "", nil, nil, 0, false, "Program exited with status 1: 64 words, more than 60"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			needs(t, tc.needs...)
			if tc.ts {
				needsTypeScript(t)
			}
			env := &Env{Suite: &spec.Suite{Dir: filepath.Dir(file)}}
			g, diags := compileScriptDef(t, file, tc.src, env)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			in := &Input{
				Task:      &spec.Task{ID: "explain-closures", Prompt: "Explain closures", Vars: map[string]string{"hint": "closure", "category": tc.category}},
				Run:       runWith(tc.output, tc.opts...),
				Workspace: writeFiles(t, tc.files),
				Trial:     1,
			}
			assertResult(t, grade(t, g, in), tc.score, tc.passed, tc.feedback)
		})
	}
}
