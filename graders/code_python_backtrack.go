package graders

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// pyRegex is a compiled pattern of the `re` module. Assertions written for waza run under
// CPython, whose `re` has lookarounds and backreferences; RE2 refuses those. A pattern runs on
// RE2 (linear time, with the literal prefilter) when RE2 accepts it, and otherwise on a
// backtracking engine (regexp2) whose every match is bounded by backtrackMatchTimeout.
type pyRegex struct {
	re2 *pattern        // nil when only the backtracking engine accepts the pattern
	bt  *regexp2.Regexp // the fallback
}

// backtrackMatchTimeout bounds one match of a backtracking pattern: catastrophic backtracking
// fails the assertion instead of hanging the run.
const backtrackMatchTimeout = time.Second

// errBacktrack marks a match the backtracking engine gave up on.
var errBacktrack = errors.New("the regular expression took too long to match (catastrophic backtracking?)")

// compileBacktracking compiles a Python pattern (already rewritten by pythonToRE2) for regexp2,
// with the flags given as an inline group as for RE2.
func compileBacktracking(src string, flags int) (*regexp2.Regexp, error) {
	var opts regexp2.RegexOptions
	if flags&reFlagIgnoreCase != 0 {
		opts |= regexp2.IgnoreCase
	}
	if flags&reFlagMultiline != 0 {
		opts |= regexp2.Multiline
	}
	if flags&reFlagDotAll != 0 {
		opts |= regexp2.Singleline
	}
	re, err := regexp2.Compile(pythonToDotNet(src), opts)
	if err != nil {
		return nil, err
	}
	re.MatchTimeout = backtrackMatchTimeout
	return re, nil
}

// pythonToDotNet rewrites Python's named groups for regexp2, which follows .NET: (?P<name>…)
// becomes (?<name>…) and the backreference (?P=name) becomes \k<name>. Escapes and character
// classes are copied as they are.
func pythonToDotNet(p string) string {
	if !strings.Contains(p, "(?P") {
		return p
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
			continue
		case inClass:
			inClass = c != ']'
		case c == '[':
			inClass = true
		case strings.HasPrefix(p[i:], "(?P<"):
			b.WriteString("(?<")
			i += len("(?P<") - 1
			continue
		case strings.HasPrefix(p[i:], "(?P="):
			if end := strings.IndexByte(p[i:], ')'); end > 0 {
				b.WriteString(`\k<` + p[i+4:i+end] + ">")
				i += end
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

func (r *pyRegex) mayMatch(s string) bool { return r.re2 == nil || r.re2.mayMatch(s) }

func (r *pyRegex) numSubexp() int {
	if r.re2 != nil {
		return r.re2.re.NumSubexp()
	}
	return len(r.bt.GetGroupNumbers()) - 1
}

func (r *pyRegex) subexpIndex(name string) int {
	if r.re2 != nil {
		return r.re2.re.SubexpIndex(name)
	}
	if _, err := strconv.Atoi(name); err == nil {
		return -1 // a group name, never a number
	}
	return r.bt.GroupNumberFromName(name)
}

// subexpNames lists the group names by number ("" for unnamed groups), as regexp does.
func (r *pyRegex) subexpNames() []string {
	if r.re2 != nil {
		return r.re2.re.SubexpNames()
	}
	names := make([]string, r.numSubexp()+1)
	for _, n := range r.bt.GetGroupNumbers() {
		if name := r.bt.GroupNameFromNumber(n); name != strconv.Itoa(n) && n < len(names) {
			names[n] = name
		}
	}
	return names
}

// submatchIndex is regexp's FindStringSubmatchIndex: byte offsets, -1 for groups that did not
// take part.
func (r *pyRegex) submatchIndex(s string) ([]int, error) {
	if r.re2 != nil {
		return r.re2.re.FindStringSubmatchIndex(s), nil
	}
	m, err := r.bt.FindStringMatch(s)
	if err != nil || m == nil {
		return nil, backtrackErr(err)
	}
	return r.indexes(m), nil
}

// allSubmatchIndex is regexp's FindAllStringSubmatchIndex (n < 0: all matches).
func (r *pyRegex) allSubmatchIndex(s string, n int) ([][]int, error) {
	if r.re2 != nil {
		return r.re2.re.FindAllStringSubmatchIndex(s, n), nil
	}
	var out [][]int
	m, err := r.bt.FindStringMatch(s)
	for ; err == nil && m != nil && (n < 0 || len(out) < n); m, err = r.bt.FindNextMatch(m) {
		out = append(out, r.indexes(m))
	}
	return out, backtrackErr(err)
}

func (r *pyRegex) indexes(m *regexp2.Match) []int {
	idx := make([]int, 2*(r.numSubexp()+1))
	for i := range idx {
		idx[i] = -1
	}
	for _, g := range m.Groups() {
		num := r.bt.GroupNumberFromName(g.Name)
		if num < 0 || 2*num+1 >= len(idx) || len(g.Captures) == 0 {
			continue
		}
		start, length := g.ByteRange()
		idx[2*num], idx[2*num+1] = start, start+length
	}
	return idx
}

func backtrackErr(err error) error {
	if err == nil {
		return nil
	}
	if strings.Contains(err.Error(), "timeout") {
		return errBacktrack
	}
	return err
}

// expand writes a replacement template (regexp's syntax: $$, ${1}, ${name}) for one match.
func (r *pyRegex) expand(template, s string, idx []int) []byte {
	if r.re2 != nil {
		return r.re2.re.ExpandString(nil, template, s, idx)
	}
	var out []byte
	for i := 0; i < len(template); i++ {
		if template[i] != '$' || i+1 == len(template) {
			out = append(out, template[i])
			continue
		}
		if template[i+1] == '$' {
			out = append(out, '$')
			i++
			continue
		}
		end := strings.IndexByte(template[i:], '}')
		if template[i+1] != '{' || end < 0 {
			out = append(out, template[i])
			continue
		}
		name := template[i+2 : i+end]
		g, err := strconv.Atoi(name)
		if err != nil {
			g = r.subexpIndex(name)
		}
		if g >= 0 && 2*g+1 < len(idx) && idx[2*g] >= 0 {
			out = append(out, s[idx[2*g]:idx[2*g+1]]...)
		}
		i += end
	}
	return out
}

// compilePyRegex compiles src (Python syntax, flags and mode applied) on RE2, else on the
// backtracking engine. The error is RE2's when neither accepts it and the pattern is valid
// nowhere, the backtracking engine's otherwise.
func compilePyRegex(src string, flags int) (*pyRegex, error) {
	re2src := src
	if prefix := inlineFlags(flags); prefix != "" {
		re2src = "(?" + prefix + ")" + src
	}
	re, err := regexp.Compile(re2src)
	if err == nil {
		return &pyRegex{re2: newPattern(re)}, nil
	}
	bt, btErr := compileBacktracking(src, flags)
	if btErr != nil {
		return nil, fmt.Errorf("%s", regexErrorText(err))
	}
	return &pyRegex{bt: bt}, nil
}

func inlineFlags(flags int) string {
	var prefix string
	if flags&reFlagIgnoreCase != 0 {
		prefix += "i"
	}
	if flags&reFlagMultiline != 0 {
		prefix += "m"
	}
	if flags&reFlagDotAll != 0 {
		prefix += "s"
	}
	return prefix
}
