package graders

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillgate/skillgate/spec"
)

// seedDef returns the grader named name from testdata/seeds/<file>.
func seedDef(t testing.TB, file, name string) *spec.Grader {
	t.Helper()
	for _, def := range defsFromFile(t, filepath.Join("testdata", "seeds", file)) {
		if def.Name == name {
			return def
		}
	}
	t.Fatalf("no grader %q in %s", name, file)
	return nil
}

func TestText(t *testing.T) {
	cases := []struct {
		name, file, grader, output string
		score                      float64
		passed                     bool
		feedback                   string
	}{
		{"seed format_checker passes", "text.yaml", "format_checker",
			"Success: deployed to https://app.io\nResource group: rg-1", 1, true, "All text checks passed"},
		{"seed format_checker: every check fails", "text.yaml", "format_checker",
			"Deployment FAILED: Permission denied", 0, false,
			"Missing expected substring: deployed to; Missing expected substring: Resource group; Found forbidden substring: permission denied; Missing expected pattern: https?://.+; Found forbidden pattern: (?i)error|failed|exception"},
		{"contains is case-insensitive", "text.yaml", "concepts", "Authentication with jwt and MIDDLEWARE", 1, true, "All text checks passed"},
		{"one of three substrings missing", "text.yaml", "concepts", "Authentication via JWT", 2.0 / 3, false, "Missing expected substring: middleware"},
		{"seed code_quality", "text.yaml", "code_quality", "def add(a, b):\n    return a + b\n", 1, true, "All text checks passed"},
		{"seed code_quality with a debug print and TODO", "text.yaml", "code_quality", "def add(a, b):\n    print(a)  # todo\n    return a + b\n", 4.0 / 6, false,
			"Found forbidden substring: TODO; Found forbidden pattern: print\\("},
		{"regex on the raw output is case-sensitive", "text.yaml", "format_check", "lowercase start", 0, false, "Missing expected pattern: ^[A-Z]"},
		{"seed no_azure", "text.yaml", "no_azure", "It is sunny.", 1, true, "All text checks passed"},
		{"seed no_azure: azure mentioned", "text.yaml", "no_azure", "Deploy to Azure", 1.0 / 3, false, "Found forbidden substring: azure; Found forbidden substring: deploy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := grade(t, mustCompile(t, seedDef(t, c.file, c.grader)), &Input{Run: runWith(c.output)})
			assertResult(t, r, c.score, c.passed, c.feedback)
			if r.Type != "text" || r.Name != c.grader {
				t.Errorf("identity %s/%s", r.Name, r.Type)
			}
		})
	}
}

func TestTextCaseSensitiveLists(t *testing.T) {
	def := defFromYAML(t, `
type: text
name: cs
config:
  contains_cs: [JWT]
  not_contains_cs: [TODO]
`)
	g := mustCompile(t, def)
	assertResult(t, grade(t, g, &Input{Run: runWith("uses JWT; todo later")}), 1, true, "All text checks passed")
	assertResult(t, grade(t, g, &Input{Run: runWith("uses jwt; TODO")}), 0, false,
		"Missing expected substring (case-sensitive): JWT; Found forbidden substring (case-sensitive): TODO")
	r := grade(t, g, &Input{Run: runWith("uses jwt")})
	for _, k := range []string{"contains", "not_contains", "contains_cs", "not_contains_cs", "regex_match", "regex_not_match", "failures"} {
		if _, ok := r.Details[k]; !ok {
			t.Errorf("details lack %s", k)
		}
	}
	if f := r.Details["failures"].([]string); len(f) != 1 {
		t.Errorf("failures %v", f)
	}
}

func TestRegexGrader(t *testing.T) {
	g := mustCompile(t, seedDef(t, "regex.yaml", "format_checker"))
	assertResult(t, grade(t, g, &Input{Run: runWith("deployed to https://a.io\nResource group: rg")}), 1, true, "All regex checks passed")
	// must_not_match is case-sensitive: "Error" does not match "error|failed|exception".
	assertResult(t, grade(t, g, &Input{Run: runWith("Error: permission denied")}), 0.25, false,
		"Missing expected pattern: deployed to https?://.+; Missing expected pattern: Resource group: .+; Found forbidden pattern: permission denied")
	r := grade(t, mustCompile(t, seedDef(t, "regex.yaml", "format_check")), &Input{Run: runWith("deployed to prod")})
	assertResult(t, r, 1, true, "All regex checks passed")
	if r.Type != "regex" || r.Details["must_match"] == nil {
		t.Errorf("details %v", r.Details)
	}
}

func TestTextCompileErrors(t *testing.T) {
	checkCompileErrors(t, []compileErrorCase{
		{"invalid regex names the item", "type: text\nname: t\nconfig:\n  regex_match:\n    - ok\n    - \"(unclosed\"\n", "6:7", `invalid regular expression "(unclosed"`},
		{"lookahead is not RE2", "type: text\nname: t\nconfig:\n  regex_not_match: ['(?!x)']\n", "4:21", "invalid regular expression"},
		{"regex grader invalid", "type: regex\nname: r\nconfig:\n  must_not_match: ['a{2,1}']\n", "4:20", "invalid regular expression"},
		{"wrong type", "type: text\nname: t\nconfig:\n  contains: deployed\n", "4:13", `config.contains must be a list of strings, not the string "deployed"`},
		{"wrong item type", "type: text\nname: t\nconfig:\n  contains:\n    - [a, b]\n", "5:7", "config.contains[0] must be a string, not a list"},
	})
}

// keyword: the grader of some waza releases, as suites still declare it.
func TestKeyword(t *testing.T) {
	g := mustCompile(t, defFromYAML(t, "type: keyword\nname: k\nconfig:\n  must_contain: [Deploy]\n  keywords: [azd]\n  must_not_contain: [error]\n"))
	assertResult(t, grade(t, g, &Input{Run: runWith("deploy with AZD")}), 1, true, "All keyword checks passed")
	assertResult(t, grade(t, g, &Input{Run: runWith("deploy failed: error")}), 1.0/3, false, "Missing expected keyword: azd; Found forbidden keyword: error")
}

// pattern: a one-item regex_match on text graders and must_match on regex graders.
func TestPatternKey(t *testing.T) {
	for _, src := range []string{
		"type: text\nname: t\nconfig:\n  pattern: '(?i)skill'\n",
		"type: regex\nname: t\nconfig:\n  pattern: '(?i)skill'\n",
	} {
		g := mustCompile(t, defFromYAML(t, src))
		if r := grade(t, g, &Input{Run: runWith("uses the SKILL")}); !r.Passed {
			t.Errorf("%s: %+v", src, r)
		}
		if r := grade(t, g, &Input{Run: runWith("nothing")}); r.Passed || !strings.Contains(r.Feedback, "Missing expected pattern: (?i)skill") {
			t.Errorf("%s: %+v", src, r)
		}
	}
}
