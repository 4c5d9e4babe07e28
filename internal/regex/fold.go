package regex

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
)

// Case-insensitive matching is resolved when a pattern compiles: a literal or a class becomes
// the explicit set of characters the dialect's rule lets it match, and neither engine is asked
// to ignore case. This keeps the two engines in agreement, gives each dialect its own rule, and
// avoids the backtracking engine's case-insensitive classes, which take tens of milliseconds
// to build for `.` or `\S`.
//
// Both rules compare a key of the text's character with the keys of the pattern's characters:
//   - JavaScript without the `u` flag (ECMA-262 Canonicalize): the key is the character's
//     uppercase when that is one UTF-16 unit and does not turn a non-ASCII character into an
//     ASCII one, else the character itself. Characters above U+FFFF are keys of themselves.
//   - Python (CPython's re, str patterns): the key is the character's simple lowercase; a
//     class's literal members also admit the lowercase characters that share an uppercase
//     with theirs (re._casefix), and its \d, \w, \s parts are tested against the key as written.

// foldRule is one dialect's key function over the characters whose key is not themselves.
type foldRule struct {
	key     func(rune) rune
	changed []rune          // sorted: every rune whose key differs from itself
	orbit   map[rune][]rune // key → every rune with that key, sorted (keys with a changed member only)
	// extra maps a key to the other keys that match it (Python's _casefix); nil for JavaScript.
	extra map[rune][]rune
}

// multiCharUpper are the characters whose full uppercase is more than one character
// (SpecialCasing.txt): JavaScript leaves them as they are when it ignores case.
var multiCharUpper = setOf(0xdf, 0xdf, 0x149, 0x149, 0x1f0, 0x1f0, 0x390, 0x390, 0x3b0, 0x3b0,
	0x587, 0x587, 0x1e96, 0x1e9a, 0x1f50, 0x1f50, 0x1f52, 0x1f52, 0x1f54, 0x1f54, 0x1f56, 0x1f56,
	0x1f80, 0x1faf, 0x1fb2, 0x1fb4, 0x1fb6, 0x1fb7, 0x1fbc, 0x1fbc, 0x1fc2, 0x1fc4, 0x1fc6, 0x1fc7,
	0x1fcc, 0x1fcc, 0x1fd2, 0x1fd3, 0x1fd6, 0x1fd7, 0x1fe2, 0x1fe4, 0x1fe6, 0x1fe7, 0x1ff2, 0x1ff4,
	0x1ff6, 0x1ff7, 0x1ffc, 0x1ffc, 0xfb00, 0xfb06, 0xfb13, 0xfb17)

// jsCanonicalize is ECMA-262's Canonicalize(ch) for a pattern without the `u` flag.
func jsCanonicalize(r rune) rune {
	if r > 0xffff || multiCharUpper.has(r) {
		return r
	}
	u := unicode.ToUpper(r)
	if u > 0xffff || (r >= 0x80 && u < 0x80) {
		return r
	}
	return u
}

var jsFold = sync.OnceValue(func() *foldRule { return newFoldRule(jsCanonicalize, nil) })

var pyFold = sync.OnceValue(func() *foldRule {
	r := newFoldRule(unicode.ToLower, nil)
	// Lowercase characters sharing an uppercase (the keys of one uppercase) match each other.
	byUpper := map[rune][]rune{}
	eachCased(func(c rune) {
		if unicode.ToLower(c) == c {
			if u := unicode.ToUpper(c); u != c {
				byUpper[u] = append(byUpper[u], c)
			}
		}
	})
	// Lowercase characters with the same full uppercase (SpecialCasing.txt), which no simple
	// mapping relates.
	for i, pair := range [][2]rune{{0x390, 0x1fd3}, {0x3b0, 0x1fe3}, {0xfb05, 0xfb06}} {
		byUpper[-1-rune(i)] = pair[:]
	}
	r.extra = map[rune][]rune{}
	for _, lows := range byUpper {
		if len(lows) < 2 {
			continue
		}
		for _, a := range lows {
			for _, b := range lows {
				if a != b {
					r.extra[a] = append(r.extra[a], b)
				}
			}
		}
	}
	for _, v := range r.extra {
		slices.Sort(v)
	}
	return r
})

// eachCased calls f for every character with a case mapping.
func eachCased(f func(rune)) {
	for _, cr := range unicode.CaseRanges {
		for c := rune(cr.Lo); c <= rune(cr.Hi); c++ {
			f(c)
		}
	}
}

func newFoldRule(key func(rune) rune, extra map[rune][]rune) *foldRule {
	r := &foldRule{key: key, orbit: map[rune][]rune{}, extra: extra}
	eachCased(func(c rune) {
		if k := key(c); k != c {
			r.changed = append(r.changed, c)
			r.orbit[k] = append(r.orbit[k], c)
		}
	})
	slices.Sort(r.changed)
	for k, members := range r.orbit {
		if key(k) == k {
			members = append(members, k)
		}
		slices.Sort(members)
		r.orbit[k] = slices.Compact(members)
	}
	return r
}

// withKey is every rune whose key is k.
func (f *foldRule) withKey(k rune) []rune {
	if m, ok := f.orbit[k]; ok {
		return m
	}
	if f.key(k) == k {
		return []rune{k}
	}
	return nil
}

// keys is {key(x) : x ∈ s}.
func (f *foldRule) keys(s runeSet) runeSet {
	changed := f.changedIn(s)
	if len(changed) == 0 {
		return s
	}
	pairs := make([]rune, 0, 2*len(changed))
	for _, c := range changed {
		k := f.key(c)
		pairs = append(pairs, k, k)
	}
	return s.minus(f.changedSet()).union(setOf(pairs...))
}

// matching is {ch : key(ch) ∈ keys}: the text characters a set of keys admits.
func (f *foldRule) matching(keys runeSet) runeSet {
	out := keys.minus(f.changedSet())
	var pairs []rune
	for _, c := range f.changed {
		if keys.has(f.key(c)) {
			pairs = append(pairs, c, c)
		}
	}
	return out.union(setOf(pairs...))
}

// changedIn lists the runes of s whose key differs from themselves (a merge of two sorted lists).
func (f *foldRule) changedIn(s runeSet) []rune {
	var out []rune
	i := 0
	for _, c := range f.changed {
		for i < len(s) && s[i+1] < c {
			i += 2
		}
		if i == len(s) {
			break
		}
		if c >= s[i] {
			out = append(out, c)
		}
	}
	return out
}

var changedSets sync.Map // *foldRule → runeSet

func (f *foldRule) changedSet() runeSet {
	if s, ok := changedSets.Load(f); ok {
		return s.(runeSet)
	}
	pairs := make([]rune, 0, 2*len(f.changed))
	for _, c := range f.changed {
		pairs = append(pairs, c, c)
	}
	s, _ := changedSets.LoadOrStore(f, setOf(pairs...))
	return s.(runeSet)
}

// withExtra adds to a set of keys the keys Python's _casefix pairs with them.
func (f *foldRule) withExtra(keys runeSet) runeSet {
	if f.extra == nil {
		return keys
	}
	var pairs []rune
	for k, others := range f.extra {
		if keys.has(k) {
			for _, o := range others {
				pairs = append(pairs, o, o)
			}
		}
	}
	return keys.union(setOf(pairs...))
}

// foldLiteral is what the character c matches when case is ignored.
func foldLiteral(d Dialect, ascii bool, c rune) runeSet {
	if d == Python && ascii {
		return asciiFold(setOf(c, c))
	}
	f := ruleOf(d)
	if d == Python && !pyCased(c) {
		return setOf(c, c) // not cased: CPython compares it as written
	}
	k := f.key(c)
	ks := []rune{k}
	if f.extra != nil {
		ks = append(ks, f.extra[k]...)
	}
	var pairs []rune
	for _, k := range ks {
		for _, m := range f.withKey(k) {
			pairs = append(pairs, m, m)
		}
	}
	return setOf(pairs...)
}

// foldClass is what a class matches when case is ignored: lits are its members written as
// characters and ranges, cats its \d \w \s members (and their negations), negated its `^`.
func foldClass(d Dialect, ascii bool, lits, cats runeSet, negated bool) runeSet {
	// Patterns repeat a few classes (\s, \S, `.`, [^…]) and folding a large one takes a
	// fraction of a millisecond: results are kept.
	key := foldKey(d, ascii, lits, cats, negated)
	if m, ok := foldedClasses.Load(key); ok {
		return m.(runeSet)
	}
	m := foldClassUncached(d, ascii, lits, cats)
	if negated {
		m = m.negate()
	}
	if foldedCount.Load() < maxFoldedClasses {
		if _, loaded := foldedClasses.LoadOrStore(key, m); !loaded {
			foldedCount.Add(1)
		}
	}
	return m
}

var (
	foldedClasses sync.Map // foldKey → runeSet
	foldedCount   atomic.Int64
)

const maxFoldedClasses = 4096

func foldKey(d Dialect, ascii bool, lits, cats runeSet, negated bool) string {
	var b strings.Builder
	b.Grow(4 * (len(lits) + len(cats) + 2))
	b.WriteByte(byte(d))
	if ascii {
		b.WriteByte('a')
	}
	if negated {
		b.WriteByte('^')
	}
	for _, r := range lits {
		b.WriteString(string(rune(0xe000)) + strconv.Itoa(int(r)))
	}
	b.WriteByte('|')
	for _, r := range cats {
		b.WriteString(string(rune(0xe000)) + strconv.Itoa(int(r)))
	}
	return b.String()
}

func foldClassUncached(d Dialect, ascii bool, lits, cats runeSet) runeSet {
	var m runeSet
	switch {
	case d == Python && ascii:
		// CPython folds a class only when one of its characters has a case; then it tests
		// the lowercase of the text's character against the whole class.
		if len(lits.intersect(asciiLetters)) == 0 {
			m = lits.union(cats)
		} else {
			m = asciiFold(lits).union(asciiFoldedBy(cats))
		}
	case d == Python:
		f := pyFold()
		if len(lits.intersect(f.casedSet())) == 0 {
			m = lits.union(cats)
		} else {
			m = f.matching(f.withExtra(f.keys(lits)).union(cats))
		}
	default:
		// JavaScript canonicalizes every member alike.
		f := jsFold()
		m = f.matching(f.keys(lits.union(cats)))
	}
	return m
}

// pyCased is CPython's iscased: the character differs from its lowercase or its uppercase
// (for CPython the first character of a longer uppercase, as ß's "SS").
func pyCased(c rune) bool {
	return unicode.ToLower(c) != c || unicode.ToUpper(c) != c || multiCharUpper.has(c)
}

var asciiLetters = setOf('A', 'Z', 'a', 'z')

var casedSets sync.Map // *foldRule → runeSet

// casedSet is every character whose lowercase or uppercase differs from it (CPython's iscased).
func (f *foldRule) casedSet() runeSet {
	if s, ok := casedSets.Load(f); ok {
		return s.(runeSet)
	}
	var pairs []rune
	eachCased(func(c rune) {
		if pyCased(c) {
			pairs = append(pairs, c, c)
		}
	})
	s, _ := casedSets.LoadOrStore(f, setOf(pairs...).union(multiCharUpper))
	return s.(runeSet)
}

func ruleOf(d Dialect) *foldRule {
	if d == Python {
		return pyFold()
	}
	return jsFold()
}

// asciiFold adds the other case of the ASCII letters in s (Python's re.ASCII|re.IGNORECASE).
func asciiFold(s runeSet) runeSet {
	var pairs []rune
	for c := 'A'; c <= 'Z'; c++ {
		if s.has(c) || s.has(c+32) {
			pairs = append(pairs, c, c, c+32, c+32)
		}
	}
	return s.union(setOf(pairs...))
}

// asciiFoldedBy is {ch : lower(ch) ∈ s} for the ASCII rule: s plus the uppercase of its
// lowercase letters, minus the uppercase letters whose lowercase is not in s.
func asciiFoldedBy(s runeSet) runeSet {
	var in, out []rune
	for c := 'A'; c <= 'Z'; c++ {
		if s.has(c + 32) {
			in = append(in, c, c)
		} else if s.has(c) {
			out = append(out, c, c)
		}
	}
	return s.minus(setOf(out...)).union(setOf(in...))
}
