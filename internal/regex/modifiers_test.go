package regex

import "testing"

// ES2025 regular expression modifiers, (?flags:…) and (?flags-flags:…), as node 23 and later
// read them: the flags change inside the group only, a repeated flag, a flag both added and
// removed, and (?-:…) are syntax errors. Vally compiles patterns with `new RegExp`, so a spec that
// writes `(?i:\bazd\s+up\b)` (as GitHub-Copilot-for-Azure's tool-calls graders do) runs on
// Vally under node 24. The verdicts follow ECMA-262 2025, §22.2.2.
func TestJavaScriptModifierGroups(t *testing.T) {
	cases := []struct {
		pattern string
		flags   Flags
		text    string
		want    bool
	}{
		{`(?i:\bazd\s+(up|provision)\b|\bterraform\s+apply\b)`, 0, "run AZD Up now", true},
		{`(?i:\bazd\s+(up|provision)\b|\bterraform\s+apply\b)`, 0, "Terraform APPLY", true},
		{`(?i:\bazd\s+(up|provision)\b|\bterraform\s+apply\b)`, 0, "azd deploy", false},
		{`a(?i:b)c`, 0, "aBc", true},
		{`a(?i:b)c`, 0, "aBC", false}, // c is outside the group: case-sensitive
		{`a(?i:b)c`, 0, "ABc", false},
		{`(?-i:a)b`, IgnoreCase, "aB", true}, // b keeps the pattern's i
		{`(?-i:a)b`, IgnoreCase, "AB", false},
		{`(?s:.)`, 0, "\n", true},
		{`(?s:a).`, 0, "a\n", false}, // the second . is outside: no DotAll
		{`(?m:^b)`, 0, "a\nb", true},
		{`(?m:^a)|^b`, 0, "x\nb", false},
		{`(?ims:^A.)`, 0, "x\na\n", true},
		{`(?i-s:a.)`, DotAll, "A\n", false},
		{`(?i:(a))\1`, 0, "Aa", false}, // the backreference is outside the group: exact
		{`(?i:(a)\1)`, 0, "Aa", true},
		{`(?:a)`, 0, "a", true},
	}
	for _, c := range cases {
		re, err := Compile(c.pattern, JavaScript, c.flags)
		if err != nil {
			t.Errorf("/%s/: %v", c.pattern, err)
			continue
		}
		got, err := re.MatchString(c.text)
		if err != nil || got != c.want {
			t.Errorf("/%s/ on %q: %v, %v; want %v", c.pattern, c.text, got, err, c.want)
		}
	}
	for _, bad := range []string{`(?ii:a)`, `(?i-i:a)`, `(?-:a)`, `(?x:a)`, `(?i)a`, `(?i`, `(?i-m`, `(?u:a)`, `(?-:)`} {
		if _, err := Compile(bad, JavaScript, 0); err == nil {
			t.Errorf("/%s/ compiled; ECMA-262 rejects it", bad)
		}
	}
}
