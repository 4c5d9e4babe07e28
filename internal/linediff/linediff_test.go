package linediff

import "testing"

func TestLines(t *testing.T) {
	tests := []struct {
		name, want, got string
		most            int
		diff            string
	}{
		{"equal", "a\nb\n", "a\nb\n", 5, ""},
		{"one line", "a\nb\nc", "a\nB\nc", 5, "line 2:\n  want: b\n  got:  B\n"},
		{"most bounds the lines shown", "a\nb\nc", "x\ny\nz", 2, "line 1:\n  want: a\n  got:  x\nline 2:\n  want: b\n  got:  y\n"},
		{"a final newline", "a", "a\n", 5, "line 2:\n  want: \n  got:  \n"},
		{"a missing line", "a\nb", "a", 5, "line 2:\n  want: b\n  got:  \n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Lines(tt.want, tt.got, tt.most); got != tt.diff {
				t.Errorf("Lines = %q, want %q", got, tt.diff)
			}
		})
	}
}
