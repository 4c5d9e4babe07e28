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
	b.ReportAllocs()
	for b.Loop() {
		prepared, diags, err := LoadSuites([]string{dir}, "")
		if err != nil || diags.HasErrors() {
			b.Fatal(err, diags)
		}
		p := prepared[0]
		res, err := Run(context.Background(), p.Suite, Options{
			Executor: agent.Mock{}, Graders: p.Graders, Parallel: &parallel, Workers: 4,
			WorkspaceRoot: b.TempDir(),
		})
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
