package graders

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// lintPython finds Python constructs that starlark cannot run and names each one with the
// spelling that works instead. It runs before the parser, whose messages ("got for, want )")
// would not say what to do.

type pyTokKind int

const (
	pyIdent pyTokKind = iota
	pyNumber
	pyString
	pyOp
)

type pyToken struct {
	kind      pyTokKind
	text      string // identifier, operator, or the string's prefix letters
	off, end  int    // byte offsets in the source
	line, col int    // 1-based; col counts characters
}

var pyStatementWords = map[string]bool{
	"def": true, "class": true, "del": true, "global": true, "nonlocal": true, "raise": true,
	"try": true, "except": true, "finally": true, "with": true, "while": true, "return": true,
	"pass": true, "break": true, "continue": true, "assert": true, "yield": true, "await": true,
	"async": true,
}

func lintPython(src string) *assertionError {
	toks := tokenizePython(src)
	var stack []int // indexes of open brackets in toks
	isOperand := func(i int) bool {
		if i < 0 {
			return false
		}
		t := toks[i]
		switch t.kind {
		case pyNumber, pyString:
			return true
		case pyIdent:
			return !pyKeywords[t.text]
		}
		return t.text == ")" || t.text == "]" || t.text == "}"
	}
	for i, t := range toks {
		at := func(msg, fix string) *assertionError {
			return &assertionError{line: t.line, col: t.col, msg: msg, fix: fix}
		}
		switch t.kind {
		case pyString:
			if strings.ContainsAny(t.text, "fF") {
				return at("f-strings are not supported",
					`format instead: "{} items".format(n) or "%d items" % n`)
			}
		case pyIdent:
			switch {
			case t.text == "is":
				neg := i+1 < len(toks) && toks[i+1].text == "not"
				if neg {
					return at("`is not` comparisons are not supported", "compare with != instead, e.g. `x != None`")
				}
				return at("`is` comparisons are not supported", "compare with == instead, e.g. `x == None`")
			case t.text == "import" || t.text == "from":
				return at("import is not supported", "the re module is already available; other modules are not")
			case t.text == "for":
				if len(stack) == 0 {
					return at("generator expressions are not supported", "use a list comprehension: [x for x in items]")
				}
				open := toks[stack[len(stack)-1]]
				if open.text == "(" {
					return at("generator expressions are not supported", "use a list comprehension: "+bracketGenerator(src, toks, stack[len(stack)-1]))
				}
			case pyStatementWords[t.text]:
				return at("`"+t.text+"` is not supported: an assertion is a single expression", "")
			}
		case pyOp:
			switch t.text {
			case "(", "[", "{":
				stack = append(stack, i)
			case ")", "]", "}":
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			case ":=":
				return at("assignment expressions (:=) are not supported", "repeat the expression instead of naming it")
			case "**":
				if isOperand(i - 1) {
					return at("the ** operator is not supported", "multiply instead, e.g. `x * x`")
				}
			case ";":
				return at("`;` is not supported: an assertion is a single expression", "")
			}
		}
	}
	return nil
}

// rewriteIdentity turns Python's identity comparisons, which starlark lacks, into equality:
// `x is None` → `x == None`, `x is not None` → `x != None`. For None, True and False — what
// assertions compare with `is` — the two mean the same. Columns are kept (`is not` becomes `!=`
// and four spaces), so positions in messages still point into the assertion as written.
func rewriteIdentity(src string) string {
	toks := tokenizePython(src)
	var b strings.Builder
	last := 0
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != pyIdent || t.text != "is" {
			continue
		}
		b.WriteString(src[last:t.off])
		if i+1 < len(toks) && toks[i+1].kind == pyIdent && toks[i+1].text == "not" {
			b.WriteString("!=" + strings.Repeat(" ", toks[i+1].end-t.off-2))
			last = toks[i+1].end
			i++
			continue
		}
		b.WriteString("==")
		last = t.end
	}
	if last == 0 {
		return src
	}
	b.WriteString(src[last:])
	return b.String()
}

var pyKeywords = map[string]bool{
	"and": true, "or": true, "not": true, "in": true, "if": true, "else": true, "for": true,
	"lambda": true, "is": true,
}

// bracketGenerator rewrites the assertion with the generator that opens at toks[open] turned
// into a list comprehension: any(x in y for x in z) → any([x in y for x in z]).
func bracketGenerator(src string, toks []pyToken, open int) string {
	depth := 0
	for j := open; j < len(toks); j++ {
		switch toks[j].text {
		case "(", "[", "{":
			if toks[j].kind == pyOp {
				depth++
			}
		case ")", "]", "}":
			if toks[j].kind != pyOp {
				continue
			}
			depth--
			if depth == 0 {
				inner := src[toks[open].end:toks[j].off]
				callArg := open > 0 && (toks[open-1].kind == pyIdent && !pyKeywords[toks[open-1].text] ||
					toks[open-1].text == ")" || toks[open-1].text == "]")
				if callArg {
					return src[:toks[open].end] + "[" + strings.TrimSpace(inner) + "]" + src[toks[j].off:]
				}
				return src[:toks[open].off] + "[" + strings.TrimSpace(inner) + "]" + src[toks[j].end:]
			}
		}
	}
	return "[x for x in items]"
}

// tokenizePython splits Python source into identifiers, numbers, strings and operators. It is
// lenient: anything it does not understand becomes a one-character operator.
func tokenizePython(src string) []pyToken {
	var toks []pyToken
	line, col := 1, 1
	i := 0
	advance := func(to int) {
		for i < to {
			r, n := utf8.DecodeRuneInString(src[i:])
			if r == '\n' {
				line++
				col = 1
			} else {
				col++
			}
			i += n
		}
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '#':
			j := strings.IndexByte(src[i:], '\n')
			if j < 0 {
				advance(len(src))
			} else {
				advance(i + j)
			}
			continue
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\' || c == '\f':
			advance(i + 1)
			continue
		}
		start, sl, sc := i, line, col
		r, _ := utf8.DecodeRuneInString(src[i:])
		switch {
		case r == '_' || unicode.IsLetter(r):
			j := i
			for j < len(src) {
				r2, n := utf8.DecodeRuneInString(src[j:])
				if r2 != '_' && !unicode.IsLetter(r2) && !unicode.IsDigit(r2) {
					break
				}
				j += n
			}
			word := src[i:j]
			if j < len(src) && (src[j] == '"' || src[j] == '\'') && len(word) <= 2 && strings.Trim(strings.ToLower(word), "rbuf") == "" {
				end := scanPyString(src, j)
				advance(end)
				toks = append(toks, pyToken{kind: pyString, text: word, off: start, end: end, line: sl, col: sc})
				continue
			}
			advance(j)
			toks = append(toks, pyToken{kind: pyIdent, text: word, off: start, end: j, line: sl, col: sc})
		case c == '"' || c == '\'':
			end := scanPyString(src, i)
			advance(end)
			toks = append(toks, pyToken{kind: pyString, off: start, end: end, line: sl, col: sc})
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9'):
			j := i + 1
			for j < len(src) && (isAlnum(src[j]) || src[j] == '.' || src[j] == '_') {
				j++
			}
			advance(j)
			toks = append(toks, pyToken{kind: pyNumber, text: src[start:j], off: start, end: j, line: sl, col: sc})
		default:
			op := src[i : i+1]
			for _, two := range []string{"**", "//", "==", "!=", "<=", ">=", ":=", "->", "<<", ">>"} {
				if strings.HasPrefix(src[i:], two) {
					op = two
					break
				}
			}
			_, n := utf8.DecodeRuneInString(src[i:])
			if len(op) < n {
				op = src[i : i+n]
			}
			advance(i + len(op))
			toks = append(toks, pyToken{kind: pyOp, text: op, off: start, end: i, line: sl, col: sc})
		}
	}
	return toks
}

// scanPyString returns the offset just past the string literal starting with a quote at i.
func scanPyString(src string, i int) int {
	q := src[i]
	triple := strings.HasPrefix(src[i:], strings.Repeat(string(q), 3))
	j := i + 1
	if triple {
		j = i + 3
	}
	for j < len(src) {
		switch {
		case src[j] == '\\':
			j += 2
			continue
		case triple && strings.HasPrefix(src[j:], strings.Repeat(string(q), 3)):
			return j + 3
		case !triple && src[j] == q:
			return j + 1
		case !triple && src[j] == '\n':
			return j
		}
		j++
	}
	return len(src)
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
