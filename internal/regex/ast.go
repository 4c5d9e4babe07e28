package regex

// The parsers of the JavaScript and Python dialects produce this tree, with every
// dialect-specific meaning already resolved: classes are explicit sets (case folding, \w, `.`
// included) and each assertion says exactly where it holds. The emitters (emit.go) write it for
// RE2 or for the backtracking engine.

type nodeKind uint8

const (
	nEmpty   nodeKind = iota
	nSet              // one character of set
	nConcat           // subs in sequence
	nAlt              // one of subs
	nRepeat           // sub, min..max times (max < 0: unbounded)
	nCapture          // capture group index
	nGroup            // (?:sub)
	nAssert           // a zero-width assertion
	nLook             // lookahead or lookbehind (behind, negate)
	nBackref          // the text captured by group index
	nCond             // (?(index)yes|no): subs[0] yes, subs[1] no
	nAtomic           // (?>sub)
)

type assertKind uint8

const (
	aBeginText          assertKind = iota // \A
	aEndText                              // \z
	aEndTextNewline                       // Python's `$`: at the end, or before a final \n
	aBeginLine                            // after \n or at the start
	aEndLine                              // before \n or at the end
	aBeginLineJS                          // after \n, \r, U+2028, U+2029 or at the start
	aEndLineJS                            // before \n, \r, U+2028, U+2029 or at the end
	aWordBoundary                         // ASCII \b
	aNonWordBoundary                      // ASCII \B
	aWordBoundaryUni                      // Python's Unicode \b
	aNonWordBoundaryUni                   // Python's Unicode \B
)

type node struct {
	kind       nodeKind
	set        runeSet
	subs       []*node
	min, max   int
	greedy     bool
	possessive bool
	index      int // capture, backref and condition group number
	assert     assertKind
	behind     bool
	negate     bool
	fold       bool // a backreference compared ignoring case
	// notEmpty: the assertion fails in an empty text (CPython's \B).
	notEmpty bool
	// jsRef: a JavaScript backreference, which matches the empty string when its group has not
	// captured (Python's fails).
	jsRef bool
}

// needsBacktracking reports whether the tree uses a construct RE2 does not have.
func (n *node) needsBacktracking() bool {
	switch n.kind {
	case nLook, nBackref, nCond, nAtomic:
		return true
	case nRepeat:
		if n.possessive || n.max > maxRE2Repeat || n.min > maxRE2Repeat {
			return true
		}
	}
	for _, s := range n.subs {
		if s.needsBacktracking() {
			return true
		}
	}
	return false
}

// maxRE2Repeat is RE2's largest repetition count.
const maxRE2Repeat = 1000

// conditions are the texts on which RE2 runs the tree exactly as the dialect would (see
// Regexp.exactOn); each bit is one assertion RE2 writes differently.
type conditions uint8

const (
	condNoJSLineTerminator conditions = 1 << iota // no \r, U+2028, U+2029 in the text
	condNoFinalNewline                            // the text does not end with \n
	condNoUnicodeWord                             // no non-ASCII letter or number in the text
	condNotEmpty                                  // the text is not empty
)

func (n *node) conditions() conditions {
	var c conditions
	if n.kind == nAssert {
		switch n.assert {
		case aBeginLineJS, aEndLineJS:
			c |= condNoJSLineTerminator
		case aEndTextNewline:
			c |= condNoFinalNewline
		case aWordBoundaryUni, aNonWordBoundaryUni:
			c |= condNoUnicodeWord
		}
		if n.notEmpty {
			c |= condNotEmpty
		}
	}
	for _, s := range n.subs {
		c |= s.conditions()
	}
	return c
}

// nullable reports whether the tree can match the empty string (conservatively: assertions and
// backreferences count as possibly empty).
func (n *node) nullable() bool {
	switch n.kind {
	case nSet:
		return false
	case nConcat:
		for _, s := range n.subs {
			if !s.nullable() {
				return false
			}
		}
		return true
	case nAlt:
		for _, s := range n.subs {
			if s.nullable() {
				return true
			}
		}
		return len(n.subs) == 0
	case nRepeat:
		return n.min == 0 || n.subs[0].nullable()
	case nCapture, nGroup, nAtomic:
		return n.subs[0].nullable()
	case nCond:
		return n.subs[0].nullable() || n.subs[1].nullable()
	}
	return true
}

// width is the least and greatest number of characters the tree matches (max < 0: unbounded).
func (n *node) width() (lo, hi int) {
	switch n.kind {
	case nSet:
		return 1, 1
	case nConcat:
		for _, s := range n.subs {
			l, h := s.width()
			lo += l
			if hi >= 0 {
				if h < 0 {
					hi = -1
				} else {
					hi += h
				}
			}
		}
		return lo, hi
	case nAlt, nCond:
		for i, s := range n.subs {
			l, h := s.width()
			if i == 0 || l < lo {
				lo = l
			}
			if i == 0 || hi >= 0 && (h < 0 || h > hi) {
				hi = h
			}
		}
		return lo, hi
	case nRepeat:
		l, h := n.subs[0].width()
		lo = l * n.min
		switch {
		case n.max < 0 && h != 0:
			hi = -1
		case h < 0:
			hi = -1
		default:
			hi = h * max(n.max, 0)
		}
		return lo, hi
	case nCapture, nGroup, nAtomic:
		return n.subs[0].width()
	case nBackref:
		return 0, -1
	}
	return 0, 0
}

func concat(subs ...*node) *node {
	if len(subs) == 1 {
		return subs[0]
	}
	return &node{kind: nConcat, subs: subs}
}

func alternate(subs []*node) *node {
	if len(subs) == 1 {
		return subs[0]
	}
	return &node{kind: nAlt, subs: subs}
}
