// Package textdiff says where two texts part, for tests that compare output with a golden file.
package textdiff

import (
	"strconv"
	"strings"
)

// FirstDifference shows the first line in which got differs from want, with its number; "" when
// the texts are equal.
func FirstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		// A missing line and an empty one read alike; the line count tells them apart.
		if wl != gl || i >= len(w) || i >= len(g) {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl
		}
	}
	return ""
}
