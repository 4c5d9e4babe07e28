package regex

import "unicode/utf8"

// Patterns written to require several things anywhere in a text, in any order, chain
// lookaheads: `(?=.*\bA\b)(?=.*\bB\b)…` with `.` matching everything (JavaScript's `s` flag,
// Python's re.S, or [\s\S]). Searched as written, every start position rescans the text for
// each lookahead: quadratic work, which on a backtracking engine runs into the match timeout
// on outputs of a few kilobytes. For a yes/no answer such an alternative means "A occurs and B
// occurs" (if the lookaheads hold at some position they hold at the text's start), so
// MatchString searches each part on its own — on RE2 when the part allows — and the rest of
// the pattern's alternatives as one pattern. Find* keep the pattern as written.

type conjunctions struct {
	rest  *Regexp       // the other alternatives (nil: none)
	terms []conjunction // the conjunction alternatives
}

// conjunction: every part occurs, and the text has at least minChars characters (for the
// characters the alternative consumes after its lookaheads, as in `(?=.*a)(?=.*b).`).
type conjunction struct {
	parts    []*Regexp
	minChars int
}

func (c *conjunctions) matchString(s string) (bool, error) {
	for _, terms := range c.terms {
		all := terms.minChars == 0 || utf8.RuneCountInString(s) >= terms.minChars
		for _, t := range terms.parts {
			if !all {
				break
			}
			ok, err := t.MatchString(s)
			if err != nil {
				return false, err
			}
			all = ok
		}
		if all {
			return true, nil
		}
	}
	if c.rest == nil {
		return false, nil
	}
	return c.rest.MatchString(s)
}

// splitConjunctions returns the pattern's conjunction alternatives compiled apart (nil when it
// has none).
func splitConjunctions(pattern string, d Dialect, f Flags, tree *node) (*conjunctions, error) {
	alts := []*node{unwrap(tree)}
	if alts[0].kind == nAlt {
		alts = alts[0].subs
	}
	c := &conjunctions{}
	var rest []*node
	for _, a := range alts {
		parts, minChars, ok := conjunctionParts(a)
		if !ok {
			rest = append(rest, a)
			continue
		}
		term := conjunction{minChars: minChars}
		for _, part := range parts {
			re, err := compileTree(pattern, d, f, part, &parsed{})
			if err != nil {
				return nil, err
			}
			term.parts = append(term.parts, re)
		}
		c.terms = append(c.terms, term)
	}
	if len(c.terms) == 0 {
		return nil, nil
	}
	if len(rest) > 0 {
		re, err := compileTree(pattern, d, f, alternate(rest), &parsed{})
		if err != nil {
			return nil, err
		}
		c.rest = re
	}
	return c, nil
}

// unwrap removes the groups around a tree.
func unwrap(n *node) *node {
	for n.kind == nGroup || n.kind == nCapture {
		n = n.subs[0]
	}
	return n
}

// conjunctionParts reads an alternative made of lookaheads (?=S*X), S* any repetition of every
// character, optionally after a start-of-text anchor and before characters of any kind (their
// least count is minChars): the Xs. Backreferences and conditionals refer to groups across
// parts, so a part holding one keeps the alternative whole.
func conjunctionParts(a *node) (parts []*node, minChars int, ok bool) {
	items := []*node{a}
	if a.kind == nConcat {
		items = a.subs
	}
	if len(items) > 0 && items[0].kind == nAssert && items[0].assert == aBeginText {
		items = items[1:]
	}
	for len(items) > 0 {
		last := items[len(items)-1]
		switch {
		case isAny(last):
			minChars++
		case last.kind == nRepeat && isAny(last.subs[0]):
			minChars += last.min
		default:
			goto lookaheads
		}
		items = items[:len(items)-1]
	}
lookaheads:
	if len(items) == 0 {
		return nil, 0, false
	}
	for _, it := range items {
		if it.kind != nLook || it.behind || it.negate {
			return nil, 0, false
		}
		body := unwrap(it.subs[0])
		if body.kind != nConcat || len(body.subs) < 2 {
			return nil, 0, false
		}
		star := body.subs[0]
		if star.kind != nRepeat || star.min != 0 || star.max >= 0 || !isAny(star.subs[0]) {
			return nil, 0, false
		}
		x := concat(body.subs[1:]...)
		if refersToGroups(x) {
			return nil, 0, false
		}
		parts = append(parts, x)
	}
	return parts, minChars, true
}

func isAny(n *node) bool { return n.kind == nSet && n.set.equal(anyRune) }

func refersToGroups(n *node) bool {
	if n.kind == nBackref || n.kind == nCond {
		return true
	}
	for _, s := range n.subs {
		if refersToGroups(s) {
			return true
		}
	}
	return false
}
