package regex

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// parseJS parses a JavaScript pattern as `new RegExp(pattern, flags)` does without the `u`
// flag: ECMA-262 with its Annex B web-compatibility grammar (a lone `]`, `{` or `}` is a
// character, `\8` is "8", `\1` with no group 1 is an octal escape, `\q` is "q", `\c` not
// followed by a letter is a backslash). The pattern is UTF-8; a surrogate pair written as two
// \u escapes is one character, a lone surrogate matches nothing.
func parseJS(src string, f Flags) (*node, *parsed, error) {
	p := &jsParser{src: src, flags: f, names: map[string]int{}}
	p.prescan()
	n, err := p.disjunction()
	if err != nil {
		return nil, nil, err
	}
	if p.pos < len(p.src) {
		return nil, nil, p.errorf("unmatched ')'")
	}
	for _, ref := range p.namedRefs {
		idx, ok := p.names[ref.name]
		if !ok {
			return nil, nil, &Error{Pattern: src, Offset: ref.at, Msg: fmt.Sprintf("invalid named reference %q", ref.name)}
		}
		ref.n.index = idx
	}
	return n, &parsed{groups: p.groups, names: p.groupNames()}, nil
}

type namedRef struct {
	name string
	at   int
	n    *node
}

type jsParser struct {
	src       string
	pos       int
	flags     Flags
	groups    int            // capture groups opened so far
	total     int            // capture groups in the whole pattern (prescan)
	hasNames  bool           // the pattern has a named group (then \k is a reference)
	names     map[string]int // group name → number
	namedRefs []namedRef
}

// parsed is what a parser learned beyond the tree.
type parsed struct {
	groups int
	names  []string // by group number; "" for unnamed
}

func (p *jsParser) groupNames() []string {
	out := make([]string, p.groups+1)
	for name, i := range p.names {
		out[i] = name
	}
	return out
}

func (p *jsParser) errorf(format string, args ...any) error {
	return &Error{Pattern: p.src, Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

// prescan counts the capture groups and notes named groups: a backreference may come before its
// group, and \k means a reference only in a pattern with named groups.
func (p *jsParser) prescan() {
	inClass := false
	for i := 0; i < len(p.src); i++ {
		switch c := p.src[i]; {
		case c == '\\':
			i++
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
		case c == '(':
			if !strings.HasPrefix(p.src[i:], "(?") {
				p.total++
			} else if strings.HasPrefix(p.src[i:], "(?<") && !strings.HasPrefix(p.src[i:], "(?<=") && !strings.HasPrefix(p.src[i:], "(?<!") {
				p.total++
				p.hasNames = true
			}
		}
	}
}

func (p *jsParser) more() bool { return p.pos < len(p.src) }
func (p *jsParser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}
func (p *jsParser) eat(s string) bool {
	if strings.HasPrefix(p.src[p.pos:], s) {
		p.pos += len(s)
		return true
	}
	return false
}

func (p *jsParser) disjunction() (*node, error) {
	var alts []*node
	for {
		n, err := p.alternative()
		if err != nil {
			return nil, err
		}
		alts = append(alts, n)
		if !p.eat("|") {
			return alternate(alts), nil
		}
	}
}

func (p *jsParser) alternative() (*node, error) {
	var terms []*node
	for p.more() && p.peek() != '|' && p.peek() != ')' {
		t, err := p.term()
		if err != nil {
			return nil, err
		}
		terms = append(terms, t)
	}
	if len(terms) == 0 {
		return &node{kind: nEmpty}, nil
	}
	return concat(terms...), nil
}

func (p *jsParser) term() (*node, error) {
	start := p.pos
	atom, quantifiable, err := p.atom()
	if err != nil {
		return nil, err
	}
	min, max, greedy, ok, err := p.quantifier()
	if err != nil {
		return nil, err
	}
	if !ok {
		return atom, nil
	}
	if !quantifiable {
		p.pos = start
		return nil, p.errorf("nothing to repeat")
	}
	return &node{kind: nRepeat, subs: []*node{atom}, min: min, max: max, greedy: greedy}, nil
}

// quantifier reads * + ? {n} {n,} {n,m} and a lazy `?`; ok is false when there is none (a `{`
// that does not make a quantifier is left for the atom parser, which reads it as a character).
func (p *jsParser) quantifier() (min, max int, greedy, ok bool, err error) {
	switch p.peek() {
	case '*':
		p.pos++
		min, max = 0, -1
	case '+':
		p.pos++
		min, max = 1, -1
	case '?':
		p.pos++
		min, max = 0, 1
	case '{':
		var n int
		min, max, n = bracedQuantifier(p.src[p.pos:], false)
		if n == 0 {
			return 0, 0, false, false, nil
		}
		p.pos += n
		if max >= 0 && min > max {
			return 0, 0, false, false, p.errorf("numbers out of order in {} quantifier")
		}
	default:
		return 0, 0, false, false, nil
	}
	greedy = !p.eat("?")
	return min, max, greedy, true, nil
}

// bracedQuantifier parses {n}, {n,}, {n,m} (and, for Python, {,m}) at the start of s: the counts
// (max -1: unbounded) and the bytes read, 0 when s does not start with one. Counts are clamped.
func bracedQuantifier(s string, python bool) (min, max, n int) {
	i := 1
	digits := func() (int, bool) {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			return 0, false
		}
		v, err := strconv.Atoi(s[j:i])
		if err != nil || v > math.MaxInt32 {
			v = math.MaxInt32
		}
		return v, true
	}
	lo, hasLo := digits()
	if !hasLo && !python {
		return 0, 0, 0
	}
	max = lo
	if i < len(s) && s[i] == ',' {
		i++
		hi, hasHi := digits()
		max = -1
		if hasHi {
			max = hi
		}
	} else if !hasLo {
		return 0, 0, 0
	}
	if i >= len(s) || s[i] != '}' {
		return 0, 0, 0
	}
	return lo, max, i + 1
}

// atom parses one atom or assertion; quantifiable is false for assertions that cannot repeat.
func (p *jsParser) atom() (n *node, quantifiable bool, err error) {
	c := p.peek()
	switch c {
	case '^':
		p.pos++
		if p.flags&Multiline != 0 {
			return &node{kind: nAssert, assert: aBeginLineJS}, false, nil
		}
		return &node{kind: nAssert, assert: aBeginText}, false, nil
	case '$':
		p.pos++
		if p.flags&Multiline != 0 {
			return &node{kind: nAssert, assert: aEndLineJS}, false, nil
		}
		return &node{kind: nAssert, assert: aEndText}, false, nil
	case '.':
		p.pos++
		return p.chars(dotSet(JavaScript, p.flags&DotAll != 0), true), true, nil
	case '(':
		return p.group()
	case '[':
		n, err := p.class()
		return n, true, err
	case '*', '+', '?':
		return nil, false, p.errorf("nothing to repeat")
	case '{':
		if _, _, n := bracedQuantifier(p.src[p.pos:], false); n > 0 {
			return nil, false, p.errorf("nothing to repeat")
		}
		p.pos++
		return p.char('{'), true, nil
	case '\\':
		return p.atomEscape()
	}
	r, size := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += size
	return p.char(r), true, nil
}

func (p *jsParser) group() (*node, bool, error) {
	start := p.pos
	p.pos++ // (
	kind, behind, negate, capture := nGroup, false, false, false
	name := ""
	switch {
	case p.eat("?:"):
	case p.eat("?="):
		kind = nLook
	case p.eat("?!"):
		kind, negate = nLook, true
	case p.eat("?<="):
		kind, behind = nLook, true
	case p.eat("?<!"):
		kind, behind, negate = nLook, true, true
	case p.eat("?<"):
		var err error
		if name, err = p.groupName(); err != nil {
			return nil, false, err
		}
		if _, dup := p.names[name]; dup {
			return nil, false, p.errorf("duplicate capture group name %q", name)
		}
		capture = true
	case p.peek() == '?':
		add, remove, ok, err := p.modifiers()
		if err != nil {
			return nil, false, err
		}
		if !ok {
			return nil, false, p.errorf("invalid group")
		}
		// ES2025 modifiers, (?i:…), (?-i:…), (?m-s:…): the flags change inside the group only
		// (node 23 and later read them; GitHub-Copilot-for-Azure's Vally specs use them).
		outer := p.flags
		p.flags = p.flags&^remove | add
		defer func() { p.flags = outer }()
	default:
		capture = true
	}
	index := 0
	if capture {
		p.groups++
		index = p.groups
		if name != "" {
			p.names[name] = index
		}
	}
	sub, err := p.disjunction()
	if err != nil {
		return nil, false, err
	}
	if !p.eat(")") {
		p.pos = start
		return nil, false, p.errorf("unterminated group")
	}
	switch {
	case capture:
		return &node{kind: nCapture, index: index, subs: []*node{sub}}, true, nil
	case kind == nLook:
		// Annex B lets a lookahead, not a lookbehind, take a quantifier.
		return &node{kind: nLook, behind: behind, negate: negate, subs: []*node{sub}}, !behind, nil
	}
	return &node{kind: nGroup, subs: []*node{sub}}, true, nil
}

// modifiers reads the flags of a modifier group after its `(`: `?` flags [`-` flags] `:`, each
// flag one of i, m, s. ok is false when the text is not a modifier group; a repeated flag, a
// flag both added and removed, or `(?-:` is an error, as in ECMA-262.
func (p *jsParser) modifiers() (add, remove Flags, ok bool, err error) {
	start := p.pos
	i := p.pos + 1
	read := func() (Flags, bool) {
		var f Flags
		for ; i < len(p.src); i++ {
			bit := map[byte]Flags{'i': IgnoreCase, 'm': Multiline, 's': DotAll}[p.src[i]]
			if bit == 0 {
				break
			}
			if f&bit != 0 {
				return 0, false
			}
			f |= bit
		}
		return f, true
	}
	add, okAdd := read()
	dash := i < len(p.src) && p.src[i] == '-'
	if dash {
		i++
		remove, ok = read()
		okAdd = okAdd && ok
	}
	if i >= len(p.src) || p.src[i] != ':' || i == start+1 {
		return 0, 0, false, nil
	}
	if !okAdd || add&remove != 0 || (dash && add|remove == 0) {
		return 0, 0, false, p.errorf("invalid regular expression modifiers")
	}
	p.pos = i + 1
	return add, remove, true, nil
}

// groupName reads `name>` (identifier characters, \u escapes allowed).
func (p *jsParser) groupName() (string, error) {
	var b strings.Builder
	for {
		if !p.more() {
			return "", p.errorf("invalid capture group name")
		}
		if p.eat(">") {
			break
		}
		var r rune
		if p.eat(`\u`) {
			v, ok := p.hex(4)
			if !ok {
				return "", p.errorf("invalid Unicode escape in a group name")
			}
			r = rune(v)
		} else {
			var size int
			r, size = utf8.DecodeRuneInString(p.src[p.pos:])
			p.pos += size
		}
		first := b.Len() == 0
		if !(r == '$' || r == '_' || unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) ||
			!first && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r) || r == 0x200c || r == 0x200d)) {
			return "", p.errorf("invalid capture group name")
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "", p.errorf("invalid capture group name")
	}
	return b.String(), nil
}

func (p *jsParser) hex(n int) (int, bool) {
	if p.pos+n > len(p.src) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.src[p.pos:p.pos+n], 16, 32)
	if err != nil || strings.ContainsAny(p.src[p.pos:p.pos+n], "+-_") {
		return 0, false
	}
	p.pos += n
	return int(v), true
}

func (p *jsParser) atomEscape() (*node, bool, error) {
	start := p.pos
	p.pos++ // backslash
	if !p.more() {
		return nil, false, p.errorf(`\ at end of pattern`)
	}
	c := p.peek()
	switch c {
	case 'b', 'B':
		p.pos++
		kind := aWordBoundary
		if c == 'B' {
			kind = aNonWordBoundary
		}
		return &node{kind: nAssert, assert: kind}, false, nil
	case 'd', 'D', 'w', 'W', 's', 'S':
		p.pos++
		s, _ := classEscape(JavaScript, true, c)
		return p.chars(s, false), true, nil
	case 'k':
		if p.hasNames {
			p.pos++
			if !p.eat("<") {
				return nil, false, p.errorf("invalid named reference")
			}
			end := strings.IndexByte(p.src[p.pos:], '>')
			if end < 0 {
				return nil, false, p.errorf("invalid named reference")
			}
			n := &node{kind: nBackref, jsRef: true, fold: p.flags&IgnoreCase != 0}
			p.namedRefs = append(p.namedRefs, namedRef{name: p.src[p.pos : p.pos+end], at: start, n: n})
			p.pos += end + 1
			return n, true, nil
		}
	}
	if c >= '1' && c <= '9' {
		j := p.pos
		for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
			j++
		}
		if v, err := strconv.Atoi(p.src[p.pos:j]); err == nil && v <= p.total {
			p.pos = j
			return &node{kind: nBackref, index: v, jsRef: true, fold: p.flags&IgnoreCase != 0}, true, nil
		}
	}
	r, err := p.characterEscape(false)
	if err != nil {
		return nil, false, err
	}
	if r < 0 { // `\c` without a control letter: the backslash itself
		return p.char('\\'), true, nil
	}
	return p.char(r), true, nil
}

// characterEscape reads the escape after a backslash (which has been consumed) as a character;
// -1 means `\c` without a letter after it, which stands for the backslash (the `c` is left).
func (p *jsParser) characterEscape(inClass bool) (rune, error) {
	c := p.peek()
	switch c {
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
	case 'c':
		if p.pos+1 < len(p.src) {
			l := p.src[p.pos+1]
			if l >= 'a' && l <= 'z' || l >= 'A' && l <= 'Z' || inClass && (l >= '0' && l <= '9' || l == '_') {
				p.pos += 2
				return rune(l % 32), nil
			}
		}
		return -1, nil
	case 'x':
		p.pos++
		if v, ok := p.hex(2); ok {
			return rune(v), nil
		}
		return 'x', nil
	case 'u':
		p.pos++
		if v, ok := p.hex(4); ok {
			r := rune(v)
			// A surrogate pair written as two escapes is one character.
			if utf16IsHigh(r) && strings.HasPrefix(p.src[p.pos:], `\u`) {
				save := p.pos
				p.pos += 2
				if lo, ok := p.hex(4); ok && utf16IsLow(rune(lo)) {
					return (r-0xd800)<<10 + (rune(lo) - 0xdc00) + 0x10000, nil
				}
				p.pos = save
			}
			return r, nil
		}
		return 'u', nil
	case '0', '1', '2', '3', '4', '5', '6', '7':
		if c == '0' && (p.pos+1 >= len(p.src) || p.src[p.pos+1] < '0' || p.src[p.pos+1] > '9') {
			p.pos++
			return 0, nil
		}
		// Legacy octal: up to three digits, at most \377.
		v := 0
		n := 0
		for n < 3 && p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '7' {
			next := v*8 + int(p.src[p.pos]-'0')
			if next > 0377 {
				break
			}
			v = next
			p.pos++
			n++
		}
		return rune(v), nil
	}
	r, size := utf8.DecodeRuneInString(p.src[p.pos:])
	p.pos += size
	return r, nil
}

func utf16IsHigh(r rune) bool { return r >= 0xd800 && r <= 0xdbff }
func utf16IsLow(r rune) bool  { return r >= 0xdc00 && r <= 0xdfff }

// char is a literal character, its case variants included when case is ignored.
func (p *jsParser) char(r rune) *node {
	if utf16IsHigh(r) || utf16IsLow(r) {
		return &node{kind: nSet} // a lone surrogate: no UTF-8 text contains one
	}
	if p.flags&IgnoreCase != 0 {
		return &node{kind: nSet, set: foldLiteral(JavaScript, false, r)}
	}
	return &node{kind: nSet, set: runeSet{r, r}}
}

// chars is a set from a class escape or `.`: `.` (dot) is not folded; \w and the like are.
func (p *jsParser) chars(s runeSet, dot bool) *node {
	if p.flags&IgnoreCase != 0 && !dot {
		s = foldClass(JavaScript, false, nil, s, false)
	}
	return &node{kind: nSet, set: s}
}

func (p *jsParser) class() (*node, error) {
	start := p.pos
	p.pos++ // [
	negated := p.eat("^")
	var lits []rune // range pairs
	for {
		if !p.more() {
			p.pos = start
			return nil, p.errorf("unterminated character class")
		}
		if p.eat("]") {
			break
		}
		lo, loSet, err := p.classAtom()
		if err != nil {
			return nil, err
		}
		if p.peek() == '-' && p.pos+1 < len(p.src) && p.src[p.pos+1] != ']' {
			save := p.pos
			p.pos++
			hi, hiSet, err := p.classAtom()
			if err != nil {
				return nil, err
			}
			if loSet == nil && hiSet == nil {
				if lo > hi {
					p.pos = save
					return nil, p.errorf("range out of order in character class")
				}
				lits = append(lits, lo, hi)
				continue
			}
			// Annex B: a class escape on either side makes the `-` a character.
			lits = appendAtom(lits, lo, loSet)
			lits = append(lits, '-', '-')
			lits = appendAtom(lits, hi, hiSet)
			continue
		}
		lits = appendAtom(lits, lo, loSet)
	}
	set := setOf(lits...)
	if p.flags&IgnoreCase != 0 {
		set = foldClass(JavaScript, false, set, nil, false)
	}
	if negated {
		set = set.negate()
	}
	return &node{kind: nSet, set: set}, nil
}

func appendAtom(lits []rune, r rune, set runeSet) []rune {
	if set != nil {
		return append(lits, set...)
	}
	return append(lits, r, r)
}

// classAtom reads one class member: a character, or the set of a class escape.
func (p *jsParser) classAtom() (rune, runeSet, error) {
	if p.peek() != '\\' {
		r, size := utf8.DecodeRuneInString(p.src[p.pos:])
		p.pos += size
		return r, nil, nil
	}
	p.pos++
	if !p.more() {
		return 0, nil, p.errorf(`\ at end of pattern`)
	}
	c := p.peek()
	if s, ok := classEscape(JavaScript, true, c); ok {
		p.pos++
		return 0, s, nil
	}
	switch {
	case c == 'b':
		p.pos++
		return '\b', nil, nil
	case c == '-':
		p.pos++
		return '-', nil, nil
	case c >= '8' && c <= '9':
		p.pos++
		return rune(c), nil, nil
	}
	r, err := p.characterEscape(true)
	if err != nil {
		return 0, nil, err
	}
	if r < 0 {
		return '\\', nil, nil
	}
	return r, nil, nil
}
