//go:build !unix

package report

// cpuSeconds is not measured outside unix; benchmarks then report 0 CPU seconds.
func cpuSeconds() float64 { return 0 }
