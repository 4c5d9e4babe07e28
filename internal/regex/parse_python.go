package regex

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// parsePython parses a pattern of CPython's `re` module (3.11, str patterns): the escapes,
// groups, lookarounds, conditionals, atomic groups, possessive quantifiers and inline flags
// (global ones only at the start, scoped ones `(?i:…)`, `(?-i:…)`) it accepts, with the same
// errors for what it refuses. Positions in errors count characters, as CPython's do.
func parsePython(src string, f Flags) (*node, *parsed, error) {
	p := &pyParser{src: src, names: map[string]int{}, open: map[int]bool{}}
	f, err := p.globalFlags(f)
	if err != nil {
		return nil, nil, err
	}
	p.flags = f
	n, err := p.sub(f)
	if err != nil {
		return nil, nil, err
	}
	if p.more() {
		return nil, nil, p.errorf("unbalanced parenthesis")
	}
	for _, r := range p.condRefs {
		if r.group > p.groups {
			p.pos = r.at
			return nil, nil, p.errorf("invalid group reference %d", r.group)
		}
	}
	names := make([]string, p.groups+1)
	for name, i := range p.names {
		names[i] = name
	}
	return n, &parsed{groups: p.groups, names: names}, nil
}

type pyParser struct {
	src    string
	pos    int
	flags  Flags // the pattern's global flags
	groups int
	names  map[string]int
	open   map[int]bool // groups not closed yet
	// condRefs are conditionals naming a group by a number not seen yet.
	condRefs []condRef
}

type condRef struct{ group, at int }

func (p *pyParser) errorf(format string, args ...any) error {
	return &Error{Pattern: p.src, Offset: p.pos, Msg: fmt.Sprintf(format, args...) + fmt.Sprintf(" at position %d", utf8.RuneCountInString(p.src[:p.pos]))}
}

func (p *pyParser) more() bool { return p.pos < len(p.src) }
func (p *pyParser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}
func (p *pyParser) eat(s string) bool {
	if strings.HasPrefix(p.src[p.pos:], s) {
		p.pos += len(s)
		return true
	}
	return false
}

// globalFlags reads the inline flags groups `(?aimsux)` at the start of the pattern.
func (p *pyParser) globalFlags(f Flags) (Flags, error) {
	for strings.HasPrefix(p.src[p.pos:], "(?") {
		i := p.pos + 2
		var add Flags
		for i < len(p.src) && strings.IndexByte("aiLmsux", p.src[i]) >= 0 {
			fl, err := p.flagOf(p.src[i], i)
			if err != nil {
				return 0, err
			}
			add |= fl
			i++
		}
		if i == p.pos+2 || i >= len(p.src) || p.src[i] != ')' {
			break // not a global flags group
		}
		f |= add
		p.pos = i + 1
	}
	if f&ASCII != 0 && f&unicodeFlag != 0 {
		return 0, p.errorf("ASCII and UNICODE flags are incompatible")
	}
	return f, nil
}

// unicodeFlag is re.UNICODE, the default for str patterns; it only matters for the error
// when given with re.ASCII.
const unicodeFlag Flags = 1 << 15

func (p *pyParser) flagOf(c byte, at int) (Flags, error) {
	switch c {
	case 'a':
		return ASCII, nil
	case 'i':
		return IgnoreCase, nil
	case 'm':
		return Multiline, nil
	case 's':
		return DotAll, nil
	case 'u':
		return unicodeFlag, nil
	case 'x':
		return Verbose, nil
	}
	p.pos = at
	return 0, p.errorf("bad inline flag: cannot use 'locale' flag with a str pattern")
}

// sub parses alternatives up to a `)` or the end.
func (p *pyParser) sub(f Flags) (*node, error) {
	var alts []*node
	for {
		n, err := p.seq(f)
		if err != nil {
			return nil, err
		}
		alts = append(alts, n)
		if !p.eat("|") {
			return alternate(alts), nil
		}
	}
}

// skipVerbose skips whitespace and comments under re.VERBOSE.
func (p *pyParser) skipVerbose(f Flags) {
	if f&Verbose == 0 {
		return
	}
	for p.more() {
		switch c := p.peek(); {
		case c == '#':
			for p.more() && p.peek() != '\n' {
				p.pos++
			}
		case strings.IndexByte(" \t\n\r\v\f", c) >= 0:
			p.pos++
		default:
			return
		}
	}
}

func (p *pyParser) seq(f Flags) (*node, error) {
	var items []*node
	for {
		p.skipVerbose(f)
		if !p.more() || p.peek() == '|' || p.peek() == ')' {
			break
		}
		start := p.pos
		item, repeatable, err := p.item(f)
		if err != nil {
			return nil, err
		}
		p.skipVerbose(f)
		if q, err := p.repeat(f, item, repeatable, start); err != nil {
			return nil, err
		} else if q != nil {
			item = q
		}
		if item != nil {
			items = append(items, item)
		}
	}
	if len(items) == 0 {
		return &node{kind: nEmpty}, nil
	}
	return concat(items...), nil
}

// repeat applies a quantifier after item, if one follows.
func (p *pyParser) repeat(f Flags, item *node, repeatable bool, itemStart int) (*node, error) {
	var min, max int
	switch p.peek() {
	case '*':
		min, max = 0, -1
		p.pos++
	case '+':
		min, max = 1, -1
		p.pos++
	case '?':
		min, max = 0, 1
		p.pos++
	case '{':
		if strings.HasPrefix(p.src[p.pos:], "{}") {
			return nil, nil
		}
		lo, hi, n := bracedQuantifier(p.src[p.pos:], true)
		if n == 0 {
			return nil, nil
		}
		if hi >= 0 && lo > hi {
			p.pos++
			return nil, p.errorf("min repeat greater than max repeat")
		}
		p.pos += n
		min, max = lo, hi
	default:
		return nil, nil
	}
	if item == nil || !repeatable {
		p.pos = itemStart
		return nil, p.errorf("nothing to repeat")
	}
	if item.kind == nRepeat {
		p.pos = itemStart
		return nil, p.errorf("multiple repeat")
	}
	n := &node{kind: nRepeat, subs: []*node{item}, min: min, max: max, greedy: true}
	switch p.peek() {
	case '?':
		p.pos++
		n.greedy = false
	case '+':
		p.pos++
		n.possessive = true
	}
	p.skipVerbose(f)
	if c := p.peek(); c == '*' || c == '+' || c == '?' || c == '{' && func() bool { _, _, k := bracedQuantifier(p.src[p.pos:], true); return k > 0 }() {
		return nil, p.errorf("multiple repeat")
	}
	return n, nil
}

// item parses one item; repeatable is false for assertions. A nil item (a comment group or a
// flags-only group) adds nothing.
func (p *pyParser) item(f Flags) (*node, bool, error) {
	switch c := p.peek(); c {
	case '.':
		p.pos++
		return &node{kind: nSet, set: dotSet(Python, f&DotAll != 0)}, true, nil
	case '^':
		p.pos++
		if f&Multiline != 0 {
			return &node{kind: nAssert, assert: aBeginLine}, false, nil
		}
		return &node{kind: nAssert, assert: aBeginText}, false, nil
	case '$':
		p.pos++
		if f&Multiline != 0 {
			return &node{kind: nAssert, assert: aEndLine}, false, nil
		}
		return &node{kind: nAssert, assert: aEndTextNewline}, false, nil
	case '[':
		n, err := p.class(f)
		return n, true, err
	case '(':
		return p.group(f)
	case '\\':
		return p.escape(f)
	case '*', '+', '?':
		return nil, false, p.errorf("nothing to repeat")
	case '{':
		if _, _, n := bracedQuantifier(p.src[p.pos:], true); n > 0 {
			return nil, false, p.errorf("nothing to repeat")
		}
	}
	r, size := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += size
	return p.char(f, r), true, nil
}

func (p *pyParser) char(f Flags, r rune) *node {
	if f&IgnoreCase != 0 {
		return &node{kind: nSet, set: foldLiteral(Python, f&ASCII != 0, r)}
	}
	return &node{kind: nSet, set: runeSet{r, r}}
}

func (p *pyParser) group(f Flags) (*node, bool, error) {
	start := p.pos
	p.pos++ // (
	if !p.eat("?") {
		return p.capture(f, "", start)
	}
	if !p.more() {
		return nil, false, p.errorf("unexpected end of pattern")
	}
	switch c := p.peek(); {
	case c == 'P':
		p.pos++
		switch {
		case p.eat("<"):
			name, err := p.name('>')
			if err != nil {
				return nil, false, err
			}
			if _, dup := p.names[name]; dup {
				return nil, false, p.errorf("redefinition of group name %q as group %d; was group %d", name, p.groups+1, p.names[name])
			}
			return p.capture(f, name, start)
		case p.eat("="):
			at := p.pos
			name, err := p.name(')')
			if err != nil {
				return nil, false, err
			}
			idx, ok := p.names[name]
			if !ok {
				p.pos = at
				return nil, false, p.errorf("unknown group name %q", name)
			}
			if p.open[idx] {
				p.pos = at
				return nil, false, p.errorf("cannot refer to an open group")
			}
			return &node{kind: nBackref, index: idx, fold: f&IgnoreCase != 0}, true, nil
		}
		return nil, false, p.errorf("unknown extension ?P%c", p.peek())
	case c == ':':
		p.pos++
		return p.closeGroup(f, start, func(sub *node) *node { return &node{kind: nGroup, subs: []*node{sub}} })
	case c == '#':
		end := strings.IndexByte(p.src[p.pos:], ')')
		if end < 0 {
			return nil, false, p.errorf("missing ), unterminated comment")
		}
		p.pos += end + 1
		return nil, true, nil
	case c == '=' || c == '!':
		p.pos++
		return p.look(f, start, false, c == '!')
	case c == '<':
		p.pos++
		switch {
		case p.eat("="):
			return p.look(f, start, true, false)
		case p.eat("!"):
			return p.look(f, start, true, true)
		}
		return nil, false, p.errorf("unknown extension ?<%c", p.peek())
	case c == '>':
		p.pos++
		return p.closeGroup(f, start, func(sub *node) *node { return &node{kind: nAtomic, subs: []*node{sub}} })
	case c == '(':
		return p.conditional(f, start)
	case strings.IndexByte("aiLmsux-", c) >= 0:
		return p.scopedFlags(f, start)
	}
	return nil, false, p.errorf("unknown extension ?%c", p.peek())
}

func (p *pyParser) capture(f Flags, name string, start int) (*node, bool, error) {
	p.groups++
	idx := p.groups
	if name != "" {
		p.names[name] = idx
	}
	p.open[idx] = true
	n, ok, err := p.closeGroup(f, start, func(sub *node) *node { return &node{kind: nCapture, index: idx, subs: []*node{sub}} })
	delete(p.open, idx)
	return n, ok, err
}

func (p *pyParser) closeGroup(f Flags, start int, wrap func(*node) *node) (*node, bool, error) {
	sub, err := p.sub(f)
	if err != nil {
		return nil, false, err
	}
	if !p.eat(")") {
		p.pos = start
		return nil, false, p.errorf("missing ), unterminated subpattern")
	}
	return wrap(sub), true, nil
}

func (p *pyParser) look(f Flags, start int, behind, negate bool) (*node, bool, error) {
	n, _, err := p.closeGroup(f, start, func(sub *node) *node {
		return &node{kind: nLook, behind: behind, negate: negate, subs: []*node{sub}}
	})
	if err != nil {
		return nil, false, err
	}
	if behind {
		if lo, hi := n.subs[0].width(); lo != hi {
			p.pos = start
			return nil, false, p.errorf("look-behind requires fixed-width pattern")
		}
	}
	return n, true, nil
}

// name reads a group name up to the terminator (consumed); it must be an identifier.
func (p *pyParser) name(term byte) (string, error) {
	end := strings.IndexByte(p.src[p.pos:], term)
	if end < 0 {
		return "", p.errorf("missing %c, unterminated name", term)
	}
	name := p.src[p.pos : p.pos+end]
	if name == "" {
		return "", p.errorf("missing group name")
	}
	if !isIdentifier(name) {
		return "", p.errorf("bad character in group name %q", name)
	}
	p.pos += end + 1
	return name, nil
}

func isIdentifier(s string) bool {
	for i, r := range s {
		if !(r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) ||
			i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r))) {
			return false
		}
	}
	return true
}

// conditional parses `(?(id or name)yes|no)`.
func (p *pyParser) conditional(f Flags, start int) (*node, bool, error) {
	p.pos++ // (
	end := strings.IndexByte(p.src[p.pos:], ')')
	if end < 0 {
		return nil, false, p.errorf("missing ), unterminated name")
	}
	name := p.src[p.pos : p.pos+end]
	if name == "" {
		return nil, false, p.errorf("missing group name")
	}
	p.pos += end + 1
	idx, ok := p.names[name]
	if !ok {
		n, err := strconv.Atoi(name)
		if err != nil || n < 0 || strings.TrimLeft(name, "0123456789") != "" {
			return nil, false, p.errorf("unknown group name %q", name)
		}
		if n == 0 {
			return nil, false, p.errorf("bad group number")
		}
		if n >= 100 {
			return nil, false, p.errorf("invalid group reference %d", n)
		}
		idx = n
	}
	yes, err := p.seq(f)
	if err != nil {
		return nil, false, err
	}
	no := &node{kind: nEmpty}
	if p.eat("|") {
		if no, err = p.seq(f); err != nil {
			return nil, false, err
		}
		if p.peek() == '|' {
			return nil, false, p.errorf("conditional backref with more than two branches")
		}
	}
	if !p.eat(")") {
		p.pos = start
		return nil, false, p.errorf("missing ), unterminated subpattern")
	}
	if idx > p.groups {
		// CPython checks the number against the groups of the whole pattern at the end.
		p.condRefs = append(p.condRefs, condRef{group: idx, at: start})
	}
	return &node{kind: nCond, index: idx, subs: []*node{yes, no}}, true, nil
}

// scopedFlags parses `(?flags-flags:…)`; a global flags group here is an error (3.11).
func (p *pyParser) scopedFlags(f Flags, start int) (*node, bool, error) {
	var add, del Flags
	for p.more() && strings.IndexByte("aiLmsux", p.peek()) >= 0 {
		fl, err := p.flagOf(p.peek(), p.pos)
		if err != nil {
			return nil, false, err
		}
		add |= fl
		p.pos++
	}
	if p.eat("-") {
		for p.more() && strings.IndexByte("aiLmsux", p.peek()) >= 0 {
			c := p.peek()
			if c != 'i' && c != 'm' && c != 's' && c != 'x' {
				return nil, false, p.errorf("bad inline flag: cannot turn off flags 'a', 'u' and 'L'")
			}
			fl, _ := p.flagOf(c, p.pos)
			del |= fl
			p.pos++
		}
		if del == 0 {
			return nil, false, p.errorf("missing flag")
		}
	}
	switch {
	case p.eat(":"):
	case p.peek() == ')' && del == 0:
		p.pos = start
		return nil, false, p.errorf("global flags not at the start of the expression")
	case !p.more():
		return nil, false, p.errorf("missing -, : or )")
	default:
		return nil, false, p.errorf("unknown flag")
	}
	if add&del != 0 {
		return nil, false, p.errorf("bad inline flag: flag turned on and off")
	}
	inner := (f | add) &^ del
	if add&ASCII != 0 {
		inner &^= unicodeFlag
	}
	return p.closeGroup(inner, start, func(sub *node) *node { return &node{kind: nGroup, subs: []*node{sub}} })
}

func (p *pyParser) escape(f Flags) (*node, bool, error) {
	start := p.pos
	p.pos++ // backslash
	if !p.more() {
		p.pos = start
		return nil, false, p.errorf(`bad escape (end of pattern)`)
	}
	c := p.peek()
	ascii := f&ASCII != 0
	switch c {
	case 'A':
		p.pos++
		return &node{kind: nAssert, assert: aBeginText}, false, nil
	case 'Z':
		p.pos++
		return &node{kind: nAssert, assert: aEndText}, false, nil
	case 'b', 'B':
		p.pos++
		kind := aWordBoundaryUni
		if ascii {
			kind = aWordBoundary
		}
		if c == 'B' {
			// CPython's \B never matches in an empty text.
			return &node{kind: nAssert, assert: kind + 1, notEmpty: true}, false, nil
		}
		return &node{kind: nAssert, assert: kind}, false, nil
	case 'd', 'D', 'w', 'W', 's', 'S':
		p.pos++
		// CPython does not fold a class without cased characters, so \w is \w under re.I too.
		s, _ := classEscape(Python, ascii, c)
		return &node{kind: nSet, set: s}, true, nil
	}
	if c >= '1' && c <= '9' {
		// Three octal digits make an octal escape; otherwise one or two digits are a group.
		if p.pos+2 < len(p.src) && isOctal(c) && isOctal(p.src[p.pos+1]) && isOctal(p.src[p.pos+2]) {
			v, _ := strconv.ParseUint(p.src[p.pos:p.pos+3], 8, 32)
			if v > 0377 {
				return nil, false, p.errorf(`octal escape value \%s outside of range 0-0o377`, p.src[p.pos:p.pos+3])
			}
			p.pos += 3
			return p.char(f, rune(v)), true, nil
		}
		j := p.pos + 1
		if j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
			j++
		}
		g, _ := strconv.Atoi(p.src[p.pos:j])
		if g > p.groups {
			return nil, false, p.errorf("invalid group reference %d", g)
		}
		if p.open[g] {
			return nil, false, p.errorf("cannot refer to an open group")
		}
		p.pos = j
		return &node{kind: nBackref, index: g, fold: f&IgnoreCase != 0}, true, nil
	}
	r, err := p.charEscape(false)
	if err != nil {
		return nil, false, err
	}
	return p.char(f, r), true, nil
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// charEscape reads an escape that stands for one character (the backslash is consumed).
func (p *pyParser) charEscape(inClass bool) (rune, error) {
	c := p.peek()
	switch c {
	case 'a':
		p.pos++
		return '\a', nil
	case 'f':
		p.pos++
		return '\f', nil
	case 'n':
		p.pos++
		return '\n', nil
	case 'r':
		p.pos++
		return '\r', nil
	case 't':
		p.pos++
		return '\t', nil
	case 'v':
		p.pos++
		return '\v', nil
	case '\\':
		p.pos++
		return '\\', nil
	case 'x', 'u', 'U':
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		digits := p.src[p.pos+1 : min(len(p.src), p.pos+1+n)]
		if len(digits) < n || strings.Trim(digits, "0123456789abcdefABCDEF") != "" {
			p.pos--
			return 0, p.errorf(`incomplete escape \%c%s`, c, digits)
		}
		v, _ := strconv.ParseUint(digits, 16, 32)
		if v > unicode.MaxRune {
			p.pos--
			return 0, p.errorf(`bad escape \%c%s`, c, digits)
		}
		p.pos += 1 + n
		return rune(v), nil
	case 'N':
		p.pos--
		return 0, p.errorf(`\N{...} (a character by its Unicode name) is not supported; write the character or \uXXXX`)
	case '0':
		// \0 and up to two more octal digits.
		j := p.pos + 1
		for j < len(p.src) && j < p.pos+3 && isOctal(p.src[j]) {
			j++
		}
		v, _ := strconv.ParseUint(p.src[p.pos:j], 8, 32)
		p.pos = j
		return rune(v), nil
	}
	if inClass && isOctal(c) {
		j := p.pos + 1
		for j < len(p.src) && j < p.pos+3 && isOctal(p.src[j]) {
			j++
		}
		v, _ := strconv.ParseUint(p.src[p.pos:j], 8, 32)
		if v > 0377 {
			return 0, p.errorf(`octal escape value \%s outside of range 0-0o377`, p.src[p.pos:j])
		}
		p.pos = j
		return rune(v), nil
	}
	if c < 0x80 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
		p.pos--
		return 0, p.errorf(`bad escape \%c`, c)
	}
	r, size := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += size
	return r, nil
}

func (p *pyParser) class(f Flags) (*node, error) {
	start := p.pos
	p.pos++ // [
	negated := p.eat("^")
	var lits, cats runeSet
	first := true
	for {
		if !p.more() {
			p.pos = start
			return nil, p.errorf("unterminated character set")
		}
		if p.peek() == ']' && !first {
			p.pos++
			break
		}
		first = false
		atomStart := p.pos
		lo, loSet, err := p.classItem(f)
		if err != nil {
			return nil, err
		}
		if p.peek() == '-' && p.pos+1 < len(p.src) && p.src[p.pos+1] != ']' {
			p.pos++
			hi, hiSet, err := p.classItem(f)
			if err != nil {
				return nil, err
			}
			if loSet != nil || hiSet != nil || lo > hi {
				p.pos = atomStart
				return nil, p.errorf("bad character range %s", p.src[atomStart:p.posAfterRange(atomStart)])
			}
			lits = append(lits, lo, hi)
			continue
		}
		if loSet != nil {
			cats = append(cats, loSet...)
		} else {
			lits = append(lits, lo, lo)
		}
	}
	litSet, catSet := setOf(lits...), setOf(cats...)
	var set runeSet
	if f&IgnoreCase != 0 {
		set = foldClass(Python, f&ASCII != 0, litSet, catSet, false)
	} else {
		set = litSet.union(catSet)
	}
	if negated {
		set = set.negate()
	}
	return &node{kind: nSet, set: set}, nil
}

// posAfterRange finds the end of the range text starting at from, for the error message.
func (p *pyParser) posAfterRange(from int) int {
	q := &pyParser{src: p.src, pos: from}
	_, _, _ = q.classItem(0)
	if q.peek() == '-' {
		q.pos++
		_, _, _ = q.classItem(0)
	}
	return q.pos
}

// classItem reads one member of a class: a character or a \d \w \s set.
func (p *pyParser) classItem(f Flags) (rune, runeSet, error) {
	if p.peek() != '\\' {
		r, size := utf8.DecodeRuneInString(p.src[p.pos:])
		p.pos += size
		return r, nil, nil
	}
	p.pos++
	if !p.more() {
		return 0, nil, p.errorf("unterminated character set")
	}
	c := p.peek()
	if s, ok := classEscape(Python, f&ASCII != 0, c); ok {
		p.pos++
		return 0, s, nil
	}
	if c == 'b' {
		p.pos++
		return '\b', nil, nil
	}
	if c >= '8' && c <= '9' {
		p.pos--
		return 0, nil, p.errorf(`bad escape \%c`, c)
	}
	r, err := p.charEscape(true)
	return r, nil, err
}
