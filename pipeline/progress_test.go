package pipeline

import (
	"bytes"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/results"
	"github.com/skillgate/skillgate/spec"
)

// TestProgressGroupEscapesSuiteName: a suite name is text from the repository; in the Actions
// log it must stay inside its ::group:: line.
func TestProgressGroupEscapesSuiteName(t *testing.T) {
	tests := []struct {
		name, want string
	}{
		{"hello", "::group::hello (1 tasks, mock)\n"},
		{"100% done", "::group::100%25 done (1 tasks, mock)\n"},
		{"a\n::error::injected", "::group::a%0A::error::injected (1 tasks, mock)\n"},
		{"a\r\nb", "::group::a%0D%0Ab (1 tasks, mock)\n"},
		{"x: y, z", "::group::x: y, z (1 tasks, mock)\n"}, // a message keeps : and ,
	}
	for _, tt := range tests {
		var out bytes.Buffer
		p := NewProgress(&out, ProgressGitHub)
		s := &spec.Suite{Name: tt.name, Config: spec.Config{Executor: "mock"}}
		p.SuiteStarted(s, 1)
		p.SuiteFinished(s, &results.SuiteResult{})
		want := tt.want + "::endgroup::\n"
		if out.String() != want {
			t.Errorf("suite %q:\n got %q\nwant %q", tt.name, out.String(), want)
		}
		if n := strings.Count(out.String(), "\n"); n != 2 {
			t.Errorf("suite %q: %d lines, want 2", tt.name, n)
		}
	}
}
