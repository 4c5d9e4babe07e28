package graders

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/internal/testtree"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// testFile is the file name diagnostics of graders built by the helpers below name.
const testFile = "/suite/eval.yaml"

// defFromYAML builds a grader declaration from YAML holding {type, name, weight, config}, as the
// loader would: Config is decoded into the type's config struct.
func defFromYAML(t testing.TB, src string) *spec.Grader {
	t.Helper()
	def, err := parseDef(src, testFile)
	if err != nil {
		t.Fatalf("bad test YAML: %v\n%s", err, src)
	}
	return def
}

func parseDef(src, file string) (*spec.Grader, error) {
	return spec.ParseGrader(file, []byte(src))
}

// defsFromFile reads a YAML file holding a list of grader declarations.
func defsFromFile(t testing.TB, path string) []*spec.Grader {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(path)
	defs, err := spec.ParseGraders(abs, data)
	if err != nil {
		t.Fatal(err)
	}
	return defs
}

// compileErrorCase is a declaration that must not compile: its first diagnostic is an error at
// pos (line:col in testFile) whose text holds msg.
type compileErrorCase struct{ name, yaml, pos, msg string }

// checkCompileErrors runs compile error cases; prepare adjusts each declaration first.
func checkCompileErrors(t *testing.T, cases []compileErrorCase, prepare ...func(*spec.Grader)) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			def := defFromYAML(t, c.yaml)
			for _, p := range prepare {
				p(def)
			}
			text := diagText(compileDiags(t, def))
			if !strings.HasPrefix(text, testFile+":"+c.pos+": error: ") || !strings.Contains(text, c.msg) {
				t.Errorf("want %s … %q, got %s", c.pos, c.msg, text)
			}
		})
	}
}

// gradeCase is a declaration (a seed example by name, else yaml) and the verdict it must give
// on a run.
type gradeCase struct {
	name, yaml, seed string
	run              *results.AgentRun
	score            float64
	passed           bool
	feedback         string
}

// checkGradeCases grades each case's run; seeds names the seed file of the cases' seeds.
func checkGradeCases(t *testing.T, seeds string, cases []gradeCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			def := seedDefOrYAML(t, seeds, c.seed, c.yaml)
			assertResult(t, grade(t, mustCompile(t, def), &Input{Run: c.run}), c.score, c.passed, c.feedback)
		})
	}
}

// mustCompile compiles a declaration and fails the test on any diagnostic.
func mustCompile(t testing.TB, def *spec.Grader, env ...*Env) Grader {
	t.Helper()
	var e *Env
	if len(env) > 0 {
		e = env[0]
	}
	g, diags := CompileOne(def, e)
	if len(diags) > 0 {
		t.Fatalf("unexpected diagnostics: %v", diags)
	}
	return g
}

// compileDiags compiles a declaration that must fail and returns its diagnostics.
func compileDiags(t testing.TB, def *spec.Grader, env ...*Env) spec.Diagnostics {
	t.Helper()
	var e *Env
	if len(env) > 0 {
		e = env[0]
	}
	g, diags := CompileOne(def, e)
	if !diags.HasErrors() {
		t.Fatalf("expected a compile error, got none (grader %T)", g)
	}
	if g != nil {
		t.Fatalf("a grader was returned along with errors")
	}
	return diags
}

func grade(t testing.TB, g Grader, in *Input) *results.GraderResult {
	t.Helper()
	r, err := g.Grade(context.Background(), in)
	if err != nil {
		t.Fatalf("Grade: %v", err)
	}
	return r
}

// runWith builds an agent run; opts fill the digest.
func runWith(output string, opts ...func(*results.AgentRun)) *results.AgentRun {
	r := &results.AgentRun{FinalOutput: output}
	for _, o := range opts {
		o(r)
	}
	return r
}

func withTools(names ...string) func(*results.AgentRun) {
	return func(r *results.AgentRun) {
		for _, n := range names {
			r.SessionDigest.ToolCalls = append(r.SessionDigest.ToolCalls, results.ToolCall{Name: n, Success: true})
		}
		r.SessionDigest.ToolsUsed = append(r.SessionDigest.ToolsUsed, names...)
		r.SessionDigest.ToolCallCount += len(names)
	}
}

func withCall(name string, args map[string]any) func(*results.AgentRun) {
	return func(r *results.AgentRun) {
		r.SessionDigest.ToolCalls = append(r.SessionDigest.ToolCalls, results.ToolCall{Name: name, Arguments: args, Success: true})
		r.SessionDigest.ToolsUsed = append(r.SessionDigest.ToolsUsed, name)
		r.SessionDigest.ToolCallCount++
	}
}

func withSkills(names ...string) func(*results.AgentRun) {
	return func(r *results.AgentRun) {
		for _, n := range names {
			r.SessionDigest.SkillInvocations = append(r.SessionDigest.SkillInvocations, results.SkillInvocation{Name: n})
		}
	}
}

func withUsage(in, out int64, turns int) func(*results.AgentRun) {
	return func(r *results.AgentRun) {
		r.SessionDigest.Usage = &results.Usage{InputTokens: in, OutputTokens: out, Turns: turns}
	}
}

func withDuration(ms int64) func(*results.AgentRun) {
	return func(r *results.AgentRun) { r.DurationMS = ms }
}

func withEvents(events ...results.Event) func(*results.AgentRun) {
	return func(r *results.AgentRun) { r.Transcript = append(r.Transcript, events...) }
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-3 }

// checkResult asserts score (±0.001), pass and feedback of a result.
func assertResult(t testing.TB, r *results.GraderResult, score float64, passed bool, feedback string) {
	t.Helper()
	if !near(r.Score, score) || r.Passed != passed || r.Feedback != feedback {
		t.Errorf("got score=%.4f passed=%v feedback=%q\nwant score=%.4f passed=%v feedback=%q",
			r.Score, r.Passed, r.Feedback, score, passed, feedback)
	}
}

// writeFiles creates files (path → content) under a new temporary directory.
func writeFiles(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	testtree.Write(t, dir, files)
	return dir
}

// diagText joins diagnostics for substring assertions.
func diagText(ds spec.Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Error())
		b.WriteByte('\n')
	}
	return b.String()
}
