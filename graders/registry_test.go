package graders

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/schemas"
	"github.com/skillgate/skillgate/spec"
)

func TestDeterministicTypesAreRegistered(t *testing.T) {
	for _, name := range []string{"code", "text", "regex", "file", "diff", "json_schema", "behavior",
		"action_sequence", "skill_invocation", "tool_calls", "tool_constraint", "trigger"} {
		typ, ok := Lookup(name)
		if !ok {
			t.Errorf("%s is not registered", name)
			continue
		}
		if typ.Summary == "" || typ.Compile == nil || typ.Executes || typ.Judge {
			t.Errorf("%s: %+v", name, typ)
		}
	}
}

// Every seed example compiles (except the two the seeds mark as wrong) and grades a run into a
// well-formed result carrying the declaration's name, type and weight.
func TestSeedExamplesGradeWellFormed(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "seeds", "*.yaml"))
	if err != nil || len(files) < 10 {
		t.Fatalf("seed files: %v %v", files, err)
	}
	fixtures := seedFixtures(t)
	in := &Input{
		Suite:     &spec.Suite{Skill: "azure-deploy", ContextDir: fixtures},
		Task:      &spec.Task{ID: "t", ContextDir: fixtures},
		Run:       assertionRun(),
		Workspace: t.TempDir(),
	}
	n := 0
	for _, file := range files {
		for _, def := range defsFromFile(t, file) {
			if def.Name == "generator_example" || def.Name == "task_specific_check" {
				continue
			}
			n++
			r := grade(t, mustCompile(t, def, &Env{Suite: in.Suite}), in)
			if r.Name != def.Name || r.Type != def.Type || r.Weight != def.Weight || r.Source != nil || r.DurationMS != 0 {
				t.Errorf("%s: identity %+v", def.Name, r)
			}
			if r.Score < 0 || r.Score > 1 || r.Feedback == "" || (r.Passed && r.Score != 1 && def.Type != "action_sequence" && def.Type != "skill_invocation") {
				t.Errorf("%s: score %.3f passed %v feedback %q", def.Name, r.Score, r.Passed, r.Feedback)
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d seed graders", n)
	}
	if w := seedDef(t, "text.yaml", "critical_check").Weight; w != 3 {
		t.Errorf("weight %v", w)
	}
}

// Compile via the registry's Compile: a suite's global graders compile once, task graders too.
func TestCompileSuite(t *testing.T) {
	good := defFromYAML(t, "type: text\nname: g\nconfig:\n  contains: [x]\n")
	bad := defFromYAML(t, "type: text\nname: b\nconfig:\n  regex_match: ['(']\n")
	suite := &spec.Suite{Graders: []*spec.Grader{good}, Tasks: []*spec.Task{{ID: "a", Graders: []*spec.Grader{good, bad}}}}
	c, diags := Compile(suite)
	if len(diags) != 1 || c.For(good) == nil || c.For(bad) != nil {
		t.Fatalf("diags %v", diags)
	}
	r := grade(t, c.For(good), &Input{Run: &results.AgentRun{FinalOutput: "x"}})
	assertResult(t, r, 1, true, "All text checks passed")
}

// Every documented type is implemented, with the flags the runner and the fork-safe report mode
// rely on.
func TestEveryDocumentedTypeIsRegistered(t *testing.T) {
	for _, name := range schemas.GraderTypes() {
		if _, ok := Lookup(name); !ok {
			t.Errorf("%s is documented but not registered", name)
		}
	}
	for name, want := range map[string][3]bool{ // executes, judge, reads workspace
		"script": {true, false, true}, "program": {true, false, true},
		"prompt": {false, true, true}, "llm": {false, true, true}, "llm_comparison": {false, true, true},
		"human": {false, false, false}, "human_calibration": {false, false, false},
	} {
		typ, _ := Lookup(name)
		if got := [3]bool{typ.Executes, typ.Judge, typ.ReadsWorkspace}; got != want || typ.Summary == "" {
			t.Errorf("%s: executes/judge/reads workspace %v, want %v", name, got, want)
		}
	}
}

// Override replaces a declaration before it compiles: an LLM grader without any judge endpoint
// (it would error in every run) is deferred, while the others compile as usual.
func TestOverrideReplacesBeforeCompiling(t *testing.T) {
	judge := defFromYAML(t, "type: llm\nname: j\nconfig:\n  rubric: Be kind.\n")
	text := defFromYAML(t, "type: text\nname: g\nconfig:\n  contains: [x]\n")
	suite := &spec.Suite{Tasks: []*spec.Task{{ID: "a", Graders: []*spec.Grader{judge, text}}}}
	none := &JudgeOptions{Getenv: func(string) string { return "" }}
	if c, diags := CompileEnv(&Env{Suite: suite, Judge: none}); diags.HasErrors() || len(diags) != 1 {
		t.Fatalf("an LLM grader without an endpoint: want one warning, got %v", diags)
	} else if _, err := c.For(judge).Grade(context.Background(), nil); err == nil {
		t.Fatalf("an LLM grader without an endpoint must error when it grades")
	}
	var asked []string
	deferred := GraderFunc(func(context.Context, *Input) (*results.GraderResult, error) {
		return &results.GraderResult{Status: results.StatusPending, Feedback: "deferred"}, nil
	})
	c, diags := CompileEnv(&Env{Suite: suite, Judge: none, Override: func(def *spec.Grader, typ *Type) Grader {
		asked = append(asked, def.Name)
		if typ.Judge {
			return deferred
		}
		return nil
	}})
	if diags.HasErrors() || c.For(judge) == nil || c.For(text) == nil {
		t.Fatalf("diags %v", diags)
	}
	if r := grade(t, c.For(judge), &Input{Run: &results.AgentRun{}}); r.Status != results.StatusPending {
		t.Errorf("the override was not used: %+v", r)
	}
	if len(asked) != 2 {
		t.Errorf("override asked for %v", asked)
	}
}

// Every type tells the loader what it told the registry, and a config the loader can decode into:
// a pointer to a struct.
func TestTypesAreKnownToTheLoader(t *testing.T) {
	for _, typ := range Types() {
		lt, ok := spec.LookupGraderType(typ.Name)
		if !ok || lt.Summary != typ.Summary || lt.Judge != typ.Judge || spec.IsJudge(typ.Name) != typ.Judge {
			t.Errorf("%s: the loader knows %+v", typ.Name, lt)
		}
		if typ.Config == nil {
			continue
		}
		for _, keys := range [][]string{nil, {"skill_path"}} {
			c := reflect.TypeOf(typ.Config(keys))
			if c == nil || c.Kind() != reflect.Pointer || c.Elem().Kind() != reflect.Struct {
				t.Errorf("%s: config %v is not a pointer to a struct", typ.Name, c)
			}
		}
	}
	if got := spec.JudgeTypeList(); got != "judged_checks, prompt, llm or llm_comparison" {
		t.Errorf("judges: %s", got)
	}
}

// A declaration's config is typed when it is parsed; a value of the wrong type is reported when
// the grader compiles, at its own position, and the grader does not compile.
func TestConfigTypedAtLoad(t *testing.T) {
	def := defFromYAML(t, "type: text\nname: t\nconfig:\n  contains: [a, b]\n")
	if cfg, ok := def.Config.(*textConfig); !ok || len(cfg.Contains) != 2 || def.ConfigErrors != nil {
		t.Fatalf("config %#v errors %v", def.Config, def.ConfigErrors)
	}
	def = defFromYAML(t, "type: text\nname: t\nconfig:\n  contains: [a, [b]]\n")
	g, diags := CompileOne(def, nil)
	if g != nil || len(diags) != 1 || diags[0].Pos.Line != 4 || diags[0].Pos.Col != 17 || diags[0].Key != "config.contains[1]" {
		t.Errorf("grader %v diags %v", g, diags)
	}
}

// An unknown type is named in the terms of the suite's own format: a kebab-case type in a waza
// suite (a third-party waza suite declares `type: self-report`) is waza's unknown grader type,
// and its fix lists waza's names; only in a Vally spec is it a plugin grader of Vally's.
func TestUnknownTypeInTheSuitesFormat(t *testing.T) {
	cases := []struct {
		name, format, typ string
		want, notWant     []string
	}{
		{"waza kebab", "", "self-report",
			[]string{`unknown grader type "self-report"`, "use one of: action_sequence", "skill_invocation"},
			[]string{"Vally", "grader-plugin", "output-contains", "file-exists"}},
		{"waza typo", "", "skil_invocation",
			[]string{`unknown grader type "skil_invocation"`, "did you mean `skill_invocation`?"},
			[]string{"Vally", "skill-invocation"}},
		{"skill-creator kebab", spec.FormatSkillCreator, "self-report",
			[]string{`unknown grader type "self-report"`},
			[]string{"Vally", "output-contains"}},
		{"vally plugin", "vally", "self-report",
			[]string{`"self-report" is not one of Vally's built-in graders (a --grader-plugin type?)`, "output-contains"},
			nil},
		{"vally built-in panel", "vally", "panel",
			[]string{`Vally's built-in "panel" grader is not supported by skillgate yet`, "fix: grade with a `prompt` grader"},
			[]string{"unknown grader type", "grader-plugin", "use one of"}},
		{"vally built-in kebab", "vally", "loop-outcome",
			[]string{`Vally's built-in "loop-outcome" grader is not supported by skillgate yet`, "`tool-call-count`"},
			[]string{"grader-plugin", "use one of"}},
		{"waza panel", "", "panel",
			[]string{`unknown grader type "panel"`},
			[]string{"Vally"}},
		{"vally snake", "vally", "selfreport",
			[]string{`unknown grader type "selfreport"`},
			[]string{"grader-plugin"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			def := defFromYAML(t, "type: "+c.typ+"\nname: g\n")
			g, diags := CompileOne(def, &Env{Suite: &spec.Suite{Format: c.format}})
			if g == nil || len(diags) != 1 || diags[0].Severity != spec.SevWarning {
				t.Fatalf("want a failing grader and one warning, got %T %v", g, diags)
			}
			text := diagText(diags)
			for _, w := range c.want {
				if !strings.Contains(text, w) {
					t.Errorf("missing %q in %s", w, text)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(text, w) {
					t.Errorf("unexpected %q in %s", w, text)
				}
			}
		})
	}
}
