package graders

import (
	"fmt"
	"regexp"

	"github.com/skillgate/skillgate/internal/regex"
	"github.com/skillgate/skillgate/spec"
)

// jsRegexp is a Vally pattern compiled in the JavaScript dialect (internal/regex): Vally is
// TypeScript and compiles patterns with `new RegExp`, without the `u` flag.
type jsRegexp = regex.Regexp

// compileJSRegex compiles a Vally pattern: JavaScript syntax, a leading (?i), (?m), (?s) or a
// combination turned into flags, as Vally converts them.
func compileJSRegex(def *spec.Grader, key, pattern string) (*jsRegexp, *spec.Diagnostic) {
	var flags regex.Flags
	if m := leadingFlags.FindStringSubmatch(pattern); m != nil {
		for _, f := range m[1] {
			flags |= map[rune]regex.Flags{'i': regex.IgnoreCase, 'm': regex.Multiline, 's': regex.DotAll}[f]
		}
		pattern = pattern[len(m[0]):]
	}
	re, err := regex.Compile(pattern, regex.JavaScript, flags)
	if err != nil {
		d := spec.Errorf(def.ConfigAt(key), "config."+key, "write a JavaScript regular expression", "grader %q: invalid regular expression %q: %v", def.Name, pattern, err)
		return nil, &d
	}
	return re, nil
}

var leadingFlags = regexp.MustCompile(`^\(\?([ims]+)\)`)

// jsMatch matches a compiled Vally pattern; a pattern that backtracks past regex.Timeout is
// an error (the grader errors in that run).
func jsMatch(re *jsRegexp, s string) (bool, error) {
	ok, err := re.MatchString(s)
	if err != nil {
		return false, fmt.Errorf("%q: %w", re.String(), err)
	}
	return ok, nil
}
