package envmib

import (
	"strings"
	"testing"
)

func TestBytes(t *testing.T) {
	const name, def = "SKILLGATE_TEST_MIB", 64 << 20
	tests := []struct {
		value string
		want  int64
		warns bool
	}{
		{"", def, false},
		{"1", 1 << 20, false},
		{" 512 ", 512 << 20, false},
		{"1048576", 1 << 40, false},
		{"0", def, true},
		{"1048577", def, true},
		{"-3", def, true},
		{"1.5", def, true},
		{"16MiB", def, true},
	}
	for _, tt := range tests {
		t.Setenv(name, tt.value)
		var warn strings.Builder
		if got := bytesFrom(&warn, name, def); got != tt.want {
			t.Errorf("%s=%q: %d bytes, want %d", name, tt.value, got, tt.want)
		}
		if want := `skillgate: warning: SKILLGATE_TEST_MIB="` + tt.value + `" ignored: want a whole number of MiB between 1 and 1048576 (using 64 MiB)` + "\n"; tt.warns && warn.String() != want {
			t.Errorf("%s=%q: warning %q, want %q", name, tt.value, warn.String(), want)
		} else if !tt.warns && warn.Len() != 0 {
			t.Errorf("%s=%q: unexpected warning %q", name, tt.value, warn.String())
		}
	}
}
