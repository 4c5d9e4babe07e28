package regex

import (
	"regexp"
	"strings"
	"testing"
	"unicode"
)

func prefilterOf(t *testing.T, pattern string, d Dialect, f Flags) *prefilter {
	t.Helper()
	re, err := Compile(pattern, d, f)
	if err != nil {
		t.Fatal(err)
	}
	return re.pf
}

func TestPrefilterLiterals(t *testing.T) {
	cases := []struct {
		re    string
		d     Dialect
		flags Flags
		want  []string // folded literals shown with a leading ~, extras after a /
	}{
		{"(?i)error|failed|exception", RE2, 0, []string{"~error", "~failed", "~exception"}},
		{"permission denied", RE2, 0, []string{"permission denied"}},
		{`def \w+\(.*\):`, RE2, 0, []string{"def "}},
		{`(?i)fatal error|crashed`, RE2, 0, []string{"~fatal error", "~crashed/\u017f"}},
		{`\d+ files`, RE2, 0, []string{" files"}},
		{`(ab)+c?`, RE2, 0, []string{"ab"}},
		{`x*`, RE2, 0, nil},
		{`a|b*`, RE2, 0, nil},
		{`^[A-Z]`, RE2, 0, nil},
		{`(?i)straße`, RE2, 0, nil}, // non-ASCII folding is left to the regexp
		{`(?i)task`, RE2, 0, []string{"~task/\u017f\u212a"}},
		// Case-insensitive JavaScript and Python patterns become explicit classes; runs of them
		// are still one literal.
		{`task done`, JavaScript, IgnoreCase, []string{"~task done"}},
		{`Skill|Workflow`, JavaScript, IgnoreCase, []string{"~skill", "~workflow"}},
		{`(ADO|Jira) backlog`, JavaScript, IgnoreCase, []string{"~ backlog"}},
		{`skill`, Python, IgnoreCase, []string{"~skill/\u017f\u212a\u0130\u0131"}},
		{`\w+ files`, Python, 0, []string{" files"}},
		{`(?=a)b`, JavaScript, 0, nil}, // backtracking only
	}
	for _, c := range cases {
		p := prefilterOf(t, c.re, c.d, c.flags)
		var got []string
		if p != nil {
			for _, l := range p.lits {
				s := l.s
				if l.fold {
					s = "~" + s
				}
				if l.extras != "" {
					s += "/" + sortedRunes(l.extras)
				}
				got = append(got, s)
			}
		}
		for i, w := range c.want {
			if j := strings.IndexByte(w, '/'); j >= 0 {
				c.want[i] = w[:j+1] + sortedRunes(w[j+1:])
			}
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s %q: got %q, want %q", c.d, c.re, got, c.want)
		}
	}
}

func sortedRunes(s string) string {
	seen := map[rune]bool{}
	var out []rune
	for _, r := range s {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return string(out)
}

// Only two non-ASCII characters fold to ASCII letters in Go; the prefilter counts them as
// extras of k and s.
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

func TestPrefilterAgreesWithTheEngine(t *testing.T) {
	texts := []string{"", "an Error occurred", "ERROR", "no problems", "Kelvin \u212aey", "mi\u017fs", "it FAILED",
		"exceptional", "def f(x):", "3 files", "x\xff\xfey", "a\nb", "\u0130stanbul SKILL", "sk\u0131ll"}
	for _, c := range []struct {
		d Dialect
		f Flags
		p []string
	}{
		{RE2, 0, []string{"(?i)error|failed|exception", "(?i)key", "(?i)miss", "def \\w+\\(.*\\):", "\\d+ files", "(?i)^b", "(?m)^b$", "\ufffd", "(?i)E"}},
		{JavaScript, IgnoreCase, []string{"error|failed", "key", "miss", "skill", "istanbul"}},
		{Python, IgnoreCase, []string{"error|failed", "key", "miss", "skill", "istanbul"}},
	} {
		for _, pat := range c.p {
			re := MustCompile(pat, c.d, c.f)
			for _, s := range texts {
				got, _ := re.MatchString(s)
				var want bool
				if re.re2 != nil {
					want = re.re2.MatchString(s)
				}
				if c.d == RE2 {
					want = regexp.MustCompile(pat).MatchString(s)
				}
				if got != want {
					t.Errorf("%s %q on %q: prefiltered %v, engine %v", c.d, pat, s, got, want)
				}
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
		want, err := regexp.Compile(pat)
		if err != nil {
			return
		}
		re, err := Compile(pat, RE2, 0)
		if err != nil {
			t.Fatalf("%q: RE2 accepts it, the layer does not: %v", pat, err)
		}
		if got, _ := re.MatchString(s); got != want.MatchString(s) {
			t.Errorf("%q on %q: prefiltered %v, regexp %v", pat, s, got, want.MatchString(s))
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
