package runner

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/skillgate/skillgate/agent"
	"github.com/skillgate/skillgate/internal/benchsuite"
	"github.com/skillgate/skillgate/results"
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
