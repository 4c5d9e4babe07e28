package regex

import (
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Go's regexp scans long texts slowly (tens of ns per byte) when a pattern has no literal prefix,
// e.g. `(?i)error|failed|exception` over a 10 KB output takes most of a millisecond. A prefilter
// answers the common case first: it extracts literals of which any match must contain at least
// one, and when none occurs in the text the pattern cannot match. Otherwise the engine decides.

type literal struct {
	s    string
	fold bool // case-insensitive; s is ASCII and lower-cased
	// extras are characters that can stand for one of s's letters besides its two ASCII cases
	// (the Kelvin sign for k, a dialect's other case partners): a text holding one may match.
	extras string
}

type prefilter struct {
	lits []literal
}

const maxPrefilterLiterals = 16

// newPrefilter extracts the prefilter of an RE2 program's source (nil: none usable).
func newPrefilter(src string) *prefilter {
	parsed, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil
	}
	if lits, ok := requiredLiterals(parsed.Simplify()); ok && len(lits) > 0 {
		return &prefilter{lits: lits}
	}
	return nil
}

// requiredLiterals returns literals one of which occurs in every match of re, or ok=false.
func requiredLiterals(re *syntax.Regexp) (lits []literal, ok bool) {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpCharClass:
		l, ok := literalRun([]*syntax.Regexp{re})
		if !ok {
			return nil, false
		}
		return []literal{l}, true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpConcat:
		// Any part's literals will do, a run of adjacent characters being one part; take the
		// most selective (longest shortest literal).
		best, bestScore := []literal(nil), 0
		consider := func(l []literal) {
			score := len(l[0].s)
			for _, x := range l {
				score = min(score, len(x.s))
			}
			if best == nil || score > bestScore {
				best, bestScore = l, score
			}
		}
		for i := 0; i < len(re.Sub); {
			j := i
			for j < len(re.Sub) && isCharLike(re.Sub[j]) {
				j++
			}
			if j > i {
				if l, ok := literalRun(re.Sub[i:j]); ok {
					consider([]literal{l})
				}
				i = j
				continue
			}
			if l, ok := requiredLiterals(re.Sub[i]); ok {
				consider(l)
			}
			i++
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

func isCharLike(re *syntax.Regexp) bool {
	if re.Op == syntax.OpLiteral {
		return true
	}
	_, _, ok := foldPair(re)
	return ok
}

// foldPair reads a class holding one ASCII letter in both cases, plus possibly non-ASCII
// characters (what a dialect's case rule adds): the letter, lower-cased, and the others.
func foldPair(re *syntax.Regexp) (letter rune, extras string, ok bool) {
	if re.Op != syntax.OpCharClass {
		return 0, "", false
	}
	var upper, lower bool
	var b strings.Builder
	for i := 0; i+1 < len(re.Rune); i += 2 {
		lo, hi := re.Rune[i], re.Rune[i+1]
		if hi-lo > 8 {
			return 0, "", false
		}
		for r := lo; r <= hi; r++ {
			switch {
			case r >= 'A' && r <= 'Z':
				if upper || lower && r+32 != letter {
					return 0, "", false
				}
				upper, letter = true, r+32
			case r >= 'a' && r <= 'z':
				if lower || upper && r != letter {
					return 0, "", false
				}
				lower, letter = true, r
			case r >= 0x80 && r != utf8.RuneError:
				b.WriteRune(r)
			default:
				return 0, "", false
			}
		}
	}
	return letter, b.String(), upper && lower
}

// literalRun turns a run of literals and case pairs into one literal; case-sensitive parts in
// a run with folded ones are folded too (a prefilter may only answer "maybe" more often).
func literalRun(subs []*syntax.Regexp) (literal, bool) {
	var b, extras strings.Builder
	fold := false
	for _, re := range subs {
		if re.Op == syntax.OpLiteral {
			if re.Flags&syntax.FoldCase != 0 {
				fold = true
			}
			for _, r := range re.Rune {
				if r == utf8.RuneError {
					return literal{}, false // U+FFFD also matches invalid bytes, which Contains would miss
				}
				if re.Flags&syntax.FoldCase != 0 {
					if r >= 0x80 {
						return literal{}, false // non-ASCII case folding: leave it to the engine
					}
					// Go folds k and s with the Kelvin sign and the long s.
					for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
						if f >= 0x80 {
							extras.WriteRune(f)
						}
					}
				}
				b.WriteRune(r)
			}
			continue
		}
		letter, more, ok := foldPair(re)
		if !ok {
			return literal{}, false
		}
		fold = true
		b.WriteRune(letter)
		extras.WriteString(more)
	}
	s := b.String()
	if s == "" {
		return literal{}, false
	}
	if fold {
		for _, r := range s {
			if r >= 0x80 {
				return literal{}, false
			}
		}
		s = strings.ToLower(s)
	}
	return literal{s: s, fold: fold, extras: extras.String()}, true
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
		if l.extras != "" && strings.ContainsAny(s, l.extras) {
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
