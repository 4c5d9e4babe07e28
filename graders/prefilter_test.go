package graders

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
)

func TestPrefilterLiterals(t *testing.T) {
	cases := []struct {
		re   string
		want []string // "" for no prefilter; folded literals shown with a leading ~
	}{
		{"(?i)error|failed|exception", []string{"~error", "~failed", "~exception"}},
		{"permission denied", []string{"permission denied"}},
		{`def \w+\(.*\):`, []string{"def "}},
		{`(?i)fatal error|crashed`, []string{"~fatal error", "~crashed"}},
		{`\d+ files`, []string{" files"}},
		{`(ab)+c?`, []string{"ab"}},
		{`x*`, nil},
		{`a|b*`, nil},
		{`^[A-Z]`, nil},
		{`(?i)straße`, nil}, // non-ASCII folding is left to the regexp
	}
	for _, c := range cases {
		p := newPattern(regexp.MustCompile(c.re))
		var got []string
		if p.pf != nil {
			for _, l := range p.pf.lits {
				if l.fold {
					got = append(got, "~"+l.s)
				} else {
					got = append(got, l.s)
				}
			}
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s: got %q, want %q", c.re, got, c.want)
		}
	}
}

// Only two non-ASCII characters fold to ASCII letters; mayMatch special-cases exactly those.
func TestFoldOrbitsOfASCIILetters(t *testing.T) {
	var found []rune
	for c := 'a'; c <= 'z'; c++ {
		for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
			if r >= 0x80 {
				found = append(found, r)
			}
		}
	}
	if string(found) != "\u212a\u017f" {
		t.Fatalf("non-ASCII fold partners of ASCII letters: %q", string(found))
	}
}

func TestPrefilterAgreesWithRegexp(t *testing.T) {
	texts := []string{"", "an Error occurred", "ERROR", "no problems", "Kelvin \u212aey", "mi\u017fs", "it FAILED",
		"exceptional", "def f(x):", "3 files", "x\xff\xfey", "a\nb"}
	patterns := []string{"(?i)error|failed|exception", "(?i)key", "(?i)miss", "def \\w+\\(.*\\):", "\\d+ files", "(?i)^b", "(?m)^b$", "\ufffd", "(?i)E"}
	for _, pat := range patterns {
		re := regexp.MustCompile(pat)
		p := newPattern(re)
		for _, s := range texts {
			if p.MatchString(s) != re.MatchString(s) || p.Match([]byte(s)) != re.MatchString(s) {
				t.Errorf("%q on %q: prefiltered %v, regexp %v", pat, s, p.MatchString(s), re.MatchString(s))
			}
		}
	}
}

func FuzzPrefilter(f *testing.F) {
	f.Add("(?i)error|failed", "an ERROR")
	f.Add("(?i)k", "\u212a")
	f.Add("(?i)s+", "\u017f")
	f.Add("a(b|c)+d", "xxabcbd")
	f.Add("\ufffd", "\xff")
	f.Fuzz(func(t *testing.T, pat, s string) {
		re, err := regexp.Compile(pat)
		if err != nil {
			return
		}
		if got, want := newPattern(re).MatchString(s), re.MatchString(s); got != want {
			t.Errorf("%q on %q: prefiltered %v, regexp %v", pat, s, got, want)
		}
	})
}

func TestContainsFoldASCII(t *testing.T) {
	for _, c := range []struct {
		s, sub string
		want   bool
	}{
		{"Hello World", "world", true}, {"hello", "hello", true}, {"HELLO", "hellO", false}, // sub must be lower-case
		{"eeeeeeeE", "ex", false}, {"aXb", "xb", true}, {"", "a", false}, {"abc", "", true}, {"1-2", "-2", true},
	} {
		if got := containsFoldASCII(c.s, strings.ToLower(c.sub)); got != (c.want || strings.Contains(strings.ToLower(c.s), strings.ToLower(c.sub))) {
			t.Errorf("%q %q: %v", c.s, c.sub, got)
		}
	}
}
