package redact

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// BenchmarkWriter streams results-like JSON, holding none of the secrets, through the redactor
// with the secrets of a typical CI job registered (a token, the judge key, agent keys): the cost
// every results file, report and log line pays (docs/performance.md).
func BenchmarkWriter(b *testing.B) {
	for _, v := range []string{"ghs_benchWorkflowToken0123456789abcd", "sk-ant-benchAgentKey-0123456789abcdef", "sk-benchOpenAIKey-0123456789abcdef",
		"AIzaBenchGeminiKey0123456789abcdefgh", "github_pat_benchCopilot0123456789abc", "eyJbench.RuntimeToken.0123456789abcdef"} {
		Add(v)
	}
	chunk := []byte(strings.Repeat(`{"type":"tool_call","name":"shell","arguments":{"command":"sed -n 1,200p skills/x/SKILL.md"},"success":true},`, 600))
	b.SetBytes(int64(len(chunk)))
	w := NewWriter(io.Discard)
	for b.Loop() {
		w.Write(chunk)
	}
	w.Flush()
	if !bytes.Contains(chunk, []byte("sed")) {
		b.Fatal("no input")
	}
}
