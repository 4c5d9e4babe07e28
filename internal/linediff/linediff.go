// Package linediff tells a test where two texts part: golden files, normalized JSON.
package linediff

import (
	"strconv"
	"strings"
)

// Lines shows up to most of the lines where got differs from want, each with its number:
// "line N:\n  want: …\n  got:  …\n". A line one text lacks counts as differing even where the
// other's is empty, so texts that differ only in a final newline are shown too. Equal texts
// give "".
func Lines(want, got string, most int) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out strings.Builder
	shown := 0
	for i := 0; i < max(len(w), len(g)) && shown < most; i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl || i >= len(w) || i >= len(g) {
			out.WriteString("line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl + "\n")
			shown++
		}
	}
	return out.String()
}
