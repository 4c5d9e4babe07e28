package graders

import (
	"fmt"
	"strings"
)

// Sequence matching shared by action_sequence and skill_invocation
// (docs/graders.md#action_sequence--the-order-of-tool-calls,
// docs/graders.md#skill_invocation--which-skills-were-invoked).

type seqMode int

const (
	seqExact seqMode = iota
	seqInOrder
	seqAnyOrder
)

// precisionRecall computes the multiset overlap: TP = Σ min(expected count, actual count);
// precision = TP/len(actual) (0 when empty), recall = TP/len(expected).
func precisionRecall(expected, actual []string) (precision, recall, f1 float64) {
	if len(expected) == 0 && len(actual) == 0 {
		return 1, 1, 1
	}
	want := counts(expected)
	got := counts(actual)
	tp := 0
	for name, n := range want {
		tp += min(n, got[name])
	}
	if len(actual) > 0 {
		precision = float64(tp) / float64(len(actual))
	}
	if len(expected) > 0 {
		recall = float64(tp) / float64(len(expected))
	}
	if precision+recall > 0 {
		f1 = 2 * precision * recall / (precision + recall)
	}
	return precision, recall, f1
}

func counts(names []string) map[string]int {
	m := make(map[string]int, len(names))
	for _, n := range names {
		m[n]++
	}
	return m
}

func sequenceMatches(mode seqMode, expected, actual []string) bool {
	switch mode {
	case seqExact:
		if len(actual) != len(expected) {
			return false
		}
		for i := range expected {
			if actual[i] != expected[i] {
				return false
			}
		}
		return true
	case seqInOrder:
		i := 0
		for _, a := range actual {
			if i < len(expected) && a == expected[i] {
				i++
			}
		}
		return i == len(expected)
	default:
		return len(shortfalls(expected, actual)) == 0
	}
}

// shortfalls lists each expected name that occurs too rarely in actual, as "name (need N, got M)",
// in the order the names first appear in expected (waza iterated a map here, so its order varied).
func shortfalls(expected, actual []string) []string {
	want := counts(expected)
	got := counts(actual)
	var out []string
	seen := map[string]bool{}
	for _, name := range expected {
		if seen[name] {
			continue
		}
		seen[name] = true
		if got[name] < want[name] {
			out = append(out, fmt.Sprintf("%s (need %d, got %d)", name, want[name], got[name]))
		}
	}
	return out
}

// goList formats a list as Go's %v does ("[a b c]"), which is what waza's messages show.
func goList(s []string) string {
	return "[" + strings.Join(s, " ") + "]"
}
