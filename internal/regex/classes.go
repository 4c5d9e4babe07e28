package regex

import (
	"sync"
	"unicode"
)

// The character classes of each dialect, as the dialect defines them (not as the engine that
// runs the pattern would): they are written into the compiled pattern as explicit sets.

var (
	asciiDigit = setOf('0', '9')
	asciiWord  = setOf('0', '9', 'A', 'Z', '_', '_', 'a', 'z')

	// JavaScript (ECMA-262, no `u` flag): \d and \w are ASCII; \s is WhiteSpace and
	// LineTerminator; `.` is anything but a LineTerminator.
	jsSpace     = setOf('\t', '\r', ' ', ' ', 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff)
	jsLineTerms = setOf('\n', '\n', '\r', '\r', 0x2028, 0x2029)

	// Python (CPython's re, str patterns): without re.ASCII \d is Unicode's Nd, \w is every
	// letter and number (str.isalnum) and `_`, \s is str.isspace; `.` is anything but \n.
	pySpace      = setOf('\t', '\r', 0x1c, ' ', 0x85, 0x85, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f, 0x205f, 0x3000, 0x3000)
	pyASCIISpace = setOf('\t', '\r', ' ', ' ')
	newline      = setOf('\n', '\n')
)

// pyWord and pyDigit are built on first use: they come from Unicode tables.
var pyWord, pyDigit = sync.OnceValue(func() runeSet {
	return fromTables(unicode.L, unicode.N).union(setOf('_', '_'))
}), sync.OnceValue(func() runeSet { return fromTables(unicode.Nd) })

// classEscape is the set of \d \D \w \W \s \S in a dialect (ok false for any other letter).
func classEscape(d Dialect, ascii bool, c byte) (runeSet, bool) {
	var s runeSet
	switch c | 0x20 {
	case 'd':
		s = asciiDigit
		if d == Python && !ascii {
			s = pyDigit()
		}
	case 'w':
		s = asciiWord
		if d == Python && !ascii {
			s = pyWord()
		}
	case 's':
		switch {
		case d == JavaScript:
			s = jsSpace
		case ascii:
			s = pyASCIISpace
		default:
			s = pySpace
		}
	default:
		return nil, false
	}
	if c >= 'A' && c <= 'Z' {
		s = s.negate()
	}
	return s, true
}

// dotSet is what `.` matches.
func dotSet(d Dialect, dotAll bool) runeSet {
	switch {
	case dotAll:
		return anyRune
	case d == JavaScript:
		return jsLineTerms.negate()
	}
	return newline.negate()
}
