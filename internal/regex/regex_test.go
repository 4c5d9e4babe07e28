package regex

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// btFind runs the backtracking engine on s, whatever Compile chose.
func btFind(t testing.TB, re *Regexp, s string) []int {
	t.Helper()
	bt, err := re.backtracking()
	if err != nil {
		t.Fatalf("%q: backtracking program: %v (%s)", re.source, err, re.btSrc)
	}
	m, offs, err := btFirst(bt, s)
	if err != nil {
		t.Fatalf("%q on %q: %v", re.source, s, err)
	}
	if m == nil {
		return nil
	}
	return re.indexes(m, offs)
}

var sampleTexts = []string{
	"", "hello world", "naïve café", "Ωμέγα σς ΣΊΣΥΦΟΣ", "İstanbul ıi", "Kelvin \u212a k", "straße ſ",
	"東京 2024 ٣", "a\r\nb\r\n", "line\u2028sep", "ends\n", "x_y-z", "emoji 😀 ok", "tab\tand\u00a0nbsp",
}

// The two engines give the same matches for every pattern RE2 can run: the sets are explicit,
// so the engine does not change what \w, \s, `.` or case-insensitivity mean.
func TestEnginesAgree(t *testing.T) {
	for _, c := range []struct {
		d       Dialect
		f       Flags
		pattern string
	}{
		{Python, 0, `\w+`}, {Python, 0, `\d+`}, {Python, 0, `\s+`}, {Python, 0, `\b\w+\b`}, {Python, 0, `\B\w+`},
		{Python, 0, `\w+$`}, {Python, Multiline, `^\w+$`}, {Python, IgnoreCase, `[a-zα-ω]+`}, {Python, IgnoreCase, `k|s|i`},
		{Python, ASCII, `\w+`}, {Python, DotAll, `.+`}, {Python, 0, `(\w+) (\w+)`}, {Python, 0, `x*`},
		{JavaScript, 0, `\w+`}, {JavaScript, 0, `\s+`}, {JavaScript, 0, `\b\w+\b`}, {JavaScript, 0, `.+`},
		{JavaScript, Multiline, `^\w+$`}, {JavaScript, IgnoreCase, `straße|k|s|σ`}, {JavaScript, IgnoreCase, `[^a-z]+`},
		{JavaScript, DotAll | IgnoreCase, `.+`}, {JavaScript, 0, `[^]+`},
	} {
		re := MustCompile(c.pattern, c.d, c.f)
		if re.re2 == nil {
			t.Fatalf("%s %q: expected an RE2 program", c.d, c.pattern)
		}
		for _, s := range sampleTexts {
			got, _ := re.FindStringSubmatchIndex(s)
			if want := btFind(t, re, s); !slices.Equal(got, want) {
				t.Errorf("%s %q on %q: %v; backtracking engine %v", c.d, c.pattern, s, got, want)
			}
		}
	}
}

// Adding a lookahead moves a pattern to the backtracking engine and changes nothing else.
func TestLookaheadDoesNotChangeClasses(t *testing.T) {
	for _, c := range []struct {
		d           Dialect
		f           Flags
		plain, look string
	}{
		{Python, 0, `\w+`, `(?=\w)\w+`},
		{Python, 0, `\d+`, `(?=\d)\d+`},
		{Python, 0, `\s+\w`, `(?=\s)\s+\w`},
		{Python, IgnoreCase, `straße`, `(?=.)straße`},
		{JavaScript, 0, `\w+`, `(?=\w)\w+`},
		{JavaScript, 0, `\s+`, `(?=\s)\s+`},
		{JavaScript, IgnoreCase, `[a-z]+`, `(?=[a-z])[a-z]+`},
	} {
		plain, look := MustCompile(c.plain, c.d, c.f), MustCompile(c.look, c.d, c.f)
		if plain.Backtracking() || !look.Backtracking() {
			t.Fatalf("%s: engines %v %v", c.plain, plain.Backtracking(), look.Backtracking())
		}
		for _, s := range sampleTexts {
			a, _ := plain.FindStringSubmatchIndex(s)
			b, _ := look.FindStringSubmatchIndex(s)
			if !slices.Equal(a, b) {
				t.Errorf("%s %q vs %q on %q: %v vs %v", c.d, c.plain, c.look, s, a, b)
			}
		}
	}
}

// Assertions RE2 writes exactly only on some texts send the other texts to the backtracking
// engine.
func TestInexactTextsBacktrack(t *testing.T) {
	for _, c := range []struct {
		d           Dialect
		f           Flags
		pattern     string
		exact, not_ string
	}{
		{Python, 0, `b$`, "ab", "ab\n"},
		{Python, 0, `\bé`, "x e", "xé"},
		{Python, 0, `\B`, "ab", ""},
		{JavaScript, Multiline, `a$`, "a\nb", "a\r\nb"},
		{JavaScript, Multiline, `^b`, "a\nb", "a\u2028b"},
	} {
		re := MustCompile(c.pattern, c.d, c.f)
		if !re.exactOn(c.exact) || re.exactOn(c.not_) {
			t.Errorf("%s %q: exact on %q %v, on %q %v", c.d, c.pattern, c.exact, re.exactOn(c.exact), c.not_, re.exactOn(c.not_))
		}
	}
	// And the answers are the dialect's.
	for _, c := range []struct {
		d       Dialect
		f       Flags
		pattern string
		text    string
		want    bool
	}{
		{Python, 0, `b$`, "ab\n", true}, {Python, 0, `b\Z`, "ab\n", false}, {Python, 0, `\bé`, "xé", false},
		{Python, 0, `\bé`, "x é", true}, {JavaScript, Multiline, `a$`, "a\r\nb", true}, {JavaScript, 0, `a$`, "a\n", false},
		{JavaScript, Multiline, `^b`, "a\u2028b", true}, {Python, Multiline, `a$`, "a\r\nb", false},
	} {
		if got, _ := MustCompile(c.pattern, c.d, c.f).MatchString(c.text); got != c.want {
			t.Errorf("%s %q on %q: %v, want %v", c.d, c.pattern, c.text, got, c.want)
		}
	}
}

func TestRE2DialectIsGo(t *testing.T) {
	re := MustCompile(`^\w+$`, RE2, IgnoreCase)
	if ok, _ := re.MatchString("café"); ok {
		t.Error(`Go's \w is ASCII`)
	}
	if ok, _ := MustCompile(`É`, RE2, IgnoreCase).MatchString("é"); !ok {
		t.Error("(?i) from the flag")
	}
	if _, err := Compile(`(?=a)`, RE2, 0); err == nil || !strings.Contains(err.Error(), "invalid or unsupported Perl syntax") {
		t.Errorf("lookahead in RE2: %v", err)
	}
	if re.Backtracking() {
		t.Error("the RE2 dialect never backtracks")
	}
}

func TestCompileIsCached(t *testing.T) {
	a := MustCompile(`(?=x)\w`, Python, 0)
	if b := MustCompile(`(?=x)\w`, Python, 0); a != b {
		t.Error("same pattern, dialect and flags: one compiled pattern")
	}
	if b := MustCompile(`(?=x)\w`, JavaScript, 0); a == b {
		t.Error("dialects share a compiled pattern")
	}
	if b := MustCompile(`(?=x)\w`, Python, IgnoreCase); a == b {
		t.Error("flags share a compiled pattern")
	}
	for range 2 {
		if _, err := Compile(`a(`, Python, 0); err == nil {
			t.Fatal("an invalid pattern fails every time")
		}
	}
}

func TestCatastrophicBacktrackingTimesOut(t *testing.T) {
	defer func(d time.Duration) { timeout = d }(timeout)
	timeout = 50 * time.Millisecond
	re := MustCompile(`^(a+)+(?=b)`, Python, 0)
	_, err := re.MatchString(strings.Repeat("a", 40) + "c")
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("got %v, want ErrTimeout", err)
	}
}

func TestTextsAreUTF8(t *testing.T) {
	// A JavaScript class of lone surrogates matches half of an astral character in a UTF-16
	// string; a UTF-8 text has no halves, so here it matches nothing.
	re := MustCompile(`[\uD800-\uDBFF]`, JavaScript, 0)
	if ok, _ := re.MatchString("😀"); ok {
		t.Error("a surrogate class matched")
	}
	// A surrogate pair written as escapes is the astral character.
	if ok, _ := MustCompile(`\uD83D\uDE00`, JavaScript, 0).MatchString("😀"); !ok {
		t.Error(`\uD83D\uDE00 is 😀`)
	}
}

func TestGroupNames(t *testing.T) {
	py := MustCompile(`(?P<year>\d+)-(\d+)-(?P<day>\d+)`, Python, 0)
	js := MustCompile(`(?<year>\d+)-(\d+)-(?<day>\d+)(?=$)`, JavaScript, 0)
	for _, re := range []*Regexp{py, js} {
		if got := re.SubexpNames(); !slices.Equal(got, []string{"", "year", "", "day"}) || re.NumSubexp() != 3 || re.SubexpIndex("day") != 3 || re.SubexpIndex("x") != -1 {
			t.Errorf("%s: names %q", re.Dialect(), got)
		}
		idx, _ := re.FindStringSubmatchIndex("on 2024-05-17")
		if s := "on 2024-05-17"; idx == nil || s[idx[6]:idx[7]] != "17" {
			t.Errorf("%s: %v", re.Dialect(), idx)
		}
	}
}

// FuzzEnginesAgree: wherever RE2 runs a pattern, the backtracking engine given the same
// pattern finds the same match.
func FuzzEnginesAgree(f *testing.F) {
	for _, s := range []struct{ p, text string }{
		{`\w+`, "naïve café"}, {`(?i)straße|k`, "STRASSE \u212a"}, {`\b\w+\b`, "a é"}, {`^\w+$`, "a\r\nb"},
		{`(a|ab)(c|bcd)(d*)`, "abcd"}, {`[^\W\d]+`, "x٣y"}, {`x*`, "axxb"}, {`.{2,3}?`, "abcdef"},
		{`a(?i:b(?-i:c))`, "aBc aBC"}, {`(?m-s:^.$)`, "a\nb"},
	} {
		f.Add(s.p, s.text, uint8(0), uint8(0))
		f.Add(s.p, s.text, uint8(1), uint8(1))
	}
	f.Fuzz(func(t *testing.T, pattern, text string, dialect, flags uint8) {
		d := []Dialect{Python, JavaScript}[dialect%2]
		fl := Flags(flags) & (IgnoreCase | Multiline | DotAll | ASCII)
		if d == JavaScript {
			fl &^= ASCII
		}
		re, err := Compile(pattern, d, fl)
		if err != nil || re.re2 == nil || !re.exactOn(text) {
			return
		}
		bt, err := regexp2.Compile(emitBacktracking(re.tree), regexp2.None)
		if err != nil {
			t.Fatalf("%s %q: backtracking program %q: %v", d, pattern, emitBacktracking(re.tree), err)
		}
		bt.MatchTimeout = time.Second
		m, offs, err := btFirst(bt, text)
		if err != nil {
			return // too slow to decide
		}
		var want []int
		if m != nil {
			want = re.indexes(m, offs)
		}
		if got := re.re2.FindStringSubmatchIndex(text); !slices.Equal(got, want) {
			t.Errorf("%s %q (flags %d) on %q: RE2 %v, backtracking %v", d, pattern, fl, text, got, want)
		}
	})
}

// FuzzCompile: no pattern makes the parsers or emitters panic, and what compiles can match.
func FuzzCompile(f *testing.F) {
	for _, p := range []string{`(?P<a>x)(?P=a)`, `(?<=ab)c`, `[\d-z]`, `a{,3}`, `(?x) a # b`, `\k<x>(?<x>a)`, `[\c_]`, `(?(1)a|b)`, `\N{DASH}`, `(?i-m:a(?s:.))`, `(?-:a)`} {
		f.Add(p, uint8(0))
		f.Add(p, uint8(1))
	}
	f.Fuzz(func(t *testing.T, pattern string, which uint8) {
		d := []Dialect{Python, JavaScript, RE2}[which%3]
		re, err := Compile(pattern, d, Flags(which>>2)&(IgnoreCase|Multiline|DotAll))
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%s %q: error %T", d, pattern, err)
			}
			return
		}
		_, _ = re.FindAllStringSubmatchIndex("abc ABC 123 é\n", 10)
	})
}

// hvePatterns are case-insensitive JavaScript patterns of the kind microsoft/hve-core's Vally
// spec writes (cmd/skillgate/testdata/vally/microsoft__hve-core).
var hvePatterns = []string{
	`(SKILL_FINDINGS_V1|success criterion|success criteria|structured findings)`,
	`(created|wrote|modified|edited|patched|added)\s+\S{0,40}(\.cs|\.py|\.ts|\.js|package\.json)`,
	`name\s*(is|:)\s*.{0,3}ado-backlog-executor`,
	`(appears in|select(able)? from|choose it in) the (agent )?picker`,
}

// BenchmarkCompileIgnoreCaseJS: the layer against regexp2's own IgnoreCase, which builds
// case-insensitive classes for `.` and \S character by character.
func BenchmarkCompileIgnoreCaseJS(b *testing.B) {
	b.Run("layer", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, p := range hvePatterns {
				if _, err := compile(p, JavaScript, IgnoreCase); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("regexp2-ignorecase", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			for _, p := range hvePatterns {
				if _, err := regexp2.Compile(p, regexp2.ECMAScript|regexp2.IgnoreCase); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

func BenchmarkCompilePython(b *testing.B) {
	for _, p := range []string{`\w+`, `(?P<n>\d+)\s*files?`, `(?i)error|failed|exception`, `(?<=\s)\w+(?=\s)`} {
		b.Run(p, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := compile(p, Python, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkMatch(b *testing.B) {
	text := strings.Repeat("The agent edited src/main.py and reported no errors. ", 200)
	for _, c := range []struct {
		name, pattern string
		d             Dialect
		f             Flags
	}{
		{"js-i", hvePatterns[1], JavaScript, IgnoreCase},
		{"js-lookahead", `(?=.*main)edited\s+\S+`, JavaScript, 0},
		{"python-word", `\b\w+\.py\b`, Python, 0},
		{"re2-i", `(?i)error|failed|exception`, RE2, 0},
	} {
		re := MustCompile(c.pattern, c.d, c.f)
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for i := 0; i < b.N; i++ {
				if _, err := re.MatchString(text); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A chain of lookaheads over the whole text is searched part by part for a yes/no answer, with
// the verdicts of the pattern as written; Find* use the pattern as written.
func TestConjunctionsSplit(t *testing.T) {
	texts := []string{"", "a b", "b then a", "only a", "a\nb", "xyz", "b"}
	for _, c := range []struct {
		pattern string
		f       Flags
		split   bool
	}{
		{`(?=.*a)(?=.*b)`, DotAll, true},
		{`^(?=[\s\S]*a)(?=[\s\S]*b)[^]`, 0, true},
		{`(?=.*\ba\b)(?=.*b)..|xyz`, DotAll, true},
		{`(?=.*a)(?=.*b)`, 0, false},          // `.` stops at a newline: not every character
		{`(?=.*(a)\1)(?=.*b)`, DotAll, false}, // a backreference ties the parts
		{`(?=.*a|b)`, DotAll, false},          // the second branch is anchored where it is
	} {
		re := MustCompile(c.pattern, JavaScript, c.f)
		if (re.conj != nil) != c.split {
			t.Fatalf("%q: split %v, want %v", c.pattern, re.conj != nil, c.split)
		}
		for _, s := range texts {
			got, err := re.MatchString(s)
			want := btFind(t, re, s) != nil
			if err != nil || got != want {
				t.Errorf("%q on %q: %v %v; as written %v", c.pattern, s, got, err, want)
			}
		}
	}
}
