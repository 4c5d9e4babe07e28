package graders

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/skillgate/skillgate/internal/regex"
)

// The `re` module of Python assertions: search, match, fullmatch, findall, finditer, sub, split,
// compile, escape and the flags I/IGNORECASE, M/MULTILINE, S/DOTALL, A/ASCII, X/VERBOSE and
// U/UNICODE. Patterns are CPython's (internal/regex, Python dialect): \d, \w, \s and \b are
// Unicode's unless re.A is given, whichever engine runs the pattern, and match positions count
// characters, as in CPython.

const (
	reFlagIgnoreCase = 2
	reFlagMultiline  = 8
	reFlagDotAll     = 16
	reFlagUnicode    = 32
	reFlagVerbose    = 64
	reFlagASCII      = 256
)

type reMode int

const (
	reSearch reMode = iota
	reMatchStart
	reFullMatch
)

var reTakesPattern = map[string]bool{
	"search": true, "match": true, "fullmatch": true, "findall": true, "finditer": true,
	"sub": true, "split": true, "compile": true,
}

var reModule = &starlarkstruct.Module{
	Name: "re",
	Members: starlark.StringDict{
		"search":     starlark.NewBuiltin("re.search", reFunc(reSearch, "search")),
		"match":      starlark.NewBuiltin("re.match", reFunc(reMatchStart, "match")),
		"fullmatch":  starlark.NewBuiltin("re.fullmatch", reFunc(reFullMatch, "fullmatch")),
		"findall":    starlark.NewBuiltin("re.findall", reFunc(reSearch, "findall")),
		"finditer":   starlark.NewBuiltin("re.finditer", reFunc(reSearch, "finditer")),
		"sub":        starlark.NewBuiltin("re.sub", reSub),
		"split":      starlark.NewBuiltin("re.split", reSplit),
		"compile":    starlark.NewBuiltin("re.compile", reCompile),
		"escape":     starlark.NewBuiltin("re.escape", reEscape),
		"I":          starlark.MakeInt(reFlagIgnoreCase),
		"IGNORECASE": starlark.MakeInt(reFlagIgnoreCase),
		"M":          starlark.MakeInt(reFlagMultiline),
		"MULTILINE":  starlark.MakeInt(reFlagMultiline),
		"S":          starlark.MakeInt(reFlagDotAll),
		"DOTALL":     starlark.MakeInt(reFlagDotAll),
		"A":          starlark.MakeInt(reFlagASCII),
		"ASCII":      starlark.MakeInt(reFlagASCII),
		"X":          starlark.MakeInt(reFlagVerbose),
		"VERBOSE":    starlark.MakeInt(reFlagVerbose),
		"U":          starlark.MakeInt(reFlagUnicode),
		"UNICODE":    starlark.MakeInt(reFlagUnicode),
	},
}

// compileRE compiles a pattern of the re module; the layer caches compiled patterns.
func compileRE(source string, flags int, mode reMode) (*regex.Regexp, error) {
	var f regex.Flags
	for bit, fl := range map[int]regex.Flags{reFlagIgnoreCase: regex.IgnoreCase, reFlagMultiline: regex.Multiline,
		reFlagDotAll: regex.DotAll, reFlagASCII: regex.ASCII, reFlagVerbose: regex.Verbose} {
		if flags&bit != 0 {
			f |= fl
		}
	}
	switch mode {
	case reMatchStart:
		f |= regex.MatchStart
	case reFullMatch:
		f |= regex.MatchFull
	}
	return regex.Compile(source, regex.Python, f)
}

// patternArg accepts a pattern string or a compiled pattern object.
func patternArg(fn string, v starlark.Value, flags int, mode reMode) (*regex.Regexp, error) {
	switch p := v.(type) {
	case starlark.String:
		re, err := compileRE(string(p), flags, mode)
		if err != nil {
			return nil, fmt.Errorf("%s: invalid regular expression %q: %s", fn, string(p), regexErrorText(err))
		}
		return re, nil
	case *rePattern:
		return compileRE(p.pattern, p.flags|flags, mode)
	}
	return nil, fmt.Errorf("%s: pattern must be a string, not %s", fn, v.Type())
}

func reFunc(mode reMode, name string) func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
	return func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var pattern starlark.Value
		var s string
		var flags int
		if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "string", &s, "flags?", &flags); err != nil {
			return nil, err
		}
		re, err := patternArg(b.Name(), pattern, flags, mode)
		if err != nil {
			return nil, err
		}
		return reApply(name, re, s)
	}
}

func reApply(name string, re *regex.Regexp, s string) (starlark.Value, error) {
	switch name {
	case "findall":
		return reFindall(re, s)
	case "finditer":
		all, err := findAllIndex(re, s, -1, "re.finditer")
		if err != nil {
			return nil, err
		}
		out := make([]starlark.Value, len(all))
		for i, idx := range all {
			out[i] = &reMatch{re: re, s: s, idx: idx}
		}
		return starlark.NewList(out), nil
	}
	idx, err := re.FindStringSubmatchIndex(s)
	if err != nil {
		return nil, fmt.Errorf("re.%s: %w", name, err)
	}
	if idx == nil {
		return starlark.None, nil
	}
	return &reMatch{re: re, s: s, idx: idx}, nil
}

// reMatchBytes approximates the memory of one match in a match list (indexes, a match object
// or a string value); the number of matches is capped so the list stays within the memory
// budget of an assertion.
const reMatchBytes = 128

// findAllIndex is allSubmatchIndex with the match count capped by the memory budget.
func findAllIndex(re *regex.Regexp, s string, n int, fn string) ([][]int, error) {
	limit := int(codeMemoryBudget / reMatchBytes)
	if n < 0 || n > limit {
		n = limit + 1
	}
	all, err := re.FindAllStringSubmatchIndex(s, n)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", fn, err)
	}
	if len(all) > limit {
		return nil, &errMemoryLimit{what: fn + "'s list of more than " + strconv.Itoa(limit) + " matches", size: mulSat(int64(len(all)), reMatchBytes)}
	}
	return all, nil
}

// reFindall follows Python: whole matches without groups, the group with one, tuples with more.
func reFindall(re *regex.Regexp, s string) (starlark.Value, error) {
	all, err := findAllIndex(re, s, -1, "re.findall")
	if err != nil {
		return nil, err
	}
	out := make([]starlark.Value, len(all))
	groups := re.NumSubexp()
	text := func(idx []int, g int) string {
		if idx[2*g] < 0 {
			return ""
		}
		return s[idx[2*g]:idx[2*g+1]]
	}
	for i, idx := range all {
		switch groups {
		case 0:
			out[i] = starlark.String(text(idx, 0))
		case 1:
			out[i] = starlark.String(text(idx, 1))
		default:
			t := make(starlark.Tuple, groups)
			for g := 1; g <= groups; g++ {
				t[g-1] = starlark.String(text(idx, g))
			}
			out[i] = t
		}
	}
	return starlark.NewList(out), nil
}

func reSub(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pattern, repl starlark.Value
	var s string
	var count, flags int
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "repl", &repl, "string", &s, "count?", &count, "flags?", &flags); err != nil {
		return nil, err
	}
	re, err := patternArg(b.Name(), pattern, flags, reSearch)
	if err != nil {
		return nil, err
	}
	return substitute(thread, b.Name(), re, repl, s, count)
}

func substitute(thread *starlark.Thread, fn string, re *regex.Regexp, repl starlark.Value, s string, count int) (starlark.Value, error) {
	n := -1
	if count > 0 {
		n = count
	}
	var template string
	callable, isFunc := repl.(starlark.Callable)
	if !isFunc {
		r, ok := repl.(starlark.String)
		if !ok {
			return nil, fmt.Errorf("%s: repl must be a string or a function, not %s", fn, repl.Type())
		}
		template = pythonReplTemplate(string(r))
	}
	var out strings.Builder
	last := 0
	all, err := findAllIndex(re, s, n, fn)
	if err != nil {
		return nil, err
	}
	if size := int64(len(s)) + mulSat(int64(len(all)), int64(len(template))); !isFunc && size > codeMemoryBudget {
		return nil, &errMemoryLimit{what: fn + "'s result", size: size}
	}
	for _, idx := range all {
		if int64(out.Len()) > codeMemoryBudget {
			return nil, &errMemoryLimit{what: fn + "'s result", size: int64(out.Len())}
		}
		out.WriteString(s[last:idx[0]])
		if isFunc {
			v, err := starlark.Call(thread, callable, starlark.Tuple{&reMatch{re: re, s: s, idx: idx}}, nil)
			if err != nil {
				return nil, err
			}
			str, ok := v.(starlark.String)
			if !ok {
				return nil, fmt.Errorf("%s: the replacement function returned %s, not a string", fn, v.Type())
			}
			out.WriteString(string(str))
		} else {
			out.Write(expand(re, template, s, idx))
		}
		last = idx[1]
	}
	out.WriteString(s[last:])
	return starlark.String(out.String()), nil
}

// pythonReplTemplate turns a Python replacement (\1, \g<name>, \n) into Go's Expand template.
func pythonReplTemplate(r string) string {
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		c := r[i]
		if c == '$' {
			b.WriteString("$$")
			continue
		}
		if c != '\\' || i+1 == len(r) {
			b.WriteByte(c)
			continue
		}
		next := r[i+1]
		switch {
		case next >= '0' && next <= '9':
			j := i + 1
			for j < len(r) && j < i+3 && r[j] >= '0' && r[j] <= '9' {
				j++
			}
			b.WriteString("${" + r[i+1:j] + "}")
			i = j - 1
		case next == 'g' && i+2 < len(r) && r[i+2] == '<':
			end := strings.IndexByte(r[i+3:], '>')
			if end < 0 {
				b.WriteString(r[i:])
				return b.String()
			}
			b.WriteString("${" + r[i+3:i+3+end] + "}")
			i = i + 3 + end
		case next == 'n':
			b.WriteByte('\n')
			i++
		case next == 't':
			b.WriteByte('\t')
			i++
		case next == 'r':
			b.WriteByte('\r')
			i++
		case next == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func reSplit(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pattern starlark.Value
	var s string
	var maxsplit, flags int
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "string", &s, "maxsplit?", &maxsplit, "flags?", &flags); err != nil {
		return nil, err
	}
	re, err := patternArg(b.Name(), pattern, flags, reSearch)
	if err != nil {
		return nil, err
	}
	return split(re, s, maxsplit)
}

// split follows Python: captured groups are kept between the pieces.
func split(re *regex.Regexp, s string, maxsplit int) (starlark.Value, error) {
	n := -1
	if maxsplit > 0 {
		n = maxsplit
	}
	var out []starlark.Value
	last := 0
	all, err := findAllIndex(re, s, n, "re.split")
	if err != nil {
		return nil, err
	}
	for _, idx := range all {
		out = append(out, starlark.String(s[last:idx[0]]))
		for g := 1; 2*g < len(idx); g++ {
			if idx[2*g] < 0 {
				out = append(out, starlark.None)
			} else {
				out = append(out, starlark.String(s[idx[2*g]:idx[2*g+1]]))
			}
		}
		last = idx[1]
	}
	out = append(out, starlark.String(s[last:]))
	return starlark.NewList(out), nil
}

func reCompile(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var pattern string
	var flags int
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "pattern", &pattern, "flags?", &flags); err != nil {
		return nil, err
	}
	if _, err := compileRE(pattern, flags, reSearch); err != nil {
		return nil, fmt.Errorf("re.compile: invalid regular expression %q: %s", pattern, regexErrorText(err))
	}
	return &rePattern{pattern: pattern, flags: flags}, nil
}

func reEscape(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &s); err != nil {
		return nil, err
	}
	return starlark.String(pyEscape(s)), nil
}

// pyEscape is CPython's re.escape: a backslash before each character special in a pattern.
func pyEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("()[]{}?*+-|^$\\.&~# \t\n\r\v\f", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// expand writes a replacement template (regexp's syntax: $$, ${1}, ${name}) for one match.
func expand(re *regex.Regexp, template, s string, idx []int) []byte {
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
			g = re.SubexpIndex(name)
		}
		if g >= 0 && 2*g+1 < len(idx) && idx[2*g] >= 0 {
			out = append(out, s[idx[2*g]:idx[2*g+1]]...)
		}
		i += end
	}
	return out
}

// rePattern is a compiled pattern (re.compile): its methods take the string only.
type rePattern struct {
	pattern string
	flags   int
}

func (p *rePattern) String() string        { return fmt.Sprintf("re.compile(%q)", p.pattern) }
func (p *rePattern) Type() string          { return "re.Pattern" }
func (p *rePattern) Freeze()               {}
func (p *rePattern) Truth() starlark.Bool  { return starlark.True }
func (p *rePattern) Hash() (uint32, error) { return starlark.String(p.pattern).Hash() }
func (p *rePattern) AttrNames() []string {
	return []string{"findall", "finditer", "flags", "fullmatch", "match", "pattern", "search", "split", "sub"}
}

func (p *rePattern) Attr(name string) (starlark.Value, error) {
	switch name {
	case "pattern":
		return starlark.String(p.pattern), nil
	case "flags":
		return starlark.MakeInt(p.flags), nil
	case "search", "findall", "finditer":
		return p.method(name, reSearch), nil
	case "match":
		return p.method(name, reMatchStart), nil
	case "fullmatch":
		return p.method(name, reFullMatch), nil
	case "sub":
		return starlark.NewBuiltin("sub", func(thread *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var repl starlark.Value
			var s string
			var count int
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "repl", &repl, "string", &s, "count?", &count); err != nil {
				return nil, err
			}
			re, err := compileRE(p.pattern, p.flags, reSearch)
			if err != nil {
				return nil, err
			}
			return substitute(thread, b.Name(), re, repl, s, count)
		}).BindReceiver(p), nil
	case "split":
		return starlark.NewBuiltin("split", func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
			var s string
			var maxsplit int
			if err := starlark.UnpackArgs(b.Name(), args, kwargs, "string", &s, "maxsplit?", &maxsplit); err != nil {
				return nil, err
			}
			re, err := compileRE(p.pattern, p.flags, reSearch)
			if err != nil {
				return nil, err
			}
			return split(re, s, maxsplit)
		}).BindReceiver(p), nil
	}
	return nil, nil
}

func (p *rePattern) method(name string, mode reMode) *starlark.Builtin {
	return starlark.NewBuiltin(name, func(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		var s string
		if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &s); err != nil {
			return nil, err
		}
		re, err := compileRE(p.pattern, p.flags, mode)
		if err != nil {
			return nil, err
		}
		return reApply(name, re, s)
	}).BindReceiver(p)
}

// reMatch is a match object: group(), groups(), groupdict(), start(), end(), span().
type reMatch struct {
	re  *regex.Regexp
	s   string
	idx []int // byte offsets
}

// pos is a byte offset as CPython counts positions: in characters.
func (m *reMatch) pos(off int) int {
	if off < 0 {
		return off
	}
	return utf8.RuneCountInString(m.s[:off])
}

func (m *reMatch) String() string {
	return fmt.Sprintf("<re.Match object; span=(%d, %d), match=%q>", m.pos(m.idx[0]), m.pos(m.idx[1]), m.s[m.idx[0]:m.idx[1]])
}
func (m *reMatch) Type() string          { return "re.Match" }
func (m *reMatch) Freeze()               {}
func (m *reMatch) Truth() starlark.Bool  { return starlark.True }
func (m *reMatch) Hash() (uint32, error) { return 0, fmt.Errorf("unhashable type: re.Match") }
func (m *reMatch) AttrNames() []string {
	return []string{"end", "group", "groupdict", "groups", "span", "start", "string"}
}

func (m *reMatch) Attr(name string) (starlark.Value, error) {
	switch name {
	case "string":
		return starlark.String(m.s), nil
	case "group":
		return starlark.NewBuiltin("group", m.group).BindReceiver(m), nil
	case "groups":
		return starlark.NewBuiltin("groups", m.groups).BindReceiver(m), nil
	case "groupdict":
		return starlark.NewBuiltin("groupdict", m.groupdict).BindReceiver(m), nil
	case "start", "end", "span":
		return starlark.NewBuiltin(name, m.position).BindReceiver(m), nil
	}
	return nil, nil
}

// groupIndex resolves a group number or name.
func (m *reMatch) groupIndex(v starlark.Value) (int, error) {
	switch g := v.(type) {
	case starlark.String:
		i := m.re.SubexpIndex(string(g))
		if i < 0 {
			return 0, fmt.Errorf("no such group: %q", string(g))
		}
		return i, nil
	case starlark.Int:
		i, ok := g.Int64()
		if !ok || i < 0 || int(i) > m.re.NumSubexp() {
			return 0, fmt.Errorf("no such group: %s", g)
		}
		return int(i), nil
	}
	return 0, fmt.Errorf("group must be an int or a string, not %s", v.Type())
}

func (m *reMatch) text(i int, dflt starlark.Value) starlark.Value {
	if m.idx[2*i] < 0 {
		return dflt
	}
	return starlark.String(m.s[m.idx[2*i]:m.idx[2*i+1]])
}

func (m *reMatch) group(_ *starlark.Thread, _ *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("group: unexpected keyword arguments")
	}
	if len(args) == 0 {
		return m.text(0, starlark.None), nil
	}
	out := make(starlark.Tuple, len(args))
	for i, a := range args {
		g, err := m.groupIndex(a)
		if err != nil {
			return nil, fmt.Errorf("group: %w", err)
		}
		out[i] = m.text(g, starlark.None)
	}
	if len(out) == 1 {
		return out[0], nil
	}
	return out, nil
}

func (m *reMatch) groups(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var dflt starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "default?", &dflt); err != nil {
		return nil, err
	}
	out := make(starlark.Tuple, m.re.NumSubexp())
	for i := range out {
		out[i] = m.text(i+1, dflt)
	}
	return out, nil
}

func (m *reMatch) groupdict(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var dflt starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "default?", &dflt); err != nil {
		return nil, err
	}
	d := starlark.NewDict(0)
	for i, name := range m.re.SubexpNames() {
		if name != "" {
			_ = d.SetKey(starlark.String(name), m.text(i, dflt))
		}
	}
	return d, nil
}

func (m *reMatch) position(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var gv starlark.Value = starlark.MakeInt(0)
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "group?", &gv); err != nil {
		return nil, err
	}
	g, err := m.groupIndex(gv)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	start, end := m.pos(m.idx[2*g]), m.pos(m.idx[2*g+1])
	switch b.Name() {
	case "start":
		return starlark.MakeInt(start), nil
	case "end":
		return starlark.MakeInt(end), nil
	}
	return starlark.Tuple{starlark.MakeInt(start), starlark.MakeInt(end)}, nil
}
