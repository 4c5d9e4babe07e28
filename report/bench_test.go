package report

import (
	"io"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/skillgate/skillgate/internal/cputime"
	"github.com/skillgate/skillgate/results"
)

// The performance target: rendering every report for a 10,000-task × 3-trial results file in
// under 2 s and 300 MB (docs/performance.md, "Reports").

var (
	benchOnce       sync.Once
	benchHead       *results.SuiteResult
	benchBase       *results.SuiteResult
	benchHeadJSON   []byte
	benchBaseJSON   []byte
	benchSuiteInput *Input
)

func benchData(b *testing.B) {
	benchOnce.Do(func() {
		benchHead = bigSuite("huge", 10000, 3, 0)
		benchBase = bigSuite("huge", 10000, 3, 5)
		var err error
		if benchHeadJSON, err = results.Marshal(benchHead); err != nil {
			b.Fatal(err)
		}
		if benchBaseJSON, err = results.Marshal(benchBase); err != nil {
			b.Fatal(err)
		}
		s, err := NewSuite(benchHead, benchBase, CompareOptions{})
		if err != nil {
			b.Fatal(err)
		}
		benchSuiteInput = &Input{Suites: []*Suite{s}, Key: "bench"}
	})
}

// renderAll is everything a run writes: the comparison, JUnit, SARIF, comment, summary, the
// HTML report and the terminal table.
func renderAll(b *testing.B, head, base *results.SuiteResult) {
	s, err := NewSuite(head, base, CompareOptions{})
	if err != nil {
		b.Fatal(err)
	}
	in := &Input{Suites: []*Suite{s}, Key: "bench"}
	if err := WriteJUnit(io.Discard, in); err != nil {
		b.Fatal(err)
	}
	if err := WriteSARIF(io.Discard, in); err != nil {
		b.Fatal(err)
	}
	_ = Comment(in)
	_ = Summary(in)
	if err := WriteHTML(io.Discard, in); err != nil {
		b.Fatal(err)
	}
	if err := Terminal(io.Discard, in, TerminalOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := s.Comparison.WriteJSON(io.Discard); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkRenderAll10kTasks(b *testing.B) {
	benchData(b)
	loopCPU(b, func() { renderAll(b, benchHead, benchBase) })
	reportPeakHeap(b)
}

// BenchmarkDecodeAndRenderAll10kTasks adds reading both results files (results.Decode).
func BenchmarkDecodeAndRenderAll10kTasks(b *testing.B) {
	benchData(b)
	loopCPU(b, func() {
		head, err := results.Decode(benchHeadJSON, "head.json")
		if err != nil {
			b.Fatal(err)
		}
		base, err := results.Decode(benchBaseJSON, "base.json")
		if err != nil {
			b.Fatal(err)
		}
		renderAll(b, head, base)
	})
	reportPeakHeap(b)
}

func BenchmarkReports10kTasks(b *testing.B) {
	benchData(b)
	in := benchSuiteInput
	for _, bc := range []struct {
		name string
		fn   func()
	}{
		{"compare", func() { Compare(benchBase, benchHead, CompareOptions{}) }},
		{"junit", func() { WriteJUnit(io.Discard, in) }},
		{"sarif", func() { WriteSARIF(io.Discard, in) }},
		{"comment", func() { Comment(in) }},
		{"summary", func() { Summary(in) }},
		{"html", func() { WriteHTML(io.Discard, in) }},
		{"terminal", func() { Terminal(io.Discard, in, TerminalOptions{}) }},
	} {
		b.Run(bc.name, func(b *testing.B) { loopCPU(b, bc.fn) })
	}
}

// loopCPU runs op as the benchmark's loop (whose first turn resets the timer) and reports the
// process CPU time per op besides the wall time.
func loopCPU(b *testing.B, op func()) {
	b.ReportAllocs()
	cpu := cputime.Process().Seconds()
	for b.Loop() {
		op()
	}
	b.ReportMetric((cputime.Process().Seconds()-cpu)/float64(b.N), "cpu-s/op")
}

// reportPeakHeap records the largest heap the process has held (Go's own high-water mark of
// heap memory obtained from the OS), a bound on what rendering needs on top of the inputs.
func reportPeakHeap(b *testing.B) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "MB-heap-sys")
}

// BenchmarkReportFile is `skillgate report FILE --out DIR` in process: a results file of
// 20,000 tasks (largeSuite, 32 MB) read and every report file written, with the file read
// whole (held) and in passes (streamed: results.OpenFile of a large file). bench/report.sh
// measures the command itself, peak memory included, at 10⁵ and 10⁶ tasks.
func BenchmarkReportFile(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "r.json")
	if err := results.WriteFile(file, largeSuite("large", 20000, 0)); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		limit int64
	}{{"held", 1 << 40}, {"streamed", -1}} {
		b.Run(bc.name, func(b *testing.B) {
			loopCPU(b, func() {
				res, err := results.OpenFileWith(file, results.OpenOptions{Resident: bc.limit})
				if err != nil {
					b.Fatal(err)
				}
				s, err := NewSuite(res, nil, CompareOptions{})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := WriteDir(filepath.Join(dir, "out"), &Input{Suites: []*Suite{s}}); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
