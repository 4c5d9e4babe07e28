package graders

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// Go's regexp scans long texts slowly (tens of ns per byte) when a pattern has no literal prefix,
// e.g. `(?i)error|failed|exception` over a 10 KB output takes most of a millisecond. A prefilter
// answers the common case first: it extracts literals of which any match must contain at least
// one, and when none occurs in the text the pattern cannot match. Otherwise the regexp decides.

// pattern is a compiled regular expression with its prefilter.
type pattern struct {
	re *regexp.Regexp
	pf *prefilter // nil: no usable literals, always run the regexp
}

func newPattern(re *regexp.Regexp) *pattern {
	p := &pattern{re: re}
	if parsed, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
		if lits, ok := requiredLiterals(parsed.Simplify()); ok && len(lits) > 0 {
			p.pf = &prefilter{lits: lits}
		}
	}
	return p
}

// MatchString reports whether the regexp matches s.
func (p *pattern) MatchString(s string) bool {
	if p.pf != nil && !p.pf.mayMatch(s) {
		return false
	}
	return p.re.MatchString(s)
}

// Match is MatchString for bytes.
func (p *pattern) Match(b []byte) bool {
	if p.pf != nil && !p.pf.mayMatch(string(b)) {
		return false
	}
	return p.re.Match(b)
}

type literal struct {
	s    string
	fold bool // case-insensitive; s is ASCII and lower-cased
}

type prefilter struct {
	lits []literal
}

const maxPrefilterLiterals = 16

// requiredLiterals returns literals one of which occurs in every match of re, or ok=false.
func requiredLiterals(re *syntax.Regexp) (lits []literal, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if s == "" || strings.ContainsRune(s, utf8.RuneError) {
			return nil, false // U+FFFD also matches invalid bytes, which Contains would miss
		}
		if re.Flags&syntax.FoldCase == 0 {
			return []literal{{s: s}}, true
		}
		for _, r := range re.Rune {
			if r >= 0x80 {
				return nil, false // non-ASCII case folding: leave it to the regexp
			}
		}
		return []literal{{s: strings.ToLower(s), fold: true}}, true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		// Any part's literals will do; take the most selective (longest shortest literal).
		best, bestScore := []literal(nil), 0
		for _, sub := range re.Sub {
			l, ok := requiredLiterals(sub)
			if !ok {
				continue
			}
			score := len(l[0].s)
			for _, x := range l {
				score = min(score, len(x.s))
			}
			if best == nil || score > bestScore {
				best, bestScore = l, score
			}
		}
		return best, best != nil
	case syntax.OpAlternate:
		var all []literal
		for _, sub := range re.Sub {
			l, ok := requiredLiterals(sub)
			if !ok {
				return nil, false
			}
			all = append(all, l...)
		}
		return all, len(all) <= maxPrefilterLiterals
	}
	return nil, false
}

// mayMatch is false only when no literal occurs in s.
func (p *prefilter) mayMatch(s string) bool {
	for _, l := range p.lits {
		if !l.fold {
			if strings.Contains(s, l.s) {
				return true
			}
			continue
		}
		if containsFoldASCII(s, l.s) {
			return true
		}
		// Two non-ASCII characters fold to ASCII letters: the Kelvin sign (k) and the long s.
		if strings.ContainsAny(l.s, "ks") && strings.ContainsAny(s, "\u212a\u017f") {
			return true
		}
	}
	return false
}

// containsFoldASCII reports whether s contains sub (lower-case ASCII) ignoring ASCII case.
func containsFoldASCII(s, sub string) bool {
	if sub == "" {
		return true
	}
	lower := sub[0]
	upper := lower
	if 'a' <= lower && lower <= 'z' {
		upper = lower - 'a' + 'A'
	}
	last := len(s) - len(sub) // last possible start
	// Next occurrence of each case of the first byte at or after i (-1: none left).
	nextLower, nextUpper := -2, -2
	next := func(c byte, from int) int {
		if from > last {
			return -1
		}
		j := strings.IndexByte(s[from:last+1], c)
		if j < 0 {
			return -1
		}
		return from + j
	}
	for i := 0; i <= last; {
		if nextLower != -1 && nextLower < i {
			nextLower = next(lower, i)
		}
		if upper == lower {
			nextUpper = -1
		} else if nextUpper != -1 && nextUpper < i {
			nextUpper = next(upper, i)
		}
		switch {
		case nextLower < 0 && nextUpper < 0:
			return false
		case nextUpper < 0 || (nextLower >= 0 && nextLower < nextUpper):
			i = nextLower
		default:
			i = nextUpper
		}
		if equalFoldASCII(s[i:i+len(sub)], sub) {
			return true
		}
		i++
	}
	return false
}

func equalFoldASCII(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
