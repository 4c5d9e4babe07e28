package agent

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillgate/skillgate/internal/cputime"
)

// writeBenchTranscript writes a Claude Code stream-json transcript of at least size bytes by
// repeating the recorded sessions' lines, with tool call ids made unique per repetition so the
// calls accumulate as in one long session. It returns the file's size.
func writeBenchTranscript(b *testing.B, path string, size int64) int64 {
	b.Helper()
	var body [][]byte
	for _, name := range []string{"skael-skill-invocation-2.1.220.jsonl", "skael-basic-tools-write-read-2.1.220.jsonl", "agent-harness-bash-thinking-2.1.220.jsonl"} {
		data, err := os.ReadFile(filepath.Join("testdata/transcripts/claude-code", name))
		if err != nil {
			b.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			// One session: a single init and a single result, at the ends.
			if len(line) == 0 || bytes.Contains(line, []byte(`"subtype":"init"`)) || bytes.Contains(line, []byte(`"type":"result"`)) {
				continue
			}
			body = append(body, line)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	var written int64
	write := func(p []byte) {
		n, _ := w.Write(p)
		m, _ := w.Write([]byte("\n"))
		written += int64(n + m)
	}
	write([]byte(`{"type":"system","subtype":"init","session_id":"bench","model":"claude-test","claude_code_version":"2.1.220"}`))
	for rep := 0; written < size; rep++ {
		prefix := []byte(fmt.Sprintf(`"toolu_%d_`, rep))
		for _, line := range body {
			write(bytes.ReplaceAll(line, []byte(`"toolu_`), prefix))
		}
	}
	write([]byte(`{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"bench","num_turns":1,"total_cost_usd":1,"modelUsage":{"m":{"inputTokens":1,"outputTokens":1}}}`))
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return written
}

// peakHeap samples the heap in use until stopped and returns the highest value seen.
func peakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak.Load()
	}
}

// writeRepeated writes a transcript of at least size bytes by repeating a recorded one, with
// the ids matched by idPrefix made unique per repetition.
func writeRepeated(b *testing.B, path, fixture, idPrefix string, size int64) int64 {
	b.Helper()
	data, err := os.ReadFile(fixture)
	if err != nil {
		b.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	var written int64
	for rep := 0; written < size; rep++ {
		n, _ := w.Write(bytes.ReplaceAll(data, []byte(idPrefix), []byte(fmt.Sprintf("%s%d_", idPrefix, rep))))
		written += int64(n)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return written
}

// BenchmarkParseClaudeStream parses a 50 MB stream-json transcript from disk. Figures go to
// docs/performance.md ("Agent transcript parsing").
func BenchmarkParseClaudeStream(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	size := writeBenchTranscript(b, path, 50<<20)
	benchParse(b, path, size, FormatClaudeCode)
}

// BenchmarkParseCopilotStream parses 50 MB of Copilot CLI json events (encoding/json decoding).
func BenchmarkParseCopilotStream(b *testing.B) {
	path := filepath.Join(b.TempDir(), "bench.jsonl")
	size := writeRepeated(b, path, "testdata/transcripts/copilot/copilot-sdk-cli-1.0.76-json-skill-invocations.TRIMMED.jsonl", `"toolu_`, 50<<20)
	benchParse(b, path, size, FormatCopilot)
}

func benchParse(b *testing.B, path string, size int64, format string) {
	b.SetBytes(size)
	b.ReportAllocs()
	runtime.GC()
	stop := peakHeap()
	var events int
	cpu0 := cputime.Process()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		run, err := ParseTranscript(format, f)
		f.Close()
		if err != nil && format == FormatClaudeCode {
			b.Fatal(err)
		}
		events = len(run.Transcript)
	}
	b.StopTimer()
	// CPU time is reported besides wall time: on a shared machine wall time mostly measures the
	// load. It includes the GC and the heap sampler.
	if cpu := cputime.Process() - cpu0; cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/(1<<20)/cpu.Seconds(), "MiB/cpu-s")
	}
	b.ReportMetric(float64(stop())/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(events), "events")
}
