package main

import (
	"testing"

	"github.com/skillgate/skillgate/spec"
)

// TestAnnotationEscaping: file names and messages come from the repository; every value is
// escaped as the runner expects (% CR LF everywhere, and : , in properties) so none can end
// the command early or add properties.
func TestAnnotationEscaping(t *testing.T) {
	tests := []struct {
		name string
		d    spec.Diagnostic
		want string
	}{
		{"plain", spec.Diagnostic{Pos: spec.Pos{File: "evals/a/eval.yaml", Line: 3, Col: 5}, Message: "bad"},
			"::error col=5,file=evals/a/eval.yaml,line=3::bad"},
		{"no position", spec.Diagnostic{Pos: spec.Pos{File: "e.yaml"}, Message: "bad"},
			"::error col=1,file=e.yaml,line=1::bad"},
		{"message percent and line breaks", spec.Diagnostic{Pos: spec.Pos{File: "e.yaml", Line: 1, Col: 1}, Message: "100%\r\n::warning::x"},
			"::error col=1,file=e.yaml,line=1::100%25%0D%0A::warning::x"},
		{"message keeps : and ,", spec.Diagnostic{Pos: spec.Pos{File: "e.yaml", Line: 1, Col: 1}, Key: "config.x", Message: "a, b", Fix: "c"},
			"::error col=1,file=e.yaml,line=1::config.x: a, b (fix: c)"},
		{"file with : and ,", spec.Diagnostic{Pos: spec.Pos{File: "we,ird:name.yaml", Line: 2, Col: 1}, Message: "m"},
			"::error col=1,file=we%2Cird%3Aname.yaml,line=2::m"},
		{"file with % and a line break", spec.Diagnostic{Pos: spec.Pos{File: "a%b\n::x.yaml", Line: 2, Col: 1}, Message: "m"},
			"::error col=1,file=a%25b%0A%3A%3Ax.yaml,line=2::m"},
	}
	for _, tt := range tests {
		if got := annotation("error", tt.d).String(); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}
