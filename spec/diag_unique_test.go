package spec

import (
	"reflect"
	"testing"
)

// A spec loaded under several experiment variants reports its problems once: Unique drops the
// diagnostics that repeat an earlier one word for word, and keeps those that differ in anything.
func TestDiagnosticsUnique(t *testing.T) {
	a := Warnf(Pos{File: "s.eval.yaml", Line: 3, Col: 1}, "artifacts", "remove it", "unknown key")
	b := Warnf(Pos{File: "s.eval.yaml", Line: 4, Col: 1}, "artifacts", "remove it", "unknown key")
	c := a
	c.Fix = "another fix"
	for _, tc := range []struct {
		in, want Diagnostics
	}{
		{Diagnostics{}, Diagnostics{}},
		{Diagnostics{a, a, a}, Diagnostics{a}},
		{Diagnostics{a, b, a, c}, Diagnostics{a, b, c}},
	} {
		if got := tc.in.Unique(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Unique(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
