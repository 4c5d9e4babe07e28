package spec

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/skillgate/skillgate/internal/cputime"
)

// writeLargeSuite writes a suite of n task files, each with a prompt, a file input and two text
// graders, and returns its eval.yaml.
func writeLargeSuite(tb testing.TB, dir string, n int) string {
	tb.Helper()
	must := func(err error) {
		if err != nil {
			tb.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(dir, "tasks"), 0o755))
	must(os.MkdirAll(filepath.Join(dir, "fixtures"), 0o755))
	must(os.WriteFile(filepath.Join(dir, "fixtures", "input.py"), []byte("print('hello')\n"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "eval.yaml"), []byte(`name: large
skill: demo
inputs:
  language: python
graders:
  - type: code
    name: has_output
    config:
      assertions: ["len(output) > 0"]
tasks:
  - tasks/*.yaml
`), 0o644))
	for i := 0; i < n; i++ {
		task := fmt.Sprintf(`id: task-%04d
name: Task %d
tags: [bench]
inputs:
  prompt: "Explain the {{language}} file input.py (task %d)"
  files:
    - path: input.py
graders:
  - type: text
    name: mentions_print
    config:
      contains: [print]
      regex_not_match: ["(?i)error"]
  - type: text
    name: no_todo
    weight: 2
    config:
      not_contains: [TODO]
`, i, i, i)
		must(os.WriteFile(filepath.Join(dir, "tasks", fmt.Sprintf("task-%04d.yaml", i)), []byte(task), 0o644))
	}
	return filepath.Join(dir, "eval.yaml")
}

func BenchmarkLoad1000Tasks(b *testing.B) {
	evalFile := writeLargeSuite(b, b.TempDir(), 1000)
	if _, err := compiledSchemas(); err != nil { // compile once, outside the timing
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cputime.Process()
	for i := 0; i < b.N; i++ {
		s, diags := Load(evalFile, Options{})
		if len(diags) != 0 || len(s.Tasks) != 1000 {
			b.Fatalf("load: %d tasks, diagnostics:\n%s", len(s.Tasks), render(diags))
		}
	}
	b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
	// What a loaded task keeps in memory (the suite alive, garbage collected).
	b.StopTimer()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	s, _ := Load(evalFile, Options{})
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(s)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/1000, "retained-B/task")
}

// The generated suite must load cleanly and completely, whatever the benchmark measures.
func TestLargeSuiteLoads(t *testing.T) {
	s, diags := Load(writeLargeSuite(t, t.TempDir(), 50), Options{})
	if len(diags) != 0 || len(s.Tasks) != 50 || len(s.Tasks[7].Graders) != 3 || s.Tasks[7].ID != "task-0007" ||
		s.Tasks[7].Prompt != "Explain the python file input.py (task 7)" {
		t.Fatalf("large suite: %d tasks, diagnostics:\n%s", len(s.Tasks), render(diags))
	}
}

// BenchmarkCompileSchemas is the start-up cost every `skillgate run` or `validate` pays once:
// compiling the embedded suite schemas the loader validates with (grader rules compile when first
// used).
func BenchmarkCompileSchemas(b *testing.B) {
	b.ReportAllocs()
	cpu := cputime.Process()
	for b.Loop() {
		if _, err := compileSuiteSchemas(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cputime.Process()-cpu)/float64(b.N), "cpu-ns/op")
}
