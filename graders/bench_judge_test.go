package graders

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// judgeBenchInput is a large run: a 10 KB answer, 100 tool calls, 8 changed files of 5 KB.
func judgeBenchInput(b *testing.B) *Input {
	files := map[string]string{}
	var changes []results.FileChange
	for i := 0; i < 8; i++ {
		name := fmt.Sprintf("src/module_%d.py", i)
		files[name] = strings.Repeat("def f(x):\n    return x * 2\n", 180)
		changes = append(changes, results.FileChange{Path: name, Change: "added", Size: int64(len(files[name]))})
	}
	var opts []func(*results.AgentRun)
	for i := 0; i < 100; i++ {
		opts = append(opts, withCall("bash", map[string]any{"command": fmt.Sprintf("pytest tests/test_%d.py -q", i)}))
	}
	run := runWith(benchOutput, opts...)
	run.ChangedFiles = changes
	return &Input{Task: &spec.Task{ID: "t", Prompt: "Implement the modules."}, Run: run, Workspace: writeFiles(b, files), Trial: 1}
}

// BenchmarkJudgeRequest builds the judge's request for a large run (what a judgement costs
// before any network time).
func BenchmarkJudgeRequest(b *testing.B) {
	f := &fakeJudge{}
	env, _ := judgeEnv(b, f, nil)
	g := mustCompile(b, llmDef(b, "type: llm\nname: q\nconfig:\n  rubric: Rate it.\n"), env).(*llmGrader)
	in := judgeBenchInput(b)
	b.ReportAllocs()
	b.ResetTimer()
	size := 0
	for i := 0; i < b.N; i++ {
		req := g.request(in)
		size = len(*req.Messages[1].Content)
	}
	b.ReportMetric(float64(size), "bytes/request")
}

// BenchmarkJudgeCacheHit grades a run whose verdict is cached: request, hash, cache read, parse.
func BenchmarkJudgeCacheHit(b *testing.B) {
	f := &fakeJudge{reply: func(map[string]any) (int, string) { return 200, completion(text(`{"score": 4}`)) }}
	env, _ := judgeEnv(b, f, nil)
	g := mustCompile(b, llmDef(b, "type: llm\nname: q\nconfig:\n  rubric: Rate it.\n"), env)
	in := judgeBenchInput(b)
	grade(b, g, in)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r, err := g.Grade(context.Background(), in); err != nil || r.Details["cached"] != true {
			b.Fatal(err)
		}
	}
}

// BenchmarkJudgeHTTP grades against a local endpoint without the cache: the client's own cost
// plus a loopback round trip.
func BenchmarkJudgeHTTP(b *testing.B) {
	f := &fakeJudge{reply: func(map[string]any) (int, string) {
		return 200, completion(nil, [2]string{toolPass, `{"description":"d","reason":"r"}`})
	}}
	env, _ := judgeEnv(b, f, nil)
	env.Judge.CacheDir = ""
	g := mustCompile(b, defFromYAML(b, "type: prompt\nname: q\nconfig:\n  prompt: judge it\n"), env)
	in := judgeBenchInput(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		grade(b, g, in)
	}
}

// BenchmarkScriptGrader is one run of a shell script grader: process start, context JSON in,
// result JSON out.
func BenchmarkScriptGrader(b *testing.B) {
	needs(b, "sh")
	file := "testdata/scripts/eval.yaml"
	def, err := parseDef("type: script\nname: s\nconfig:\n  script: check.sh\n", mustAbs(b, file))
	if err != nil {
		b.Fatal(err)
	}
	g := mustCompile(b, def, &Env{Suite: &spec.Suite{Dir: b.TempDir()}})
	in := judgeBenchInput(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		grade(b, g, in)
	}
}
