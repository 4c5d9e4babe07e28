package runner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/benchsuite"
	"github.com/skillgate/skillgate/internal/cputime"
	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// BenchmarkRunGeneratedSuite loads, runs and writes the results of a generated suite
// (1,000 tasks × 3 trials, two text graders each, mock executor, 4 workers). bench/run.sh
// measures the full 10,000-task run through the CLI.
func BenchmarkRunGeneratedSuite(b *testing.B) {
	dir := b.TempDir()
	if err := benchsuite.Write(dir, 1000, 3); err != nil {
		b.Fatal(err)
	}
	parallel := true
	b.Run("plain", func(b *testing.B) { benchRunSuite(b, dir, &parallel, false) })
	// With the crash journal the CLI and the Action keep: one line written per task.
	b.Run("journal", func(b *testing.B) { benchRunSuite(b, dir, &parallel, true) })
}

func benchRunSuite(b *testing.B, dir string, parallel *bool, journal bool) {
	b.ReportAllocs()
	for b.Loop() {
		prepared, diags, err := LoadSuites([]string{dir}, "")
		if err != nil || diags.HasErrors() {
			b.Fatal(err, diags)
		}
		p := prepared[0]
		opts := Options{
			Executor: agent.Mock{}, Graders: p.Graders, Parallel: parallel, Workers: 4,
			WorkspaceRoot: b.TempDir(),
		}
		if journal {
			opts.Journal = filepath.Join(b.TempDir(), "out.json.journal")
		}
		res, err := Run(context.Background(), p.Suite, opts)
		if err != nil {
			b.Fatal(err)
		}
		if res.Summary.Succeeded != 1000 {
			b.Fatalf("succeeded %d", res.Summary.Succeeded)
		}
		if err := results.WriteFile(filepath.Join(dir, "out.json"), res); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWorkspaceManyInputs prepares, inspects for changes and removes the workspace of a task
// listing 20,000 input files of 10 KB (200 MB), one run per op, next to `cp -r` + `rm -rf` of
// the same folder for scale. Allocation per op shows that no run holds the inputs' content.
func BenchmarkWorkspaceManyInputs(b *testing.B) {
	src := b.TempDir()
	tk := &spec.Task{ID: "many"}
	chunk := bytes.Repeat([]byte("0123456789abcdef"), 640)
	for i := range 20000 {
		rel := fmt.Sprintf("d%03d/f%05d.txt", i/100, i)
		p := filepath.Join(src, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		// Distinct contents, as real files are.
		data := append([]byte(fmt.Sprintf("%08d", i)), chunk[8:]...)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		tk.Files = append(tk.Files, &spec.InputFile{Path: rel, Source: p})
	}
	root := b.TempDir()
	b.Run("skillgate", func(b *testing.B) {
		r := newSuiteRun(&spec.Suite{Name: "bench", Tasks: []*spec.Task{tk}}, Options{WorkspaceRoot: root})
		defer r.inputs.remove()
		if _, err := r.inputs.get(tk.Files[0]); err != nil { // the store's one-time write is not per run
			b.Fatal(err)
		}
		for _, f := range tk.Files {
			r.inputs.get(f)
		}
		b.ReportAllocs()
		for b.Loop() {
			ws, err := r.newWorkspace(tk, 1, true, true)
			if err != nil {
				b.Fatal(err)
			}
			if c := ws.changes(); len(c) != 0 {
				b.Fatalf("changes: %v", c[0])
			}
			ws.cleanup(false)
		}
	})
	b.Run("cp-r", func(b *testing.B) {
		for b.Loop() {
			dest := filepath.Join(root, "cp")
			if out, err := exec.Command("cp", "-r", src, dest).CombinedOutput(); err != nil {
				b.Fatal(err, string(out))
			}
			if out, err := exec.Command("rm", "-rf", dest).CombinedOutput(); err != nil {
				b.Fatal(err, string(out))
			}
		}
	})
}

// BenchmarkLoadSuites is the per-task cost of loading a suite and compiling its graders
// (1,000 generated task files, two text graders each with four patterns).
func BenchmarkLoadSuites(b *testing.B) {
	dir := b.TempDir()
	const tasks = 1000
	if err := benchsuite.Write(dir, tasks, 1); err != nil {
		b.Fatal(err)
	}
	if _, _, err := LoadSuites([]string{dir}, ""); err != nil { // schemas compiled outside the timing
		b.Fatal(err)
	}
	b.ReportAllocs()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	allocated := ms.TotalAlloc
	start, cpu := time.Now(), cputime.Process()
	for b.Loop() {
		prepared, diags, err := LoadSuites([]string{dir}, "")
		if err != nil || diags.HasErrors() || len(prepared[0].Suite.Tasks) != tasks {
			b.Fatal(err, diags)
		}
	}
	runtime.ReadMemStats(&ms)
	n := float64(b.N * tasks)
	b.ReportMetric(float64(time.Since(start).Microseconds())/n, "µs/task")
	b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/n, "cpu-µs/task")
	b.ReportMetric(float64(ms.TotalAlloc-allocated)/n/1024, "KB/task")
}

// BenchmarkShardOf20 is one shard of 20 next to the full run of the same generated suite
// (2,000 tasks × 3 trials, mock executor, 4 workers): load, run, write the results file. The
// shard loads only its own tasks in full; "shard-1-of-20-loading-all" loads every task as
// shards did before. cpu-ms/op is the figure to compare (docs/performance.md); bench/run.sh
// measures the CLI on 10,000 tasks.
func BenchmarkShardOf20(b *testing.B) {
	dir := b.TempDir()
	if err := benchsuite.Write(dir, 2000, 3); err != nil {
		b.Fatal(err)
	}
	if _, _, err := LoadSuites([]string{dir}, ""); err != nil { // schemas compiled outside the timing
		b.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		shard     *Shard
		loadShard bool
	}{{"full", nil, false}, {"shard-1-of-20", &Shard{1, 20}, true}, {"shard-1-of-20-loading-all", &Shard{1, 20}, false}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			load := LoadOptions{}
			if c.loadShard {
				load.Shard = c.shard
			}
			cpu := cputime.Process()
			for b.Loop() {
				prepared, diags, err := LoadSuitesWith([]string{dir}, load)
				if err != nil || diags.HasErrors() {
					b.Fatal(err, diags)
				}
				p := prepared[0]
				parallel := true
				res, err := Run(context.Background(), p.Suite, Options{
					Executor: agent.Mock{}, Graders: p.Graders, Parallel: &parallel, Workers: 4,
					WorkspaceRoot: b.TempDir(), Shard: c.shard,
				})
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Tasks) != 2000 {
					b.Fatalf("%d tasks", len(res.Tasks))
				}
				if err := results.WriteFile(filepath.Join(b.TempDir(), "out.json"), res); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cputime.Process()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
		})
	}
}
