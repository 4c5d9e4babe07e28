package textdiff

import "testing"

func TestFirstDifference(t *testing.T) {
	for _, tc := range []struct{ want, got, diff string }{
		{"a\nb\n", "a\nb\n", ""},
		{"a\nb\nc", "a\nB\nc", "line 2:\n  want: b\n  got:  B"},
		{"a\n", "a\n\n", "line 3:\n  want: \n  got:  "}, // an extra empty line
		{"a\nb", "a", "line 2:\n  want: b\n  got:  "},
		{"", "x", "line 1:\n  want: \n  got:  x"},
	} {
		if got := FirstDifference(tc.want, tc.got); got != tc.diff {
			t.Errorf("FirstDifference(%q, %q) = %q, want %q", tc.want, tc.got, got, tc.diff)
		}
	}
}
