package regex

import (
	"slices"
	"unicode"
)

// A runeSet is a set of code points: sorted, disjoint, non-adjacent inclusive ranges
// [lo0, hi0, lo1, hi1, …]. Character classes of every dialect are resolved into runeSets, so
// both engines get the same explicit set and never apply their own idea of \w or case.
type runeSet []rune

// anyRune is every code point.
var anyRune = runeSet{0, unicode.MaxRune}

// setOf builds a set from unordered, possibly overlapping ranges.
func setOf(pairs ...rune) runeSet {
	if len(pairs) == 0 {
		return nil
	}
	type rng struct{ lo, hi rune }
	rs := make([]rng, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		lo, hi := pairs[i], pairs[i+1]
		if lo > hi {
			lo, hi = hi, lo
		}
		rs = append(rs, rng{lo, hi})
	}
	slices.SortFunc(rs, func(a, b rng) int { return int(a.lo) - int(b.lo) })
	out := make(runeSet, 0, 2*len(rs))
	for _, r := range rs {
		if n := len(out); n > 0 && r.lo <= out[n-1]+1 {
			out[n-1] = max(out[n-1], r.hi)
			continue
		}
		out = append(out, r.lo, r.hi)
	}
	return out
}

// has reports whether r is in the set.
func (s runeSet) has(r rune) bool {
	lo, hi := 0, len(s)/2
	for lo < hi {
		m := (lo + hi) / 2
		switch {
		case r < s[2*m]:
			hi = m
		case r > s[2*m+1]:
			lo = m + 1
		default:
			return true
		}
	}
	return false
}

func (s runeSet) union(t runeSet) runeSet {
	if len(t) == 0 {
		return s
	}
	if len(s) == 0 {
		return t
	}
	return setOf(append(append(make([]rune, 0, len(s)+len(t)), s...), t...)...)
}

// negate is the complement within [0, MaxRune].
func (s runeSet) negate() runeSet {
	out := make(runeSet, 0, len(s)+2)
	next := rune(0)
	for i := 0; i < len(s); i += 2 {
		if s[i] > next {
			out = append(out, next, s[i]-1)
		}
		next = s[i+1] + 1
	}
	if next <= unicode.MaxRune {
		out = append(out, next, unicode.MaxRune)
	}
	return out
}

func (s runeSet) minus(t runeSet) runeSet {
	if len(t) == 0 || len(s) == 0 {
		return s
	}
	return s.intersect(t.negate())
}

func (s runeSet) intersect(t runeSet) runeSet {
	var out runeSet
	i, j := 0, 0
	for i < len(s) && j < len(t) {
		lo, hi := max(s[i], t[j]), min(s[i+1], t[j+1])
		if lo <= hi {
			out = append(out, lo, hi)
		}
		if s[i+1] < t[j+1] {
			i += 2
		} else {
			j += 2
		}
	}
	return out
}

// single is the set's only member, if it has exactly one.
func (s runeSet) single() (rune, bool) {
	if len(s) == 2 && s[0] == s[1] {
		return s[0], true
	}
	return 0, false
}

func (s runeSet) equal(t runeSet) bool { return slices.Equal(s, t) }

// fromTables is the union of Unicode tables.
func fromTables(tables ...*unicode.RangeTable) runeSet {
	var pairs []rune
	for _, t := range tables {
		for _, r := range t.R16 {
			pairs = appendStride(pairs, rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
		for _, r := range t.R32 {
			pairs = appendStride(pairs, rune(r.Lo), rune(r.Hi), rune(r.Stride))
		}
	}
	return setOf(pairs...)
}

func appendStride(pairs []rune, lo, hi, stride rune) []rune {
	if stride == 1 {
		return append(pairs, lo, hi)
	}
	for r := lo; r <= hi; r += stride {
		pairs = append(pairs, r, r)
	}
	return pairs
}
