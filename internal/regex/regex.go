// Package regex is skillgate's one layer for regular expressions written in suites: every
// grader and format that matches a pattern compiles it here, in the dialect of the tool the
// suite was written for.
//
//   - RE2: Go's regexp syntax and semantics (waza's graders are Go; early_stop.output_matches).
//   - JavaScript: ECMA-262 as `new RegExp(p, flags)` without the `u` flag (Vally is TypeScript).
//   - Python: CPython's `re` module on str patterns (waza's Python assertions).
//
// A JavaScript or Python pattern is parsed into a tree in which the dialect's meaning is
// resolved — \d, \w, \s, `.`, case-insensitivity and every anchor become explicit sets and
// assertions — and then written for Go's RE2 engine when it has no lookaround, backreference,
// conditional or atomic group, else for a backtracking engine (github.com/dlclark/regexp2)
// whose every match is bounded by Timeout. Because both engines get the same explicit sets, what
// \w matches never depends on which engine runs: adding a lookahead to a pattern changes only
// the engine. Assertions RE2 cannot write exactly (Python's Unicode \b and its `$` before a
// final newline, JavaScript's multiline ^ and $ at \r) run on RE2 for texts where its
// reading is exact and on the backtracking engine for the others.
//
// Compiled patterns are cached by pattern, dialect and flags, and are safe for concurrent use.
package regex

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/dlclark/regexp2/v2"
)

// Dialect is the language a pattern is written in.
type Dialect uint8

const (
	RE2 Dialect = iota + 1
	JavaScript
	Python
)

func (d Dialect) String() string {
	switch d {
	case RE2:
		return "RE2"
	case JavaScript:
		return "JavaScript"
	case Python:
		return "Python"
	}
	return "Dialect(" + strconv.Itoa(int(d)) + ")"
}

// Flags change how a pattern matches, as the dialect's flags of the same names do.
type Flags uint16

const (
	IgnoreCase Flags = 1 << iota // JavaScript `i`, Python re.I, RE2 (?i)
	Multiline                    // JavaScript `m`, Python re.M, RE2 (?m)
	DotAll                       // JavaScript `s`, Python re.S, RE2 (?s)
	ASCII                        // Python re.A: \w \d \s \b and case folding are ASCII-only
	Verbose                      // Python re.X
	// MatchStart anchors the match at the start of the text (Python's re.match).
	MatchStart
	// MatchFull anchors it at both ends (Python's re.fullmatch).
	MatchFull
)

// Timeout bounds one match on the backtracking engine: a pattern that backtracks
// catastrophically fails its check with ErrTimeout instead of hanging the run.
const Timeout = time.Second

// ErrTimeout is returned (wrapped) by a match the backtracking engine gave up on.
var ErrTimeout = errors.New("the regular expression took too long to match (catastrophic backtracking?)")

// Error is a pattern the dialect does not accept.
type Error struct {
	Pattern string
	Offset  int // byte offset in Pattern
	Msg     string
}

func (e *Error) Error() string { return e.Msg }

// Regexp is a compiled pattern.
type Regexp struct {
	source  string
	dialect Dialect
	flags   Flags

	re2   *regexp.Regexp // nil when the pattern needs the backtracking engine
	pf    *prefilter     // nil: no usable literals
	exact conditions     // the texts on which re2 is exact (see exactOn)
	// emptyAfterMatch: the pattern can match both the empty string and a non-empty one, and the
	// dialect counts an empty match right after a non-empty one, which Go's iteration skips:
	// all-match iteration then runs on the backtracking engine.
	emptyAfterMatch bool

	tree   *node // the parsed pattern, written for the backtracking engine on first use
	btSrc  string
	btOnce sync.Once
	bt     *regexp2.Regexp
	btErr  error

	groups int
	names  []string // by group number, "" for unnamed groups

	conj *conjunctions // nil unless MatchString can avoid the backtracking engine (conjunction.go)
}

// timeout is Timeout; tests shorten it.
var timeout = Timeout

// Compile compiles pattern in the dialect with flags. The error is an *Error.
func Compile(pattern string, d Dialect, f Flags) (*Regexp, error) {
	key := cacheKey{pattern, d, f}
	if c, ok := cache.Load(key); ok {
		e := c.(*cacheEntry)
		return e.re, e.err
	}
	re, err := compile(pattern, d, f)
	if cacheSize.Load() < cacheMax {
		if _, loaded := cache.LoadOrStore(key, &cacheEntry{re, err}); !loaded {
			cacheSize.Add(1)
		}
	}
	return re, err
}

// MustCompile is Compile for patterns known to be valid.
func MustCompile(pattern string, d Dialect, f Flags) *Regexp {
	re, err := Compile(pattern, d, f)
	if err != nil {
		panic(err)
	}
	return re
}

// The cache stops growing at cacheMax entries, so patterns built from agent outputs (a Python
// assertion may build one) cannot fill memory.
type cacheKey struct {
	pattern string
	dialect Dialect
	flags   Flags
}

type cacheEntry struct {
	re  *Regexp
	err error
}

var (
	cache     sync.Map
	cacheSize atomic.Int64
)

const cacheMax = 8192

func compile(pattern string, d Dialect, f Flags) (*Regexp, error) {
	switch d {
	case RE2:
		return compileRE2(pattern, f)
	case JavaScript, Python:
	default:
		return nil, &Error{Pattern: pattern, Msg: "unknown regular expression dialect " + d.String()}
	}
	var tree *node
	var info *parsed
	var err error
	if d == JavaScript {
		tree, info, err = parseJS(pattern, f)
	} else {
		tree, info, err = parsePython(pattern, f)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case f&MatchFull != 0:
		tree = concat(&node{kind: nAssert, assert: aBeginText}, &node{kind: nGroup, subs: []*node{tree}}, &node{kind: nAssert, assert: aEndText})
	case f&MatchStart != 0:
		tree = concat(&node{kind: nAssert, assert: aBeginText}, &node{kind: nGroup, subs: []*node{tree}})
	}
	re, err := compileTree(pattern, d, f, tree, info)
	if err != nil {
		return nil, err
	}
	if re.Backtracking() {
		if re.conj, err = splitConjunctions(pattern, d, f, tree); err != nil {
			return nil, err
		}
	}
	return re, nil
}

// compileTree makes the programs of a parsed pattern.
func compileTree(pattern string, d Dialect, f Flags, tree *node, info *parsed) (*Regexp, error) {
	re := &Regexp{source: pattern, dialect: d, flags: f, groups: info.groups, names: info.names,
		tree: tree, emptyAfterMatch: tree.nullable() && !matchesOnlyEmpty(tree)}
	if !tree.needsBacktracking() {
		src := emitRE2(tree)
		if prog, err := regexp.Compile(src); err == nil {
			re.re2, re.exact = prog, ^tree.conditions()
			re.pf = newPrefilter(src)
		}
		// Otherwise (RE2's size limits) the backtracking engine runs it.
	}
	if re.re2 == nil || re.exact != ^conditions(0) {
		// A pattern that may run on the backtracking engine must compile there now, so a
		// problem shows when the suite loads rather than in a run.
		if _, err := re.backtracking(); err != nil {
			return nil, &Error{Pattern: pattern, Msg: "not supported: " + err.Error()}
		}
	}
	return re, nil
}

// matchesOnlyEmpty: every match is empty, so no match is non-empty for an empty one to follow.
func matchesOnlyEmpty(n *node) bool {
	_, hi := n.width()
	return hi == 0
}

// compileRE2 is Go's regexp, the flags given as an inline group.
func compileRE2(pattern string, f Flags) (*Regexp, error) {
	src := pattern
	var prefix string
	for _, fl := range []struct {
		f Flags
		c string
	}{{IgnoreCase, "i"}, {Multiline, "m"}, {DotAll, "s"}} {
		if f&fl.f != 0 {
			prefix += fl.c
		}
	}
	if prefix != "" {
		src = "(?" + prefix + ")" + pattern
	}
	prog, err := regexp.Compile(src)
	if err != nil {
		return nil, &Error{Pattern: pattern, Msg: strings.TrimPrefix(err.Error(), "error parsing regexp: ")}
	}
	return &Regexp{source: pattern, dialect: RE2, flags: f, re2: prog, exact: ^conditions(0),
		pf: newPrefilter(src), groups: prog.NumSubexp(), names: prog.SubexpNames()}, nil
}

// backtracking compiles the backtracking engine's program on first use.
func (r *Regexp) backtracking() (*regexp2.Regexp, error) {
	r.btOnce.Do(func() {
		if r.tree == nil {
			r.btErr = errors.New("the RE2 dialect has no backtracking program")
			return
		}
		r.btSrc = emitBacktracking(r.tree)
		re, err := regexp2.Compile(r.btSrc, regexp2.None)
		if err != nil {
			r.btErr = err
			return
		}
		re.MatchTimeout = timeout
		r.bt = re
	})
	return r.bt, r.btErr
}

// String is the pattern as written.
func (r *Regexp) String() string { return r.source }

// Dialect is the pattern's dialect.
func (r *Regexp) Dialect() Dialect { return r.dialect }

// Backtracking reports whether some texts run on the backtracking engine (the pattern has a
// construct RE2 lacks, or an assertion RE2 writes exactly only for some texts).
func (r *Regexp) Backtracking() bool { return r.re2 == nil || r.exact != ^conditions(0) }

// NumSubexp is the number of capture groups.
func (r *Regexp) NumSubexp() int { return r.groups }

// SubexpNames lists the group names by number ("" for unnamed groups and group 0).
func (r *Regexp) SubexpNames() []string { return r.names }

// SubexpIndex is the number of the group with that name, -1 if none.
func (r *Regexp) SubexpIndex(name string) int {
	if name == "" {
		return -1
	}
	for i, n := range r.names {
		if n == name {
			return i
		}
	}
	return -1
}

// exactOn reports whether the RE2 program decides s as the dialect would.
func (r *Regexp) exactOn(s string) bool {
	if r.re2 == nil {
		return false
	}
	need := ^r.exact
	if need == 0 {
		return true
	}
	if need&condNoFinalNewline != 0 && strings.HasSuffix(s, "\n") || need&condNotEmpty != 0 && s == "" {
		return false
	}
	if need&(condNoJSLineTerminator|condNoUnicodeWord) == 0 {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\r' && need&condNoJSLineTerminator != 0 {
			return false
		}
		if c < 0x80 {
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == 0x2028 || r == 0x2029) && need&condNoJSLineTerminator != 0 {
			return false
		}
		if need&condNoUnicodeWord != 0 && pyWord().has(r) {
			return false
		}
		i += size - 1
	}
	return true
}

// MatchString reports whether the pattern matches somewhere in s.
func (r *Regexp) MatchString(s string) (bool, error) {
	if r.conj != nil {
		return r.conj.matchString(s)
	}
	if r.pf != nil && !r.pf.mayMatch(s) {
		return false, nil
	}
	if r.exactOn(s) {
		return r.re2.MatchString(s), nil
	}
	bt, err := r.backtracking()
	if err != nil {
		return false, err
	}
	m, _, err := btFirst(bt, s)
	return m != nil, matchErr(err)
}

// FindStringSubmatchIndex is regexp's: byte offsets of the leftmost match and its groups, -1
// for groups that did not take part; nil when there is no match.
func (r *Regexp) FindStringSubmatchIndex(s string) ([]int, error) {
	if r.pf != nil && !r.pf.mayMatch(s) {
		return nil, nil
	}
	if r.exactOn(s) {
		return r.re2.FindStringSubmatchIndex(s), nil
	}
	bt, err := r.backtracking()
	if err != nil {
		return nil, err
	}
	m, offs, err := btFirst(bt, s)
	if err != nil || m == nil {
		return nil, matchErr(err)
	}
	return r.indexes(m, offs), nil
}

// FindAllStringSubmatchIndex is every successive non-overlapping match (at most n; n < 0: all).
// In the JavaScript and Python dialects an empty match right after a non-empty one counts, as
// in those languages; Go's iteration (the RE2 dialect) skips it.
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) ([][]int, error) {
	if n == 0 || r.pf != nil && !r.pf.mayMatch(s) {
		return nil, nil
	}
	if r.exactOn(s) && (r.dialect == RE2 || !r.emptyAfterMatch) {
		return r.re2.FindAllStringSubmatchIndex(s, n), nil
	}
	bt, err := r.backtracking()
	if err != nil {
		return nil, err
	}
	var out [][]int
	m, offs, err := btFirst(bt, s)
	for ; err == nil && m != nil && (n < 0 || len(out) < n); m, err = bt.FindNextMatch(m) {
		out = append(out, r.indexes(m, offs))
	}
	return out, matchErr(err)
}

// btFirst is the backtracking engine's first match. A text that is not valid UTF-8 is matched
// as characters, each invalid byte one U+FFFD as RE2 reads it (the engine's string search
// would skip them), and offs maps character offsets back to byte offsets.
func btFirst(bt *regexp2.Regexp, s string) (m *regexp2.Match, offs []int, err error) {
	if utf8.ValidString(s) {
		m, err = bt.FindStringMatch(s)
		return m, nil, err
	}
	runes := make([]rune, 0, len(s))
	offs = make([]int, 0, len(s)+1)
	for i, r := range s {
		runes = append(runes, r)
		offs = append(offs, i)
	}
	offs = append(offs, len(s))
	m, err = bt.FindRunesMatch(runes)
	return m, offs, err
}

func (r *Regexp) indexes(m *regexp2.Match, offs []int) []int {
	idx := make([]int, 2*(r.groups+1))
	for i := range idx {
		idx[i] = -1
	}
	for _, g := range m.Groups() {
		num, err := strconv.Atoi(g.Name)
		if err != nil || num < 0 || num > r.groups || len(g.Captures) == 0 {
			continue
		}
		if offs != nil {
			idx[2*num], idx[2*num+1] = offs[g.RuneIndex], offs[g.RuneIndex+g.RuneLength]
			continue
		}
		start, length := g.ByteRange()
		idx[2*num], idx[2*num+1] = start, start+length
	}
	return idx
}

func matchErr(err error) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), "timeout") {
		return fmt.Errorf("%w", ErrTimeout)
	}
	return err
}

// Match is MatchString for a byte slice (a file's content).
func (r *Regexp) Match(b []byte) (bool, error) {
	// The prefilter only reads the text; converting without a copy is safe.
	if r.pf != nil && !r.pf.mayMatch(unsafe.String(unsafe.SliceData(b), len(b))) {
		return false, nil
	}
	if r.exactOn(unsafe.String(unsafe.SliceData(b), len(b))) {
		return r.re2.Match(b), nil
	}
	return r.MatchString(string(b))
}
