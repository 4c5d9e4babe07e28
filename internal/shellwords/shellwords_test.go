package shellwords

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		err  bool
	}{
		{"", nil, false},
		{"  a  b ", []string{"a", "b"}, false},
		{`--x "two words" 'single $quoted' back\ slash`, []string{"--x", "two words", "single $quoted", "back slash"}, false},
		{`"esc \" \\ done"`, []string{`esc " \ done`}, false},
		{`a""b ''`, []string{"ab", ""}, false},
		{`"open`, nil, true},
		{`'open`, nil, true},
		{`trailing\`, nil, true},
	}
	for _, tt := range tests {
		got, err := Split(tt.in)
		if (err != nil) != tt.err || !slices.Equal(got, tt.want) {
			t.Errorf("Split(%q) = %q, %v; want %q (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}
