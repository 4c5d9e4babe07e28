package regex

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// emitRE2 writes the tree in Go's regexp syntax. It must only be called on a tree without
// backtracking constructs; assertions RE2 writes differently are exact only on the texts
// conditions() describes.
func emitRE2(n *node) string {
	var b strings.Builder
	writeRE2(&b, n)
	return b.String()
}

func writeRE2(b *strings.Builder, n *node) {
	switch n.kind {
	case nEmpty:
		b.WriteString("(?:)")
	case nSet:
		writeSetRE2(b, n.set)
	case nConcat:
		for _, s := range n.subs {
			writeRE2(b, s)
		}
	case nAlt:
		b.WriteString("(?:")
		for i, s := range n.subs {
			if i > 0 {
				b.WriteByte('|')
			}
			writeRE2(b, s)
		}
		b.WriteByte(')')
	case nRepeat:
		b.WriteString("(?:")
		writeRE2(b, n.subs[0])
		b.WriteByte(')')
		writeQuantifier(b, n)
	case nCapture:
		b.WriteByte('(')
		writeRE2(b, n.subs[0])
		b.WriteByte(')')
	case nGroup:
		b.WriteString("(?:")
		writeRE2(b, n.subs[0])
		b.WriteByte(')')
	case nAssert:
		b.WriteString(map[assertKind]string{
			aBeginText: `\A`, aEndText: `\z`, aEndTextNewline: `\z`,
			aBeginLine: `(?m:^)`, aEndLine: `(?m:$)`, aBeginLineJS: `(?m:^)`, aEndLineJS: `(?m:$)`,
			aWordBoundary: `\b`, aNonWordBoundary: `\B`, aWordBoundaryUni: `\b`, aNonWordBoundaryUni: `\B`,
		}[n.assert])
	default:
		panic(fmt.Sprintf("regex: node %d has no RE2 form", n.kind))
	}
}

func writeQuantifier(b *strings.Builder, n *node) {
	switch {
	case n.min == 0 && n.max < 0:
		b.WriteByte('*')
	case n.min == 1 && n.max < 0:
		b.WriteByte('+')
	case n.min == 0 && n.max == 1:
		b.WriteByte('?')
	case n.max < 0:
		fmt.Fprintf(b, "{%d,}", n.min)
	case n.min == n.max:
		fmt.Fprintf(b, "{%d}", n.min)
	default:
		fmt.Fprintf(b, "{%d,%d}", n.min, n.max)
	}
	if !n.greedy {
		b.WriteByte('?')
	}
}

// writeSetRE2 writes a set as one character or a class.
func writeSetRE2(b *strings.Builder, s runeSet) {
	s = withoutSurrogates(s)
	if r, ok := s.single(); ok {
		writeRuneRE2(b, r)
		return
	}
	if len(s) == 0 {
		b.WriteString(`[^\x00-\x{10FFFF}]`)
		return
	}
	neg, tokens, rest := describeSet(s)
	b.WriteByte('[')
	if neg {
		b.WriteByte('^')
	}
	b.WriteString(tokens)
	for i := 0; i < len(rest); i += 2 {
		writeRuneRE2(b, rest[i])
		if rest[i+1] != rest[i] {
			b.WriteByte('-')
			writeRuneRE2(b, rest[i+1])
		}
	}
	b.WriteByte(']')
}

// namedSets are sets both engines know by name (\p{…} are Go's Unicode tables in both), which
// keeps large classes — Python's \w is some 750 ranges — short to write and fast to compile.
var namedSets = []struct {
	set   func() runeSet
	token string
}{
	{pyWord, `\p{L}\p{N}_`},
	{pyDigit, `\p{Nd}`},
}

// describeSet writes s as named sets plus ranges, negated when that is shorter.
func describeSet(s runeSet) (negated bool, tokens string, rest runeSet) {
	tokens, rest = withNamed(s)
	if len(rest) > 64 {
		if t, r := withNamed(s.negate()); len(r) < len(rest) {
			return true, t, r
		}
	}
	return false, tokens, rest
}

func withNamed(s runeSet) (string, runeSet) {
	if len(s) < 64 {
		return "", s
	}
	var tokens string
	for _, n := range namedSets {
		if set := n.set(); len(set.minus(s)) == 0 {
			tokens += n.token
			s = s.minus(set)
		}
	}
	return tokens, s
}

var surrogates = runeSet{0xd800, 0xdfff}

// withoutSurrogates drops the UTF-16 surrogates, which no UTF-8 text contains (a JavaScript
// class may name them).
func withoutSurrogates(s runeSet) runeSet {
	for i := 0; i < len(s); i += 2 {
		if s[i] <= 0xdfff && s[i+1] >= 0xd800 {
			return s.minus(surrogates)
		}
	}
	return s
}

func writeRuneRE2(b *strings.Builder, r rune) {
	switch {
	case r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == ' '):
		b.WriteRune(r)
	case r < 0x80 && r > ' ' && r != 0x7f:
		b.WriteByte('\\')
		b.WriteRune(r)
	case r > 0x7f && unicode.IsPrint(r) && !(r >= 0xd800 && r <= 0xdfff):
		b.WriteRune(r)
	default:
		fmt.Fprintf(b, `\x{%X}`, r)
	}
}

// emitBacktracking writes the tree for regexp2 with no options set: every class, anchor and
// boundary is explicit, so the engine's own RegexOptions play no part.
func emitBacktracking(n *node) string {
	var b strings.Builder
	writeBT(&b, n)
	return b.String()
}

func writeBT(b *strings.Builder, n *node) {
	switch n.kind {
	case nEmpty:
		b.WriteString("(?:)")
	case nSet:
		writeSetBT(b, n.set)
	case nConcat:
		for _, s := range n.subs {
			writeBT(b, s)
		}
	case nAlt:
		b.WriteString("(?:")
		for i, s := range n.subs {
			if i > 0 {
				b.WriteByte('|')
			}
			writeBT(b, s)
		}
		b.WriteByte(')')
	case nRepeat:
		if n.possessive {
			b.WriteString("(?>")
		}
		b.WriteString("(?:")
		writeBT(b, n.subs[0])
		b.WriteByte(')')
		writeQuantifier(b, n)
		if n.possessive {
			b.WriteByte(')')
		}
	case nCapture:
		b.WriteByte('(')
		writeBT(b, n.subs[0])
		b.WriteByte(')')
	case nGroup:
		b.WriteString("(?:")
		writeBT(b, n.subs[0])
		b.WriteByte(')')
	case nAtomic:
		b.WriteString("(?>")
		writeBT(b, n.subs[0])
		b.WriteByte(')')
	case nLook:
		b.WriteString(map[[2]bool]string{{false, false}: "(?=", {false, true}: "(?!", {true, false}: "(?<=", {true, true}: "(?<!"}[[2]bool{n.behind, n.negate}])
		writeBT(b, n.subs[0])
		b.WriteByte(')')
	case nBackref:
		ref := `\k<` + strconv.Itoa(n.index) + `>`
		if n.fold {
			ref = "(?i:" + ref + ")"
		}
		if n.jsRef {
			// JavaScript: a group that has not captured matches the empty string.
			fmt.Fprintf(b, "(?(%d)%s|)", n.index, ref)
			return
		}
		b.WriteString("(?:" + ref + ")")
	case nCond:
		fmt.Fprintf(b, "(?(%d)", n.index)
		writeBT(b, n.subs[0])
		b.WriteByte('|')
		writeBT(b, n.subs[1])
		b.WriteByte(')')
	case nAssert:
		if n.notEmpty {
			b.WriteString(`(?!\A\z)`)
		}
		writeAssertBT(b, n.assert)
	}
}

var (
	jsLineTermClass = `[\n\r\u2028\u2029]`
	asciiWordClass  = `[0-9A-Z_a-z]`
)

func writeAssertBT(b *strings.Builder, a assertKind) {
	switch a {
	case aBeginText:
		b.WriteString(`\A`)
	case aEndText:
		b.WriteString(`\z`)
	case aEndTextNewline:
		b.WriteString(`(?=\n?\z)`)
	case aBeginLine:
		b.WriteString(`(?:\A|(?<=\n))`)
	case aEndLine:
		b.WriteString(`(?=\n|\z)`)
	case aBeginLineJS:
		b.WriteString(`(?:\A|(?<=` + jsLineTermClass + `))`)
	case aEndLineJS:
		b.WriteString(`(?=` + jsLineTermClass + `|\z)`)
	case aWordBoundary, aNonWordBoundary:
		writeBoundaryBT(b, asciiWordClass, a == aNonWordBoundary)
	case aWordBoundaryUni, aNonWordBoundaryUni:
		var w strings.Builder
		writeSetBT(&w, pyWord())
		writeBoundaryBT(b, w.String(), a == aNonWordBoundaryUni)
	}
}

// writeBoundaryBT writes \b (or \B) over the word class w with lookarounds.
func writeBoundaryBT(b *strings.Builder, w string, not bool) {
	if not {
		fmt.Fprintf(b, "(?:(?<=%s)(?=%s)|(?<!%s)(?!%s))", w, w, w, w)
		return
	}
	fmt.Fprintf(b, "(?:(?<=%s)(?!%s)|(?<!%s)(?=%s))", w, w, w, w)
}

func writeSetBT(b *strings.Builder, s runeSet) {
	s = withoutSurrogates(s)
	if len(s) == 0 {
		b.WriteString("(?!)")
		return
	}
	if r, ok := s.single(); ok {
		writeRuneBT(b, r)
		return
	}
	neg, tokens, rest := describeSet(s)
	b.WriteByte('[')
	if neg {
		b.WriteByte('^')
	}
	b.WriteString(tokens)
	for i := 0; i < len(rest); i += 2 {
		writeRuneBT(b, rest[i])
		if rest[i+1] != rest[i] {
			b.WriteByte('-')
			writeRuneBT(b, rest[i+1])
		}
	}
	b.WriteByte(']')
}

// writeRuneBT writes a character so that .NET syntax reads it as itself, in or out of a class.
func writeRuneBT(b *strings.Builder, r rune) {
	switch {
	case r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_'):
		b.WriteRune(r)
	case r <= 0xffff:
		fmt.Fprintf(b, `\u%04X`, r)
	default:
		b.WriteRune(r)
	}
}
